"""The one representation test: a codec's outline equals the outline of what it decodes.

`codec.outline(v) == outline_of(codec.decode(v))` for every fixture, transcripts drawn
by the benchmark corpus generator, odd values and fuzzed damage of the format fixtures
(`make fuzz` runs `test_outline_on_fuzzed_damage` with HISTNORM_FUZZ_EXAMPLES). A value
the fast reader takes must decode; pairing the outline pairs exactly as the model does.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_mutations import damaged
from test_shape import SAMPLES

import histnorm
from histnorm.analysis.outline import (
    EMPTY_TEXT,
    PARTIAL,
    TEXT,
    Call,
    Other,
    Outline,
    Result,
    Step,
    outline_of,
)
from histnorm.errors import HistnormError
from histnorm.formats import CODECS
from histnorm.formats.base import Codec
from histnorm.model import Message, TextPart, ToolCallPart, ToolResultPart, Transcript

FAST = tuple(n for n, c in CODECS.items() if type(c).read_outline is not Codec.read_outline)


def check_outline(fmt: str, where: str, value: Any) -> Outline | None:
    """The representation promise for one native value; its outline, or None if malformed."""
    codec = CODECS[fmt]
    fast = codec.read_outline(value)
    try:
        transcript = codec.decode(value)
    except HistnormError:
        assert fast is None, f"{where}: the fast reader takes a value that does not decode"
        with pytest.raises(HistnormError):
            codec.outline(value)
        return None
    reference = outline_of(transcript)
    assert codec.outline(value) == reference, f"{where}: the codec's outline differs"
    assert fast is None or fast == reference, f"{where}: the fast reader's outline differs"
    assert reference.pairing == transcript.pairing, f"{where}: the outline pairs otherwise"
    return reference


@pytest.mark.parametrize(("fmt", "where", "value"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_outline_is_the_decoded_outline(fmt: str, where: str, value: Any) -> None:
    check_outline(fmt, where, value)


@pytest.mark.parametrize(
    "value",
    [
        [{"role": ["user"], "content": "hi"}],
        [{"role": "user", "content": "hi", "name": ["x"]}],
        [{"role": "assistant", "tool_calls": [{"id": ["c"], "function": {}}]}],
        [["user", "hi"]],
        {"messages": None},
        None,
        42,
    ],
)
@pytest.mark.parametrize("fmt", sorted(CODECS))
def test_odd_values_outline_or_raise(fmt: str, value: Any) -> None:
    """Odd values give the decoded outline or a `HistnormError`, in every codec."""
    check_outline(fmt, f"{fmt}: {value!r}", value)


@pytest.mark.parametrize("fmt", FAST)
def test_the_fast_reader_takes_the_clean_corpus(fmt: str) -> None:
    """The lint hot path reads most clean generated transcripts without a model."""
    from itertools import islice

    from benchmarks.corpus import transcripts

    values = [v for _, v in islice(transcripts(fmt, defect_rate=0.0, seed=3), 60)]
    taken = [v for v in values if CODECS[fmt].read_outline(v) is not None]
    assert len(taken) >= 0.9 * len(values), f"{fmt}: only {len(taken)}/{len(values)}"


def test_outline_of_a_model() -> None:
    """Part indices are the model's; flags say what the parts do not show."""
    transcript = Transcript(
        messages=(
            Message(role="user", parts=(TextPart(text="hi"), TextPart(text=" "))),
            Message(
                role="Assistant",
                id="m1",
                parts=(ToolCallPart(call_id="c1", name="ls"),),
                metadata={"agent_framework.partial_response": True},
            ),
            Message(role="tool", parts=(ToolResultPart(call_id="c1"),)),
        )
    )
    found = outline_of(transcript)
    assert found.messages == (
        Step("user", (TEXT, Other("text", True))),
        Step("Assistant", (Call("c1", "ls"),), PARTIAL, "m1"),
        Step("tool", (Result("c1", None),)),
    )
    assert found.messages[1].is_partial and found.messages[1].role_is("assistant")
    assert found.all_flags & EMPTY_TEXT and found.all_flags & PARTIAL
    assert Call("c1", None) != Result("c1", None)  # kinds never compare equal


@settings(
    max_examples=int(os.environ.get("HISTNORM_FUZZ_EXAMPLES", "100")),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_outline_on_fuzzed_damage(data: st.DataObject) -> None:
    fmt, name, broken, _, applied = data.draw(damaged())
    check_outline(fmt, f"{fmt}/{name} damaged by {applied}", histnorm.encode(broken))
