"""A tool result marked as an error has no content.

## What it does
Under profiles whose target rejects it (`bedrock-converse`, `portable`), finds tool
results marked as errors (`is_error`, Gemini's `{"error": ...}` response) whose content
is missing, `""`, `[]` or `{}`: what an agent stores when a tool fails without a
message. A successful result may be empty (Bedrock answered 200 to an empty
`toolResult` content with status success), so only error results are reported.

## Why it breaks a replay
Bedrock: `The content field at messages.N.content.0.toolResult cannot be empty when
status value is error.` (aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15).
The stored result is replayed with every later request, so the session stays broken.

## Example
A failed tool call stored with an empty error result.

## Fix
None yet: write the tool's error message into the result where the agent stores it.
(Filling in a text would change the result's content, which `fix` guards as the one
thing a repair never loses.)

## Fix safety
There is no fix.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `error_result_content`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import RESULTS
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.lazy import model
from histnorm.model_terms import JsonValue
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe
from histnorm.settings import Settings


def is_empty(content: JsonValue) -> bool:
    """Whether a result's content is missing or empty (`""`, `[]`, `{}`)."""
    return content is None or content in ("", [], {})


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every error result without content."""
    if not any(p.kind == "tool_result" for m in context.outline.messages for p in m.parts):
        return
    for mi, message in enumerate(context.transcript.messages):  # needs the content
        for pi, part in enumerate(message.parts):
            if isinstance(part, model.ToolResultPart) and part.is_error and is_empty(part.content):
                yield RULE.diagnostic(
                    f"{describe(part)} is an error without content",
                    message_index=mi,
                    part_index=pi,
                )


def _anthropic(result: Any) -> Any:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Deploy the staging branch."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_01", "name": "deploy", "input": {}}],
            },
            {"role": "user", "content": [result]},
        ],
    }


_RESULT: Any = {"type": "tool_result", "tool_use_id": "toolu_01", "is_error": True}

RULE = Rule(
    code="HN123",
    name="empty-error-result",
    summary="a tool result marked as an error has no content (profiles: bedrock-converse, "
    "portable)",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.error_result_content,
    needs=RESULTS,
    examples=(
        Example(
            bad=_anthropic({**_RESULT, "content": ""}),
            good=None,
            format="anthropic",
            settings=Settings(profile="bedrock-converse"),
            title="a failed call stored without a message",
        ),
    ),
)
