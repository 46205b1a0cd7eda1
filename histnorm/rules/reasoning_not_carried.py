"""A tool-call turn without the reasoning its target needs back.

## What it does
Under profiles whose target needs a model's reasoning replayed with its tool calls
(`deepseek`, `anthropic-thinking`, `gemini-3`), finds the turns that lack it (the
profile's `reasoning_carry` says which):
- `deepseek` (`call-turns`): every assistant message that makes a tool call must carry
  its reasoning (`reasoning_content` in OpenAI Chat, a reasoning part in other formats,
  or one in the assistant messages just before it). Responses-item histories are not
  concerned: DeepSeek's Responses endpoint answered 200 to function calls without
  reasoning items (recorded verdicts).
- `anthropic-thinking` (`opens-tool-loop`): when the history ends inside a tool loop (on
  tool calls or results), the first assistant message of the current turn (after the
  last user message with more than tool results) must open with a thinking or
  redacted-thinking block.
- `gemini-3` (`signed-calls`): in the current turn, the first `functionCall` of each
  model step (a run of model messages) must carry its `thoughtSignature`; earlier turns
  are not validated.

Histories lose reasoning when a client stores only `content` and `tool_calls`, when a
history is converted from another provider, or when thinking was off for some turns.

## Why it breaks a replay
DeepSeek: `The reasoning_content in the thinking mode must be passed back to the API.`
Anthropic: `messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but
found `tool_use`. When `thinking` is enabled, a final `assistant` message must start
with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result`
blocks).` Gemini 3: `Function call is missing a thought_signature in functionCall parts.
This is required for tools to work correctly, and missing thought_signature may lead to
degraded model performance.` Every later request of the session fails the same way.

## Example
A DeepSeek tool-call turn stored without its `reasoning_content`.

## Fix
None. The reasoning and its signature are the model's own: histnorm never invents
them. Send the history with thinking disabled (DeepSeek `thinking: {"type":
"disabled"}`; Anthropic without `thinking`), or start a new turn with a user message,
or restore the reasoning from the client's own store.

## Fix safety
No fix is offered.

## References
- https://api-docs.deepseek.com/guides/thinking_mode (tool calls in thinking mode)
- https://docs.claude.com/en/docs/build-with-claude/extended-thinking
- https://ai.google.dev/gemini-api/docs/thought-signatures
- `histnorm/profile_evidence.py`: the evidence of each profile's `reasoning_carry`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import Outline
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.rules._reasoning import (
    ASSISTANT,
    chat_reasoning_keys,
    has_call,
    has_reasoning,
    keeps_keys,
    loop_is_open,
    turn_start,
)
from histnorm.settings import Settings

_SIGNATURE_KEYS = ("thoughtSignature", "thought_signature")
_ITEM_WIRES = frozenset({"openai-responses", "codex"})
"""Responses-item histories: DeepSeek's Responses endpoint answered 200 to function calls
without reasoning items, so `call-turns` holds for the Chat wire only."""


def _first_call(outline: Outline, index: int) -> int:
    return next(i for i, p in enumerate(outline.messages[index].parts) if p.kind == "tool_call")


def _carried_before(outline: Outline, index: int) -> bool:
    """Whether this assistant message, or one in the run of assistant messages ending
    with it, holds a reasoning part."""
    while index >= 0 and outline.messages[index].role_is(*ASSISTANT):
        if has_reasoning(outline.messages[index]):
            return True
        index -= 1
    return False


def _call_turns(context: Context) -> Iterator[Diagnostic]:
    outline = context.outline
    if outline.format in _ITEM_WIRES:
        return
    for mi, step in enumerate(outline.messages):
        if not step.role_is(*ASSISTANT) or not has_call(step) or _carried_before(outline, mi):
            continue
        if keeps_keys(outline) and chat_reasoning_keys(context.transcript.messages[mi]):
            continue
        yield RULE.diagnostic(
            f"an assistant tool-call turn carries no reasoning; {context.profile.name} "
            "needs its reasoning_content passed back",
            message_index=mi,
            part_index=_first_call(outline, mi),
        )


def _opens_tool_loop(context: Context) -> Iterator[Diagnostic]:
    outline = context.outline
    if not loop_is_open(outline):
        return
    turn = range(turn_start(outline), len(outline.messages))
    assistants = [i for i in turn if outline.messages[i].role_is(*ASSISTANT)]
    if not assistants or not any(has_call(outline.messages[i]) for i in assistants):
        return
    first = outline.messages[assistants[0]]
    if first.parts and first.parts[0].kind == "reasoning":
        return
    yield RULE.diagnostic(
        "the assistant turn of the open tool loop does not start with a thinking block, "
        f"which {context.profile.name} requires",
        message_index=assistants[0],
        part_index=0 if first.parts else None,
    )


def _signed(native: Any) -> bool:
    return isinstance(native, dict) and any(native.get(key) for key in _SIGNATURE_KEYS)


def _signed_calls(context: Context) -> Iterator[Diagnostic]:
    outline = context.outline
    messages = outline.messages
    step_start = True
    for mi in range(turn_start(outline), len(messages)):
        if not messages[mi].role_is(*ASSISTANT):
            step_start = True
            continue
        if not step_start or not has_call(messages[mi]):
            continue
        step_start = False
        pi = _first_call(outline, mi)
        if not _signed(context.transcript.messages[mi].parts[pi].native):
            yield RULE.diagnostic(
                "the first function call of a model step in the current turn has no "
                f"thoughtSignature, which {context.profile.name} requires",
                message_index=mi,
                part_index=pi,
            )


_CHECKS = {
    "call-turns": _call_turns,
    "opens-tool-loop": _opens_tool_loop,
    "signed-calls": _signed_calls,
}


def check(context: Context) -> Iterable[Diagnostic]:
    """Report tool-call turns without the reasoning the profile's target needs back."""
    found = _CHECKS.get(context.profile.reasoning_carry)
    if found is None:
        return ()
    return found(context)


_CALL: Any = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
_CHAT_TURN: Any = [
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
]


_ANTHROPIC_LOOP: Any = [
    {"role": "user", "content": [{"type": "text", "text": "list the files"}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]},
]

RULE = Rule(
    code="HN116",
    name="reasoning-not-carried",
    summary="a tool-call turn lacks the reasoning its target needs back (profiles: "
    "deepseek, anthropic-thinking, gemini-3)",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.reasoning_carry in _CHECKS,
    examples=(
        Example(
            bad=_CHAT_TURN,
            good=None,
            settings=Settings(profile="deepseek"),
            title="a DeepSeek tool call stored without its reasoning_content",
        ),
        Example(
            bad=_ANTHROPIC_LOOP,
            good=None,
            format="anthropic",
            settings=Settings(profile="anthropic-thinking"),
            title="an open tool loop whose assistant turn lost its thinking block",
        ),
    ),
)
