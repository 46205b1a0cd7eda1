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
- seed 21 cases 7881, 9152: ShareGPT wrote two made-up results of the same text as one
  observation (the form of one observation answering a whole parallel turn), so the next
  run made up the second again. Only results read from such an observation are joined.
- seed 20 case 7856, seed 21 case 12215: a Vercel AI tool part holds its call and its
  output; HN016 renamed the second of two calls sharing an id and gave the new id to the
  result by order (the first call's), while the file keeps the output with the second.
  The result read from a call's own part now follows it.
- seed 20 cases 23645, 42009, seed 21 cases 3217, 32873, 38053: a fix dropping an
  empty message owned the atoms at the message's pointer into the native document, but
  an earlier fix had laid the written one out otherwise (a call split into an item of
  its own), so the dropped item's keys were not owned and the fix was refused. The
  conservation check now finds each message in the written document read back.
- seed 20 cases 2284, 3011, seed 21 cases 115, 13740: the fuzzer checked a transcript
  the damage made unwritable (two legacy LangChain function calls in one message), and
  parts a drawn policy owns (HN109's note in a result, or dropping a call and its
  results; a merge an earlier fix brought about).
- seed 20 case 62434, seed 21 case 13163: a Claude Code result made up for a call a
  profile renamed (HN104) looked for its call's line by the id as read, found none, and
  lost `sourceToolAssistantUUID` (the rename was refused). It now finds the call by the
  id it has.
- seed 21 case 39345: an empty Codex message histnorm made was written with the time of
  the line before it; once that line was gone, HN005 removing the message did not own
  the time on its line (its payload only). A removed message now owns the lines that
  hold nothing else.
- seed 22 case 475581: a result made up for the second of two Claude Code calls sharing
  an id took its line's envelope (and time) from the first call's line; once a profile
  renamed the second call (HN105), the line took another time, and the rename was
  refused. A result's line now follows the last call of its id before it, and none when
  calls share the id and that one was not read from a line.
"""

from __future__ import annotations

import pytest
from fuzzing.cases import run_case

from histnorm.splice import pairs

FOUND = [
    *((7, case) for case in (65, 72, 93, 118, 257, 272, 357, 367)),
    *((8, case) for case in (172, 300, 720, 961, 1171, 1409, 1493, 2350)),
    *((20, case) for case in (2284, 3011, 7856, 23645, 42009, 62434)),
    *((21, case) for case in (115, 3217, 7881, 9152, 12215, 13163, 13740, 32873, 38053, 39345)),
    (22, 475581),
    (22, 631270),
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
