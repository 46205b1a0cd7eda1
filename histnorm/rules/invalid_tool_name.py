"""A tool call whose name is empty, missing, or outside what the target accepts.

## What it does
Under every profile, finds function calls (and custom and handoff calls) with an empty
name, or none where their native kind requires one: no target takes one. Under profiles
with name limits (`openai-chat`, `openai-responses`, `bedrock-converse`, `portable`:
`[a-zA-Z0-9_-]+`, at most 64 characters), also finds names the target rejects: a
model-invented `browser.tabs.open`, a namespaced `functions.exec_command`, a name holding
NUL bytes after a corrupted write.
Hosted and MCP calls are not checked. It reads only the call names the outline holds.

## Why it breaks a replay
OpenAI Chat Completions: `400 Invalid 'messages[2].tool_calls[0].function.name': empty
string. Expected a string with minimum length 1, but got an empty string instead.`
(continuedev/continue#5091); Responses API, on a resumed Codex session:
`Invalid 'input[646].name': string does not match pattern. Expected a string that
matches the pattern '^[a-zA-Z0-9_-]+$'.` (openai/codex#24369); Bedrock: `Value at
'...toolUse.name' failed to satisfy constraint: Member must satisfy regular expression
pattern: [a-zA-Z0-9_-]+` (openclaw/openclaw#12949). The call stays in the history, so
every later request fails the same way.

## Example
A call named `browser.tabs.open` replayed into Chat Completions.

## Fix
Unsafe, for a name outside the pattern or too long: replace each character the
target does not take with `_` and cut the name to the limit, in the call and in every
result paired with it that carries the old name. An empty or missing name has no fix.

## Fix safety
Unsafe: the name names a tool declared in the request, which histnorm does not own
and does not rewrite; the new name may name no declared tool, or another one (`a.b`
and `a_b` both become `a_b`). The mapping is deterministic and a fixed name passes,
so fixing twice gives the same result. An empty name cannot be repaired without
inventing a tool.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `tool_name_pattern`
  and `max_tool_name_length`, listed below by profile.
- openai/codex#9447 (a fallback that replaces invalid characters with `_`),
  vercel/ai#17769 (the same for Bedrock).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import CALLS
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily
from histnorm.pairing import Position, pair_transcript
from histnorm.profiles import Profile
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe, part_at, profile, reported
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Part, Transcript

CHECKED = frozenset({ToolFamily.FUNCTION, ToolFamily.CUSTOM, ToolFamily.HANDOFF})
"""The families whose calls name a tool the request declares."""
NAMED_KINDS = frozenset({"function", "function_call", "custom", "custom_tool_call"})
"""Native call kinds whose name is required, so a missing one is reported (others, such as
the Responses API's client-run `tool_search_call`, carry no name by design)."""


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def name_problem(name: str, limits: Profile) -> str | None:
    """Why `name` breaks the profile's limits on tool names, or None."""
    longest = limits.max_tool_name_length
    if longest is not None and len(name) > longest:
        return f"is {len(name)} characters long (the limit is {longest})"
    pattern = limits.tool_name_pattern
    if pattern is not None and not _compiled(pattern).fullmatch(name):
        return f"does not match {pattern}"
    return None


def safe_name(name: str, limits: Profile) -> str | None:
    """`name` with each character the profile's pattern rejects replaced by `_`, cut to
    its length limit; None when that still breaks the limits."""
    pattern = limits.tool_name_pattern
    if pattern is not None:
        accepts = _compiled(pattern).fullmatch
        name = "".join(ch if accepts(ch) else "_" for ch in name)
    if limits.max_tool_name_length is not None:
        name = name[: limits.max_tool_name_length]
    return name if name and name_problem(name, limits) is None else None


def check(context: Context) -> Iterable[Diagnostic]:
    """Report calls whose name is empty, missing or rejected by the target."""
    limits = context.profile
    problems: dict[str, str | None] = {}  # a name is checked once, however many calls
    for (mi, pi), part in context.outline.calls():
        if part.family not in CHECKED:
            continue
        if part.name is None and part.tool_type not in NAMED_KINDS:
            continue
        if not part.name:
            what = "no name" if part.name is None else "an empty name"
            yield RULE.diagnostic(
                f"{describe(part)} has {what}; no target takes a call without one",
                message_index=mi,
                part_index=pi,
            )
            continue
        if part.name in problems:
            why = problems[part.name]
        else:
            why = problems[part.name] = name_problem(part.name, limits)
        if why is not None:
            new = safe_name(part.name, limits)
            yield RULE.diagnostic(
                f"tool name {part.name!r} {why} for {limits.name}",
                message_index=mi,
                part_index=pi,
                fix_title=None if new is None else f"rename the call to {new!r}",
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Rename each reported call, and the results paired with it that carry its name."""
    limits = profile(transcript, settings)
    pairing = pair_transcript(transcript)
    replace: dict[Position, Sequence[Part]] = {}
    for position in reported([d for d in diagnostics if d.fix is not None]):
        call = part_at(transcript, position)
        assert isinstance(call, model.ToolCallPart) and call.name
        new = safe_name(call.name, limits)
        if new is None:
            continue
        replace[position] = (call.evolve(name=new),)
        result = pairing.call_results.get(position)
        if result is not None:
            answer = part_at(transcript, result)
            if answer.kind == "tool_result" and answer.name == call.name:
                replace[result] = (answer.evolve(name=new),)
    return rewrite(transcript, replace=replace)


def _call(name: str) -> Any:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": "{}"}}


def _history(name: str) -> Any:
    return [
        {"role": "user", "content": "Open the docs."},
        {"role": "assistant", "content": None, "tool_calls": [_call(name)]},
        {"role": "tool", "tool_call_id": "call_1", "content": "opened"},
    ]


RULE = Rule(
    code="HN111",
    name="invalid-tool-name",
    summary="a tool call's name is empty, or outside the charset and length the target takes",
    severity=Severity.ERROR,
    applicability=Applicability.UNSAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=CALLS,
    fix=fix,
    examples=(
        Example(
            bad=_history("browser.tabs.open"),
            good=_history("browser_tabs_open"),
            settings=Settings(unsafe_fixes=True),
            title="a model-invented dotted name, renamed with --unsafe-fixes",
        ),
        Example(
            bad=_history(""),
            good=None,
            title="an empty name: every target rejects it, and there is no fix",
        ),
    ),
)
