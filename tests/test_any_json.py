"""Any JSON value at all: detection, sniffing, shapes and decoding fail only cleanly.

Whatever a line of a file holds (odd types where strings belong, lists where objects
belong, deep nesting), every codec's `sniff` answers between 0 and 1, `shape` answers
None or a shape, `detect_format` and `decode` raise nothing but `HistnormError`, and
`histnorm.lint` answers with diagnostics (or raises `NotATranscript`, as detection
does). Values are drawn near real transcripts: objects with the keys codecs look at,
holding any JSON value.
"""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import histnorm
from histnorm.analysis.outline import Outline
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import CODECS, detect_format

KEYS = st.sampled_from(
    [
        "role", "content", "type", "text", "messages", "contents", "parts", "input", "id",
        "tool_calls", "tool_call_id", "call_id", "tool_use_id", "name", "uuid", "parentUuid",
        "sessionId", "message", "$type", "callId", "Role", "Contents", "function", "system",
        "conversations", "from", "value", "summary", "arguments", "result",
    ]
)  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
ROLES = st.sampled_from(["user", "assistant", "tool", "system", "model", "human", "gpt"])
VALUES = st.recursive(
    SCALARS | ROLES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=25,
)


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(VALUES)
@example([{"role": ["x"], "parts": []}])  # found: an unhashable role in Gemini's sniff
@example([{"role": "user", "content": [{"type": {}}]}])  # and a part type, chat templates
@example([{"type": ["x"], "uuid": "a", "sessionId": "s"}])  # and an event type, Claude Code
def test_any_value_fails_only_cleanly(value: Any) -> None:
    for name, codec in CODECS.items():
        assert 0 <= codec.sniff(value) <= 1, name
        shaped = codec.read_outline(value)
        assert shaped is None or isinstance(shaped, Outline), name
        with contextlib.suppress(HistnormError):
            codec.decode(value)
    with contextlib.suppress(HistnormError):
        detect_format(value)
    try:
        assert isinstance(histnorm.lint(value), tuple)
    except NotATranscript:  # valid JSON but no transcript: raised, never a diagnostic
        with contextlib.suppress(NotATranscript):
            detect_format(value)
            raise AssertionError("lint and detect_format disagree") from None
