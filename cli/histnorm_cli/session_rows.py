"""A session stored one item per row, checked as one transcript, and the row changes its
fix comes to.

Rows are read in the session's order; each row's text is parsed as the framework parses
it (`json.loads`). A row that does not parse is an HN000 at its position, and the session
is then linted without it and never rewritten. A fix becomes row changes that keep every
row whose item is unchanged as it is (same id, same text): an item that replaces another
takes its row, a removed one loses its row, and new items are appended after the last
row. A fix that would put a new item between two kept rows, or move rows, is refused:
the rows' order is their ids', and histnorm does not renumber them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import field
from decimal import Decimal
from typing import Any, Protocol

import histnorm
from histnorm._record import record
from histnorm.diagnostic import Diagnostic
from histnorm.engine import fix_refused, unreadable
from histnorm.errors import HistnormError
from histnorm.linemap import duplicate_key
from histnorm.settings import Settings
from histnorm_cli.diffs import unified
from histnorm_cli.job import Job, Outcome
from histnorm_cli.sql import Database

FORMAT = "openai-responses"

Row = tuple[int, str]
"""A stored row: its id, and its text."""


@record
class Plan:
    """The row changes of one session's fix, in the order to run them."""

    update: list[tuple[int, Any]] = field(default_factory=list)
    delete: list[int] = field(default_factory=list)
    append: list[Any] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.update or self.delete or self.append)


@record
class Checked:
    """One session after the rules ran."""

    diagnostics: list[Diagnostic]
    plan: Plan = field(default_factory=Plan)
    applied: dict[str, int] = field(default_factory=dict)
    fixes: tuple[Diagnostic, ...] = ()
    new_texts: list[str] | None = None
    """The session's rows' texts after the fix (for a diff); None when unchanged."""


def encode_item(item: Any) -> str:
    """An item's row text, as `SQLiteSession` writes it (`json.dumps` with its defaults)."""
    return json.dumps(item)


def lost_number(text: Any) -> str | None:
    """A number in the JSON `text` that reading and writing it back would not keep (one
    with more digits than a float holds, or beyond its range), or None."""
    found: list[str] = []

    def check(token: str) -> float:
        value = float(token)
        if not found and (not math.isfinite(value) or Decimal(repr(value)) != Decimal(token)):
            found.append(token)
        return value

    try:
        json.loads(text, parse_float=check)
    except (json.JSONDecodeError, TypeError, UnicodeDecodeError):
        return None
    return found[0] if found else None


def kept_values(row_id: Any, text: Any, repeated: bool) -> str | None:
    """Why rewriting row `row_id` (its stored `text`) would lose a value it holds, or None."""
    if repeated:
        return f"row {row_id} repeats a key in one object; a rewrite would keep only one value"
    number = lost_number(text)
    if number is not None:
        return f"row {row_id} holds the number {number}, which a rewrite would not keep exactly"
    return None


def _parse(rows: Sequence[Row]) -> tuple[list[Any], list[int], list[Diagnostic], set[int]]:
    """The items of the rows that parse, their positions, an HN000 per row that does not,
    and the positions of rows whose objects repeat a key."""
    items: list[Any] = []
    positions: list[int] = []
    errors: list[Diagnostic] = []
    repeated: set[int] = set()
    for position, (rowid, text) in enumerate(rows):
        try:
            item = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            message = f"row {rowid} is not valid JSON ({reason}); the framework skips it"
            errors.append(unreadable(HistnormError(message, pointer=f"/{position}")))
            continue
        if duplicate_key(text.encode("utf-8", "surrogatepass")) is not None:
            repeated.add(position)  # rewriting the row would keep one value of the key
        items.append(item)
        positions.append(position)
    return items, positions, errors, repeated


def _moved(diagnostic: Diagnostic, positions: Sequence[int]) -> Diagnostic:
    """`diagnostic` with its pointer's first step turned from an item's index into its
    row's position."""
    pointer = diagnostic.location.pointer
    if not pointer or not positions:
        return diagnostic
    head, _, rest = pointer[1:].partition("/")
    if not head.isdigit() or int(head) >= len(positions):
        return diagnostic
    moved = f"/{positions[int(head)]}" + (f"/{rest}" if rest else "")
    return diagnostic.at(pointer=moved)


def _lint(items: list[Any], settings: Settings) -> list[Diagnostic]:
    if not items:
        return []
    return list(histnorm.lint(items, settings, format=FORMAT))


def check_session(
    rows: Sequence[Row], fix: bool, settings: Settings, encode: Callable[[Any], str] = encode_item
) -> Checked:
    """Lint one session's rows (in order) as one transcript, or work out its fix (new
    rows' texts made by `encode`)."""
    items, positions, errors, repeated = _parse(rows)
    if not fix or errors or not items:
        found = [_moved(d, positions) for d in _lint(items, settings)]
        if fix and errors:
            found = list(fix_refused(found, "the session has a row that is not JSON"))
        return Checked(errors + found)
    result = histnorm.repair(items, settings, format=FORMAT)
    if not result.changed:
        return Checked(list(result.remaining))
    plan = plan_rows(rows, items, list(result.value), repeated)
    if isinstance(plan, str):
        return Checked(list(fix_refused(_lint(items, settings), plan)))
    old = {id(item): rows[p][1] for item, p in zip(items, positions, strict=True)}
    new_texts = [old[id(v)] if id(v) in old else encode(v) for v in result.value]
    return Checked(
        list(result.remaining), plan, dict(result.applied), tuple(result.fixes), new_texts
    )


def plan_rows(
    rows: Sequence[Row], old: list[Any], new: list[Any], repeated: Collection[int] = ()
) -> Plan | str:
    """The row changes that turn `old` (one item per row of `rows`) into `new`, where an
    unchanged item is the very object in `old`; or why there are none that keep the
    rows' order without renumbering them."""
    where = {id(item): k for k, item in enumerate(old)}
    kept = [where.get(id(item)) for item in new]
    plan = Plan()
    last = -1
    waiting: list[Any] = []
    for item, index in [*zip(new, kept, strict=True), (None, len(old))]:
        if index is None:
            waiting.append(item)
            continue
        if index <= last:
            return "a fix would reorder stored rows"
        gone = list(range(last + 1, index))
        if len(waiting) > len(gone) and index < len(old):
            return (
                "a fix would insert items between stored rows, which are ordered by id; "
                "histnorm does not renumber them"
            )
        for k, replacement in zip(gone, waiting, strict=False):
            why = kept_values(rows[k][0], rows[k][1], k in repeated)
            if why is not None:
                return why
            plan.update.append((rows[k][0], replacement))
        plan.delete.extend(rows[k][0] for k in gone[len(waiting) :])
        plan.append.extend(waiting[len(gone) :])
        waiting, last = [], index
    return plan


def not_rewritable(db: Database, table: str) -> str | None:
    """Why rows of `table` must not be rewritten here, or None: another table refers to
    them, or a trigger would run on a change."""
    for other in db.referrers(table):
        return f"table {other} refers to {table} rows by id; histnorm does not rewrite them"
    for trigger in db.triggers(table):
        return f"trigger {trigger} runs on {table} changes; histnorm does not rewrite them"
    return None


class Changed(OSError):
    """A session's rows changed between the read and the write: nothing was written."""


class _Fixed(Protocol):
    plan: Any
    applied: dict[str, int]
    fixes: tuple[Diagnostic, ...]
    new_texts: list[str] | None


def record_fix(outcome: Outcome, job: Job, name: str, checked: _Fixed, before: list[str]) -> bool:
    """Count a session's fix into `outcome` (reported as `name`, its rows' texts `before`
    for a diff): whether it changes rows, and so is to be written."""
    if not checked.plan or checked.new_texts is None:
        return False
    outcome.changed = True
    outcome.applied.update(checked.applied)
    if job.show_fixes:
        outcome.fixes.extend(d.at(path=name) for d in checked.fixes)
    if job.diff:
        after = [f"{text}\n" for text in checked.new_texts]
        outcome.diff += unified(name, [f"{text}\n" for text in before], after)
    return True


def write_in_one_transaction(
    db: Database,
    changes: Mapping[Any, tuple[list[Any], Any]],
    rows_now: Callable[[Any], list[Any]],
    apply: Callable[[Any, Any], None],
    named: Callable[[Any], object],
) -> None:
    """Make each session's row changes (`apply`) in one transaction on `db` (opened for
    writing), after checking that its rows (`rows_now`, which locks them where the
    database locks rows) are still those read; raise `Changed` (the session `named`) and
    write nothing otherwise."""
    db.begin()
    try:
        for key, (rows, plan) in changes.items():
            if [tuple(row) for row in rows_now(key)] != list(rows):
                raise Changed(f"session {named(key)} changed while it was being fixed; not written")
            apply(key, plan)
        db.commit()
    except BaseException:
        db.rollback()
        raise
