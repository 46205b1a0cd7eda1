"""Stable identities of findings, for dashboards that track them across runs."""

from __future__ import annotations

import hashlib

from histnorm.diagnostic import Diagnostic


def fingerprint(diagnostic: Diagnostic, *, with_path: bool = False) -> str:
    """A hash of what was found and where in the document: the rule, the transcript, the
    JSON Pointer and the message (which names the ids and values at fault). Lines are left
    out, so re-indenting or reformatting the file keeps the fingerprint; in a JSONL file,
    where each line is its own record and pointers start in the line, the line counts."""
    loc = diagnostic.location
    if loc.transcript_index is not None:
        record = str(loc.transcript_index)
    elif (loc.path or "").endswith(".jsonl") and loc.line is not None:
        record = f"line {loc.line}"
    else:
        record = ""
    parts = [
        diagnostic.code,
        record,
        loc.pointer if loc.pointer is not None else "",
        diagnostic.message,
    ]
    if with_path:
        parts.insert(0, loc.path or "")
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]
