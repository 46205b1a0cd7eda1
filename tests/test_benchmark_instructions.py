"""`benchmarks.instructions`: its workloads build the calls they name, and its table holds
each call to its issue #24 target (the counts themselves need valgrind: `make bench`)."""

from __future__ import annotations

import pytest

from benchmarks import instructions


@pytest.mark.parametrize("workload", sorted(instructions.WORKLOADS))
def test_every_workload_builds_the_calls_it_names(workload: str) -> None:
    _, names, build = instructions.WORKLOADS[workload]
    calls = build()
    assert tuple(calls) == names
    assert names[0] in ("parse", "round trip")  # the floor comes first


def test_a_driver_run_makes_the_call_it_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    real = instructions._library

    def counted() -> instructions.Calls:
        return {
            name: (lambda name=name, fn=fn: made.append(name) or fn())
            for name, fn in real().items()
        }

    monkeypatch.setitem(
        instructions.WORKLOADS, "library", ("library", instructions.LIBRARY_CALLS, counted)
    )
    try:
        instructions.drive("library", "repair, detected", 3)
    finally:
        import gc

        gc.enable()
        gc.unfreeze()
    assert made == [*instructions.LIBRARY_CALLS, *["repair, detected"] * 3]


def test_the_table_holds_each_call_to_its_target() -> None:
    counts = {
        "bench openai-chat": {"parse": 100, "round trip": 150, "lint": 200, "fix": 400},
        "library": {"round trip": 10, "repair, format given": 30, "repair, detected": 30},
    }
    rows = instructions.table(counts).splitlines()
    assert "| bench openai-chat | lint | 0 K | 2.0x | 1.3x | <= 2x parse: PASS |" in rows
    assert any("| fix |" in row and "<= 2.5x round trip: FAIL" in row for row in rows)
    assert any("format given" in row and "<= 2x round trip: FAIL" in row for row in rows)
    assert any("repair, detected" in row and "<= 3x round trip: PASS" in row for row in rows)
