"""What `fix` promises on damaged input: each check returns None, or what went wrong.

Model checks take a `ModelRun` (a damaged transcript, fixed through `histnorm.fix`);
file checks take a `FileRun` (a damaged file, fixed twice through the command line's
reader and writer, `histnorm_cli.per_file.run_file`). `MODEL_INVARIANTS` and `FILE_INVARIANTS`
are what the driver runs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson
from histnorm_cli.job import Outcome

import histnorm
from histnorm.choices import PROFILE_NAMES, TailMode
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.engine import FixResult
from histnorm.errors import HistnormError
from histnorm.model import ReasoningPart, Transcript
from histnorm.settings import ApprovalPolicy, InvalidArgumentsPolicy, OrphanCallPolicy, Settings


def fix_options(profile: str) -> dict[str, Any]:
    """The default options of a case: closed tail, unsafe fixes, the format's profile."""
    return {"tail": "close", "unsafe_fixes": True, "profile": profile}


def drawn_options(rng: random.Random) -> dict[str, Any]:
    """Options drawn at random: any profile (or none), either tail mode, any policy for
    orphan calls, pending approvals and invalid arguments; unsafe fixes on."""
    return {
        "tail": rng.choice(list(TailMode)).value,
        "unsafe_fixes": True,
        "profile": rng.choice([None, *PROFILE_NAMES]),
        "orphan_tool_call": rng.choice(list(OrphanCallPolicy)).value,
        "pending_approval": rng.choice(list(ApprovalPolicy)).value,
        "invalid_tool_arguments": rng.choice(list(InvalidArgumentsPolicy)).value,
    }


def untouched(original: Transcript, damaged: Transcript) -> list[bool]:
    """For each damaged message: whether it is an original message object, in order."""
    out, at = [], 0
    originals = original.messages
    for message in damaged.messages:
        k = next((k for k in range(at, len(originals)) if originals[k] is message), None)
        out.append(k is not None)
        if k is not None:
            at = k + 1
    return out


def _core_errors(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> list[Diagnostic]:
    """Errors `fix` must leave none of: not profile ones (HN1xx) a format may be unable to
    repair, not unknown content (HN013) and not the errors whose fix it holds back."""
    return [
        d
        for d in diagnostics
        if d.severity is Severity.ERROR
        and not d.code.startswith("HN1")
        and d.code != "HN013"
        and "fix held back" not in d.message
        and d.fix is not None  # an error no rule can repair (a call in a user message) stays
    ]


def _refused(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> bool:
    """Whether `fix` refused a repair as a whole (its diagnostics stay, nothing changes)."""
    return any("(not fixed: " in d.message for d in diagnostics)


@dataclass
class ModelRun:
    fmt: str
    profile: str
    broken: Transcript
    kept: list[bool]
    """Per damaged message: left alone by the damage."""
    drawn: dict[str, Any] | None = None
    """Options drawn for the case (`drawn_options`); None: the default ones."""

    @cached_property
    def options(self) -> dict[str, Any]:
        return fix_options(self.profile) if self.drawn is None else self.drawn

    @cached_property
    def result(self) -> FixResult:
        return histnorm.fix(self.broken, **self.options)

    @cached_property
    def reloaded(self) -> Transcript:
        document = histnorm.encode(self.result.transcript)
        return histnorm.load(orjson.dumps(document), format=self.fmt)

    @cached_property
    def unwritable(self) -> bool:
        """Whether the damage made a transcript its format cannot write (two legacy
        `function_call`s in one LangChain message, say) and `fix` left it so: no file
        holds such a transcript, so there is no output to read back."""
        try:
            histnorm.encode(self.broken)
        except HistnormError:
            try:
                histnorm.encode(self.result.transcript)
            except HistnormError:
                return True
        return False


def fix_succeeds(run: ModelRun) -> str | None:
    run.result  # noqa: B018 (raises on failure)
    return None


def decodes_in_format(run: ModelRun) -> str | None:
    if run.unwritable:
        return None
    if run.reloaded.format != run.fmt:
        return f"the output reads as {run.reloaded.format}"
    return None


def no_errors_left(run: ModelRun) -> str | None:
    if run.unwritable:
        return None
    if run.drawn is not None:
        return None  # a `fail` policy or a kept tail leaves errors by design
    found = histnorm.lint(run.reloaded, tail="close", profile=run.profile)
    core = _core_errors(found)
    if core and not _refused(run.result.remaining):
        return f"errors left after fix: {[(d.code, d.message) for d in core]}"
    return None


def fix_is_idempotent(run: ModelRun) -> str | None:
    again = histnorm.fix(run.result.transcript, **run.options)
    return f"second fix applied {dict(again.applied)}" if again.changed else None


def _content(part: Any, renamed: bool = False, noted: bool = False) -> Any:
    """What a part says; `renamed`: without its call and request ids, also of the call an
    approval wraps (a fix renamed ids, HN104, and a rename reaches every reference, in
    messages the damage left alone too); `noted`: a result without its content (a fix
    replaced its call's arguments, HN109, and noted the old ones in the result)."""
    exclude: dict[str, Any] = {"native": True, "slot": True}
    if renamed:
        ids = {**exclude, "call_id": True, "request_id": True}
        exclude = {**ids, "tool_call": ids}
    if noted and part.kind == "tool_result":
        exclude["content"] = True
    return part.model_dump(mode="json", exclude=exclude)


def _is_subsequence(needles: list[Any], haystack: list[Any]) -> bool:
    it = iter(haystack)
    return all(any(n == h for h in it) for n in needles)


def untouched_parts_kept(run: ModelRun) -> str | None:
    """The parts of messages the damage left alone and no diagnostic points at survive,
    in order."""
    if run.unwritable:
        return None
    pointed = {
        d.location.message_index
        for d in histnorm.lint(run.broken, **run.options)
        if d.location.message_index is not None
    }
    exempt = [not kept or i in pointed for i, kept in enumerate(run.kept)]
    if run.fmt == "openai-responses":
        # A reasoning item must be followed by the output it produced (HN103): when that
        # output goes, the reasoning goes too, though no diagnostic points at it yet.
        messages = run.broken.messages
        for k in range(len(messages) - 2, -1, -1):
            parts = messages[k].parts
            if exempt[k + 1] and parts and all(isinstance(p, ReasoningPart) for p in parts):
                exempt[k] = True
    applied = run.result.applied
    if run.drawn is not None and (
        "HN107" in applied or run.drawn["invalid_tool_arguments"] == "drop"
    ):
        # a merge an earlier fix brought about moves parts of untouched messages; dropping
        # a call with invalid arguments drops its results
        return None
    renamed, noted = "HN104" in applied, "HN109" in applied
    wanted = [
        _content(part, renamed, noted)
        for message, skip in zip(run.broken.messages, exempt, strict=True)
        if not skip
        for part in message.parts
    ]
    output = [
        _content(part, renamed, noted)
        for message in run.reloaded.messages
        for part in message.parts
    ]
    return None if _is_subsequence(wanted, output) else "untouched content lost or reordered"


_NOT_CONSERVED = re.compile(
    r"\(not fixed: HN\d+'s fix would (?!make a transcript that cannot be written)[^)]*"
)
"""How `fix` says a rule's fix would drop a value it does not own (`histnorm.conserve`); a
fix the format cannot write (its writer says why) is a refusal, not a loss."""


def _not_conserved(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> str | None:
    """A fix that had to be refused by the conservation check is a rule that takes more
    than it owns (or owns more than it says): a bug the fuzzer reports."""
    found = next((m for d in diagnostics if (m := _NOT_CONSERVED.search(d.message))), None)
    return None if found is None else f"a fix did not conserve: {found.group(0)[12:]}"


def fixes_conserve(run: ModelRun) -> str | None:
    return _not_conserved(run.result.remaining)


MODEL_INVARIANTS: list[Callable[[ModelRun], str | None]] = [
    fix_succeeds,
    decodes_in_format,
    no_errors_left,
    fix_is_idempotent,
    untouched_parts_kept,
    fixes_conserve,
]


# --- files, through the command line's reader and writer --------------------------------


@dataclass
class FileRun:
    fmt: str
    name: str
    """The file's name (its suffix picks the layout)."""
    data: bytes
    fix: Callable[[bytes], Outcome]
    """Fix a file's bytes as `histnorm fix` does (`cases.fix_file`)."""
    stable: frozenset[bytes] = frozenset()
    """Lines of the input that `fix` must copy as they are (undamaged, clean)."""
    drawn: dict[str, Any] | None = None
    """Options drawn for the case, which `fix` runs with; None: the default ones."""

    @cached_property
    def first(self) -> Outcome:
        return self.fix(self.data)

    @cached_property
    def output(self) -> bytes:
        assert self.first.stdout is not None, "fix wrote nothing"
        return self.first.stdout

    @cached_property
    def second(self) -> Outcome:
        return self.fix(self.output)


def file_fix_succeeds(run: FileRun) -> str | None:
    return run.first.error


def file_fix_is_idempotent(run: FileRun) -> str | None:
    """Fixing the fixed bytes again changes nothing (what a second `histnorm fix` does)."""
    if run.second.error is not None:
        return f"second fix failed: {run.second.error}"
    if run.second.stdout != run.output or run.second.applied:
        return f"second fix changed the file (applied {dict(run.second.applied)})"
    return None


def file_no_errors_left(run: FileRun) -> str | None:
    if run.drawn is not None:
        return None  # a `fail` policy or a kept tail leaves errors by design
    found = run.first.diagnostics
    if any(d.code == "HN000" and d.severity is Severity.ERROR for d in found):
        return None  # a line it cannot read, or a rewrite it refused: nothing is fixed there
    core = _core_errors(found)
    if core and not _refused(found):
        return f"errors left after fix: {[(d.code, d.location.line, d.message) for d in core]}"
    return None


def stable_lines_kept(run: FileRun) -> str | None:
    """Clean lines the damage left alone come out byte for byte (clean under the default
    options: another profile may have work on them)."""
    if run.drawn is not None:
        return None
    out = set(run.output.splitlines())
    lost = [line for line in run.data.splitlines() if line in run.stable and line not in out]
    return f"{len(lost)} clean line(s) rewritten, e.g. {lost[0][:120]!r}" if lost else None


# --- awaiting merge: promises the byte layer does not keep yet ---------------------------

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)')


def numbers(line: bytes) -> list[bytes]:
    """The number tokens of one line of JSON text, as spelled."""
    return [m.group(1) for m in _TOKEN.finditer(line) if m.group(1) is not None]


def respell(line: bytes) -> bytes:
    """`line` with its zeros spelled `-0` and its fractions with a trailing zero (`1.50`):
    the same values in a spelling no JSON writer produces."""

    def one(match: re.Match[bytes]) -> bytes:
        token = match.group(1)
        if token is None:
            return match.group(0)
        if token == b"0":
            return b"-0"
        if b"." in token and b"e" not in token.lower():
            return token + b"0"
        return token

    return _TOKEN.sub(one, line)


SPELLED = b'"fuzzSpelling":[-0,1E2,1.50],'


def with_spelled_numbers(data: bytes) -> bytes:
    """Every object line of `data` with an extra key holding `-0`, `1E2` and `1.50` first,
    and its own zeros and fractions respelled (`respell`)."""
    out = []
    for line in data.split(b"\n"):
        line = respell(line)
        if line.startswith(b"{") and line.rstrip().endswith(b"}"):
            line = b"{" + SPELLED + line[1:]
        out.append(line)
    return b"\n".join(out)


_MADE_UP = tuple(
    text.encode() for text in (Settings().synthetic_result_text, Settings().rejection_text)
)
"""The texts of the results and rejections a fix makes up (under drawn policies)."""


def number_spelling_kept(run: FileRun) -> str | None:
    """Fields `fix` does not change keep their exact number spelling (`-0`, `1E2`, `1.50`)
    in the lines it rewrites: run on `with_spelled_numbers(run.data)`."""
    spelled = FileRun(run.fmt, run.name, with_spelled_numbers(run.data), run.fix, drawn=run.drawn)
    if spelled.first.error is not None or spelled.first.stdout is None:
        return None
    before = set(spelled.data.split(b"\n"))
    for line in spelled.output.split(b"\n"):
        if line in before or not line.startswith(b"{"):
            continue
        if SPELLED[:-1] not in line and b'"fuzzSpelling"' in line:
            return f"a rewritten line respelled [-0,1E2,1.50]: {line[:160]!r}"
        if run.drawn is not None and any(text in line for text in _MADE_UP):
            continue  # a message the fix made up has numbers of its own (a `loss_weight`)
        canonical = [t for t in numbers(line) if t == b"0" or t.endswith(b".0")]
        if canonical:
            return f"a rewritten line respelled numbers as {canonical[:3]}: {line[:160]!r}"
    return None


def file_fixes_conserve(run: FileRun) -> str | None:
    return _not_conserved(run.first.diagnostics)


FILE_INVARIANTS: list[Callable[[FileRun], str | None]] = [
    file_fix_succeeds,
    file_fix_is_idempotent,
    file_no_errors_left,
    stable_lines_kept,
    number_spelling_kept,
    file_fixes_conserve,
]
