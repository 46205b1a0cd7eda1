"""Every rule's examples are its documentation and its tests (BAD is found, GOOD is clean)."""

from __future__ import annotations

import orjson
import pytest

import histnorm
from histnorm.engine import fix, lint
from histnorm.rules import ALL_RULES

EXAMPLES = [
    pytest.param(rule, example, id=f"{rule.code}-{i}")
    for rule in ALL_RULES
    for i, example in enumerate(rule.examples)
]


@pytest.mark.parametrize(("rule", "example"), EXAMPLES)
def test_bad_example_is_reported(rule, example):
    codes = [d.code for d in lint(histnorm.load(example.bad, example.format), example.settings)]
    assert rule.code in codes


@pytest.mark.parametrize(("rule", "example"), EXAMPLES)
def test_fix_of_bad_gives_good(rule, example):
    result = fix(histnorm.load(example.bad, example.format), example.settings)
    expected = example.bad if example.good is None else example.good
    assert orjson.dumps(histnorm.encode(result.transcript)) == orjson.dumps(expected)
    assert (rule.code in result.applied) == (example.good is not None)


@pytest.mark.parametrize(("rule", "example"), [p for p in EXAMPLES if p.values[1].good])
def test_good_example_is_clean_for_its_rule(rule, example):
    transcript = histnorm.load(example.good, example.format)
    assert rule.code not in {d.code for d in lint(transcript, example.settings)}
    assert not fix(transcript, example.settings).applied


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.code != "HN000"], ids=lambda r: r.code)
def test_every_rule_has_examples_and_fixable_rules_show_their_fix(rule):
    assert rule.examples, f"{rule.code} has no examples"
    if rule.fix is not None:
        assert any(e.good is not None for e in rule.examples), f"{rule.code} shows no fix"


def test_unreadable_transcript_is_hn000():
    (diagnostic,) = histnorm.lint(b'{"messages": [{"role": "user", "content": "hi"')
    assert diagnostic.code == "HN000"
    assert diagnostic.location.line == 1
    (shape,) = histnorm.lint([{"role": "assistant", "tool_calls": [{"type": "function"}]}])
    assert shape.code == "HN000"
    assert shape.location.pointer == "/0/tool_calls/0/id"
