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

from pathlib import Path

import pytest

import histnorm
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
