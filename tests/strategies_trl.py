"""Hypothesis strategies for TRL conversational records (`histnorm.formats.trl`): the
prompt-completion, preference and implicit-prompt preference types of
https://huggingface.co/docs/trl/dataset_formats, each side a chat-template message list
(`strategies_chat_template.messages`), with `tools`, a KTO `label` and unknown keys."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_chat_template import TOOLS, messages
from strategies_json import damaged
from strategies_sharegpt import with_extras

RESERVED = {"prompt", "completion", "chosen", "rejected", "messages", "conversations"}


def _sides(draw: st.DrawFn, kind: str, max_messages: int) -> dict[str, Any]:
    def side(min_size: int) -> list[dict[str, Any]]:
        return draw(messages(min_size, max(min_size, max_messages)))

    if kind == "prompt-completion":
        return {"prompt": side(1), "completion": side(1)}
    if kind == "preference":
        return {"prompt": side(1), "chosen": side(1), "rejected": side(1)}
    return {"chosen": side(1), "rejected": side(1)}  # the prompt is implicit


@st.composite
def transcripts(draw: st.DrawFn, max_messages: int = 3) -> Any:
    """A TRL conversational record, its keys in a drawn order."""
    kind = draw(st.sampled_from(["prompt-completion", "preference", "implicit"]))
    fields = _sides(draw, kind, max_messages)
    if draw(st.booleans()):
        fields["tools"] = TOOLS
    if kind == "prompt-completion" and draw(st.booleans()):
        fields["label"] = draw(st.booleans())
    return draw(with_extras(fields, RESERVED, 1))


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """A valid record with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(transcripts(max_messages=2))
