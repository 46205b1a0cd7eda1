"""Content histnorm does not model, where it could hide a tool call or result.

## What it does
Reports what histnorm read but does not understand, wherever it matters for pairing:
- a message key that carries calls or results in another format and that this format's
  reader ignores (`tool_calls`, `tool_call_id`, `function_call` in an Anthropic, Gemini
  or MEAI message, usually because `--format` named the wrong format): error;
- a message that holds nothing where its format keeps content (OpenAI Chat's `content`,
  `tool_calls`...) but holds something under keys the reader does not know (a Semantic
  Kernel message's `items`, a LlamaIndex message's `blocks`): error; its content is there,
  unseen, so it is no empty message (HN005 leaves it alone);
- a role no format histnorm reads defines (`"assitant"`, `"ipython"`, `"bot"`): error;
- a part or item of an unknown type whose name says tool, function, call, result or
  observation (`{"type": "tool_call", "value": ...}`): error, it may be a call or result;
- any other part of an unknown type in a message that takes part in pairing (one with
  calls, results or approvals, a tool message, or an assistant message of a history with
  calls): warning;
- a history most of whose parts (two or more) are of unknown types: error; histnorm
  cannot check it, and it is likely another format read by the wrong codec.

Types a codec recognises and keeps verbatim on purpose (Anthropic `container_upload`,
Responses `web_search_call`, ...) and unknown parts in plain user or system messages of
a history without tools are not reported.

## Why it breaks a replay
What histnorm cannot see it cannot pair: a call it cannot read makes its result look
orphaned, a result it cannot read makes its call look unanswered, and a repair made on
that view deletes real content. Providers reject what they do not know, e.g. OpenAI:
`Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and
'user'.`; LLaMA-Factory logs `Invalid role tag in [...]` and skips the record.

## Example
An OpenAI Chat file linted with `--format anthropic`: the assistant's `tool_calls` are
invisible to the Anthropic reader, so the message looks empty.

## Fix
None: histnorm does not guess what unknown content means. Instead, every other fix that
would remove, move or rewrite content in the turn of the unknown content (and any fix
on a call before it or a result after it) is held back; its diagnostic then ends with
`fix held back: unknown content at <pointer>` and `fix` leaves it in place. Read the
file in its own format (`--format`), correct the role, or `--ignore` the rules whose
fixes you do not want.

## Fix safety
No fix is offered. The guard keeps the file as it is wherever histnorm cannot see.

## References
- What histnorm acts on, in the
  [README](../../README.md#what-histnorm-acts-on-and-what-fix-will-never-do): unknown
  content holds back every fix around it.
- `histnorm/unknown.py` (the findings) and `histnorm/guard.py` (the fixes held back).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from histnorm.analysis.outline import UNKNOWN, UNKNOWN_PART, UNKNOWN_ROLE
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rule import Example, Rule
from histnorm.settings import Settings
from histnorm.unknown import findings

if TYPE_CHECKING:
    from histnorm.model import Transcript


def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    """Report every finding of `findings`."""
    for found in findings(transcript):
        yield RULE.diagnostic(
            found.message,
            message_index=found.message_index,
            part_index=found.part_index,
            severity=found.severity,
        ).at(pointer=found.pointer)


_CALL = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
_FORCED = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
]
_ROLE = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "assitant", "content": "It is sunny."},
]
_V1 = [
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
    {"role": "assistant", "content": [{"type": "tool_call", "value": '{"name": "weather"}'}]},
]

RULE = Rule(
    code="HN013",
    name="unknown-content",
    summary="content histnorm does not model could hide a tool call or result",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    check=check,
    wants=UNKNOWN | UNKNOWN_PART | UNKNOWN_ROLE,
    other_severities=(
        (
            Severity.WARNING,
            "for a part of an unknown type whose name says nothing of calls or results, in "
            "a message that takes part in pairing",
        ),
    ),
    examples=(
        Example(bad=_FORCED, good=None, format="anthropic", title="tool_calls read as Anthropic"),
        Example(bad=_ROLE, good=None, title="a misspelt role"),
        Example(bad=_V1, good=None, title="a tool_call part of another dialect"),
    ),
)
