"""A function call whose arguments the target cannot read as one JSON object.

## What it does
Under profiles whose target parses history arguments (`vllm`, `portable`), finds function
calls whose `arguments` are not valid JSON (a stream cancelled mid-call leaves them
truncated), are JSON but not an object (`[]`, `42`, `null`), are encoded twice (a JSON
string holding the JSON text of an object), or are in the other form than the format
writes: a string where the format carries an object (a chat template, Anthropic `input`,
Gemini `args`) or an object where it carries a JSON string (OpenAI Chat, Responses, Codex).
Absent or empty arguments are read as `{}` and not reported; custom, hosted and MCP calls
take free text or server-side values and are not checked.

## Why it breaks a replay
vLLM parses every history call's arguments for the chat template and fails the request:
`{"error":{"message":"Expecting ',' delimiter: line 1 column 54 (char 53)",
"type":"BadRequestError","param":null,"code":400}}` (vllm-project/vllm#43995), which
made NVIDIA-NeMo/Gym#3474 lose 44 of 400 samples; OpenAI-compatible gateways:
`messages.70.tool_calls.0.function.arguments: arguments must be a valid JSON object
string` (justrach/codegraff#752). A string where the template needs an object:
`TypeError: Can only get item pairs from a mapping.` (QwenLM/Qwen3#1894); an object where
OpenAI needs a string: `Invalid type for 'messages[2].tool_calls[0].function.arguments':
expected a string, but got an object instead.` (aaif-goose/goose-mobile#20). The
official OpenAI endpoints do not re-parse history arguments, so their profiles leave
this rule off.

## Example
A `bash` call cut off mid-stream, and its error result.

## Fix
Arguments encoded twice are decoded once; arguments in the other form are converted to
the format's own (the object written as its JSON text, or the text parsed). Arguments that
are no JSON object follow the policy `invalid-tool-arguments`: `replace` (default) sets
them to `{}` in the format's form and appends a note with the raw text to the call's
result (a text block in block lists; a result whose content is neither text nor a block
list gets no fix). A call with no result gets one saying so only where HN001 would add one
itself (`orphan-tool-call=synthesize`, and not a call left open at the end under
`tail=keep`); elsewhere it gets no fix; `drop`
removes the call and every result that answers it; `fail` reports only.

## Fix safety
Decoding a second layer is safe: a JSON string holds its text exactly. Converting the
form is safe when the value round-trips exactly (no duplicate keys; written back, it
reads as the same value), unsafe otherwise. JSON text holding a number that would be
written back with another spelling (`1e-400` as `0.0`, `1E2` as `100.0`, `-0` as `0`,
`1.50` as `1.5`) is not converted at all, under any setting: the call stays reported, and
the report names the number. `replace` is safe: the raw text is kept in
the result. `drop` loses the result, so it applies only when chosen.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `tool_arguments`, listed
  below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import CALLS
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.lazy import model
from histnorm.rule import Example, Rule
from histnorm.rules._arguments import (
    FIXED_BY_FORM,
    Finding,
    argument_fix,
    carries_note,
    inspect_arguments,
    native_form,
)
from histnorm.settings import InvalidArgumentsPolicy, Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript

__all__ = ["RULE", "Finding", "inspect_arguments"]

CHECKED = frozenset({"function", "handoff"})
"""The call families whose arguments are JSON on the wire."""
ACTIONS = frozenset(
    {"computer_call", "local_shell_call", "shell_call", "apply_patch_call", "tool_search_call"}
)
"""Responses and Codex call items whose `action`, `operation` or `arguments` is an object
the API defines, not the JSON text of function arguments (OpenAI answered 200 to object
`arguments` on a client-run `tool_search_call`)."""


def check(context: Context) -> Iterable[Diagnostic]:
    """Report calls whose arguments are no JSON object in the format's form."""
    limits = context.profile
    if limits.tool_arguments == "any":
        return
    transcript = context.transcript
    form = native_form(transcript.format)
    policy = context.settings.invalid_tool_arguments
    for mi, message in enumerate(transcript.messages):
        for pi, part in enumerate(message.parts):
            if (
                not isinstance(part, model.ToolCallPart)
                or part.family.value not in CHECKED
                or part.tool_type in ACTIONS
            ):
                continue
            found = inspect_arguments(part.arguments, form)
            if found is None:
                continue
            what = f"the arguments of the call {part.name or ''!r} {found.message}"
            if found.kind in FIXED_BY_FORM:
                carried = "the JSON text" if form == "string" else "the object"
                if form != "either":
                    what += f" ({transcript.format} carries {carried})"
                safe = Applicability.SAFE if found.exact else Applicability.UNSAFE
                title: str | None = "convert them"
                if found.kind == "double-encoded":
                    title = "decode them once"
                if found.respelled is not None:
                    title = None  # numbers keep their spelling: no fix
                yield RULE.diagnostic(
                    what, message_index=mi, part_index=pi, fix_title=title, applicability=safe
                )
                continue
            offer, applicability = _offer(policy, context, (mi, pi))
            owns = None
            if policy is InvalidArgumentsPolicy.DROP:  # the call and every result of it
                answers = context.pairing.result_calls.items()
                owns = ((mi, pi), *(r for r, c in answers if c == (mi, pi)))
            yield RULE.diagnostic(
                f"{what} ({limits.name} needs one JSON object)",
                message_index=mi,
                part_index=pi,
                fix_title=offer,
                applicability=applicability,
                opted_in=policy is InvalidArgumentsPolicy.DROP,
                owns=owns,
            )


def _offer(
    policy: InvalidArgumentsPolicy, context: Context, position: tuple[int, int]
) -> tuple[str | None, Applicability | None]:
    if policy is InvalidArgumentsPolicy.DROP:
        return "remove the call and its results", Applicability.UNSAFE
    if policy is InvalidArgumentsPolicy.FAIL:
        return None, None
    if not carries_note(context.transcript, context.pairing, position, context.settings):
        return None, None
    return "replace them with {} and keep the raw text in the result", Applicability.SAFE


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Decode, convert, replace or drop each reported call's arguments."""
    positions = [(d.location.message_index or 0, d.location.part_index or 0) for d in diagnostics]
    return argument_fix(transcript, positions, settings)


_TRUNCATED = '{"command": "ls -la /tmp/wor'
_CALL: Any = {"id": "call_1", "type": "function", "function": {"name": "bash"}}
_BAD: Any = [
    {"role": "user", "content": "List the files."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{**_CALL, "function": {"name": "bash", "arguments": _TRUNCATED}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "error: bad arguments"},
    {"role": "user", "content": "Continue."},
]
_NOTE = (
    "error: bad arguments\n\n[histnorm: the arguments of this call were no JSON object and "
    "were replaced by {}; they were: " + _TRUNCATED + "]"
)
_DOUBLE = '"{\\"location\\": \\"Paris\\"}"'

RULE = Rule(
    code="HN109",
    name="invalid-tool-arguments",
    summary=(
        "a call's arguments are not one JSON object in the form the target reads "
        "(profiles: vllm, portable)"
    ),
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=CALLS,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[
                _BAD[0],
                {
                    **_BAD[1],
                    "tool_calls": [{**_CALL, "function": {"name": "bash", "arguments": "{}"}}],
                },
                {**_BAD[2], "content": _NOTE},
                _BAD[3],
            ],
            settings=Settings(profile="vllm"),
            title="truncated arguments replaced, their text kept in the result",
        ),
        Example(
            bad=[
                _BAD[0],
                {
                    **_BAD[1],
                    "tool_calls": [{**_CALL, "function": {"name": "bash", "arguments": _DOUBLE}}],
                },
                _BAD[2],
                _BAD[3],
            ],
            good=[
                _BAD[0],
                {
                    **_BAD[1],
                    "tool_calls": [
                        {
                            **_CALL,
                            "function": {"name": "bash", "arguments": '{"location": "Paris"}'},
                        }
                    ],
                },
                _BAD[2],
                _BAD[3],
            ],
            settings=Settings(profile="vllm"),
            title="arguments encoded twice are decoded once",
        ),
    ),
)
