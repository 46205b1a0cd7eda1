"""Transcripts that hold several conversations (a TRL preference pair: the prompt with
`chosen`, the prompt with `rejected`), checked one conversation at a time.

`Codec.conversations` names the messages of each; `engine.lint` and `engine.fix` run
the rules on each conversation as a transcript of its own (its pointers are into the
whole record, as its codec gives them), and `Codec.join` puts the fixed ones back
together, or says why it cannot (then nothing is fixed). A finding in the part all
conversations share (the prompt) is reported once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias

from histnorm.diagnostic import Diagnostic
from histnorm.formats import CODECS

if TYPE_CHECKING:
    from histnorm.model import Transcript

Split = tuple[tuple[int, ...], ...]


def split(transcript: Transcript) -> Split | None:
    """The message indices of each conversation of `transcript`, or None for one."""
    codec = CODECS.get(transcript.format or "")
    return None if codec is None else codec.conversations(transcript)


def views(transcript: Transcript, found: Split) -> list[Transcript]:
    """Each conversation as a transcript (the same format and native record)."""
    return [
        transcript.model_copy(update={"messages": tuple(transcript.messages[i] for i in part)})
        for part in found
    ]


def _moved(found: Sequence[Diagnostic], places: Sequence[int]) -> list[Diagnostic]:
    out = []
    for diagnostic in found:
        index = diagnostic.location.message_index
        if index is not None and index < len(places):
            diagnostic = replace(
                diagnostic, location=replace(diagnostic.location, message_index=places[index])
            )
        out.append(diagnostic)
    return out


def merged(each: Sequence[tuple[Sequence[Diagnostic], Sequence[int]]]) -> tuple[Diagnostic, ...]:
    """The diagnostics of every conversation, at their message indices in the whole
    (`places`), each reported once, sorted."""
    seen: dict[tuple[object, ...], Diagnostic] = {}
    for found, places in each:
        for d in _moved(found, places):
            seen.setdefault((d.code, d.message, d.location.pointer, d.location.message_index), d)
    return tuple(sorted(seen.values(), key=Diagnostic.sort_key))


def lint_each(
    transcript: Transcript, found: Split, lint: Callable[[Transcript], tuple[Diagnostic, ...]]
) -> tuple[Diagnostic, ...]:
    """`lint` of every conversation, merged."""
    return merged(
        [(lint(view), part) for view, part in zip(views(transcript, found), found, strict=True)]
    )


Fixed: TypeAlias = (
    "tuple[Transcript, Mapping[str, int], tuple[Diagnostic, ...], tuple[Diagnostic, ...]]"
)


def fix_each(
    transcript: Transcript, found: Split, fix: Callable[[Transcript], Fixed]
) -> Fixed | str:
    """`fix` of every conversation, joined into one transcript with the fixes applied,
    what is left and each fix applied; or why the fixed conversations cannot be joined."""
    parts = views(transcript, found)
    results = [fix(view) for view in parts]
    codec = CODECS[transcript.format or ""]
    joined = codec.join(transcript, [r[0] for r in results])
    if isinstance(joined, str):
        return joined
    after = codec.conversations(joined) or tuple(
        tuple(range(len(joined.messages))) for _ in results
    )
    remaining = merged([(r[2], part) for r, part in zip(results, after, strict=True)])
    fixes = merged([(r[3], part) for r, part in zip(results, found, strict=True)])
    applied: dict[str, int] = {}
    for d in fixes:  # a fix of the shared prompt, made in each conversation, counts once
        applied[d.code] = applied.get(d.code, 0) + 1
    return joined, applied, remaining, fixes
