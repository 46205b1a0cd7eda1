"""What every codec provides, and the small helpers codecs share."""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, ClassVar, Final

from histnorm.analysis.outline import IMAGE_SLOT, Outline, build_outline
from histnorm.content_keys import unread_content
from histnorm.errors import HistnormError, join_pointer
from histnorm.errors import type_name as type_name  # re-exported for the codecs
from histnorm.formats._fixed_types import changed_type
from histnorm.lazy import model
from histnorm.model_terms import (
    HELD,
    REUSE,
    UNREAD,
    JsonValue,
    decoder_key,
    memo_source,
    same_source,
)

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript


def _model_type() -> Any:
    """`pydantic.BaseModel`, or `()` (what `isinstance` finds nothing in) when pydantic was
    never imported: then nothing is a model, and the outline path never loads it to tell."""
    pydantic = sys.modules.get("pydantic")
    return () if pydantic is None else pydantic.BaseModel


_WRITTEN = "_histnorm_written"
"""Where `Codec.written` keeps a transcript's encoding in its `__dict__`."""

LIST_WINDOW = 200
"""How many lines of a session detection reads at most: the session formats' sniffs read
the first 200 and the signature the first 50, and a message list's sniff finds no
message among session lines. So a list whose first `LIST_WINDOW` items detection reads
as a session is detected so whatever follows them (`histnorm.document.streamed` detects
a long session on them; `tests/test_streamed.py` holds detection to that)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()
"""Marks a key to delete in `rebuild`."""


class Codec(ABC):
    """Reads one stored format into the canonical model and writes it back.

    `decode` never mutates its input; `encode(decode(x)) == x` for every valid `x`.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    needs_call_ids: ClassVar[bool] = True
    """False when the format pairs calls and results by position and ids are optional."""
    items_are_messages: ClassVar[bool] = False
    """True when each call and result is its own message (OpenAI Responses items), so a
    batch of parallel calls spans several messages."""
    one_result_per_message: ClassVar[bool] = False
    """True when the native form holds each tool result in a message of its own (OpenAI
    Chat `tool` messages, Responses items), so results can never share a message."""
    held_items: ClassVar[tuple[str, str] | None] = None
    """For a session format whose messages are each the value of one key of the lines of
    one `type`: that type and that key. A long session that is not proven clean as it is
    read is then held as text, each line parsed when something asks for it
    (`histnorm.held_lines.HeldLines`)."""
    known_roles: ClassVar[frozenset[str] | None] = None
    """The message roles (casefolded, as decoded) the format defines; any other role is
    unknown content (HN013). None: roles come from a closed set of types, never free text."""
    read_call_keys: ClassVar[frozenset[str] | None] = None
    """The keys of `histnorm.call_keys.CALL_KEYS` this codec reads; the others, when a
    native message carries them, hold calls or results it cannot see (HN013). None: its
    native messages are not flat objects where such keys could sit (nothing is checked)."""
    empty_rejected: ClassVar[str | None] = None
    """What the format's own loader says of a history with no message, when it rejects
    one (None: it reads one): `fix` never leaves such a history empty (`check_fixed`)."""
    derived_keys: ClassVar[frozenset[str]] = frozenset()
    """Keys whose values the writer works out from the history (a tool part's `state`
    from whether its result is there), so a fix elsewhere may change them: the
    conservation check (`histnorm.conserve`) does not ask for their old values."""
    verbatim_types: ClassVar[frozenset[str]] = frozenset()
    """`UnknownPart` types the codec recognises and keeps verbatim on purpose: content that
    is no client tool call or result (server-side items, bookkeeping blocks)."""
    content_keys: ClassVar[tuple[str, ...]] = ()
    """The native message keys the codec reads content from (compared in any casing, with
    or without underscores: `histnorm.content_keys.fold`), likeliest first.
    A message holding none of them but something under a key outside `message_keys` holds
    content the codec cannot read (HN013; `histnorm.content_keys`). Empty: not checked."""
    message_keys: ClassVar[frozenset[str]] = frozenset()
    """The other native message keys the codec reads or knows to hold no content."""

    def unread_content(self, native: Any) -> list[str]:
        """The keys of the native message `native` holding content this codec does not
        read, when it holds none the codec reads (`histnorm.content_keys.unread_content`)."""
        if not self.content_keys:
            return []
        return unread_content(native, self.content_keys, self.message_keys)

    @abstractmethod
    def sniff(self, data: JsonValue) -> float:
        """How sure (0 to 1) the codec is that `data` is in its format; 0 means "not mine"."""

    @abstractmethod
    def decode(self, data: JsonValue) -> Transcript:
        """Build a transcript from a parsed native document; raise `HistnormError` if malformed."""

    @abstractmethod
    def encode(self, transcript: Transcript) -> JsonValue:
        """Build the native document for `transcript`."""

    def decode_read(self, data: JsonValue, outline: Outline | None) -> Transcript:
        """`decode(data)`, given the outline this codec's fast reader read of `data` (None:
        it did not read it), which a codec may build its messages from as it needs them."""
        return self.decode(data)

    def written(self, transcript: Transcript) -> JsonValue:
        """What `encode` gives for `transcript`, computed once per transcript (kept in its
        `__dict__` while it holds what it was computed from, as `outline_of` keeps the
        outline), for the checks of a fix, which read it and never change it: in a run of
        fixes, the transcript after one rule's fixes is the one before the next rule's,
        and the last one is checked again by `check_fixed`."""
        memo = transcript.__dict__
        source = memo_source(transcript)
        held = memo.get(_WRITTEN)
        if held is not None and same_source(held[0], source):
            return held[1]
        found = self.encode(transcript)
        memo[_WRITTEN] = (source, found)
        return found

    @abstractmethod
    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """The JSON Pointer of message `message_index` in the native document."""

    @abstractmethod
    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """The JSON Pointer of part `part_index` of message `message_index`."""

    def decode_written(self, data: JsonValue, transcript: Transcript) -> Transcript:
        """What `data`, the encoding of `transcript`, decodes as (`decode`): a codec may
        reuse the messages of `transcript` whose native values `data` holds as read."""
        return self.decode(data)

    def outline(self, data: JsonValue) -> Outline:
        """The outline of `data` (`histnorm.analysis.outline`): what `read_outline` reads,
        else `outline_of` the decoded transcript; raises `HistnormError` if malformed."""
        found = self.read_outline(data)
        if found is not None:
            return found
        return self.outline_of(self.decode(data))

    def outline_of(self, transcript: Transcript) -> Outline:
        """The outline of a decoded transcript: the reference `outline` must equal."""
        unread = self.unread_content if self.content_keys else None
        flags = self.outline_flags(transcript)
        return build_outline(transcript, self.read_call_keys, flags, unread, self.name)

    def outline_flags(self, transcript: Transcript) -> int:
        """Outline flags of the whole transcript only the codec can tell (default none)."""
        return 0

    def held_messages(self, transcript: Transcript) -> Mapping[int, str]:
        """The messages no fix may reach, each with why: the codec cannot tell how to
        write an edit of them back (default: none). Asked only when a fix is offered."""
        return {}

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline of `data` read without building models, or None for anything the
        fast reader does not handle (`outline` decodes those). The default reads nothing."""
        return None

    def read_streamed(self, lines: Iterable[Any], sizes: list[int]) -> Outline | None:
        """`read_outline` of a list of lines given one at a time, none held once read (a
        long session file, `histnorm.document.streamed`); `sizes` holds the byte size of
        each line read once `lines` is exhausted. None: the format's reader does not read
        it (the default: it reads no list a line at a time)."""
        return None

    def read_scored(self, data: JsonValue) -> tuple[Outline, float] | None:
        """The outline `read_outline` reads of `data` and the `sniff` score of `data`,
        found in the same walk, or None when the fast reader does not read `data` or
        does not tell its score (the default)."""
        return None

    def read_detected(self, data: JsonValue) -> tuple[Outline | None, bool]:
        """`read_outline(data)`, and whether the same walk proved that `detect_format`
        gives this format for `data` (`histnorm.formats.detect_reading`). The default
        proves nothing."""
        return self.read_outline(data), False

    def read_back(self, fixed: Transcript) -> Transcript | None:
        """The transcript the encoding of `fixed` reads back as, when its messages differ
        (a reader that chooses what to read, as Claude Code's active branch), else None.
        `fix` repairs that transcript too, so the file it writes is its own fixpoint. The
        default: the encoding reads back as `fixed`."""
        return None

    def conversations(self, transcript: Transcript) -> tuple[tuple[int, ...], ...] | None:
        """The conversations `transcript` holds when it holds more than one (a TRL
        preference pair: the prompt with each answer), each as the indices of its
        messages; the rules run on each, and `join` puts the fixed ones back. None (the
        default): the transcript is one conversation."""
        return None

    def join(self, transcript: Transcript, parts: Sequence[Transcript]) -> Transcript | str:
        """`transcript` rebuilt from its `conversations`, each fixed (`parts`), or why they
        cannot be joined. Only codecs whose `conversations` returns some define it."""
        raise NotImplementedError(f"{self.name} holds one conversation per transcript")

    def message_arrays(self, transcript: Transcript) -> tuple[str, ...]:
        """The JSON Pointers of the arrays holding the messages of `transcript` in its
        native document (one, but for formats that keep several message lists)."""
        if not transcript.messages:
            return ()
        return (self.message_pointer(transcript, 0).rsplit("/", 1)[0],)

    def rename_references(self, transcript: Transcript, renames: Mapping[str, str]) -> Transcript:
        """`transcript` with the call ids `renames` maps (old to new) rewritten where the
        format cites them outside its messages (records no message is read from). The
        default: the format cites call ids in its messages only."""
        return transcript

    def check_fixed(self, original: Transcript, fixed: Transcript) -> str | None:
        """What the fixed transcript would break for the format's consumers, or None.

        `fix` calls this after repairing `original` and refuses the repair when it returns
        a problem. The default refuses a history emptied where the loader rejects an empty
        one (`emptied`), and a change of JSON type (`changed_type`) of a top-level key of
        the envelope or of a message that is kept."""
        return emptied(self, original, fixed) or changed_type(self, original, fixed)


def emptied(codec: Codec, original: Transcript, fixed: Transcript) -> str | None:
    """Why `fixed` must not be written when a fix removed every message of `original` and
    the format's loader rejects an empty history (`Codec.empty_rejected`), or None."""
    if fixed.messages or not original.messages or codec.empty_rejected is None:
        return None
    return f"the fixed history would hold no message, and {codec.empty_rejected}"


class MessageListCodec(Codec):
    """A codec whose documents are a message list, bare or under `envelope_key` in an object
    whose other keys are kept (a request body, a dataset record)."""

    envelope_key: ClassVar[str] = "messages"
    message_noun: ClassVar[str] = "messages"

    @staticmethod
    @abstractmethod
    def message_decoder(obj: Any, pointer: str = "") -> Message:
        """Decode one native message found at `pointer`: a module-level function, set as
        `staticmethod(decode_message)`, which the writer hands `reuse_native` too."""

    def decode(self, data: JsonValue) -> Transcript:
        """Decode a bare message list or an object holding one under `envelope_key`."""
        return self._decode(data, {})

    def decode_written(self, data: JsonValue, transcript: Transcript) -> Transcript:
        """`Codec.decode_written`: a native message of `data` that is the very value a
        message of `transcript` was read from, still as read (`reads_as`), is that message,
        not decoded again; when every one is, in order, `data` reads as `transcript`."""
        decoder = self.message_decoder
        read = transcript.messages
        messages = data.get(self.envelope_key) if isinstance(data, dict) else data
        if (
            isinstance(messages, list)
            and len(messages) == len(read)
            and transcript.format == self.name
            and transcript.server_state is None
            and transcript.native == (data if isinstance(data, dict) else None)
            and all(
                n is m.native and reads_as(m, decoder) for n, m in zip(messages, read, strict=True)
            )
        ):
            return transcript  # its envelope, and each message written as read: itself
        return self._decode(data, {id(m.native): m for m in read if reads_as(m, decoder)})

    def decode_read(self, data: JsonValue, outline: Outline | None) -> Transcript:
        """`decode(data)`, given the outline this codec's fast reader read of `data` (None:
        it did not read it): then each message is built unread (`model.unread_message`),
        and decoded only when something asks for more than its native value."""
        if outline is None or outline.format != self.name:
            return self.decode(data)
        messages, base = split_envelope(data, self.envelope_key, self.message_noun)
        if len(messages) != len(outline.messages):
            return self.decode(data)
        at = ((native, f"{base}/{i}") for i, native in enumerate(messages))
        found = unread_messages(at, self.message_decoder, outline.imageless)
        native = data if isinstance(data, dict) else None
        return model.Transcript(messages=found, format=self.name, native=native)

    def _decode(self, data: JsonValue, known: Mapping[int, Message]) -> Transcript:
        """`decode`, taking the message `known` holds by the `id` of a native message."""
        messages, base = split_envelope(data, self.envelope_key, self.message_noun)
        decoder = self.message_decoder
        key = decoder_key(decoder)  # each message marked as what it makes (`decoded`)
        found: list[Message] = []
        for i, m in enumerate(messages):
            message = known.get(id(m)) if known else None
            if message is None:  # an index needs no escape in its pointer
                message = marked(decoder(m, f"{base}/{i}"), key)
            found.append(message)
        decoded = tuple(found)
        native = data if isinstance(data, dict) else None
        return model.Transcript(messages=decoded, format=self.name, native=native)

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/N` for a bare list, `/<envelope_key>/N` inside an object."""
        base = "/" + self.envelope_key if isinstance(transcript.native, dict) else ""
        return join_pointer(base, message_index)


def unread_messages(
    natives: Iterable[tuple[Any, str]], decoder: Callable[..., Message], imageless: bool
) -> tuple[Message, ...]:
    """A message built unread (`model.unread_message`) for each native value and its
    pointer, which `decoder` decodes (a codec's fast reader read every one), marked as
    holding no image slot (`holds_image_slot`) when the reader saw none in any
    (`imageless`). Unread, each is what `decoder` makes of its native value
    (`reads_as`), and reading it marks it so (`decoded`)."""
    unread = model.unread_message
    if not imageless:
        return tuple(unread(native, decoder, pointer) for native, pointer in natives)
    found = []
    for native, pointer in natives:
        message = unread(native, decoder, pointer)
        message.__dict__[IMAGE_SLOT] = (id(message), False)
        found.append(message)
    return tuple(found)


def messages_held(
    lines: Any, indices: Iterable[int], decoder: Callable[..., Message], imageless: bool
) -> tuple[Message, ...]:
    """`unread_messages` of lines held as text (`histnorm.held_lines.HeldLines`): a
    message for each line index in `indices`, whose native value is parsed from its line
    when first asked for (`model.unread_held`)."""
    held = model.unread_held
    unread = (decoder, None, lines, imageless)
    return tuple(held(unread, index) for index in indices)


def rebuild(native: Mapping[str, Any], updates: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `native` with `updates` applied in place; new keys go last, MISSING deletes."""
    out: dict[str, Any] = {}
    for key, value in native.items():
        if key in updates:
            if updates[key] is not MISSING:
                out[key] = updates[key]
        else:
            out[key] = value
    for key, value in updates.items():
        if key not in native and value is not MISSING:
            out[key] = value
    return out


_NONE: dict[str, Any] = {}
"""The `__dict__` of an object without one, for `reuse_native` (never written)."""


def reuse_native(obj: Any, decoder: Callable[[Any], Any]) -> bool:
    """Whether `obj` is exactly what decoding its own native value gives (it was not changed).

    The answer is kept on `obj` for a module-level decoder (`decoder_key`), so the several
    encodings one fix makes (the output, its post-condition, its read-back) decode each
    kept message once. Models are frozen, so an answer holds for the model it was found
    for; a copy (`model_copy` copies the `__dict__` it is kept in) has another `id`, which
    no model alive when it was copied has, and finds its own."""
    held_by = getattr(obj, "__dict__", _NONE)
    unread = held_by.get(UNREAD)
    if unread is not None and unread[0] is decoder:
        return True  # built unread by `decoder` (`model.unread_message`), and still unread
    native = getattr(obj, "native", None)
    if native is None:
        return False
    kept = held_by.get(REUSE)  # answers are kept on models only
    if kept is not None:  # and only under a decoder that is its key
        held = kept.get(decoder)
        if held is not None and held[0] == id(obj):
            return bool(held[1])
    model_memo: dict[str, Any] | None = obj.__dict__ if isinstance(obj, _model_type()) else None
    key = decoder_key(decoder) if model_memo is not None else None
    memo: dict[str, Any] = model_memo if key is not None and model_memo is not None else {}
    try:
        answer = strict_equal(decoder(native), obj)
    except HistnormError:
        answer = False
    if key is not None:  # a new dict: `model_copy` shares the old one with its copies
        memo[REUSE] = {**memo.get(REUSE, {}), key: (id(obj), answer)}
    return answer


def reads_as(obj: Any, decoder: Callable[[Any], Any]) -> bool:
    """Whether `obj` is known, without decoding anything, to be what `decoder` makes of
    its native value: it was marked so (`decoded`, or a `reuse_native` answer), or it was
    built unread by `decoder` and is still unread."""
    memo = obj.__dict__
    unread = memo.get(UNREAD)
    if unread is not None:
        if unread[0] is not decoder:
            return False
        return HELD in memo or memo.get("native") is not None  # a held line's is an object
    held = memo.get(REUSE, {}).get(decoder) if obj.native is not None else None
    return held is not None and held[1] and held[0] == id(obj)


def decoded(obj: Message, decoder: Callable[[Any], Any]) -> Message:
    """`obj`, which the module-level `decoder` has just made of `obj.native`, remembered as
    such: `reuse_native(obj, decoder)` answers from that without decoding it again (a fix
    decodes a transcript once, and encodes the messages it leaves alone as they were
    read)."""
    return marked(obj, decoder_key(decoder))


def marked(obj: Message, key: object) -> Message:
    """`decoded`, given the decoder's key (`decoder_key`, which a caller marking many
    messages works out once)."""
    if key is not None and obj.native is not None:
        obj.__dict__[REUSE] = {key: (id(obj), True)}
    return obj


def strict_equal(a: Any, b: Any) -> bool:
    """Equality that also compares types, so `1`, `1.0` and `True` differ (JSON sees them
    as different values; Python's `==` does not)."""
    pending = [(a, b)]
    models = _model_type()
    while pending:
        x, y = pending.pop()
        if x is y:
            continue
        if type(x) is not type(y):
            return False
        if isinstance(x, models):
            pending.extend((getattr(x, f), getattr(y, f)) for f in type(x).model_fields)
        elif isinstance(x, dict):
            if x.keys() != y.keys():
                return False
            pending.extend((v, y[k]) for k, v in x.items())
        elif isinstance(x, list | tuple):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


def split_envelope(data: JsonValue, key: str, what: str) -> tuple[list[Any], str]:
    """The message list of `data` (a bare list or an object holding `key`) and its pointer."""
    if isinstance(data, list):
        return data, ""
    if isinstance(data, dict):
        inner = data.get(key)
        if isinstance(inner, list):
            return inner, join_pointer("", key)
        if key in data:
            raise HistnormError(
                f'expected "{key}" to be an array of {what}, got {type_name(inner)}',
                pointer=join_pointer("", key),
            )
        raise HistnormError(
            f'expected an array of {what} or an object with "{key}", '
            f"got an object with keys {sorted(data)[:6]}",
            pointer="",
        )
    raise HistnormError(
        f'expected an array of {what} or an object with "{key}", got {type_name(data)}',
        pointer="",
    )


def join_envelope(transcript: Transcript, key: str, messages: list[Any]) -> JsonValue:
    """Put `messages` back into the transcript's native envelope, if it had one."""
    if isinstance(transcript.native, dict):
        return rebuild(transcript.native, {key: messages})
    return messages


def expect_object(value: Any, pointer: str, what: str) -> dict[str, Any]:
    """Return `value` if it is a JSON object, else raise naming `what` and `pointer`."""
    if not isinstance(value, dict):
        raise HistnormError(f"expected {what} (an object), got {type_name(value)}", pointer=pointer)
    return value


def optional_str(value: Any, pointer: str, what: str) -> str | None:
    """Return `value` if it is a string or null/absent, else raise."""
    if value is None or isinstance(value, str):
        return value
    raise HistnormError(f"expected {what} to be a string, got {type_name(value)}", pointer=pointer)


def required_str(value: Any, pointer: str, what: str) -> str:
    """Return `value` if it is a string, else raise (missing and null included)."""
    if isinstance(value, str):
        return value
    if value is None:
        raise HistnormError(f"{what} is missing", pointer=pointer)
    raise HistnormError(f"expected {what} to be a string, got {type_name(value)}", pointer=pointer)


def required_key(obj: dict[str, Any], key: str, pointer: str, what: str) -> str:
    """`required_str` of `obj[key]`, its pointer worked out only when it raises."""
    value = obj.get(key)
    if isinstance(value, str):
        return value
    return required_str(value, join_pointer(pointer, key), what)


def optional_key(obj: dict[str, Any], key: str, pointer: str, what: str) -> str | None:
    """`optional_str` of `obj.get(key)`, its pointer worked out only when it raises."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    return optional_str(value, join_pointer(pointer, key), what)


def messages_sniff(data: JsonValue, key: str) -> list[Any] | None:
    """The candidate message list of `data` for sniffing, or None."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get(key), list):
        return data[key]  # type: ignore[no-any-return]
    return None


def all_objects(items: list[Any]) -> bool:
    """Whether every item of `items` is an object (a dict), tested without a Python loop."""
    return all(map(isinstance, items, repeat(dict)))


def folded_keys(messages: list[dict[str, Any]]) -> frozenset[str]:
    """The keys of `messages`, case-folded: one pass a sniff can rule itself out on (a
    format whose every mark needs a key that no message has claims nothing)."""
    return frozenset(k.casefold() for k in set().union(*messages) if isinstance(k, str))


def first_index(message: Message, part_index: int, slot: str | None) -> int:
    """The index of part `part_index` among the parts of `message` that share its slot."""
    parts = message.parts
    if part_index < 16 or part_index >= len(parts) or parts[part_index].slot != slot:
        return sum(1 for part in parts[:part_index] if part.slot == slot)
    return _slot_ranks(message)[part_index]


_RANKS = "_histnorm_ranks"
"""Where `_slot_ranks` keeps a long message's slot ranks in its `__dict__` (pydantic
ignores it), with the parts they were found for: locating every part of a message with
many parts walks it once."""


def _slot_ranks(message: Message) -> list[int]:
    parts = message.parts
    memo = message.__dict__
    held = memo.get(_RANKS)
    if held is not None and held[0] is parts:  # a copy may hold other parts
        found: list[int] = held[1]
        return found
    seen: dict[str | None, int] = {}
    ranks = []
    for part in parts:
        ranks.append(seen.get(part.slot, 0))
        seen[part.slot] = ranks[-1] + 1
    memo[_RANKS] = (parts, ranks)
    return ranks


ANTHROPIC_ENVELOPE_KEYS = frozenset({"stop_sequences", "anthropic_version", "anthropic_beta"})
"""Request-body keys only the Anthropic Messages API uses (detection marks)."""


def anthropic_envelope(data: JsonValue) -> bool:
    """Whether `data` is a request body carrying Anthropic's own keys: a top-level `system`,
    `stop_sequences`, or a `thinking` object with `budget_tokens`."""
    if not isinstance(data, dict):
        return False
    thinking = data.get("thinking")
    return (
        "system" in data
        or bool(ANTHROPIC_ENVELOPE_KEYS & data.keys())
        or (isinstance(thinking, dict) and "budget_tokens" in thinking)
    )


def anthropic_body(data: JsonValue) -> bool:
    """Whether `data` is a request body marked as Anthropic's by keys OpenAI Chat bodies
    share: tools in Anthropic's shape (`input_schema`), or the `max_tokens` Anthropic
    requires with a Claude model (`claude-...`; a router's `anthropic/claude-...` names
    an OpenAI-compatible endpoint). A weaker mark than `anthropic_envelope`."""
    if not isinstance(data, dict):
        return False
    tools = data.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    named = data.get("model")
    return "max_tokens" in data and isinstance(named, str) and named.startswith("claude-")


CONVERSE_BODY_KEYS = frozenset(
    {
        *("inferenceConfig", "toolConfig", "guardrailConfig", "promptVariables"),
        *("additionalModelRequestFields", "additionalModelResponseFieldPaths"),
        "performanceConfig",
    }
)
"""Request-body keys only Amazon Bedrock's Converse API uses."""
CONVERSE_BLOCK_KEYS = frozenset(
    {
        *("text", "toolUse", "toolResult", "image", "document", "video"),
        *("reasoningContent", "cachePoint", "guardContent", "citationsContent"),
    }
)
"""The keys of Converse content blocks, which carry no `type`."""


def converse_body(data: JsonValue) -> bool:
    """Whether `data` is a Bedrock Converse request body or message list: Converse's own
    body keys, or a message content block without `type` holding a Converse block key
    (every format histnorm reads with a `content` array types its items)."""
    if isinstance(data, dict) and not CONVERSE_BODY_KEYS.isdisjoint(data):
        return True
    for message in (messages_sniff(data, "messages") or [])[:50]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(block, dict)
            and "type" not in block
            and not CONVERSE_BLOCK_KEYS.isdisjoint(block)
            for block in content
        ):
            return True
    return False


def has_role(messages: list[Any], roles: frozenset[str]) -> bool:
    """Whether some message (an object) has one of `roles`: a format's own positive mark.
    Other roles are tolerated beside it (the rules see them), never enough alone; case
    is ignored (readers that care say so)."""
    for m in messages[:50]:
        role = m.get("role") if isinstance(m, dict) else None
        if isinstance(role, str) and role.casefold() in roles:
            return True
    return False


def marked_sniff(messages: Sequence[Any] | None, mark: Callable[[Any], bool | None]) -> float:
    """0.97 when no message of the first 50 rules a format out (`mark` gives None) and one
    shows its own marks (`mark` gives True); 0.0 otherwise."""
    if not messages:
        return 0.0
    marked = False
    for message in messages[:50]:
        found = mark(message)
        if found is None:
            return 0.0
        marked = marked or found
    return 0.97 if marked else 0.0


def name_new_results(messages: tuple[Message, ...]) -> list[Message]:
    """Give each new result without a name (one a fix made) the name of its call, for
    formats whose results require one."""
    names: dict[str | None, str] = {}
    out = []
    for message in messages:
        parts = list(message.parts)
        for index, part in enumerate(parts):
            if isinstance(part, model.ToolCallPart) and part.name:
                names[part.call_id] = part.name
            elif isinstance(part, model.ToolResultPart) and part.native is None and not part.name:
                name = names.get(part.call_id)
                if name is not None:
                    parts[index] = part.evolve(name=name)
        changed = any(a is not b for a, b in zip(parts, message.parts, strict=True))
        out.append(message.evolve(parts=tuple(parts)) if changed else message)
    return out
