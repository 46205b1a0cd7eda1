"""What `fix` writes is accepted by the official SDK types of the target API.

The SDK TypedDicts check field names, required fields and literals, not sequence rules
(which are histnorm's own), so the claim is: every fixture that the SDK accepts before
`fix` is still accepted after it, for each format with an official Python SDK. Lazily
validated fields (`Iterable[...]`) are forced by dumping the validated value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pydantic
import pytest

import histnorm

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def _openai_chat() -> Callable[[Any], None]:
    from openai.types.chat import ChatCompletionMessageParam

    adapter = pydantic.TypeAdapter(list[ChatCompletionMessageParam])
    return lambda doc: adapter.dump_python(adapter.validate_python(_messages(doc)))


@functools.cache
def _openai_responses() -> Callable[[Any], None]:
    from openai.types.responses import ResponseInputItemParam

    adapter = pydantic.TypeAdapter(list[ResponseInputItemParam])
    return lambda doc: adapter.dump_python(
        adapter.validate_python(doc["input"] if isinstance(doc, dict) else doc)
    )


@functools.cache
def _anthropic() -> Callable[[Any], None]:
    from anthropic.types import MessageParam

    adapter = pydantic.TypeAdapter(list[MessageParam])
    return lambda doc: adapter.dump_python(adapter.validate_python(_messages(doc)))


@functools.cache
def _gemini() -> Callable[[Any], None]:
    from google.genai import types

    def check(doc: Any) -> None:
        contents = doc.get("contents") if isinstance(doc, dict) else doc
        for content in contents:
            types.Content.model_validate(content)

    return check


def _messages(doc: Any) -> Any:
    return doc["messages"] if isinstance(doc, dict) else doc


VALIDATORS: dict[str, Callable[[], Callable[[Any], None]]] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


def _documents(fmt: str) -> list[Path]:
    paths = sorted((ROOT / "fixtures" / "formats" / fmt).glob("*.json"))
    paths += sorted((ROOT / "fixtures" / "rules").glob(f"*/*.{fmt}.json"))
    return paths


def _valid(check: Callable[[Any], None], doc: Any) -> bool:
    try:
        check(doc)
    except (pydantic.ValidationError, ValueError, TypeError, KeyError):
        return False
    return True


CASES = [
    pytest.param(fmt, path, id=f"{fmt}:{path.parent.name}/{path.name}")
    for fmt in VALIDATORS
    if fmt in histnorm.CODECS
    for path in _documents(fmt)
    if _valid(VALIDATORS[fmt](), orjson.loads(path.read_bytes()))
]


@pytest.mark.parametrize("fmt", [f for f in VALIDATORS if f in histnorm.CODECS])
def test_each_sdk_accepts_several_fixtures(fmt):
    assert sum(1 for case in CASES if case.values[0] == fmt) >= 3


@pytest.mark.parametrize(("fmt", "path"), CASES)
@pytest.mark.parametrize("options", [{}, {"tail": "close", "unsafe_fixes": True}])
def test_fixed_output_is_still_accepted_by_the_sdk(fmt, path, options):
    fixed = histnorm.fix(path.read_bytes(), format=fmt, profile=_profile(fmt), **options)
    VALIDATORS[fmt]()(histnorm.encode(fixed.transcript))


def _profile(fmt: str) -> str:
    return fmt if fmt in ("openai-chat", "openai-responses", "anthropic", "gemini") else "portable"
