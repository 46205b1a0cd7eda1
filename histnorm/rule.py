"""The `Rule` record every module under `histnorm.rules` exposes as `RULE`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, TypeAlias

from histnorm._record import record
from histnorm.analysis.context import Context
from histnorm.analysis.outline import ALWAYS
from histnorm.diagnostic import Applicability, Diagnostic, FixInfo, Location, Severity
from histnorm.model_terms import JsonValue
from histnorm.settings import DEFAULT_SETTINGS, Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript
    from histnorm.profiles import Profile

CheckFn: TypeAlias = "Callable[[Transcript, Settings], Iterable[Diagnostic]]"
OutlineCheckFn = Callable[[Context], Iterable[Diagnostic]]
FixFn: TypeAlias = "Callable[[Transcript, Sequence[Diagnostic], Settings], Transcript]"

DOC_SECTIONS = (
    "## What it does",
    "## Why it breaks a replay",
    "## Example",
    "## Fix",
    "## Fix safety",
    "## References",
)
"""The sections every rule docstring has, in this order."""


@record(frozen=True)
class Example:
    """A native transcript that shows a rule; `good` is what `fix(bad)` gives.

    `good=None` means the rule has no fix under `settings` and `bad` stays as it is.
    """

    bad: JsonValue
    good: JsonValue
    format: str = "openai-chat"
    settings: Settings = DEFAULT_SETTINGS
    title: str = ""


def _no_check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    return ()


@record(frozen=True)
class Rule:
    """One rule: identity, defaults, a pure check, an optional pure fix, docs and examples.

    A structural rule gives `check_outline`, which reads the `Context` (its outline, and
    its transcript only for what the outline does not hold); `check` then runs it on the
    transcript's context. A content rule gives `check` on the model and `wants`: the
    outline flags (`histnorm.analysis.outline`) without which it reports nothing, so lint
    can skip decoding a value whose outline has none of them (`ALWAYS`: never skip).
    `needs` names the kinds of tool part and what the pairing found (`Context.facts`)
    without which a rule finds nothing: its check is not run on a transcript that has
    none of them.
    """

    code: str
    name: str
    summary: str
    severity: Severity
    applicability: Applicability | None
    doc: str
    check: CheckFn = _no_check
    fix: FixFn | None = None
    examples: tuple[Example, ...] = ()
    aliases: tuple[str, ...] = field(default=())
    check_outline: OutlineCheckFn | None = None
    wants: int = ALWAYS
    needs: int = 0
    """`CALLS`, `RESULTS`, `APPROVALS`, `UNANSWERED`, `ORPHANED`, `DUPLICATED`, `REPEATED`,
    `PENDING` (`histnorm.analysis.outline`): the kinds of tool part, and what pairing them
    found, a transcript must have one of for this rule to find anything (0: any)."""
    applies: Callable[[Profile], bool] | None = None
    """Whether the rule can report anything under a profile (None: under every one): a
    rule that checks only what a profile limits says so here, and is not run under a
    profile without that limit (`run` asks; the lint fast path plans without it)."""
    tried: bool = False
    """Whether each of its fixes is tried alone, in lint as in fix, and withdrawn (with
    the reason in its message) when it would drop a value it does not own
    (`histnorm.conserve`): for fixes, such as merges, that may not carry everything."""
    other_severities: tuple[tuple[Severity, str], ...] = ()
    """The severities it reports besides `severity`, each with when (profile overrides
    aside: `Profile.severity` names those)."""

    def __post_init__(self) -> None:
        outline_check = self.check_outline
        if outline_check is not None:

            def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
                from histnorm.formats import model_context

                return self.run(model_context(transcript, settings))

            object.__setattr__(self, "check", check)

    def run(self, context: Context) -> Iterable[Diagnostic]:
        """The diagnostics of this rule in `context` (before scope and severity overrides)."""
        if self.applies is not None and not self.applies(context.profile):
            return ()
        if self.check_outline is not None:
            return self.check_outline(context)
        return self.check(context.transcript, context.settings)

    def diagnostic(
        self,
        message: str,
        *,
        message_index: int | None = None,
        part_index: int | None = None,
        fix_title: str | None = None,
        applicability: Applicability | None = None,
        opted_in: bool = False,
        severity: Severity | None = None,
        data: Any = None,
        owns: tuple[tuple[int, int | None], ...] | None = None,
    ) -> Diagnostic:
        """Build a diagnostic of this rule; a `fix_title` means a fix is offered, which
        owns `owns` (`FixInfo.owns`)."""
        fix = None
        if fix_title is not None:
            fix = FixInfo(
                applicability or self.applicability or Applicability.SAFE,
                fix_title,
                opted_in,
                owns,
            )
        return Diagnostic(
            code=self.code,
            name=self.name,
            message=message,
            severity=severity or self.severity,
            location=Location(message_index=message_index, part_index=part_index),
            fix=fix,
            data=data,
        )
