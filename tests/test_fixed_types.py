"""`changed_type`, the default post-condition of a fix: no kept key changes JSON type.

A message the writer hands back as the very object it was read from cannot have changed,
whether the document is a list of messages or a request body holding one: it is passed
over without working out where it stands. A message written anew is compared key by key.
"""

from __future__ import annotations

from typing import Any

import pytest

from histnorm import model
from histnorm.formats import get_codec
from histnorm.formats._fixed_types import changed_type
from histnorm.model import Transcript

MESSAGES = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Show me the chart."},
    {"role": "assistant", "content": "Here it is."},
    {"role": "user", "content": "Thanks."},
]


class _Counting:
    """The codec, counting the messages whose place it is asked for."""

    def __init__(self) -> None:
        self.codec = get_codec("openai-chat")
        self.asked: list[int] = []

    def written(self, transcript: Transcript) -> Any:
        return self.codec.written(transcript)

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        self.asked.append(message_index)
        return self.codec.message_pointer(transcript, message_index)


def _with_image(transcript: Transcript, index: int) -> Transcript:
    """`transcript` with message `index` holding an image where its text was: its string
    content becomes an array of one item."""
    image = model.MediaPart(media_type="image/png", uri="https://example.com/chart.png")
    messages = list(transcript.messages)
    messages[index] = messages[index].evolve(parts=(image,))
    return transcript.evolve(messages=tuple(messages))


@pytest.mark.parametrize("body", [False, True], ids=["list", "request body"])
def test_a_string_content_made_an_array_is_refused(body: bool) -> None:
    native: Any = {"model": "gpt-4.1", "messages": MESSAGES, "tools": []} if body else MESSAGES
    counting = _Counting()
    original = counting.codec.decode(native)
    problem = changed_type(counting, original, _with_image(original, 1))
    assert problem == '"content" in message 2 of 4 would change from a string to an array'
    assert counting.asked == [1]  # the other three are written as they were read


@pytest.mark.parametrize("body", [False, True], ids=["list", "request body"])
def test_messages_written_as_read_are_passed_over(body: bool) -> None:
    native: Any = {"model": "gpt-4.1", "messages": MESSAGES} if body else MESSAGES
    counting = _Counting()
    original = counting.codec.decode(native)
    dropped = original.evolve(messages=original.messages[:2] + original.messages[3:])
    assert changed_type(counting, original, dropped) is None
    assert counting.asked == []


def test_a_message_rewritten_with_the_same_types_passes() -> None:
    counting = _Counting()
    original = counting.codec.decode({"model": "gpt-4.1", "messages": MESSAGES})
    messages = list(original.messages)
    messages[2] = messages[2].evolve(parts=(model.TextPart(text="Here it is, again."),))
    assert changed_type(counting, original, original.evolve(messages=tuple(messages))) is None
    assert counting.asked == [2]


def test_the_envelope_is_compared_too() -> None:
    counting = _Counting()
    original = counting.codec.decode({"model": "gpt-4.1", "messages": MESSAGES})
    native = {"model": ["gpt-4.1"], "messages": MESSAGES}
    problem = changed_type(counting, original, original.evolve(native=native))
    assert problem == '"model" would change from a string to an array'
