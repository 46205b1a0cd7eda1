"""histnorm: find and repair what makes a stored LLM chat history unreplayable.

The core is pure: functions take values (bytes, strings, parsed JSON, model objects) and
return new values. Nothing here reads files, the environment or the terminal.

Every name below is loaded on first use (`__getattr__`): `import histnorm` costs next to
nothing, and a program pays only for the codecs, rules and models it calls on.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from histnorm.api import (
        dump,
        encode,
        fix,
        lint,
        load,
    )
    from histnorm.behaviours import (
        ApprovalValidationError,
        dedupe_handoff_candidates,
        dedupe_transcript_requests,
        is_partial,
        merge_repeated_requests,
        reconcile_approval_state,
        repair_appended_tool_results,
        reslot_approval_results,
        sanitize_partial_response,
        strip_partial_markers,
    )
    from histnorm.convert import (
        convert,
    )
    from histnorm.diagnostic import (
        Applicability,
        Diagnostic,
        FixInfo,
        Location,
        Severity,
    )
    from histnorm.document import (
        DocumentResult,
        fix_document,
        lint_document,
    )
    from histnorm.engine import (
        FixDidNotConverge,
        FixResult,
    )
    from histnorm.errors import (
        HistnormError,
        NotATranscript,
    )
    from histnorm.formats import (
        CODECS,
        detect_format,
        get_codec,
    )
    from histnorm.jsonio import (
        Style,
    )
    from histnorm.model import (
        ApprovalRequestPart,
        ApprovalResponsePart,
        JsonValue,
        MediaPart,
        Message,
        Part,
        ReasoningPart,
        RefusalPart,
        TextPart,
        ToolCallPart,
        ToolFamily,
        ToolResultPart,
        Transcript,
        UnknownPart,
        UsagePart,
    )
    from histnorm.repair import (
        Repair,
        repair,
    )
    from histnorm.rules import ALL_RULES as RULES
    from histnorm.settings import (
        ApprovalPolicy,
        OrphanCallPolicy,
        Scope,
        Settings,
        SettingsError,
        TailMode,
    )

__version__ = "0.1.0"

_LAZY: dict[str, tuple[str, str]] = {
    "load": ("histnorm.api", "load"),
    "encode": ("histnorm.api", "encode"),
    "dump": ("histnorm.api", "dump"),
    "lint": ("histnorm.api", "lint"),
    "fix": ("histnorm.api", "fix"),
    "convert": ("histnorm.convert", "convert"),
    "Applicability": ("histnorm.diagnostic", "Applicability"),
    "Diagnostic": ("histnorm.diagnostic", "Diagnostic"),
    "FixInfo": ("histnorm.diagnostic", "FixInfo"),
    "Location": ("histnorm.diagnostic", "Location"),
    "Severity": ("histnorm.diagnostic", "Severity"),
    "DocumentResult": ("histnorm.document", "DocumentResult"),
    "fix_document": ("histnorm.document", "fix_document"),
    "lint_document": ("histnorm.document", "lint_document"),
    "FixDidNotConverge": ("histnorm.engine", "FixDidNotConverge"),
    "FixResult": ("histnorm.engine", "FixResult"),
    "HistnormError": ("histnorm.errors", "HistnormError"),
    "NotATranscript": ("histnorm.errors", "NotATranscript"),
    "CODECS": ("histnorm.formats", "CODECS"),
    "detect_format": ("histnorm.formats", "detect_format"),
    "get_codec": ("histnorm.formats", "get_codec"),
    "Style": ("histnorm.jsonio", "Style"),
    "ApprovalRequestPart": ("histnorm.model", "ApprovalRequestPart"),
    "ApprovalResponsePart": ("histnorm.model", "ApprovalResponsePart"),
    "JsonValue": ("histnorm.model", "JsonValue"),
    "MediaPart": ("histnorm.model", "MediaPart"),
    "Message": ("histnorm.model", "Message"),
    "Part": ("histnorm.model", "Part"),
    "ReasoningPart": ("histnorm.model", "ReasoningPart"),
    "RefusalPart": ("histnorm.model", "RefusalPart"),
    "TextPart": ("histnorm.model", "TextPart"),
    "ToolCallPart": ("histnorm.model", "ToolCallPart"),
    "ToolFamily": ("histnorm.model", "ToolFamily"),
    "ToolResultPart": ("histnorm.model", "ToolResultPart"),
    "Transcript": ("histnorm.model", "Transcript"),
    "UnknownPart": ("histnorm.model", "UnknownPart"),
    "UsagePart": ("histnorm.model", "UsagePart"),
    "Repair": ("histnorm.repair", "Repair"),
    "repair": ("histnorm.repair", "repair"),
    "ApprovalPolicy": ("histnorm.settings", "ApprovalPolicy"),
    "OrphanCallPolicy": ("histnorm.settings", "OrphanCallPolicy"),
    "Scope": ("histnorm.settings", "Scope"),
    "Settings": ("histnorm.settings", "Settings"),
    "SettingsError": ("histnorm.settings", "SettingsError"),
    "TailMode": ("histnorm.settings", "TailMode"),
    "ApprovalValidationError": ("histnorm.behaviours", "ApprovalValidationError"),
    "dedupe_handoff_candidates": ("histnorm.behaviours", "dedupe_handoff_candidates"),
    "dedupe_transcript_requests": ("histnorm.behaviours", "dedupe_transcript_requests"),
    "is_partial": ("histnorm.behaviours", "is_partial"),
    "merge_repeated_requests": ("histnorm.behaviours", "merge_repeated_requests"),
    "reconcile_approval_state": ("histnorm.behaviours", "reconcile_approval_state"),
    "repair_appended_tool_results": ("histnorm.behaviours", "repair_appended_tool_results"),
    "reslot_approval_results": ("histnorm.behaviours", "reslot_approval_results"),
    "sanitize_partial_response": ("histnorm.behaviours", "sanitize_partial_response"),
    "strip_partial_markers": ("histnorm.behaviours", "strip_partial_markers"),
    "RULES": ("histnorm.rules", "ALL_RULES"),
}
"""Where each public name lives: (module, attribute)."""


def __getattr__(name: str) -> Any:
    """Import the module of a public name on first use, and keep the value here."""
    found = _LAZY.get(name)
    if found is None:
        raise AttributeError(f"module 'histnorm' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(found[0]), found[1])
    globals()[name] = value
    return value


class _Package(ModuleType):
    """`histnorm` itself: importing its submodule `histnorm.convert` or `histnorm.repair`
    leaves the package's `convert` and `repair` the public functions, as importing the
    package eagerly did (the import system sets a loaded submodule on its package)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, ModuleType):
            return  # the submodule stays in sys.modules under its own name
        super().__setattr__(name, value)


_SHADOWED = frozenset({"convert", "repair"})
"""Public names that are also the names of submodules."""

sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "CODECS",
    "RULES",
    "Applicability",
    "ApprovalPolicy",
    "ApprovalRequestPart",
    "ApprovalResponsePart",
    "ApprovalValidationError",
    "Diagnostic",
    "DocumentResult",
    "FixDidNotConverge",
    "FixInfo",
    "FixResult",
    "HistnormError",
    "JsonValue",
    "Location",
    "MediaPart",
    "Message",
    "NotATranscript",
    "OrphanCallPolicy",
    "Part",
    "ReasoningPart",
    "RefusalPart",
    "Repair",
    "Scope",
    "Settings",
    "SettingsError",
    "Severity",
    "Style",
    "TailMode",
    "TextPart",
    "ToolCallPart",
    "ToolFamily",
    "ToolResultPart",
    "Transcript",
    "UnknownPart",
    "UsagePart",
    "__version__",
    "convert",
    "dedupe_handoff_candidates",
    "dedupe_transcript_requests",
    "detect_format",
    "dump",
    "encode",
    "fix",
    "fix_document",
    "get_codec",
    "is_partial",
    "lint",
    "lint_document",
    "load",
    "merge_repeated_requests",
    "reconcile_approval_state",
    "repair",
    "repair_appended_tool_results",
    "reslot_approval_results",
    "sanitize_partial_response",
    "strip_partial_markers",
]
