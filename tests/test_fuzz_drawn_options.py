"""Fuzz cases with drawn options (any profile, tail mode and policy) that failed once,
each kept as a regression test: `fuzzing.cases.run_case` finds nothing wrong with them.

- seed 7 cases 65, 93, 118, 367: a profile renames call ids (HN104) in messages the
  damage left alone; the fuzzer compared their parts with the ids (now without them when
  ids were renamed).
- seed 7 cases 72, 272, 357: HN107 merged an assistant message into one across another
  that stayed, or into a Responses/Codex item the format writes apart, so every fix
  "applied" it again (now merges go into the message right before, nothing merges past
  unknown content, and a fix written as the transcript was is no change).
- seed 7 case 257: a Codex `event_msg` line whose call id a rename reached was paired,
  for its number spellings, with a line dropped before it (now with the line it shares
  the most values with).
- seed 8 cases 1171, 1409: a LangChain AI message's `tool_use` content blocks copy its
  `tool_calls`; a rename dropped the copies (the conservation check refused the fix).
  The copies now take the new id.
- seed 8 cases 961, 1493, 2350: a fix of damage the writer cannot show (a duplicate
  Vercel call part) was skipped as "written as before" in the fix loop (now only a
  tried rule's trial withdraws such a fix).
- seed 8 cases 172, 300, 720: the fuzzer read a `loss_weight` of a made-up result as a
  respelled number, and compared an approval's wrapped call id after a rename.
"""

from __future__ import annotations

import pytest
from fuzzing.cases import run_case

from histnorm.splice import pairs

FOUND = [
    *((7, case) for case in (65, 72, 93, 118, 257, 272, 357, 367)),
    *((8, case) for case in (172, 300, 720, 961, 1171, 1409, 1493, 2350)),
]


@pytest.mark.parametrize(("seed", "case"), FOUND)
def test_a_case_that_failed_once_passes(seed: int, case: int) -> None:
    failure = run_case(seed, case, shrink=False)
    assert failure is None, f"{failure.invariant}: {failure.message} ({failure.where})"


def test_a_changed_line_is_paired_with_the_line_it_shares_values_with() -> None:
    kept, dropped, changed = {"a": 1}, {"type": "x", "n": 2}, {"type": "y", "n": 3}
    renamed = {**changed, "id": "new"}  # the same values as `changed`, one key more
    assert pairs([kept, dropped, changed], [kept, renamed]) == {1: 2}
    assert pairs([kept, dropped], [kept, {"type": "z"}]) == {1: 1}  # the only one there
