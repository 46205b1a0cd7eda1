"""What the size and media rules (HN113, HN114) share: the images of a transcript, read
from each format's native items, and the placeholders their fixes put in their place."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from histnorm._record import record
from histnorm.analysis.context import Context
from histnorm.analysis.outline import holds_image_slot
from histnorm.diagnostic import Diagnostic
from histnorm.edit import rewrite, with_content
from histnorm.lazy import model
from histnorm.media import decoded_size, parse_data_url, show_bytes
from histnorm.model_terms import JsonValue
from histnorm.pairing import Position

if TYPE_CHECKING:
    from histnorm.model import MediaPart, Part, Transcript


@record(frozen=True)
class Image:
    """One image: the part it is (or the tool result holding it, with `item`, its index in
    the result's content), its declared media type and its base64 data when inline."""

    position: Position
    item: int | None
    media_type: str | None
    data: str | None
    role: str

    @property
    def in_result(self) -> bool:
        """Whether the image is inside a tool result."""
        return self.item is not None

    def describe(self) -> str:
        """`image/bmp image, 2.1 MB`, for messages and placeholders."""
        kind = f"{self.media_type} image" if self.media_type else "image"
        if self.data is None:
            return kind
        return f"{kind}, {show_bytes(decoded_size(self.data))}"


def _from_url(url: Any) -> tuple[str | None, str | None]:
    found = parse_data_url(url) if isinstance(url, str) else None
    return (None, None) if found is None else (found[0] or None, found[1])


def read_image(item: JsonValue) -> tuple[str | None, str | None] | None:
    """(declared media type, base64 data) of a native image item of any format (OpenAI
    Chat `image_url`, Responses `input_image`, Anthropic `image`, Gemini `inlineData`), or
    None when `item` is no image."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "image_url":
        body = item.get("image_url")
        return _from_url(body.get("url") if isinstance(body, dict) else body)
    if kind == "input_image":
        return _from_url(item.get("image_url"))
    if kind == "image":
        source = item.get("source")
        if not isinstance(source, dict) or source.get("type") != "base64":
            return None, None
        media_type, data = source.get("media_type"), source.get("data")
        return (
            media_type.lower() if isinstance(media_type, str) else None,
            data if isinstance(data, str) else None,
        )
    body = item.get("inlineData", item.get("inline_data"))
    if isinstance(body, dict):
        mime = body.get("mimeType", body.get("mime_type"))
        data = body.get("data")
        if isinstance(mime, str) and mime.lower().startswith("image/"):
            return mime.lower(), data if isinstance(data, str) else None
    return None


def _part_image(part: MediaPart) -> tuple[str | None, str | None] | None:
    found = read_image(part.native)
    if found is not None:
        return found
    media_type, data = _from_url(part.uri)
    media_type = media_type or part.media_type
    if media_type is not None and media_type.startswith("image/"):
        return media_type, data
    return None


def images(transcript: Transcript) -> Iterator[Image]:
    """Every image of `transcript`: media parts and images inside tool results."""
    for mi, message in enumerate(transcript.messages):
        if not holds_image_slot(message):
            continue
        for pi, part in enumerate(message.parts):
            if isinstance(part, model.MediaPart):
                found = _part_image(part)
                if found is not None:
                    yield Image((mi, pi), None, found[0], found[1], message.role)
            elif isinstance(part, model.ToolResultPart) and isinstance(part.content, list):
                for index, item in enumerate(part.content):
                    found = read_image(item)
                    if found is not None:
                        yield Image((mi, pi), index, found[0], found[1], message.role)


def may_hold_images(context: Context) -> Transcript | None:
    """The transcript whose images a media check reads, or None when it holds none
    (`Context.may_hold_image`). Asks for the model (`NeedsModel`) on the fast path when
    neither the outline nor the JSON it was read from can tell."""
    return context.transcript if context.may_hold_image else None


def placeholder(what: str) -> str:
    """The text a fix leaves where it removed `what`."""
    return f"[histnorm: removed {what}]"


def _text_item(transcript: Transcript, text: str) -> dict[str, Any]:
    kind = "input_text" if transcript.format in ("openai-responses", "codex") else "text"
    return {"type": kind, "text": text}


def replace_images(transcript: Transcript, diagnostics: Sequence[Diagnostic]) -> Transcript:
    """The fix: each reported image becomes a text placeholder naming it, in place (a
    media part becomes a text part; an image in a tool result a text item of its content,
    so the result stays a result)."""
    current = set(images(transcript))
    replace: dict[Position, Sequence[Part]] = {}
    items: dict[Position, dict[int, Image]] = {}
    for diagnostic in diagnostics:
        image = diagnostic.data
        if not isinstance(image, Image) or image not in current:
            continue
        if image.item is None:
            replace[image.position] = (model.TextPart(text=placeholder(image.describe())),)
        else:
            items.setdefault(image.position, {})[image.item] = image
    for position, by_item in items.items():
        mi, pi = position
        part = transcript.messages[mi].parts[pi]
        assert isinstance(part, model.ToolResultPart) and isinstance(part.content, list)
        content = [
            _text_item(transcript, placeholder(by_item[i].describe())) if i in by_item else item
            for i, item in enumerate(part.content)
        ]
        replace[position] = (with_content(part, content),)
    return rewrite(transcript, replace=replace)
