"""Lint and fix agree: a fix lint offers (`[*]`) is one fix applies; what fix refuses,
lint shows without a fix, with fix's reason."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from histnorm.document import fix_document, lint_document


def _line(uid: str, parent: str | None, text: str) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "sessionId": "5e0c3b7a-6d1f-4c2e-9a83-2f4b6c8d0e17",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": uid,
    }


@pytest.mark.parametrize("parent", ["u0", "gone"])
def test_a_merge_a_session_cannot_hold_is_neither_offered_nor_counted(parent: str) -> None:
    """Two user lines in a row in a Claude Code session (the first one's parent missing or
    not): HN107's merge writes the same two lines back, which read as the two messages
    again. Fix applies nothing, and lint offers nothing, saying why."""
    lines = [
        _line("u0", None, "Hi."),
        _line("u1", parent, "Rename the loader."),
        _line("u2", "u1", "And its callers."),
    ]
    data = b"".join(orjson.dumps(x) + b"\n" for x in lines)
    done = fix_document(data, path_hint="s.jsonl", profile="portable")
    assert done.output is None
    assert "HN107" not in done.applied
    linted = lint_document(data, path_hint="s.jsonl", profile="portable")
    merges = [d for d in linted.diagnostics if d.code == "HN107"]
    assert merges and all(d.fix is None for d in merges)
    assert all("would be written as the transcript was" in d.message for d in merges)


def test_a_merge_written_as_before_is_withdrawn_without_the_conservation_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fix written as the transcript was loses nothing, so the conservation check,
    which reads both writings whole, is not asked about it (one trial per merge costs a
    writing of the session, not a comparison of every value of it)."""
    import histnorm.engine as engine

    asked: list[object] = []
    real = engine.conserved

    def spy(*args: object, **options: object) -> str | None:
        asked.append(args)
        return real(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "conserved", spy)
    lines = [_line("u0", None, "Hi."), _line("u1", "u0", "Rename it."), _line("u2", "u1", "All.")]
    data = b"".join(orjson.dumps(x) + b"\n" for x in lines)
    linted = lint_document(data, path_hint="s.jsonl", profile="portable")
    merges = [d for d in linted.diagnostics if d.code == "HN107"]
    assert merges and all("would be written as the transcript was" in d.message for d in merges)
    assert asked == []
