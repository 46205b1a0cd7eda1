"""Which rules a selector names, as in ruff: a code, name or alias, a code prefix (`HN1`:
every HN1xx rule) or `ALL`; and which rules `settings` selects and lets `fix` repair."""

from __future__ import annotations

import re
from collections.abc import Iterable

from histnorm.errors import HistnormError
from histnorm.rules import ALL_RULES, resolve
from histnorm.settings import Settings

_PREFIX = re.compile(r"HN\d{0,2}")


def codes(selector: str) -> frozenset[str]:
    """The codes `selector` names; raise `HistnormError` if it names none."""
    wanted = selector.strip().upper()
    if wanted == "ALL":
        return frozenset(rule.code for rule in ALL_RULES)
    try:
        return frozenset({resolve(selector).code})
    except HistnormError:
        found = frozenset(r.code for r in ALL_RULES if r.code.startswith(wanted))
        if not found or not _PREFIX.fullmatch(wanted):
            raise
        return found


def all_codes(selectors: Iterable[str]) -> frozenset[str]:
    """The codes any of `selectors` names."""
    return frozenset().union(*(codes(s) for s in selectors))


def chosen(settings: Settings) -> frozenset[str]:
    """The codes of the rules `settings` runs: `select` (default ALL) and `extend_select`,
    less `ignore`."""
    picked = all_codes(("ALL",) if settings.select is None else settings.select)
    return (picked | all_codes(settings.extend_select)) - all_codes(settings.ignore)


def repairable(settings: Settings) -> frozenset[str]:
    """The codes of the rules whose fixes `fix` may apply: `fixable` (default ALL) less
    `unfixable`; the others are reported without a fix."""
    allowed = all_codes(("ALL",) if settings.fixable is None else settings.fixable)
    return allowed - all_codes(settings.unfixable)
