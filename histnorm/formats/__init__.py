"""The codecs histnorm reads and writes, and format detection."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from histnorm.analysis.outline import (
    OUTLINE_MEMO,
    Outline,
    build_outline,
    kept_outline,
    seed_steps,
)
from histnorm.analysis.read_size import keep_text
from histnorm.choices import FORMAT_NAMES
from histnorm.content_keys import ANY_CONTENT, unread_content
from histnorm.errors import HistnormError, NotATranscript, join_pointer
from histnorm.formats.base import Codec, converse_body, messages_sniff, type_name
from histnorm.formats.signature import candidates
from histnorm.model_terms import JsonValue, memo_source, same_source

if TYPE_CHECKING:
    from histnorm.analysis.context import Context
    from histnorm.model import Transcript
    from histnorm.settings import Settings

_CLASSES = {
    "openai-chat": ("openai_chat", "OpenAIChatCodec"),
    "meai": ("meai", "MeaiCodec"),
    "anthropic": ("anthropic", "AnthropicCodec"),
    "openai-responses": ("openai_responses", "OpenAIResponsesCodec"),
    "gemini": ("gemini", "GeminiCodec"),
    "sharegpt": ("sharegpt", "ShareGPTCodec"),
    "chat-template": ("chat_template", "ChatTemplateCodec"),
    "langchain": ("langchain", "LangChainCodec"),
    "agent-framework": ("agent_framework", "AgentFrameworkCodec"),
    "claude-code": ("claude_code", "ClaudeCodeCodec"),
    "codex": ("codex", "CodexCodec"),
    "pydantic-ai": ("pydantic_ai", "PydanticAICodec"),
    "vercel-ai": ("vercel_ai", "VercelAICodec"),
    "bedrock-converse": ("bedrock_converse", "BedrockConverseCodec"),
    "trl": ("trl", "TRLCodec"),
    "semantic-kernel": ("semantic_kernel", "SemanticKernelCodec"),
    "llama-index": ("llama_index", "LlamaIndexCodec"),
}
"""Each format's codec: the package under `histnorm.formats` and the class it defines."""


class _Codecs(Mapping[str, Codec]):
    """The codecs by format name, each imported and built the first time it is asked for:
    a run reads one or two formats, and importing all seventeen would cost more than
    reading the file. Iterating the names (or `in`) imports nothing; `values()` and
    `items()` import every codec."""

    def __init__(self) -> None:
        self._built: dict[str, Codec] = {}

    def __getitem__(self, name: str) -> Codec:
        codec = self._built.get(name)
        if codec is None:
            package, cls = _CLASSES[name]  # KeyError for an unknown name, as a dict
            module = importlib.import_module(f"histnorm.formats.{package}")
            codec = self._built.setdefault(name, getattr(module, cls)())
            assert codec.name == name, (codec.name, name)
        return codec

    def __contains__(self, name: object) -> bool:
        return name in _CLASSES

    def __iter__(self) -> Iterator[str]:
        return iter(_CLASSES)

    def __len__(self) -> int:
        return len(_CLASSES)

    def __repr__(self) -> str:
        return f"<codecs {', '.join(_CLASSES)}>"


assert tuple(_CLASSES) == FORMAT_NAMES, "histnorm.choices names every format, in order"

CODECS: Mapping[str, Codec] = _Codecs()
"""Every codec by format name, in detection-tie order."""


def outline_of(transcript: Transcript) -> Outline:
    """The outline of a decoded transcript, as its codec tells it (computed once per
    transcript): the reference every codec's `outline(native)` equals. The kept answer is
    used only while the transcript still holds what it was computed from, so a copy made
    with `model_copy(update=...)` gets its own (`kept_outline`)."""
    found = kept_outline(transcript)
    if found is not None:
        return found
    codec = CODECS.get(transcript.format or "")
    found = build_outline(transcript) if codec is None else codec.outline_of(transcript)
    transcript.__dict__[OUTLINE_MEMO] = (memo_source(transcript), found)
    return found


_READ = "_histnorm_read"
"""Where `seed_read` keeps the native value a transcript was decoded from, and its text."""


def seed_read(
    transcript: Transcript,
    outline: Outline | None,
    native: JsonValue = None,
    raw: bytes | None = None,
) -> Transcript:
    """`transcript`, decoded from the parsed `native` (the JSON text `raw`, when known),
    holding what was read on the way while it holds what it was decoded from: `outline`,
    which its codec's fast reader read from `native`, as its own (`outline_of`: the two are
    equal, the representation test), and `native` and `raw` for the size and media checks
    (`model_context`), which rule themselves out on that JSON as on the fast path.
    Returns `transcript`."""
    source = memo_source(transcript)
    if outline is not None and outline.format == transcript.format:
        transcript.__dict__[OUTLINE_MEMO] = (source, outline)
        reader = transcript.format
        if reader is not None and reader in CODECS:  # its steps, as `outline_of` keeps them
            seed_steps(transcript, outline, reader)
    if native is not None:
        transcript.__dict__[_READ] = (source, native, raw)
        if raw is not None:  # what the fixed ones hold as read is bounded by its length
            keep_text(transcript, native, raw)
    return transcript


def model_context(transcript: Transcript, settings: Settings) -> Context:
    """The context the checks of a decoded transcript read: its outline, and the native
    value it was decoded from while it still holds what it was read as (`seed_read`)."""
    from histnorm.analysis.context import Context  # the checks' own: loaded when they run

    held = transcript.__dict__.get(_READ)
    if held is not None and same_source(held[0], memo_source(transcript)):
        return Context(outline_of(transcript), settings, transcript, held[1], held[2])
    return Context(outline_of(transcript), settings, transcript)


def get_codec(name: str) -> Codec:
    """The codec named `name`; raise `HistnormError` listing the known names otherwise."""
    try:
        return CODECS[name]
    except KeyError:
        known = ", ".join(CODECS)
        raise HistnormError(f"unknown format {name!r}; known formats: {known}") from None


STRONG = 0.9
"""A score at or above which a codec saw marks only its format has."""


def claims(data: JsonValue) -> dict[str, float]:
    """The codecs that claim `data` on their format's own marks, with their scores (in
    `CODECS` order). Only the codecs `histnorm.formats.signature.candidates` names are
    asked: no other could claim `data`."""
    found = {}
    may = candidates(data)
    for name in CODECS:
        if name in may:
            score = CODECS[name].sniff(data)
            if score > 0:
                found[name] = score
    return found


def detect_format(data: JsonValue) -> str:
    """Pick the format of a parsed native document from its own marks.

    Raises `NotATranscript` for valid JSON that holds no transcript (no codec claims it
    and nothing in it looks like messages), and `HistnormError` for messages no codec
    reads (a broken message, or marks of two formats) or two sure claims (ambiguous).
    Among weaker claims (plain text chat reads the same in several formats) the order of
    `CODECS` decides.
    """
    return pick(claims(data), data)


SURE_READER = "openai-chat"
"""The format whose fast reader can prove, in the walk that reads a history's outline,
that detection picks it (`Codec.read_detected`): the usual history an application
holds, detected without the signature and the sniffs."""


def detect_reading(data: JsonValue) -> tuple[str, Outline | None]:
    """`detect_format(data)`, and the outline the fast reader of that format reads of
    `data` (None: it reads none). When OpenAI Chat's reader proves its format on the way
    (`SURE_READER`), that one walk is all detection costs."""
    outline, sure = CODECS[SURE_READER].read_detected(data)
    if sure:
        return SURE_READER, outline
    found = detect_format(data)
    return found, outline if found == SURE_READER else CODECS[found].read_outline(data)


def pick(found: Mapping[str, float], data: JsonValue) -> str:
    """The format `found` (the claims on `data`) settles on; raise as `detect_format`."""
    if not found:
        from histnorm.formats.bedrock_converse import strands_session_message

        _explain(data)
        if _one_message(data):
            raise HistnormError(
                "this is one message (or session event), not a transcript; a JSONL file "
                "of messages is one transcript (--jsonl-mode message)",
                pointer="",
            )
        if strands_session_message(data):
            raise NotATranscript(
                "not a transcript: one message of a Strands Agents session (its "
                "FileSessionManager keeps each message in a file of its own); histnorm "
                "reads a Strands history as one list of messages (bedrock-converse)",
                pointer="",
            )
        if converse_body(data):
            raise HistnormError(
                "this looks like a Bedrock Converse request body or history (untyped "
                "content blocks, inferenceConfig, toolConfig) but does not read as one: a "
                "message role other than user, assistant or system, content that is no "
                "array of blocks, or blocks of another format beside Converse ones; pass "
                "--format bedrock-converse to see where",
                pointer="",
            )
        elsewhere = _content_elsewhere(data)
        if elsewhere:
            raise NotATranscript(
                "not a transcript in a format histnorm reads: its messages keep their "
                f"content under {', '.join(map(repr, elsewhere))}, where no format histnorm "
                "reads has it",
                pointer="",
            )
        if _looks_like_messages(data):
            raise HistnormError(
                "could not tell the transcript format: the messages carry no format's "
                "marks, or the marks of more than one; pass --format to read them as one "
                "of: " + ", ".join(CODECS),
                pointer="",
            )
        raise NotATranscript(_not_a_transcript(data), pointer="")
    best = max(found.values())
    top = [name for name, score in found.items() if score == best]
    if len(top) > 1 and best >= STRONG:
        raise HistnormError(
            f"ambiguous transcript: it reads as {' and as '.join(top)}; pass --format",
            pointer="",
        )
    return top[0]


def common_format(found: Iterable[Mapping[str, float]]) -> str | None:
    """The one format of a file whose transcripts have the claims `found`: the codec that
    claims the most of them (ties: the one claiming an earlier transcript, then the
    surer claim, then `CODECS` order); None when no transcript is claimed at all."""
    count: dict[str, int] = dict.fromkeys(CODECS, 0)
    first: dict[str, int] = {}
    surest: dict[str, float] = dict.fromkeys(CODECS, 0.0)
    for index, claimed in enumerate(found):
        for name, score in claimed.items():
            count[name] += 1
            first.setdefault(name, index)
            surest[name] = max(surest[name], score)
    order = {name: i for i, name in enumerate(CODECS)}
    best = max(CODECS, key=lambda n: (count[n], -first.get(n, len(order)), surest[n], -order[n]))
    return best if count[best] else None


FAMILIES: tuple[frozenset[str], ...] = (frozenset({"openai-chat", "chat-template"}),)
"""Formats whose records read the same wherever both claim them, so one file may hold
both: a Hugging Face dataset's plain rows are OpenAI Chat rows, and its tool rows (object
`arguments`, no ids) chat-template ones. Both go to the same provider profile."""


def kin(file_format: str, found: Mapping[str, float]) -> str | None:
    """The surest format among the claims `found` of one transcript that shares a family
    with the file's format `file_format`, or None."""
    family = next((f for f in FAMILIES if file_format in f), frozenset({file_format}))
    near = [name for name in found if name in family]
    return max(near, key=lambda name: found[name]) if near else None


def in_file_format(data: JsonValue, file_format: str) -> str:
    """`file_format` when its codec claims `data`, else a format of its family that does
    (`FAMILIES`); otherwise raise: `NotATranscript` when no codec claims `data`,
    `HistnormError` naming the formats `data` reads as when others do."""
    if CODECS[file_format].sniff(data) > 0:
        return file_format
    found = claims(data)
    if not found:
        return pick(found, data)  # raises
    near = kin(file_format, found)
    if near is not None:
        return near
    raise HistnormError(
        f"this transcript reads as {', '.join(found)}, not as {file_format} like the "
        "file's other transcripts; histnorm reads one format per file (pass --format, or "
        "--detect per-line to detect each line on its own)",
        pointer="",
    )


_ENVELOPES = ("messages", "contents", "input", "conversations")


def _one_message(data: JsonValue) -> bool:
    """Whether `data` is a single message object (a role) or session event (a uuid)."""
    return isinstance(data, dict) and bool(
        {"role", "parentuuid", "uuid"} & {k.casefold() for k in data if isinstance(k, str)}
    )


def _looks_like_messages(data: JsonValue) -> bool:
    """Whether `data` holds a list of objects with a role (or turn, or event) key, or
    objects under `messages`: a transcript no codec could read, not JSON of another kind."""
    lists = [data] if isinstance(data, list) else []
    if isinstance(data, dict):
        messages = data.get("messages")
        if isinstance(messages, list) and any(isinstance(m, dict) for m in messages):
            return True
        lists = [data[k] for k in _ENVELOPES if isinstance(data.get(k), list)]
    return any(
        isinstance(m, dict) and _MESSAGE_KEYS & {k.casefold() for k in m}
        for items in lists
        for m in items[:50]
    )


_MESSAGE_KEYS = {"role", "from", "parentuuid", "lc"}


def _content_elsewhere(data: JsonValue) -> list[str]:
    """The keys under which the messages of `data` keep their content when every message
    (an object with a role) has none where any format keeps content (`ANY_CONTENT`) and
    something under a key no codec knows (`histnorm.content_keys`); empty otherwise."""
    messages = messages_sniff(data, "messages")
    known = frozenset().union(*(codec.message_keys for codec in CODECS.values()))
    found: list[str] = []
    for message in (messages or [])[:50]:
        unread = unread_content(message, ANY_CONTENT, known) if isinstance(message, dict) else []
        if not unread or "role" not in message:
            return []
        if unread[0] not in found:
            found.append(unread[0])
    return found[:3]


def _not_a_transcript(data: JsonValue) -> str:
    items = data if isinstance(data, list) else []
    first = items[0] if items else data
    if isinstance(first, dict) and {"prompt", "chosen", "rejected"} <= first.keys():
        return "not a transcript: a preference pair (prompt, chosen, rejected)"
    if isinstance(first, dict) and "instruction" in first and "output" in first:
        return "not a transcript: an instruction dataset record (Alpaca: instruction, output)"
    return "not a transcript: no messages in the shape of any format histnorm reads"


def _explain(data: JsonValue) -> None:
    """Raise a located error for the first message that keeps every codec from reading `data`."""
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        turns = data["conversations"]
        if any(isinstance(t, dict) and "from" in t for t in turns):
            _explain_turns(turns, "/conversations", ("from", "value"))
        return
    messages = messages_sniff(data, "messages")
    if not messages or not _looks_like_messages(data):
        return
    base = "/messages" if isinstance(data, dict) else ""
    role_based = not any(  # LangChain dumps carry "type" and "data" / "kwargs" instead
        isinstance(m, dict) and "type" in m and ({"data", "kwargs", "lc"} & m.keys())
        for m in messages
    )
    for index, message in enumerate(messages):
        at = join_pointer(base, index)
        if not isinstance(message, dict):
            raise HistnormError(
                f"expected a message (an object), got {type_name(message)}", pointer=at
            )
        if role_based and not any(key.casefold() == "role" for key in message):
            raise HistnormError("the message role is missing", pointer=join_pointer(at, "role"))


def _explain_turns(turns: list[JsonValue], base: str, keys: tuple[str, ...]) -> None:
    for index, turn in enumerate(turns):
        at = join_pointer(base, index)
        if not isinstance(turn, dict):
            raise HistnormError(f"expected a turn (an object), got {type_name(turn)}", pointer=at)
        for key in keys:
            if key not in turn:
                raise HistnormError(f'the turn has no "{key}"', pointer=join_pointer(at, key))


__all__ = [
    "CODECS",
    "STRONG",
    "Codec",
    "claims",
    "common_format",
    "detect_format",
    "detect_reading",
    "get_codec",
    "in_file_format",
    "kin",
    "outline_of",
    "pick",
]
