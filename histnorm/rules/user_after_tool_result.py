"""A user or system message right after tool results, with no assistant answer between.

## What it does
Under profiles whose target wants the assistant to answer tool results before the
conversation goes on (`mistral`, `portable`), reports a message that is neither an
assistant message nor more results and comes right after a message holding only tool
results: the user spoke again before the model answered the results (a cancelled turn,
a reminder injected after the results, a proxy splitting one user message into a `tool`
and a `user` message).

## Why it breaks a replay
Mistral: `Unexpected role 'user' after role 'tool'` (code 3230,
`invalid_request_message_order`); Mistral models served by vLLM with Mistral's own
tokenizer (`mistral_common`) answer the same 400, as its validator takes only an
assistant or another tool message after a tool message. OpenAI, Anthropic and Gemini
accept the shape.

## Example
The user asks again before the assistant answered the tool result.

## Fix
None: the answer the assistant would have given cannot be invented. Add the assistant's
answer, or send the history to a target that accepts the shape.

## Fix safety
There is no fix.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `answer_after_results`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import RESULTS
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.edit import is_result_only
from histnorm.rule import Example, Rule
from histnorm.rules._common import nth
from histnorm.settings import Settings

ASSISTANT_ROLES = ("assistant", "model")


def check(context: Context) -> Iterable[Diagnostic]:
    """Report each message that follows tool results and is no assistant answer."""
    outline = context.outline
    after_results = False
    for mi, message in enumerate(outline.messages):
        results = is_result_only(message)
        if after_results and not results and not message.role_is(*ASSISTANT_ROLES):
            yield RULE.diagnostic(
                f"a {message.role} message follows the tool results in "
                f"{nth(outline, mi - 1)}; the target needs the assistant to answer them first",
                message_index=mi,
            )
        after_results = results


_CALL: Any = {
    "id": "D681PevKs",
    "type": "function",
    "function": {"name": "search", "arguments": "{}"},
}
_BAD: Any = [
    {"role": "user", "content": "Which grants are open?"},
    {"role": "assistant", "content": "", "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "D681PevKs", "content": "none"},
    {"role": "user", "content": "And next year?"},
]

RULE = Rule(
    code="HN124",
    name="user-after-tool-result",
    summary="a user or system message follows tool results with no assistant answer between "
    "(profiles: mistral, portable)",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.answer_after_results,
    needs=RESULTS,
    examples=(
        Example(
            bad=_BAD,
            good=None,
            settings=Settings(profile="mistral"),
            title="the user asks again before the assistant answered the result",
        ),
    ),
)
