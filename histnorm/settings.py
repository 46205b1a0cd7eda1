"""Settings: which rules run, how severe they are, and how defects are repaired."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

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


class TailMode(StrEnum):
    """How calls and approvals still open at the end of a transcript are treated."""

    KEEP = "keep"
    """A live state or a training target: reported as HN011 (info) and left alone."""
    CLOSE = "close"
    """The transcript is finished or about to be replayed: open items are defects."""


class Scope(StrEnum):
    """Which messages diagnostics are reported for."""

    ALL = "all"
    TAIL = "tail"
    """Messages after the last user message."""
    MARKED = "marked"
    """Messages carrying the partial-response marker."""


class Settings(BaseModel):
    """Everything that changes what `lint` reports and what `fix` does.

    Rules are named by code (`HN001`) or name (`orphan-tool-call`) in `select`,
    `ignore` and `severity`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = Field(default_factory=dict)
    unsafe_fixes: bool = False
    orphan_tool_call: OrphanCallPolicy = OrphanCallPolicy.DROP
    pending_approval: ApprovalPolicy = ApprovalPolicy.DROP
    whitespace_is_empty: bool = True
    tail: TailMode = TailMode.KEEP
    scope: Scope = Scope.ALL
    profile: str | None = None
    """The replay target whose constraints apply (HN1xx); default: the input format's."""
    synthetic_result_text: str = "Tool call was interrupted before it produced a result."
    rejection_text: str = "Tool call invocation rejected."

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str | None) -> str | None:
        from histnorm.profiles import PROFILES

        if value is not None and value not in PROFILES:
            raise ValueError(f"unknown profile {value!r}; known profiles: {', '.join(PROFILES)}")
        return value


DEFAULT_SETTINGS = Settings()
