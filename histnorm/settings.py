"""Settings: which rules run, how severe they are, and how defects are repaired."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from histnorm.choices import Scope as Scope
from histnorm.choices import TailMode as TailMode
from histnorm.diagnostic import Severity


class OrphanCallPolicy(StrEnum):
    """What `fix` does with a tool call that has no result (HN001)."""

    DROP = "drop"
    SYNTHESIZE = "synthesize"
    FAIL = "fail"


class ApprovalPolicy(StrEnum):
    """What `fix` does with an approval request that has no response (HN003)."""

    DROP = "drop"
    DENY = "deny"
    FAIL = "fail"


class InvalidArgumentsPolicy(StrEnum):
    """What `fix` does with a call whose arguments are no JSON object (HN109)."""

    REPLACE = "replace"
    DROP = "drop"
    FAIL = "fail"


CLAUDE_CODE_LINE_LIMIT = 524_288
"""The default `Settings.claude_code_line_limit` (512 KiB): below the smallest single line
reported to hang a resume (675 KB, anthropics/claude-code#21067); see HN018."""


class Settings(BaseModel):
    """Everything that changes what `lint` reports and what `fix` does.

    Rules are named by code (`HN001`) or name (`orphan-tool-call`) in `select`,
    `ignore` and `severity`; `select`, `extend_select`, `ignore`, `fixable` and
    `unfixable` also take a code prefix (`HN1`) or `ALL` (`histnorm.selection`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    select: tuple[str, ...] | None = None
    """The rules to run: codes, names, prefixes (`HN1`) or `ALL` (default: every rule)."""
    extend_select: tuple[str, ...] = ()
    """Rules run on top of `select`."""
    ignore: tuple[str, ...] = ()
    """Rules not run, though selected."""
    fixable: tuple[str, ...] | None = None
    """The rules whose fixes `fix` may apply (default: all)."""
    unfixable: tuple[str, ...] = ()
    """Rules reported without a fix: `fix` never changes what they find."""
    severity: dict[str, Severity] = Field(default_factory=dict)
    """A severity (`error`, `warning` or `info`) per rule, over the rule's own."""
    unsafe_fixes: bool = False
    """Whether `fix` applies unsafe fixes too (those that choose between values)."""
    orphan_tool_call: OrphanCallPolicy = OrphanCallPolicy.DROP
    """What `fix` does with a tool call that has no result (HN001)."""
    pending_approval: ApprovalPolicy = ApprovalPolicy.DROP
    """What `fix` does with an approval request that has no response (HN003)."""
    invalid_tool_arguments: InvalidArgumentsPolicy = InvalidArgumentsPolicy.REPLACE
    """What `fix` does with a call whose arguments are no JSON object (HN109): `replace`
    them with `{}` and keep the raw text in its result, `drop` the call and its results,
    or `fail` (report only)."""
    whitespace_is_empty: bool = True
    """Whether a message of nothing but whitespace counts as empty."""
    tail: TailMode | None = None
    """`keep`: calls still open at the end are a live state (HN011); `close`: defects;
    unset: `close` for a request body (`model`, `max_tokens`... beside the messages),
    `keep` otherwise (`histnorm.tail`)."""
    scope: Scope = Scope.ALL
    """Which messages are reported: `all`, `tail` (after the last user message) or `marked`."""
    profile: str | None = None
    """The replay target whose constraints apply (HN1xx); default: the input format's."""
    synthetic_result_text: str = "Tool call was interrupted before it produced a result."
    """The text of a tool result `fix` writes for a call that has none (`synthesize`)."""
    rejection_text: str = "Tool call invocation rejected."
    """The text of the denial `fix` writes for an approval request (`deny`)."""
    claude_code_line_limit: int = Field(CLAUDE_CODE_LINE_LIMIT, gt=0)
    """The longest Claude Code session line, in bytes, that HN018 accepts."""

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str | None) -> str | None:
        from histnorm.errors import HistnormError
        from histnorm.profiles import get_profile

        if value is None:
            return None
        try:
            return get_profile(value).name  # an alias names its profile
        except HistnormError as exc:
            raise ValueError(exc.message) from None


DEFAULT_SETTINGS = Settings()


def check_options(options: Mapping[str, Any], caller: str) -> None:
    """Raise `TypeError` naming the first of `options` that is no field of `Settings`, as
    Python does for an unexpected keyword argument of `caller`."""
    for name in options:
        if name not in Settings.model_fields:
            known = ", ".join(sorted(Settings.model_fields))
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {name!r}; "
                f"the settings it takes are: {known}"
            )


def with_options(
    settings: Settings | None, options: Mapping[str, Any], caller: str = "histnorm"
) -> Settings:
    """`settings` (default: `DEFAULT_SETTINGS`) with `options` (keyword arguments named as
    the fields of `Settings`) set over it; an unknown name is a `TypeError`."""
    base = settings or DEFAULT_SETTINGS
    if not options:
        return base
    check_options(options, caller)
    return Settings.model_validate({**base.model_dump(), **options})
