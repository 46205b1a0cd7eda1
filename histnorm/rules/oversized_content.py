"""Content over the target's size limits: a string, an image, or the whole request.

## What it does
Under profiles with size limits, finds a string longer than the target takes (OpenAI:
10,485,760 characters), an inline image whose base64 text is over the limit (Anthropic
and Bedrock: 5 MiB), an image larger on a side than the target takes (8,000 px; 2,000 px
when the request holds more than 20 images), and a history whose JSON is over the
request limit (Anthropic: 32 MB). Image dimensions are read from the PNG, JPEG, GIF and
WebP header bytes; an image whose header cannot be read is not judged on its pixels.

## Why it breaks a replay
OpenAI: `Invalid 'messages[7].content': string too long. Expected a string with maximum
length 10485760, but got a string with length 10624990 instead.` (FlowiseAI/Flowise#5085);
Anthropic: `messages.0.content.2.image.source.base64: image exceeds 5 MB maximum:
15908784 bytes > 5242880 bytes` (anthropics/claude-code#10612), `At least one of the image
dimensions exceed max allowed size: 8000 pixels` (anthropics/claude-code#5147), `At least
one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels`
(anomalyco/opencode#12068), `413 request_too_large` over 32 MB. The content stays in the
stored history, so every later request fails the same way.

## Example
A screenshot 9,000 px wide in a Claude tool result.

## Fix
Replace the image or the text with a text placeholder that names what was removed and
its size (`[histnorm: removed image/png image, 6.3 MB]`), in the native form of the
format; a tool result stays a result. A request over the limit with no single part to
blame is reported without a fix.

## Fix safety
Unsafe: the model no longer sees what was removed. Shrinking an image or a document is
the caller's choice; the placeholder keeps the turn and says what was there.

## References
- https://docs.anthropic.com/en/docs/build-with-claude/vision
- https://docs.anthropic.com/en/api/overview#request-size-limits
- https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html
- `histnorm/profile_evidence.py`: the evidence of each profile's size limits, listed
  below by profile.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.analysis.context import Context
from histnorm.analysis.read_size import decoded_within, read_bound
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite, with_content
from histnorm.lazy import model
from histnorm.media import image_size_b64, show_bytes
from histnorm.pairing import Position
from histnorm.profiles import Profile
from histnorm.rule import Example, Rule
from histnorm.rules._media import Image, images, placeholder, replace_images
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Part, TextPart, Transcript


def _limits(profile: Profile) -> list[int]:
    found = (profile.max_string_length, profile.max_request_bytes, profile.max_image_base64)
    return [limit for limit in found if limit is not None]


def _over(size: int, limit: int | None) -> bool:
    return limit is not None and size > limit


def _model(context: Context) -> Transcript | None:
    """The transcript to check, or None when the JSON it was read from rules every limit
    out: it is no longer than the request limit, no string of it can be longer than the
    string limit (`Context.item_size`) and, where an image may be
    (`Context.may_hold_image`), sides are not limited and no string is longer than the
    image limit. Without JSON or model it asks for the model (`NeedsModel`)."""
    size = context.json_size
    if size is not None:
        profile = context.profile
        item = context.item_size or size
        long = _over(item, profile.max_string_length) or _over(size, profile.max_request_bytes)
        images = profile.max_image_side is not None or _over(item, profile.max_image_base64)
        if not long and not (images and context.may_hold_image):
            return None
    return context.transcript  # raises NeedsModel on the fast path


def _longest(value: Any) -> int:
    """The length of the longest string in a JSON value."""
    longest, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            longest = max(longest, len(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return longest


def _part_value(part: Part) -> Any:
    """What a part sends: its text or result content as the model holds them (a fix may
    have changed them since the native value was read), else its native value."""
    if isinstance(part, model.TextPart):
        return part.text
    if isinstance(part, model.ToolResultPart):
        return part.content
    if part.native is not None:
        return part.native
    return part.model_dump(exclude={"native", "metadata", "kind", "slot"})


def _strings(transcript: Transcript, limit: int) -> Iterator[Diagnostic]:
    within = decoded_within(transcript, limit)  # messages as read from a short enough text
    for mi, message in enumerate(transcript.messages):
        if id(message) in within:
            continue
        for pi, part in enumerate(message.parts):
            value = _part_value(part)
            length = len(value) if type(value) is str else _longest(value)
            if length > limit:
                fixable = isinstance(part, model.TextPart | model.ToolResultPart | model.MediaPart)
                yield RULE.diagnostic(
                    f"a string of {length:,} characters in this {part.kind} part is over "
                    f"the limit of {limit:,}",
                    message_index=mi,
                    part_index=pi,
                    fix_title="replace it with a text placeholder" if fixable else None,
                    data=("string", limit),
                )


def _dimensions(image: Image) -> tuple[int, int] | None:
    return None if image.data is None else image_size_b64(image.data)


def _side(image: Image) -> int | None:
    size = _dimensions(image)
    return None if size is None else max(size)


def _too_many(profile: Profile, found: list[Image]) -> set[Image]:
    """The images to report under the many-image side limit: the first ones over it, as
    many as the request holds beyond `many_images` (removing them lifts that limit)."""
    many, limit = profile.many_images, profile.max_image_side_many
    if many is None or limit is None or len(found) <= many:
        return set()
    over = [image for image in found if (_side(image) or 0) > limit]
    return set(over[: len(found) - many])


def _images(transcript: Transcript, profile: Profile) -> Iterator[Diagnostic]:
    found = list(images(transcript))
    many = _too_many(profile, found)
    for image in found:
        if image.data is None:
            continue
        why = None
        size = _dimensions(image)
        side = None if size is None else max(size)
        shown = "" if size is None else f"{size[0]}x{size[1]} px"
        if profile.max_image_base64 is not None and len(image.data) > profile.max_image_base64:
            why = (
                f"{len(image.data):,} base64 characters are over the limit of "
                f"{profile.max_image_base64:,}"
            )
        elif (
            profile.max_image_side is not None
            and side is not None
            and side > (profile.max_image_side)
        ):
            why = f"{shown} is over {profile.max_image_side} px a side"
        elif image in many:
            why = (
                f"{shown} is over {profile.max_image_side_many} px a side, the limit in a "
                f"request of more than {profile.many_images} images (it holds {len(found)})"
            )
        if why is not None:
            yield RULE.diagnostic(
                f"{image.describe()}: {why}",
                message_index=image.position[0],
                part_index=image.position[1],
                fix_title="replace the image with a text placeholder",
                data=image,
            )


def _request(transcript: Transcript, limit: int) -> Iterator[Diagnostic]:
    bound, others = read_bound(transcript)  # what it holds as read, by its text
    if 2 * (bound + _plain_size(others)) <= limit:
        return
    if 2 * _plain_size(transcript.messages) <= limit:
        return
    sizes = [_json_size(m.native) for m in transcript.messages]
    total = sum(sizes)
    if total > limit:
        largest = max(range(len(sizes)), key=sizes.__getitem__)
        yield RULE.diagnostic(
            f"the messages hold {show_bytes(total)} of JSON, over the request limit of "
            f"{show_bytes(limit)} (the largest is this one, {show_bytes(sizes[largest])})",
            message_index=largest,
        )


_PLAIN = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


_SIZE = "_histnorm_plain_size"
"""Where `_plain_size` keeps a message's size in its `__dict__` (pydantic ignores it: not
a field, not compared), with the `id` of the message it was measured for."""


def _plain(value: Any) -> int:
    """At least half the size `_json_size` gives `value`, counted without orjson, which
    keeps a UTF-8 copy inside every non-ASCII string it writes for as long as that string
    lives: the strings of a whole session, here. The standard library writes the same
    bytes but for floats, which orjson spells at most 1.4 times as long (`0.00001` for
    `1e-05`). Raises `TypeError`, `ValueError` or `RecursionError` for what it cannot
    write."""
    return len(_PLAIN.encode(value).encode("utf-8", "surrogatepass"))


def _plain_size(messages: Sequence[Message]) -> float:
    """`_plain` of the native values of `messages` together (inf if unknown). Each message
    is measured once and keeps its size (models are frozen, and a copy has another `id`),
    so the transcripts a run of fixes makes measure only the messages the fixes made."""
    total = 0
    for message in messages:
        memo = message.__dict__
        held = memo.get(_SIZE)
        if held is not None and held[0] == id(message):
            total += held[1]
            continue
        try:
            size = _plain(message.native)
        except (TypeError, ValueError, RecursionError):
            return math.inf
        memo[_SIZE] = (id(message), size)
        total += size
    return total


def _json_size(value: Any) -> int:
    if value is None:
        return 0
    try:
        return len(jsonio.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return 0


def check(context: Context) -> Iterable[Diagnostic]:
    """Report strings, images and requests over the target's size limits."""
    profile = context.profile
    transcript = _model(context)
    if transcript is None:
        return
    if profile.max_string_length is not None:
        yield from _strings(transcript, profile.max_string_length)
    if context.may_hold_image:
        yield from _images(transcript, profile)
    if profile.max_request_bytes is not None:
        yield from _request(transcript, profile.max_request_bytes)


def _shorten(part: Part, limit: int, transcript: Transcript) -> Part:
    if isinstance(part, model.TextPart):
        shortened: TextPart = part.evolve(
            text=placeholder(f"text of {len(part.text):,} characters")
        )
        return shortened
    if isinstance(part, model.MediaPart):
        return model.TextPart(text=placeholder(f"{part.media_type or 'media'} part"))
    assert isinstance(part, model.ToolResultPart)
    content = part.content
    if isinstance(content, str):
        return with_content(part, placeholder(f"text of {len(content):,} characters"))
    kind = "input_text" if transcript.format in ("openai-responses", "codex") else "text"
    return with_content(
        part,
        [
            {"type": kind, "text": placeholder(f"an item of {_longest(item):,} characters")}
            if _longest(item) > limit
            else item
            for item in content
        ]
        if isinstance(content, list)
        else placeholder("a tool result over the size limit"),
    )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Replace each reported image or long string with a text placeholder naming it."""
    transcript = replace_images(transcript, [d for d in diagnostics if isinstance(d.data, Image)])
    replace: dict[Position, Sequence[Part]] = {}
    for diagnostic in diagnostics:
        data = diagnostic.data
        if not (isinstance(data, tuple) and data[0] == "string"):
            continue
        mi, pi = diagnostic.location.message_index or 0, diagnostic.location.part_index or 0
        part = transcript.messages[mi].parts[pi]
        if _longest(_part_value(part)) > data[1]:
            replace[(mi, pi)] = (_shorten(part, data[1], transcript),)
    return rewrite(transcript, replace=replace) if replace else transcript


def _png(width: int, height: int) -> str:
    """The base64 of a PNG signature and IHDR claiming `width` x `height` (no pixels)."""
    import base64

    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    body = b"\x89PNG\r\n\x1a\n" + (13).to_bytes(4, "big") + b"IHDR" + ihdr + b"\x00" * 4
    return base64.b64encode(body).decode()


_WIDE = _png(9000, 10)


def _shot(*content: Any) -> Any:
    return {"type": "tool_result", "tool_use_id": "toolu_01", "content": list(content)}


_CALL: Any = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "toolu_01", "name": "screenshot", "input": {}}],
}
_ASK: Any = {"role": "user", "content": "Take a screenshot of the page."}

RULE = Rule(
    code="HN113",
    name="oversized-content",
    summary="a string, an image or the request is over the target's size limits (profiles: "
    "openai-chat, openai-responses, anthropic, anthropic-thinking, bedrock-converse, "
    "portable)",
    severity=Severity.ERROR,
    applicability=Applicability.UNSAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda p: bool(_limits(p)) or p.max_image_side is not None,
    fix=fix,
    examples=(
        Example(
            bad=[
                _ASK,
                _CALL,
                {
                    "role": "user",
                    "content": [
                        _shot(
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": _WIDE,
                                },
                            }
                        )
                    ],
                },
            ],
            good=[
                _ASK,
                _CALL,
                {
                    "role": "user",
                    "content": [
                        _shot({"type": "text", "text": "[histnorm: removed image/png image, 33 B]"})
                    ],
                },
            ],
            format="anthropic",
            settings=Settings(unsafe_fixes=True),
            title="a 9000 px screenshot in a Claude tool result",
        ),
    ),
)
