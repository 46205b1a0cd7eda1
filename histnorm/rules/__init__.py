"""The rule registry: every rule module, in code order, and the order fixes run in."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from histnorm.errors import HistnormError
from histnorm.rule import Rule
from histnorm.rules import (
    call_turn_not_after_user,
    conflicting_request_id,
    consecutive_same_role,
    displaced_tool_result,
    duplicate_call_id,
    duplicate_handoff,
    duplicate_tool_result,
    empty_error_result,
    empty_message,
    empty_text,
    empty_tool_calls,
    ends_on_assistant,
    first_message_not_user,
    foreign_thinking_signature,
    invalid_call_id,
    invalid_tool_arguments,
    invalid_tool_name,
    missing_logical_parent,
    missing_parent,
    open_tool_call_at_end,
    orphan_tool_call,
    orphan_tool_result,
    oversized_content,
    oversized_session_line,
    pending_approval_request,
    reasoning_not_carried,
    reasoning_rejected,
    reasoning_without_next,
    repeated_partial_turn,
    repeated_request_id,
    results_not_first,
    shared_call_id,
    split_result_turn,
    system_placement,
    tool_part_in_wrong_role,
    tool_result_name_mismatch,
    trailing_whitespace_at_end,
    unknown_content,
    unreadable_transcript,
    unsupported_media,
    user_after_tool_result,
)

ALL_RULES: tuple[Rule, ...] = (
    unreadable_transcript.RULE,
    orphan_tool_call.RULE,
    orphan_tool_result.RULE,
    pending_approval_request.RULE,
    empty_text.RULE,
    empty_message.RULE,
    repeated_request_id.RULE,
    conflicting_request_id.RULE,
    displaced_tool_result.RULE,
    duplicate_handoff.RULE,
    duplicate_tool_result.RULE,
    open_tool_call_at_end.RULE,
    repeated_partial_turn.RULE,
    unknown_content.RULE,
    missing_parent.RULE,
    tool_part_in_wrong_role.RULE,
    shared_call_id.RULE,
    missing_logical_parent.RULE,
    oversized_session_line.RULE,
    results_not_first.RULE,
    split_result_turn.RULE,
    reasoning_without_next.RULE,
    invalid_call_id.RULE,
    duplicate_call_id.RULE,
    first_message_not_user.RULE,
    consecutive_same_role.RULE,
    system_placement.RULE,
    invalid_tool_arguments.RULE,
    empty_tool_calls.RULE,
    invalid_tool_name.RULE,
    tool_result_name_mismatch.RULE,
    oversized_content.RULE,
    unsupported_media.RULE,
    reasoning_not_carried.RULE,
    reasoning_rejected.RULE,
    foreign_thinking_signature.RULE,
    call_turn_not_after_user.RULE,
    ends_on_assistant.RULE,
    trailing_whitespace_at_end.RULE,
    empty_error_result.RULE,
    user_after_tool_result.RULE,
)
"""Every rule, in code order: HN0xx core rules, HN1xx provider-profile rules."""

FIX_ORDER: tuple[Rule, ...] = (
    repeated_request_id.RULE,
    duplicate_handoff.RULE,
    shared_call_id.RULE,
    conflicting_request_id.RULE,
    tool_part_in_wrong_role.RULE,
    displaced_tool_result.RULE,
    duplicate_tool_result.RULE,
    orphan_tool_result.RULE,
    orphan_tool_call.RULE,
    pending_approval_request.RULE,
    empty_text.RULE,
    empty_message.RULE,
    reasoning_without_next.RULE,
    invalid_tool_arguments.RULE,
    empty_tool_calls.RULE,
    invalid_call_id.RULE,
    duplicate_call_id.RULE,
    invalid_tool_name.RULE,
    tool_result_name_mismatch.RULE,
    consecutive_same_role.RULE,
    split_result_turn.RULE,
    results_not_first.RULE,
    trailing_whitespace_at_end.RULE,
    unsupported_media.RULE,
    oversized_content.RULE,
    reasoning_rejected.RULE,
    foreign_thinking_signature.RULE,
)
"""The order fixes run in (behaviours.md §0.4): merge repeated requests (B), re-slot
displaced results (C), then remove what cannot be replayed (A), then empty text and
empty messages; then the provider-profile repairs (HN1xx), which need a history that
is already sound."""

BY_CODE: Mapping[str, Rule] = MappingProxyType({r.code: r for r in ALL_RULES})
BY_NAME: Mapping[str, Rule] = MappingProxyType({r.name: r for r in ALL_RULES})


def resolve(code_or_name: str) -> Rule:
    """The rule with this code, alias or name (case-insensitive)."""
    wanted = code_or_name.strip()
    rule = BY_CODE.get(wanted.upper()) or BY_NAME.get(wanted.lower())
    if rule is None:
        rule = next((r for r in ALL_RULES if wanted.upper() in r.aliases), None)
    if rule is None:
        raise HistnormError(
            f"unknown rule {code_or_name!r}; run `histnorm rules` to list codes and names"
        )
    return rule
