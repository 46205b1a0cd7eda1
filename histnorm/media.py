"""Image facts read from header bytes, without an image library.

`image_size` reads width and height from PNG (IHDR), GIF (logical screen), JPEG (the
first SOF marker) and WebP (VP8, VP8L, VP8X) headers; `sniff_type` names the format from
its magic bytes. Both return None for what they cannot read. `decoded_size` and
`head_bytes` work on base64 text, so a check never decodes more than the header it needs.
"""

from __future__ import annotations

import base64
import binascii
import re

_HEAD = 96 * 1024
"""Base64 characters decoded to look for a header (a JPEG SOF may follow a long EXIF)."""

_DATA_URL = re.compile(r"data:([^;,]*)((?:;[^;,]*)*),", re.ASCII)

_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
"""JPEG start-of-frame markers (not DHT C4, JPG C8 or DAC CC)."""


def parse_data_url(url: str) -> tuple[str, str] | None:
    """(media type, base64 data) of a `data:<type>;base64,<data>` URL, or None."""
    found = _DATA_URL.match(url)
    if found is None or ";base64" not in found.group(2).lower():
        return None
    return found.group(1).strip().lower(), url[found.end() :]


def decoded_size(data: str) -> int:
    """How many bytes the base64 text `data` decodes to (without decoding it)."""
    length = len(data.rstrip("=\r\n "))
    return length * 3 // 4


def head_bytes(data: str, limit: int = _HEAD) -> bytes | None:
    """The bytes the first `limit` base64 characters of `data` decode to, or None."""
    head = data[:limit].strip()
    head = head[: len(head) - len(head) % 4]
    try:
        return base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return None


def sniff_type(data: bytes) -> str | None:
    """The media type the magic bytes of `data` show, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"BM"):
        return "image/bmp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    return None


def _u16be(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 2], "big")


def _u32be(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 4], "big")


def _u16le(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 2], "little")


def _jpeg(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        length = _u16be(data, at + 2)
        if marker in _SOF:
            if at + 9 > len(data):
                return None
            return _u16be(data, at + 7), _u16be(data, at + 5)
        if length < 2:
            return None
        at += 2 + length
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        return _u16le(data, 26) & 0x3FFF, _u16le(data, 28) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        return width, int.from_bytes(data[27:30], "little") + 1
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) in pixels from the header of a PNG, GIF, JPEG or WebP, or None."""
    kind = sniff_type(data)
    if kind == "image/png":
        if len(data) < 24 or data[12:16] != b"IHDR":
            return None
        return _u32be(data, 16), _u32be(data, 20)
    if kind == "image/gif":
        return (_u16le(data, 6), _u16le(data, 8)) if len(data) >= 10 else None
    if kind == "image/jpeg":
        return _jpeg(data)
    if kind == "image/webp":
        return _webp(data)
    return None


def image_size_b64(data: str) -> tuple[int, int] | None:
    """`image_size` of base64 text: its head first, all of it when the head is not enough
    (a JPEG whose SOF follows more metadata than the head holds)."""
    head = head_bytes(data)
    if head is None:
        return None
    found = image_size(head)
    if found is None and len(data) > _HEAD and sniff_type(head) == "image/jpeg":
        whole = head_bytes(data, len(data))
        found = None if whole is None else image_size(whole)
    return found


def show_bytes(size: int) -> str:
    """A size for people: `812 B`, `4.1 KB`, `2.1 MB` (1 MB = 1,048,576 bytes)."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
