"""The three seed behaviours as exact-semantics pure functions (behaviours.md §0.6).

- A, partial responses: `sanitize_partial_response`, `coalesce_updates`,
  `reconcile_approval_state`, `is_partial`, `strip_partial_markers`.
- B, repeated request ids: `merge_repeated_requests`, `dedupe_transcript_requests`,
  `dedupe_handoff_candidates`.
- C, approval results: `reslot_approval_results`, `repair_appended_tool_results`.
"""

from __future__ import annotations

from histnorm.behaviours._approval_extract import ApprovalValidationError
from histnorm.behaviours.approval_state import reconcile_approval_state
from histnorm.behaviours.approvals import (
    ReslotResult,
    repair_appended_tool_results,
    reslot_approval_results,
)
from histnorm.behaviours.coalesce import coalesce_updates
from histnorm.behaviours.handoffs import (
    HandoffCandidate,
    dedupe_handoff_candidates,
    handoff_result,
)
from histnorm.behaviours.partial import (
    PersistPlan,
    Removal,
    is_partial,
    sanitize_partial_response,
    strip_partial_markers,
)
from histnorm.behaviours.requests import (
    Conflict,
    MergeResult,
    dedupe_transcript_requests,
    merge_repeated_requests,
)

__all__ = [
    "ApprovalValidationError",
    "Conflict",
    "HandoffCandidate",
    "MergeResult",
    "PersistPlan",
    "Removal",
    "ReslotResult",
    "coalesce_updates",
    "dedupe_handoff_candidates",
    "dedupe_transcript_requests",
    "handoff_result",
    "is_partial",
    "merge_repeated_requests",
    "reconcile_approval_state",
    "repair_appended_tool_results",
    "reslot_approval_results",
    "sanitize_partial_response",
    "strip_partial_markers",
]
