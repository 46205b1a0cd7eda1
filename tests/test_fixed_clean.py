"""A fixed transcript the lint fast path proves clean is not checked rule by rule again.

`fix` ends when a pass changes nothing; a pass over a transcript that `outline_clean`
proves clean (asked on the model's context) would change nothing and the lint that ends
the fix would report nothing, so neither runs. These tests hold that shortcut to what
the full passes give, on every fixture and corpus sample, and show it is taken.
"""

from __future__ import annotations

import copy

import pytest
from outline_helpers import SAMPLES

import histnorm.engine as engine
from histnorm.errors import HistnormError
from histnorm.formats import CODECS
from histnorm.settings import Settings

SETTINGS = {
    "default": Settings(),
    "anthropic": Settings(profile="anthropic"),
    "portable, unsafe": Settings(profile="portable", unsafe_fixes=True),
}


def _decoded(fmt, value):
    try:
        return CODECS[fmt].decode(copy.deepcopy(value))
    except HistnormError:
        return None


def _outcome(call, transcript, settings):
    try:
        result = call(transcript, settings)
    except engine.FixDidNotConverge as error:
        return ("did not converge", str(error))
    if isinstance(result, tuple):
        return result
    return (result.transcript, dict(result.applied), result.remaining, result.fixes, result.refused)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_the_shortcut_changes_no_result(name, monkeypatch):
    """`fix` and `lint` give what they give when every pass runs every rule."""
    settings = SETTINGS[name]
    shortcut = engine._Found.clean
    taken = 0
    for fmt, where, value in SAMPLES:
        transcript = _decoded(fmt, value)
        if transcript is None:
            continue
        for call in (engine.fix, engine.lint):
            monkeypatch.setattr(engine._Found, "clean", shortcut)
            found = _outcome(call, transcript, settings)
            monkeypatch.setattr(engine._Found, "clean", lambda self, t, s: False)
            full = _outcome(call, transcript, settings)
            assert found == full, f"{where} ({fmt}, {call.__name__}, {name})"
        fixed = engine.fix(transcript, settings)
        if fixed.changed and not fixed.remaining and fixed.refused is None:
            taken += 1
    assert taken > 100, "too few samples end clean after a fix to show anything"


def test_a_clean_fixed_transcript_is_not_checked_again(monkeypatch):
    """Fixing an orphan result leaves a clean history: no rule checks it, no lint ends it."""
    value = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "done"},
        {"role": "tool", "tool_call_id": "zz", "content": "stray"},
    ]
    transcript = CODECS["openai-chat"].decode(value)
    checked: list[object] = []
    real = engine.check_rule

    def spy(rule, seen, *rest):
        checked.append(seen)
        return real(rule, seen, *rest)

    monkeypatch.setattr(engine, "check_rule", spy)
    result = engine.fix(transcript, Settings())
    assert dict(result.applied) == {"HN002": 1}
    assert result.remaining == ()
    assert checked and all(seen is transcript for seen in checked)
