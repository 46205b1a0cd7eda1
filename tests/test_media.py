"""Image headers read without an image library (`histnorm.media`), and the size and media
rules (HN113, HN114) on cases too large for a fixture file: built here, in memory."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import histnorm
import histnorm.analysis.context as context_module
import histnorm.jsonio as jsonio
from histnorm.analysis.context import Context, NeedsModel
from histnorm.engine import fix, lint, outline_clean, proven_clean
from histnorm.formats import get_codec, outline_of
from histnorm.media import (
    decoded_size,
    head_bytes,
    image_size,
    image_size_b64,
    parse_data_url,
    show_bytes,
    sniff_type,
)
from histnorm.profiles import PROFILES
from histnorm.rules import oversized_content, unsupported_media
from histnorm.settings import Settings

# --- real tiny images, built with the standard library -----------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body).to_bytes(4, "big")
    return len(body).to_bytes(4, "big") + kind + body + crc


def png(width: int, height: int) -> bytes:
    """A complete, valid greyscale PNG."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(rows))
        + _chunk(b"IEND", b"")
    )


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00;"


def jpeg(width: int, height: int, exif: int = 0, sof: int = 0xC0) -> bytes:
    """A JPEG header: SOI, an APP1 segment of `exif` bytes, a DQT, then the frame."""
    app1 = b"\xff\xe1" + struct.pack(">H", exif + 2) + b"\x00" * exif
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" * 65
    frame = bytes([0xFF, sof]) + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + b"\xff\xff" + app1 + dqt + frame + b"\xff\xd9"


def webp(chunk: bytes, body: bytes) -> bytes:
    data = chunk + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", len(data) + 4) + b"WEBP" + data


def webp_vp8(width: int, height: int) -> bytes:
    body = b"\x00\x00\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height) + b"\x00" * 4
    return webp(b"VP8 ", body)


def webp_vp8l(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    return webp(b"VP8L", b"\x2f" + struct.pack("<I", bits) + b"\x00")


def webp_vp8x(width: int, height: int) -> bytes:
    body = b"\x00" * 4 + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return webp(b"VP8X", body)


BMP = base64.b64decode(
    "Qk06AAAAAAAAADYAAAAoAAAAAQAAAAEAAAABABgAAAAAAAQAAAATCwAAEwsAAAAAAAAAAAAAAAD/AA=="
)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# --- histnorm.media ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "kind", "size"),
    [
        (png(3, 2), "image/png", (3, 2)),
        (gif(640, 480), "image/gif", (640, 480)),
        (jpeg(1920, 1080), "image/jpeg", (1920, 1080)),
        (jpeg(9000, 10, sof=0xC2), "image/jpeg", (9000, 10)),  # progressive
        (webp_vp8(300, 200), "image/webp", (300, 200)),
        (webp_vp8l(8001, 1), "image/webp", (8001, 1)),
        (webp_vp8x(16000, 2000), "image/webp", (16000, 2000)),
        (BMP, "image/bmp", None),
    ],
)
def test_the_header_names_the_type_and_size(data: bytes, kind: str, size: Any) -> None:
    assert sniff_type(data) == kind
    assert image_size(data) == size
    assert image_size_b64(b64(data)) == size


def test_a_jpeg_frame_after_a_long_exif_is_found_in_the_whole_image() -> None:
    data = jpeg(4000, 9000, exif=65000) + b"\x00" * 100_000
    assert image_size(data[:50_000]) is None  # the head ends inside the EXIF segment
    assert image_size_b64(b64(data)) == (4000, 9000)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a\x01", b"RIFF\x00\x00\x00\x00WEBPVP8 "],
)
def test_a_truncated_header_gives_none(data: bytes) -> None:
    assert image_size(data) is None


@given(st.binary(max_size=64))
def test_any_bytes_give_a_size_or_none_and_never_raise(data: bytes) -> None:
    found = image_size(data)
    assert found is None or (isinstance(found, tuple) and len(found) == 2)


@given(st.integers(1, 2**31 - 1), st.integers(1, 2**31 - 1))
def test_png_headers_give_back_their_size(width: int, height: int) -> None:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    assert image_size(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)) == (width, height)


@given(st.integers(1, 16384), st.integers(1, 16384))
def test_webp_lossless_headers_give_back_their_size(width: int, height: int) -> None:
    assert image_size(webp_vp8l(width, height)) == (width, height)


@given(st.binary(max_size=300))
def test_decoded_size_is_the_length_of_the_decoded_bytes(data: bytes) -> None:
    assert decoded_size(b64(data)) == len(data)
    assert head_bytes(b64(data)) == data


def test_data_urls() -> None:
    assert parse_data_url("data:image/PNG;base64,AAAA") == ("image/png", "AAAA")
    assert parse_data_url("data:image/png;name=a.png;base64,AAAA") == ("image/png", "AAAA")
    assert parse_data_url("data:text/plain,hello") is None
    assert parse_data_url("https://example.com/a.png") is None


def test_sizes_for_people() -> None:
    assert [show_bytes(n) for n in (58, 4200, 2_202_010)] == ["58 B", "4.1 KB", "2.1 MB"]


# --- profiles ----------------------------------------------------------------------------

_LIMITS = ("max_string_length", "max_request_bytes", "max_image_base64", "max_image_side")


def test_portable_is_the_strictest_on_sizes_and_media() -> None:
    portable, others = PROFILES["portable"], [p for p in PROFILES.values() if p.name != "portable"]
    for name in (*_LIMITS, "max_image_side_many"):
        values = [getattr(p, name) for p in others if getattr(p, name) is not None]
        assert getattr(portable, name) == min(values), name
    types = [p.image_types for p in others if p.image_types is not None]
    assert portable.image_types == frozenset.intersection(*types)
    assert portable.user_images_only and portable.many_images == 20


# --- the rules on content too large for a fixture ----------------------------------------


def _codes(body: Any, fmt: str, profile: str | None = None) -> list[str]:
    return [
        d.code for d in histnorm.lint(orjson.dumps(body), Settings(profile=profile), format=fmt)
    ]


def test_a_string_over_ten_mebibytes_is_reported_and_replaced() -> None:
    long_text = "x" * 10_485_761
    body = [
        {"role": "user", "content": "Summarise the export."},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": long_text},
        {"role": "assistant", "content": "It is a spreadsheet."},
    ]
    assert _codes(body, "openai-chat") == ["HN113"]
    at_limit = [*body[:2], dict(body[2], content="x" * 10_485_760), *body[3:]]
    assert _codes(at_limit, "openai-chat") == []
    fixed = histnorm.fix(orjson.dumps(body), format="openai-chat", unsafe_fixes=True)
    assert fixed.applied == {"HN113": 1} and fixed.remaining == ()
    out = histnorm.encode(fixed.transcript)
    assert out[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "[histnorm: removed text of 10,485,761 characters]",
    }
    assert _codes(body, "openai-chat", "anthropic") == []  # Anthropic has no string limit


def _call(call_id: str) -> Any:
    return {"id": call_id, "type": "function", "function": {"name": "read", "arguments": "{}"}}


def _anthropic_image(data: str, media_type: str = "image/png") -> Any:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def test_an_image_over_five_mebibytes_of_base64_is_reported_for_anthropic() -> None:
    data = b64(png(8, 8)) + "A" * (5 * 1024 * 1024)
    body = [{"role": "user", "content": [_anthropic_image(data)]}]
    found = histnorm.lint(orjson.dumps(body), format="anthropic")
    assert [d.code for d in found] == ["HN113"]
    assert "base64 characters are over the limit of 5,242,880" in found[0].message
    small = [{"role": "user", "content": [_anthropic_image(data[: 5 * 1024 * 1024])]}]
    assert _codes(small, "anthropic") == []


def test_a_request_over_32_mebibytes_is_reported_without_a_fix() -> None:
    turns = [{"role": r, "content": "y" * (9 * 1024 * 1024)} for r in ("user", "assistant")] * 2
    found = histnorm.lint(orjson.dumps(turns), format="anthropic")
    assert [d.code for d in found] == ["HN113"] and found[0].fix is None
    assert _codes(turns[:3], "anthropic") == []


def test_the_many_image_limit_takes_only_the_images_beyond_twenty() -> None:
    wide = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(png(2100, 1))}}
    body = [{"role": "user", "content": [wide] * 22}]
    found = histnorm.lint(orjson.dumps(body), format="openai-chat", profile="anthropic")
    assert [(d.code, d.location.part_index) for d in found] == [("HN113", 0), ("HN113", 1)]
    fixed = histnorm.fix(
        orjson.dumps(body), format="openai-chat", profile="anthropic", unsafe_fixes=True
    )
    assert fixed.remaining == () and histnorm.encode(fixed.transcript)[0]["content"][2] == wide


def test_a_placeholder_keeps_the_tool_result_a_result() -> None:
    shot = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(png(2, 2))}}
    body = [
        {"role": "user", "content": "Look."},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": [shot]},
    ]
    fixed = histnorm.fix(orjson.dumps(body), format="openai-chat", unsafe_fixes=True)
    assert fixed.applied == {"HN114": 1}
    assert histnorm.encode(fixed.transcript)[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "[histnorm: removed image/png image, 71 B]"}],
    }
    assert histnorm.fix(orjson.dumps(body), format="openai-chat").applied == {}  # unsafe


def test_an_image_url_without_data_is_judged_only_on_where_it_sits() -> None:
    linked = {"type": "image_url", "image_url": {"url": "https://example.com/a.bmp"}}
    assert _codes([{"role": "user", "content": [linked]}], "openai-chat") == []
    assert _codes([{"role": "assistant", "content": [linked]}], "openai-chat") == ["HN114"]


# --- speed: what the fast path pays ------------------------------------------------------

_PLAIN: Any = [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
    {"role": "tool", "tool_call_id": "c1", "content": "4 C"},
    {"role": "assistant", "content": "4 C."},
]


@pytest.mark.parametrize("profile", ["openai-chat", "anthropic", "portable"])
def test_a_small_plain_record_is_proven_clean_on_its_json(profile: str) -> None:
    settings = Settings(profile=profile, select=("HN113", "HN114"))
    assert proven_clean(_PLAIN, "openai-chat", settings)


_LISTED: Any = [
    *_PLAIN[:2],
    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "4 C"}]},
    _PLAIN[3],
]
"""`_PLAIN` with a result of content items, where an image may be."""


def test_a_record_naming_an_image_is_decoded_then_found_clean() -> None:
    body = [*_LISTED[:3], {"role": "assistant", "content": "No image was needed."}]
    assert not proven_clean(body, "openai-chat", Settings(profile="anthropic"))
    assert _codes(body, "openai-chat", "anthropic") == []


def test_text_content_rules_images_out_whatever_the_json_names() -> None:
    """The reader saw every content is text: no image can be where the media checks
    look, so the JSON naming one does not send the record to the model."""
    body = [*_PLAIN[:3], {"role": "assistant", "content": "No image was needed."}]
    assert proven_clean(body, "openai-chat", Settings(profile="anthropic"))
    assert _codes(body, "openai-chat", "anthropic") == []


def test_without_json_or_model_the_checks_ask_for_the_model() -> None:
    outline = get_codec("openai-chat").read_outline(_PLAIN)
    assert outline is not None
    context = Context(outline, Settings(profile="openai-chat"))
    with pytest.raises(NeedsModel):
        list(oversized_content.check(context))
    assert list(unsupported_media.check(context)) == []  # text content: no image
    assert outline_clean(outline, Settings(profile="openai-chat"), _PLAIN)
    listed = get_codec("openai-chat").read_outline(_LISTED)
    assert listed is not None
    with pytest.raises(NeedsModel):
        list(unsupported_media.check(Context(listed, Settings(profile="openai-chat"))))
    assert outline_clean(listed, Settings(profile="openai-chat"), _LISTED)


def test_profiles_without_limits_pay_nothing() -> None:
    outline = get_codec("openai-chat").read_outline(_PLAIN)
    assert outline is not None
    context = Context(outline, Settings(profile="meai"), native=_PLAIN)
    assert list(oversized_content.RULE.run(context)) == []  # `Rule.applies`: not run
    assert list(unsupported_media.RULE.run(context)) == []
    assert "native_json" not in vars(context)  # never serialised


def test_an_escaped_key_in_the_text_read_does_not_hide_an_image() -> None:
    body = [
        {"role": "user", "content": "Look."},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "image_url", "image_url": {}}]},
    ]
    raw = orjson.dumps(body).replace(b'"image_url"', b'"\\u0069mage_url"')
    assert b"image" not in raw  # spelled only with escapes
    assert [d.code for d in histnorm.lint(raw, format="openai-chat")] == ["HN114"]
    assert not proven_clean(orjson.loads(raw), "openai-chat", Settings(), raw)


def test_an_outline_without_media_or_results_rules_images_out_before_the_json() -> None:
    body = [
        {"role": "user", "content": "What is an image_url part?"},
        {"role": "assistant", "content": "A part naming an image by URL."},
    ]
    outline = get_codec("openai-chat").read_outline(body)
    assert outline is not None
    context = Context(outline, Settings(profile="anthropic"), native=body)
    assert not context.may_hold_image
    assert "native_json" not in vars(context)  # the text was never searched
    assert list(unsupported_media.check(context)) == []
    assert proven_clean(body, "openai-chat", Settings(profile="anthropic"))


@pytest.mark.parametrize("native", [True, False])
def test_a_tool_result_leaves_the_image_question_to_the_json_or_the_model(native: bool) -> None:
    body = [*_LISTED[:3], {"role": "assistant", "content": "No image was needed."}]
    outline = get_codec("openai-chat").read_outline(body)
    assert outline is not None
    context = Context(outline, Settings(profile="anthropic"), native=body if native else None)
    assert context.may_hold_image  # the JSON names "image", or there is no JSON to read
    with pytest.raises(NeedsModel):
        list(unsupported_media.check(context))
    plain = Context(outline, Settings(profile="anthropic"), native=_LISTED)
    assert not plain.may_hold_image  # a result of items, but JSON naming no image


def _session(image: dict[str, Any] | None) -> bytes:
    """A Claude Code session (message-per-line JSONL): a call, and its result holding
    `image` beside its text when given."""
    sid = "5e0c3b7a-6d1f-4c2e-9a83-2f4b6c8d0e17"
    content: list[Any] = [{"type": "text", "text": "a picture"}, *([image] if image else [])]
    blocks: list[list[Any]] = [
        [{"type": "text", "text": "Show me."}],
        [{"type": "tool_use", "id": "toolu_1", "name": "Shot", "input": {}}],
        [{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}],
        [{"type": "text", "text": "Done."}],
    ]
    lines, parent = [], None
    for n, (kind, body) in enumerate(
        zip(("user", "assistant", "user", "assistant"), blocks, strict=True)
    ):
        uid = f"u{n}"
        lines.append(
            {
                "parentUuid": parent,
                "sessionId": sid,
                "type": kind,
                "message": {"role": kind, "content": body},
                "uuid": uid,
            }
        )
        parent = uid
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


_BMP_IMAGE = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/bmp", "data": "Qk0="},
}


def test_a_session_is_measured_on_its_lines_not_serialised_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The size and media checks of a message-per-line session read the lines it was
    parsed from: a clean session is proven clean without writing its JSON again."""
    from histnorm import jsonio
    from histnorm.document import lint_document

    data = _session(None)
    written: list[object] = []
    real = jsonio.dumps
    monkeypatch.setattr(jsonio, "dumps", lambda *a, **k: written.append(a) or real(*a, **k))
    result = lint_document(data, path_hint="s.jsonl", settings=Settings(profile="anthropic"))
    assert result.diagnostics == () and written == []


@pytest.mark.parametrize("escaped", [False, True])
def test_an_image_in_a_session_line_is_found_from_the_lines(escaped: bool) -> None:
    """An image inside a result of a session is reported, also when its line spells
    "image" only with escapes (the lines are then serialised to be searched)."""
    from histnorm.document import lint_document

    data = _session(_BMP_IMAGE)
    if escaped:
        data = data.replace(b'"type":"image"', b'"type":"\\u0069mage"')
        assert b'"image"' not in data
    result = lint_document(data, path_hint="s.jsonl", settings=Settings(profile="anthropic"))
    assert [d.code for d in result.diagnostics] == ["HN114"]


@pytest.mark.parametrize("layout", ["session", "json"])
def test_a_decoded_document_is_measured_on_the_text_it_was_read_from(layout: str) -> None:
    """A document that is decoded (its transcript has something to report) keeps the text
    it was read from for the size and media checks of its transcript, as a JSONL record
    does: they do not serialise it again."""
    from histnorm.document.run import read_document
    from histnorm.formats import model_context

    if layout == "session":
        data, hint = _session(_BMP_IMAGE), "s.jsonl"
    else:
        bmp = {"type": "image_url", "image_url": {"url": "data:image/bmp;base64,Qk0="}}
        body = [*_PLAIN, {"role": "user", "content": [bmp]}]
        data, hint = orjson.dumps(body), "h.json"
    (record,) = read_document(data, path_hint=hint).records
    assert record.transcript is not None
    context = model_context(record.transcript, Settings(profile="anthropic"))
    assert context.native is not None and context.native_json is data
    assert [d.code for d in histnorm.lint(record.transcript, profile="anthropic")] == ["HN114"]


class _NoSearch:
    """Stands for the escape search, which must not run."""

    def search(self, text: bytes) -> None:
        raise AssertionError("the JSON text was searched for escapes")


def test_a_value_repaired_as_passed_is_measured_on_its_own_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`repair` writes a value's JSON once (`jsonio.Compact`); the size and media checks
    read it as it is: no search for escapes that could spell a key, since orjson escapes
    control characters only. A control character in a result changes nothing."""
    body = [
        *_LISTED[:2],
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "4 C\x1f"}]},
        _PLAIN[3],
    ]
    monkeypatch.setattr(context_module, "_ESCAPE", _NoSearch())
    for name in ("anthropic", "openai-chat"):  # profiles that limit sizes and media
        result = histnorm.repair(body, profile=name)
        assert result.value is body and result.remaining == ()


def test_compact_json_is_what_the_checks_would_write() -> None:
    body = [*_PLAIN[:3], {"role": "user", "content": "tab\tand \x1f"}]
    raw = jsonio.Compact(orjson.dumps(body))
    outline = get_codec("openai-chat").read_outline(body)
    assert outline is not None
    assert b"\\u001f" in raw  # an escape the search would have found
    context = Context(outline, Settings(profile="anthropic"), native=body, raw=raw)
    assert context.native_json is raw
    assert raw == jsonio.dumps(body)


def test_sizes_are_bounded_by_the_text_read_escapes_or_not() -> None:
    """A string's escapes are longer than what they spell: the length of the text read
    bounds every size, so the size check neither searches it nor writes the JSON again
    (a text longer than a limit sends the check to the model, which measures)."""
    body = [{"role": "user", "content": "café \u2603"}, {"role": "assistant", "content": "Oui."}]
    raw = orjson.dumps(body).replace("é".encode(), b"\\u00e9")
    assert b"\\u00e9" in raw and orjson.loads(raw) == body
    outline = get_codec("openai-chat").read_outline(body)
    assert outline is not None
    context = Context(outline, Settings(profile="openai-chat"), native=body, raw=raw)
    assert list(oversized_content.RULE.run(context)) == []
    assert context.json_size == len(raw)
    assert "native_json" not in vars(context)  # neither searched nor written again


def _with_orphan(result_content: Any) -> list[dict[str, Any]]:
    """An OpenAI Chat history whose answered call's result holds `result_content`, and a
    result no call answers (HN002, whose fix drops it)."""
    call = {"id": "call_1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}
    return [
        {"role": "user", "content": "Show me."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result_content},
        {"role": "tool", "tool_call_id": "call_gone", "content": "late"},
        {"role": "assistant", "content": "Done."},
    ]


@pytest.mark.parametrize(
    ("content", "slot"),
    [("a picture", False), ([{"type": "text", "text": "a picture"}], True)],
    ids=["text", "items"],
)
def test_a_fixed_transcript_looks_for_images_only_where_they_can_be(
    content: Any, slot: bool
) -> None:
    """A transcript a fix made has no JSON text to search: its messages tell whether an
    image can be where the media checks look (a media part, a result of items)."""
    settings = Settings(profile="anthropic")
    transcript = histnorm.load(orjson.dumps(_with_orphan(content)), format="openai-chat")
    fixed = fix(transcript, settings).transcript
    assert len(fixed.messages) == 4
    context = Context(outline_of(fixed), settings, transcript=fixed)
    assert context.may_hold_image is slot


def test_an_image_in_a_fixed_transcript_is_still_reported() -> None:
    bmp = {"type": "image_url", "image_url": {"url": "data:image/bmp;base64,Qk0="}}
    data = orjson.dumps(_with_orphan([{"type": "text", "text": "a picture"}, bmp]))
    transcript = histnorm.load(data, format="openai-chat")
    settings = Settings(profile="anthropic", ignore=("HN114",))
    result = fix(transcript, settings)
    assert dict(result.applied) == {"HN002": 1}
    found = lint(result.transcript, Settings(profile="anthropic"))
    assert [(d.code, d.location.message_index) for d in found] == [("HN114", 2)]
