"""lint() and fix(): run the selected rules, and fix one rule at a time to a fixed point."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import histnorm.conversations as conversations
from histnorm._record import record
from histnorm.analysis.context import Context, NeedsModel
from histnorm.analysis.outline import ALWAYS, SEVERAL, Outline
from histnorm.analysis.read_size import carry_text
from histnorm.conserve import lost, written_as_before
from histnorm.diagnostic import Applicability, Diagnostic, Location, Severity
from histnorm.edit import dropped_answers, is_result_only
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, detect_reading, get_codec, model_context
from histnorm.guard import Block, blocks, guard, keeps
from histnorm.lazy import model
from histnorm.model_terms import JsonValue
from histnorm.profiles import Profile, profile_for
from histnorm.rule import OutlineCheckFn, Rule
from histnorm.rules import ALL_RULES, FIX_ORDER, resolve
from histnorm.selection import chosen, repairable
from histnorm.settings import DEFAULT_SETTINGS, Scope, Settings

if TYPE_CHECKING:
    from histnorm.model import Transcript

MAX_PASSES = 10
"""How many times `fix` runs the whole fix order before it gives up."""
MAX_REREADS = 1000
"""At most this many times a fix's written file reads back as another transcript (a
Claude Code session whose fixes drop one branch after another), which is fixed in turn."""


NOT_HELD = "the file cannot hold the repair: written, it reads back as it was"
"""Why a repair whose written form reads back as the input is refused."""


class FixDidNotConverge(RuntimeError):
    """Internal error: fixes kept changing the transcript (a bug in a rule; please report)."""


@record(frozen=True)
class FixResult:
    """The fixed transcript, how many fixes each rule applied, and what is left."""

    transcript: Transcript
    applied: Mapping[str, int] = field(default_factory=dict)
    remaining: tuple[Diagnostic, ...] = ()
    fixes: tuple[Diagnostic, ...] = ()
    """The diagnostic of each fix applied, in the order applied, located (pointer and
    message index) in the transcript as it was when its fix applied."""
    refused: str | None = None
    """Why the repair was refused (the transcript is the input, `applied` empty), or None."""

    @property
    def changed(self) -> bool:
        """Whether any fix was applied."""
        return bool(self.applied)


def selected_rules(settings: Settings) -> tuple[Rule, ...]:
    """The rules `settings` selects, in code order (`histnorm.selection`); unknown names
    raise `HistnormError`."""
    return _selection(settings).rules


_Checks = tuple[int, tuple[tuple[int, OutlineCheckFn | None, int], ...]]
"""What `outline_clean` runs of a selection under one profile (`_plan`)."""


def _plan(rules: tuple[Rule, ...], profile: Profile) -> _Checks:
    """The flags any content rule of `rules` that needs no tool part wants, and for every
    other rule what it needs, its outline check (None for a content rule) and its flags;
    a rule that cannot report under `profile` (`Rule.applies`) is left out."""
    wanted = 0
    others = []
    for rule in rules:
        if rule.applies is not None and not rule.applies(profile):
            continue
        if rule.check_outline is None and not rule.needs:
            wanted |= rule.wants
        else:
            others.append((rule.needs, rule.check_outline, rule.wants))
    return wanted, tuple(others)


class _Selected(NamedTuple):
    """A selection of rules (`_selection`), and what the fast path runs of it under each
    profile it met (`plan`)."""

    rules: tuple[Rule, ...]
    repairable: frozenset[str]
    plans: dict[int, tuple[Profile, _Checks]]
    running: dict[int, tuple[Profile, tuple[Rule, ...], tuple[Rule, ...], tuple[Rule, ...]]]

    def plan(self, profile: Profile) -> _Checks:
        """`_plan` of the rules under `profile`, worked out once for it."""
        held = self.plans.get(id(profile))
        if held is None or held[0] is not profile:
            held = self.plans[id(profile)] = profile, _plan(self.rules, profile)
        return held[1]

    def under(self, profile: Profile) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
        """The rules that can report under `profile` (`Rule.applies`: the others find
        nothing there), in code order and, those with a fix, in fix order; worked out once
        for it."""
        held = self.running.get(id(profile))
        if held is None or held[0] is not profile or held[3] is not FIX_ORDER:
            rules = tuple(r for r in self.rules if r.applies is None or r.applies(profile))
            codes = {rule.code for rule in rules}
            fixing = tuple(r for r in FIX_ORDER if r.code in codes and r.fix is not None)
            held = self.running[id(profile)] = profile, rules, fixing, FIX_ORDER
        return held[1], held[2]


def _selection(settings: Settings) -> _Selected:
    """The selected rules and the codes whose fixes may be applied, held by the settings
    they read (lint asks once per transcript). A run passes the same settings object each
    time: the one asked about last is found by identity before any field is hashed."""
    named = tuple(settings.severity)  # a dict: the one field a caller could still change
    last = _SELECTED.get(_LAST)
    if last is not None and last[0] is settings and last[1] == named:
        return last[2]  # type: ignore[no-any-return]
    key = (
        settings.select,
        settings.extend_select,
        settings.ignore,
        settings.fixable,
        settings.unfixable,
        named,
    )
    held = _SELECTED.get(key)
    if held is None:
        picked = chosen(settings)
        for name in settings.severity:
            resolve(name)
        rules = tuple(r for r in ALL_RULES if r.code in picked)
        held = _Selected(rules, repairable(settings), {}, {})
        if len(_SELECTED) >= 64:
            _SELECTED.clear()
        _SELECTED[key] = held
    _SELECTED[_LAST] = (settings, named, held)  # held there, its id stays its own
    return held


_LAST = ("last",)
"""The key under which `_SELECTED` holds the settings asked about last, the rules their
severities named then, and the answer."""
_SELECTED: dict[tuple[object, ...], Any] = {}


class _Look:
    """What every rule's check of one transcript under one settings shares, worked out
    once: the context the checks read (its outline, and what it caches: the profile, the
    tail, the native JSON), which message indices are in scope, the severity overrides and
    the codes whose fixes may be offered."""

    __slots__ = ("_flags", "context", "fixable", "in_scope", "severity")

    def __init__(self, transcript: Transcript, settings: Settings) -> None:
        self.context = model_context(transcript, settings)
        self._flags: int | None = None
        self.in_scope = _scope(transcript, settings)
        self.fixable = _selection(settings).repairable
        chosen: dict[str, Severity] = {}
        for name, severity in settings.severity.items():  # the first name of a rule wins
            chosen.setdefault(resolve(name).code, severity)
        self.severity = {**profile_for(settings.profile, transcript.format).severity, **chosen}

    @property
    def flags(self) -> int:
        """The outline's flags (`outline_flags`), for `Rule.wants`; worked out once."""
        if self._flags is None:
            self._flags = outline_flags(self.context.outline)
        return self._flags


def outline_flags(outline: Outline) -> int:
    """`Outline.all_flags` with the roles its format's codec knows (which flags that a fast
    reader saw as it read need not ask)."""
    seen = outline.seen
    if seen is not None:
        return outline.flags | ALWAYS | seen
    codec = CODECS.get(outline.format or "")
    return outline.all_flags(None if codec is None else codec.known_roles)


def _scope(transcript: Transcript, settings: Settings) -> Callable[[int | None], bool]:
    """Whether a diagnostic at a message index is in scope (worked out once per check)."""
    if settings.scope is Scope.ALL:
        return lambda index: True
    messages = transcript.messages
    if settings.scope is Scope.MARKED:
        return lambda index: index is None or messages[index].is_partial
    last_user = max(
        (i for i, m in enumerate(messages) if m.role_is("user") and not is_result_only(m)),
        default=-1,
    )
    return lambda index: index is None or index > last_user


def _locate(transcript: Transcript, diagnostic: Diagnostic) -> Diagnostic:
    loc = diagnostic.location
    if loc.pointer is not None or loc.message_index is None or transcript.format is None:
        return diagnostic
    codec = get_codec(transcript.format)
    if loc.part_index is not None and loc.part_index < len(
        transcript.messages[loc.message_index].parts
    ):
        pointer = codec.part_pointer(transcript, loc.message_index, loc.part_index)
    else:
        pointer = codec.message_pointer(transcript, loc.message_index)
    return diagnostic.at(pointer=pointer)


def check_rule(
    rule: Rule, transcript: Transcript, settings: Settings, look: _Look | None = None
) -> list[Diagnostic]:
    """The in-scope diagnostics of one rule, with severity overrides applied and no fix
    offered for a rule that is not fixable; `look` is what the checks of `transcript`
    under `settings` share, when the caller holds it."""
    look = look if look is not None else _Look(transcript, settings)
    if rule.needs and not rule.needs & look.context.facts:
        return []  # it finds nothing without a part or pairing of these (`Rule.needs`)
    if rule.check_outline is None and not rule.wants & look.flags:
        return []  # a content rule finds nothing without one of the flags it wants
    severity = look.severity.get(rule.code)
    in_scope = look.in_scope
    fixable = rule.code in look.fixable
    found = []
    for diagnostic in rule.run(look.context):
        if not in_scope(diagnostic.location.message_index):
            continue
        if severity is not None:
            diagnostic = replace(diagnostic, severity=severity)
        if not fixable and diagnostic.fix is not None:
            diagnostic = replace(diagnostic, fix=None)  # unfixable: reported, never fixed
        found.append(diagnostic)
    return found


def guarded(
    rule: Rule,
    transcript: Transcript,
    settings: Settings,
    found: list[Diagnostic],
    unknown: Sequence[Block],
) -> list[Diagnostic]:
    """`found` (diagnostics of `rule`) with the fixes that the unknown content of
    `transcript` (its `blocks`) forbids held back (`histnorm.guard`), and, for a rule
    whose fixes are `tried`, those that would drop a value they do not own withdrawn."""
    fix = rule.fix
    if fix is None or not found:
        return found
    found = _held_back(transcript, found)
    if rule.tried and not _tried_together(rule, transcript, settings, found):
        found = [_tried(rule, transcript, settings, d) for d in found]
    if not unknown:
        return found
    return guard(transcript, found, lambda d: fix(transcript, [d], settings), unknown)


def _held_back(transcript: Transcript, found: list[Diagnostic]) -> list[Diagnostic]:
    """`found` without the fixes that reach a message its codec cannot write an edit of
    (`Codec.held_messages`), each saying why; asked only when a fix is offered."""
    if transcript.format is None or all(d.fix is None for d in found):
        return found
    held = get_codec(transcript.format).held_messages(transcript)
    if not held:
        return found
    out = []
    for diagnostic in found:
        info, index = diagnostic.fix, diagnostic.location.message_index
        if info is None:
            out.append(diagnostic)
            continue
        if info.owns is not None:
            reached: list[int] = [mi for mi, _ in info.owns]
        else:  # a fix with no position reaches every message
            reached = list(held) if index is None else [index]
        reason = next((held[mi] for mi in reached if mi in held), None)
        if reason is not None:
            message = f"{diagnostic.message}; fix held back: {reason}"
            diagnostic = replace(diagnostic, fix=None, message=message)
        out.append(diagnostic)
    return out


def _tried_together(
    rule: Rule, transcript: Transcript, settings: Settings, found: list[Diagnostic]
) -> bool:
    """Whether the fixes of `found`, applied together, conserve (`conserved`): then each
    one does, and none is tried alone (one trial, not one per diagnostic)."""
    assert rule.fix is not None
    offered = [d for d in found if d.fix is not None]
    if not offered:
        return True
    try:
        fixed = rule.fix(transcript, offered, settings)
        if fixed != transcript and written_as_before(transcript, fixed):
            return False  # (and conserved: what is written as before loses nothing)
        return conserved(transcript, fixed, offered) is None
    except HistnormError:
        return False


AS_BEFORE = "would be written as the transcript was: the format keeps apart what it joins"
"""Why a fix that changes the transcript but not what it is written as is withdrawn."""


def _tried(rule: Rule, transcript: Transcript, settings: Settings, found: Diagnostic) -> Diagnostic:
    """`found` without its fix when that fix, applied alone, would not conserve (`lost`)."""
    assert rule.fix is not None
    if found.fix is None:
        return found
    try:
        fixed = rule.fix(transcript, [found], settings)
        if fixed != transcript and written_as_before(transcript, fixed):
            # asked first: a fix written as the transcript was loses nothing, so the
            # conservation check, which reads both writings whole, has nothing to say
            problem: str | None = AS_BEFORE
        else:
            problem = conserved(transcript, fixed, [found])
    except HistnormError as error:
        problem = error.message
    if problem is None:
        return found
    reason = f"{rule.code}'s fix {problem}"
    return replace(found, fix=None, message=f"{found.message} (not fixable: {reason})")


class _Found:
    """What each rule found on one transcript, held back as `guarded` holds it, kept while
    a lint or a fix looks at that very transcript: the rules `fix` checked in a pass that
    changed nothing are not run again by the lint that ends it, nor the rules `lint` ran
    by the trial fix that follows it, until a fix changes the transcript."""

    __slots__ = ("by_rule", "look", "proven", "transcript")

    def __init__(self) -> None:
        self.transcript: Transcript | None = None
        self.by_rule: dict[str, list[Diagnostic]] = {}
        self.look: _Look | None = None
        self.proven: bool | None = None

    def _look(self, transcript: Transcript, settings: Settings) -> _Look:
        """What the checks of `transcript` under `settings` share, worked out once."""
        if transcript is not self.transcript:
            self.transcript, self.by_rule, self.look, self.proven = transcript, {}, None, None
        look = self.look
        if look is None or look.context.settings is not settings:
            look, self.proven = _Look(transcript, settings), None
            self.look = look
        return look

    def clean(self, transcript: Transcript, settings: Settings) -> bool:
        """Whether no selected rule can report anything on `transcript`, asked as the
        lint fast path asks (`outline_clean`) on its model's context: each rule's check
        of the outline, the flags content rules want. True means every rule's check finds
        nothing (what `of` would find, before scope); False only "not proven". The
        context is the one `of` then reads."""
        look = self._look(transcript, settings)
        if self.proven is None:
            flags = look.flags
            self.proven = not flags & SEVERAL and _context_clean(look.context, settings, flags)
        return self.proven

    def of(
        self, rule: Rule, transcript: Transcript, settings: Settings, unknown: Sequence[Block]
    ) -> list[Diagnostic]:
        """`guarded(rule, transcript, ...)`, computed once for this transcript."""
        if transcript is not self.transcript:
            self.transcript, self.by_rule, self.look, self.proven = transcript, {}, None, None
        found = self.by_rule.get(rule.code)
        if found is None:
            look = self._look(transcript, settings)
            found = guarded(
                rule, transcript, settings, check_rule(rule, transcript, settings, look), unknown
            )
            self.by_rule[rule.code] = found
        return found


def conserved(
    before: Transcript,
    after: Transcript,
    fixes: Sequence[Diagnostic],
    original: Transcript | None = None,
) -> str | None:
    """Why `after`, what `fixes` made of `before` (a fixed version of `original`), must
    not be kept: a value they do not own is gone (`histnorm.conserve.lost`); None when
    everything is conserved."""
    return lost(before, after, fixes, original)


def lint(transcript: Transcript, settings: Settings = DEFAULT_SETTINGS) -> tuple[Diagnostic, ...]:
    """Every diagnostic the selected rules report, located and sorted; fixes that unknown
    content forbids are held back (`histnorm.guard`). Lint and fix agree: when a fix is
    offered that `fix` may apply, the fix is tried, and if `fix` would refuse the repair
    every offered fix is withdrawn with its reason (`fix_refused`). A transcript with no
    fix to offer costs nothing more."""
    known = _Found()
    found = _lint(transcript, settings, known)
    if not any(fix_allowed(d, settings) for d in found):
        return found
    try:
        refused = _fix(transcript, settings, trial=True, known=known).refused
    except FixDidNotConverge:
        return found  # `fix` reports it
    return found if refused is None else fix_refused(found, refused)


def _lint(
    transcript: Transcript, settings: Settings, known: _Found | None = None
) -> tuple[Diagnostic, ...]:
    """`lint` without trying the fixes it offers (what `fix` itself reports); `known`
    keeps what each rule finds on the transcript for the caller's next look at it."""
    several = conversations.split(transcript)
    if several is not None:  # a preference pair: each conversation on its own
        return conversations.lint_each(transcript, several, lambda t: _lint(t, settings))
    unknown = blocks(transcript)
    known = known if known is not None else _Found()
    rules = _selection(settings).under(profile_for(settings.profile, transcript.format))[0]
    found = [
        _locate(transcript, d)
        for rule in rules
        for d in known.of(rule, transcript, settings, unknown)
    ]
    return tuple(sorted(found, key=Diagnostic.sort_key))


def proven_clean(
    value: JsonValue, format: str, settings: Settings = DEFAULT_SETTINGS, raw: bytes | None = None
) -> bool:
    """Whether `lint` of the parsed native `value` (in `format`) reports nothing, decided
    on its outline without building models (`outline_clean`) when the codec's fast reader
    reads it. False means only "not proven": decode the value and lint the transcript.
    `value` is not changed; `raw`, the JSON text it was parsed from when the caller has it,
    spares the size and media checks serialising it again (`Context.native_json`)."""
    return checked_outline(value, format, settings, raw)[0]


def checked_outline(
    value: JsonValue, format: str, settings: Settings = DEFAULT_SETTINGS, raw: bytes | None = None
) -> tuple[bool, Outline | None]:
    """`proven_clean`, and the outline the codec's fast reader read from `value` (None
    when it does not read it): a caller that decodes `value` after all hands it to the
    transcript (`histnorm.formats.seed_read`) rather than building it again."""
    outline = get_codec(format).read_outline(value)
    return outline is not None and outline_clean(outline, settings, value, raw), outline


def detected_outline(
    value: JsonValue, format: str | None, settings: Settings, raw: bytes | None = None
) -> tuple[str, bool, Outline | None]:
    """The format `value` is read in (`format`, else the detected one) and
    `checked_outline` of it in that format. Detection and the outline take one walk
    where the fast reader proves its format on the way (`detect_reading`)."""
    if format is None:
        format, outline = detect_reading(value)
    else:
        outline = get_codec(format).read_outline(value)
    return format, outline is not None and outline_clean(outline, settings, value, raw), outline


def outline_clean(
    outline: Outline,
    settings: Settings = DEFAULT_SETTINGS,
    native: JsonValue = None,
    raw: bytes | None = None,
) -> bool:
    """Whether no selected rule can report anything on a transcript with this outline:
    every structural rule checks the outline and finds nothing (without asking for the
    model), and no content rule wants a flag the outline has (`Rule.wants`). `native`, the
    value the outline was read from, lets size and media checks rule themselves out on its
    JSON (`Context.native`); without it they ask for the model under profiles that limit
    sizes or media."""
    flags = outline_flags(outline)
    if flags & SEVERAL:
        return False  # each conversation is linted on its own (`histnorm.conversations`)
    return _context_clean(Context(outline, settings, native=native, raw=raw), settings, flags)


def _context_clean(context: Context, settings: Settings, flags: int) -> bool:
    """`outline_clean` of a context whose outline has `flags` (and no `SEVERAL`): on the
    fast path its checks raise `NeedsModel` for what the outline does not hold; on a
    model's context (`_Found.clean`) they read the model, as `check_rule` does."""
    wanted, checks = _selection(settings).plan(context.profile)
    if wanted & flags:
        return False  # a content rule wants a flag the outline has
    facts = context.facts
    try:
        for needs, check, wants in checks:
            if needs and not needs & facts:
                continue  # it finds nothing without a part or pairing of these
            if check is None:
                if wants & flags:
                    return False
            elif next(iter(check(context)), None) is not None:
                return False
    except NeedsModel:
        return False  # a rule needs content the outline does not hold: it reports
    return True


def fix_allowed(diagnostic: Diagnostic, settings: Settings) -> bool:
    """Whether `fix` may apply the fix of `diagnostic` under `settings`."""
    offer = diagnostic.fix
    if offer is None:
        return False
    return offer.applicability is Applicability.SAFE or settings.unsafe_fixes or offer.opted_in


def fix(transcript: Transcript, settings: Settings = DEFAULT_SETTINGS) -> FixResult:
    """Apply allowed fixes one rule at a time, in fix order, until nothing changes, also
    in the transcript the written result reads back as (`Codec.read_back`).

    A fix that unknown content forbids is never applied (`histnorm.guard`); a rule whose
    fixes together would still touch a turn holding unknown content is skipped. A repair
    that `post_condition` forbids, or whose written form would read back as the input
    (the format cannot hold it), is refused: the input comes back, with the reason."""
    return _fix(transcript, settings)


def _refusal(original: Transcript, settings: Settings, reason: str, trial: bool) -> FixResult:
    remaining = () if trial else fix_refused(_lint(original, settings), reason)
    return FixResult(original, {}, remaining, refused=reason)


def _fix(
    transcript: Transcript, settings: Settings, trial: bool = False, known: _Found | None = None
) -> FixResult:
    """`fix`; a `trial` (lint asking whether fix would refuse) lints nothing at the end and
    locates no fix (`FixResult.fixes` is empty). `known`: what the rules found on
    `transcript` already (`lint` just ran them)."""
    several = conversations.split(transcript)
    if several is not None:  # a preference pair: each conversation on its own, then joined

        def each(view: Transcript) -> conversations.Fixed:
            done = _fix(view, settings, trial)
            return done.transcript, done.applied, done.remaining, done.fixes

        joined = conversations.fix_each(transcript, several, each)
        if isinstance(joined, str):
            return _refusal(transcript, settings, joined, trial)
        return FixResult(joined[0], MappingProxyType(dict(joined[1])), joined[2], joined[3])
    rules = _selection(settings).under(profile_for(settings.profile, transcript.format))[1]
    applied: dict[str, int] = {}
    fixes: list[Diagnostic] = []
    seen = [transcript]
    unknown = blocks(transcript)
    known = known if known is not None else _Found()
    passes = rereads = 0
    fallback: Transcript | None = None  # the last fixed one whose file reads as another
    while passes < MAX_PASSES:
        changed = False
        checked = transcript
        # a fixed transcript the fast path proves clean has nothing left to fix or report
        clean = transcript is not seen[0] and known.clean(transcript, settings)
        for rule in () if clean else rules:
            found = known.of(rule, transcript, settings, unknown)
            wanted = [d for d in found if fix_allowed(d, settings)]
            if not wanted:
                continue
            assert rule.fix is not None
            fixed = rule.fix(transcript, wanted, settings)
            if not isinstance(fixed, model.Transcript):
                raise FixDidNotConverge(f"{rule.code} returned {type(fixed).__name__}")
            if keeps(transcript, fixed, unknown) is not None:
                continue
            if fixed != transcript:
                problem = conserved(transcript, fixed, wanted, seen[0])
                if problem is not None:
                    reason = f"{rule.code}'s fix {problem}"
                    return _refusal(seen[0], settings, reason, trial)
                if not trial:  # a trial answers only whether fix refuses
                    fixes.extend(_locate(transcript, d) for d in wanted)
                carry_text(seen[0], fixed)  # the size checks bound what it holds as read
                transcript, changed = fixed, True
                applied[rule.code] = applied.get(rule.code, 0) + len(wanted)
                if known.clean(transcript, settings):
                    break  # the rules after it find nothing on it, nor guard their fixes
                unknown = blocks(transcript)
        passes += 1
        if changed and fallback is not None and transcript in seen:
            transcript, changed = fallback, False  # fixing the read-back only undoes the fix
        elif not changed and transcript is not seen[0]:
            settled = read_back(transcript)
            if settled is not None and settled == seen[0]:
                return _refusal(seen[0], settings, NOT_HELD, trial)
            unsettled = passes == 1 or rereads == MAX_REREADS  # read back just before
            if settled is not None and settled not in seen and not unsettled:
                fallback, passes, rereads = transcript, 0, rereads + 1
                transcript, changed = settled, True  # the written file reads as another
                unknown = blocks(transcript)  # transcript: fix that one too
        if not changed:
            problem = post_condition(seen[0], transcript)
            if problem is not None:
                return _refusal(seen[0], settings, problem, trial)
            if trial or (clean and transcript is checked):
                remaining: tuple[Diagnostic, ...] = ()
            else:
                remaining = _lint(transcript, settings, known)
            return FixResult(transcript, MappingProxyType(applied), remaining, tuple(fixes))
        if transcript in seen:
            raise FixDidNotConverge("fixes undo each other (a cycle); please report this input")
        seen.append(transcript)
    raise FixDidNotConverge(f"fixes did not settle after {MAX_PASSES} passes")


def read_back(fixed: Transcript) -> Transcript | None:
    """What the written `fixed` reads back as, when that differs (`Codec.read_back`)."""
    if fixed.format is None:
        return None
    return get_codec(fixed.format).read_back(fixed)


def post_condition(original: Transcript, fixed: Transcript) -> str | None:
    """Why the repair of `original` into `fixed` must not be written, or None: it would
    drop a result whose call precedes it, break its format's consumers
    (`Codec.check_fixed`), or cannot be written at all (the codec raises)."""
    if fixed is original:
        return None
    lost = dropped_answers(original, fixed)
    if lost:
        return (
            f"a fix would drop {lost} tool result{'s' if lost > 1 else ''} whose call precedes it"
        )
    if fixed.format is None:
        return None
    try:
        return get_codec(fixed.format).check_fixed(original, fixed)
    except HistnormError as error:  # the fixed transcript cannot be written at all
        where = f" (at {error.pointer})" if error.pointer else ""
        return f"the fixed transcript cannot be written: {error.message}{where}"


def fix_refused(diagnostics: Sequence[Diagnostic], reason: str) -> tuple[Diagnostic, ...]:
    """`diagnostics` with every offered fix withdrawn and `reason` in its message."""
    return tuple(
        d if d.fix is None else replace(d, fix=None, message=f"{d.message} (not fixed: {reason})")
        for d in diagnostics
    )


def unreadable(error: HistnormError) -> Diagnostic:
    """The HN000 diagnostic for input that could not be read as a transcript."""
    rule = resolve("HN000")
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        message=error.message,
        severity=Severity.ERROR,
        location=Location(pointer=error.pointer, line=error.line),
    )


def has_errors(diagnostics: Sequence[Diagnostic]) -> bool:
    """Whether any diagnostic has error severity."""
    return any(d.severity is Severity.ERROR for d in diagnostics)
