"""Converting between formats keeps a clean history clean, or says what cannot be carried.

For every clean fixture of every format and every other format: `convert` either raises a
`HistnormError` naming what the target cannot express, or gives a document that the target
codec reads back and that has no core (HN0xx) error under the target's profile. Profile
rules (HN1xx, and core rules driven by a profile constraint, such as HN004 for the
targets that reject empty text) may report target limits (an id too long, results that
must move, an empty text OpenAI accepted); those name what the target cannot take as it
is, which is the point of running them.
"""

from __future__ import annotations

import base64
import contextlib
import json
from pathlib import Path

import pytest
from strategies_json import strings

import histnorm
from histnorm.convert.carry import NO_MEDIA
from histnorm.diagnostic import Severity
from histnorm.profiles import DEFAULT_FOR_FORMAT, RULES_OF

PROFILE_DRIVEN = set(RULES_OF["empty_text"])
"""Core rules that report only what a target's profile rejects."""

ROOT = Path(__file__).resolve().parent.parent


def _clean_fixtures() -> list[tuple[str, Path]]:
    found = []
    for fmt in histnorm.CODECS:
        for path in sorted((ROOT / "fixtures" / "formats" / fmt).glob("*.json")):
            diagnostics = histnorm.lint(path.read_bytes(), format=fmt)
            if not any(d.severity is Severity.ERROR for d in diagnostics):
                found.append((fmt, path))
    return found


CASES = [
    pytest.param(
        source,
        path,
        target,
        id=f"{path.parent.name}/{path.name}->{target}",
    )
    for source, path in _clean_fixtures()
    for target in histnorm.CODECS
    if target != source
]


@pytest.mark.parametrize(("source", "path", "target"), CASES)
def test_convert_keeps_clean_histories_clean(source, path, target):
    transcript = histnorm.load(path.read_bytes(), format=source)
    try:
        native = histnorm.encode(transcript, target)
    except histnorm.HistnormError as exc:
        assert "cannot" in str(exc) or "no place" in str(exc), str(exc)
        return
    back = histnorm.load(native, format=target)
    profile = DEFAULT_FOR_FORMAT.get(target, "meai")
    core_errors = [
        d
        for d in histnorm.lint(back, profile=profile)
        if d.severity is Severity.ERROR
        and d.code.startswith("HN0")
        and d.code not in PROFILE_DRIVEN
    ]
    assert core_errors == [], [(d.code, d.message) for d in core_errors]


def test_every_format_has_clean_fixtures_to_convert():
    formats_with_cases = {case.values[0] for case in CASES}
    assert formats_with_cases == set(histnorm.CODECS)


def test_anthropic_output_carries_no_message_id_from_another_format() -> None:
    """Anthropic's request messages are `role` and `content` only: a Claude Code line's
    `message.id` (a response id) is not written into them."""
    source = (ROOT / "fixtures" / "formats" / "claude-code" / "exported.json").read_bytes()
    transcript = histnorm.load(source, format="claude-code")
    assert any(message.id for message in transcript.messages)
    native = histnorm.encode(histnorm.convert(transcript, "anthropic"), "anthropic")
    assert native and all(set(message) <= {"role", "content"} for message in native)


PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
    "AAAABJRU5ErkJggg=="
)
PDF = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK"
AUTHOR = "ada_lovelace"
RICH = histnorm.Transcript(
    messages=(
        histnorm.Message(
            role="user",
            author_name=AUTHOR,
            parts=(
                histnorm.TextPart(text="what do these show?"),
                histnorm.MediaPart(uri=f"data:image/png;base64,{PNG}", media_type="image/png"),
                histnorm.MediaPart(
                    uri=f"data:application/pdf;base64,{PDF}", media_type="application/pdf"
                ),
            ),
        ),
        histnorm.Message(role="assistant", parts=(histnorm.TextPart(text="a dot and a page"),)),
    )
)
"""A user turn with an author name, a base64 image and a base64 PDF document."""
SHAPE_KEYS = frozenset({"type", "$type", "part_kind", "kind", "block_type", "content_type"})
"""Keys whose values name a native shape, not content: they need not reach another format."""
MEDIA_TYPE_KEYS = frozenset(
    {"media_type", "mime_type", "mimeType", "mediaType"}
    | {"image_mimetype", "document_mimetype", "video_mimetype"}  # LlamaIndex blocks
)
"""Keys naming a media type, which a target may say its own way (a block kind, a data URL,
the file's own header)."""


def _written_rich() -> dict[str, bytes]:
    """RICH written in every format that can write it: all of it, else without its media."""
    found = {}
    for fmt in histnorm.CODECS:
        for media in (True, False):
            messages = RICH.messages
            if not media:
                messages = tuple(
                    m.evolve(parts=tuple(p for p in m.parts if p.kind != "media")) for m in messages
                )
            try:
                native = histnorm.encode(histnorm.Transcript(messages=messages, format=fmt), fmt)
            except histnorm.HistnormError:
                continue
            found[fmt] = histnorm.jsonio.dumps(native)
            break
    return found


def _rich_sources() -> list[tuple[str, bytes]]:
    """RICH in every format that can write it, and every clean fixture holding media or an
    author name."""
    found = list(_written_rich().items())
    for fmt, path in _clean_fixtures():
        transcript = histnorm.load(path.read_bytes(), format=fmt)
        if any(
            m.author_name or any(p.kind == "media" for p in m.parts) for m in transcript.messages
        ):
            found.append((fmt, path.read_bytes()))
    return found


def _leaves(value: object, pointer: str):
    """(pointer, string) of every string in `value`, but for the values of `SHAPE_KEYS`."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in SHAPE_KEYS:
                yield from _leaves(item, f"{pointer}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{pointer}/{index}")


def _source_values(transcript: histnorm.Transcript):
    """(pointer, string, kind) of every text, media, refusal, call and result part
    ("part") and every author name ("author"); usage and reasoning are left out as whole
    parts, message ids as a whole, with notes of their own (`test_convert_cli`)."""
    codec = histnorm.CODECS[transcript.format]
    for mi, message in enumerate(transcript.messages):
        if message.author_name:
            yield codec.message_pointer(transcript, mi), message.author_name, "author"
        for pi, part in enumerate(message.parts):
            if part.kind in CHECKED:
                at = codec.part_pointer(transcript, mi, pi)
                for pointer, value in _leaves(part.native, at):
                    if pointer.rpartition("/")[2] in MEDIA_TYPE_KEYS:
                        continue
                    head, _, data = value.partition(";base64,")
                    if head.startswith("data:") and data:  # the target may split it
                        yield pointer, data, "part"
                    else:
                        yield pointer, value, "part"


CHECKED = ("text", "media", "refusal", "tool_call", "tool_result")


def _carried(value: str, written: str) -> bool:
    """Whether `written` holds `value`: as it is, as base64, or (JSON text such as call
    arguments, which a target may write as an object) each of its strings."""
    if value in written or _coded(value) in written:
        return True
    try:
        parsed = json.loads(value)
    except ValueError:
        return False
    strings = [v for _, v in _leaves(parsed, "")]
    return isinstance(parsed, dict | list) and all(v in written for v in strings)


def _under(pointer: str, at: str) -> bool:
    return pointer == at or pointer.startswith(at + "/")


def _coded(value: str) -> str:
    """`value` as base64 (how a target that takes only binary data carries a text)."""
    return base64.b64encode(value.encode("utf-8")).decode("ascii")


def _written(native: object) -> str:
    """The strings of `native`, and the text a base64 `data:text/...` URL in it holds."""
    found = []
    for value in strings(native):  # shape names too: Vercel AI names a tool in `type`
        found.append(value)
        if value[:1] in ("{", "["):  # JSON text (a ShareGPT turn): its strings unescaped
            with contextlib.suppress(ValueError):
                found.extend(strings(json.loads(value)))
        head, _, data = value.partition(";base64,")
        if head.startswith("data:text/"):
            found.append(base64.b64decode(data).decode("utf-8"))
    return "\x00".join(found)


RICH_CASES = [
    pytest.param(source, data, target, id=f"{source}#{n}->{target}")
    for n, (source, data) in enumerate(_rich_sources())
    for target in histnorm.CODECS
    if target != source
]


@pytest.mark.parametrize(("source", "data", "target"), RICH_CASES)
def test_convert_carries_every_value_or_names_it(source, data, target):
    """Every string of the source's content (text, image and document data, an author
    name) is in the output, or a CV001 note points at it: nothing is dropped in silence."""
    from histnorm.convert import conversion

    transcript = histnorm.load(data, format=source)
    try:
        converted = conversion(transcript, target)
        native = histnorm.encode(converted.transcript, target)
    except histnorm.HistnormError as exc:
        assert "cannot" in str(exc) or "no place" in str(exc), str(exc)
        return
    written = _written(native)
    notes = [n for n in converted.notes if n.code == "CV001"]
    named = [n.location.pointer or "" for n in notes if "author name" not in n.message]
    lost = [
        (pointer, value[:40])
        for pointer, value, kind in _source_values(transcript)
        if not _carried(value, written)
        and not (kind == "author" and any(repr(value) in n.message for n in notes))
        and not (kind == "part" and any(_under(pointer, at) for at in named))
    ]
    assert lost == []


def test_rich_sources_hold_images_documents_and_authors():
    """The matrix above is fed images, documents and author names in the formats that
    store them (it would pass vacuously on sources that lost them)."""
    held = _written_rich()
    for fmt in ("anthropic", "claude-code", "openai-chat", "gemini", "meai", "langchain"):
        assert PNG.encode() in held[fmt] and PDF.encode() in held[fmt], fmt
    for fmt in ("openai-chat", "meai", "langchain", "agent-framework", "chat-template"):
        assert AUTHOR.encode() in held[fmt], fmt


WRITTEN_RICH = [
    pytest.param(source, data, target, id=f"{source}->{target}")
    for source, data in _written_rich().items()
    for target in histnorm.CODECS
    if target != source
]


@pytest.mark.parametrize(("source", "data", "target"), WRITTEN_RICH)
def test_carried_media_lint_clean_in_the_target(source, data, target):
    """What convert carries of images, documents and author names is written in shapes the
    target's profile accepts (no `{"url": null}`, no bare `input_image`)."""
    transcript = histnorm.load(data, format=source)
    try:
        native = histnorm.encode(histnorm.convert(transcript, target), target)
    except histnorm.HistnormError as exc:
        assert "cannot" in str(exc), str(exc)
        return
    back = histnorm.load(native, format=target)
    profile = DEFAULT_FOR_FORMAT.get(target, "meai")
    errors = [d for d in histnorm.lint(back, profile=profile) if d.severity is Severity.ERROR]
    assert errors == [], [(d.code, d.message) for d in errors]
    if PNG.encode() in data and target not in NO_MEDIA:
        assert PNG in histnorm.jsonio.dumps(native).decode(), "the image is carried"
