"""The CrewAI adapter, against the real package: a `Crew` of one Agent with one tool and
one Task runs on a scripted LLM (`tests/crewai_run.py`) that calls the tool twice, then
answers. A `before_llm_call` hook that keeps the last messages cuts the first call away
from its result; histnorm's `repair_hook()`, registered after it, must hand the LLM a valid
history in the very list CrewAI keeps, and leave a clean one exactly as CrewAI built it.

CrewAI 1.x pins `openai<3` and the test venv holds `openai-agents` (`openai>=3`), so CrewAI
lives in `.venv-crewai` (`make .venv-crewai/.installed`, which `make test` builds): the run
is a subprocess of that venv's interpreter, and this file itself needs no CrewAI."""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import histnorm

ROOT = Path(__file__).resolve().parents[1]
CREWAI_PYTHON = ROOT / ".venv-crewai" / "bin" / "python"


def _run(args: list[str]) -> str:
    """stdout of `.venv-crewai/bin/python args`, which must succeed."""
    if not CREWAI_PYTHON.exists():
        pytest.fail(f"{CREWAI_PYTHON} is missing: run `make .venv-crewai/.installed`")
    env = {
        **os.environ,
        "CREWAI_DISABLE_TELEMETRY": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "OTEL_SDK_DISABLED": "true",
        # CrewAI's own bytecode is the one pip compiled beside it (a cache prefix would
        # hide it); histnorm (installed in that venv from this tree) is not written.
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [str(CREWAI_PYTHON), *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@cache
def _runs() -> dict[str, Any]:
    """Each mode of tests/crewai_run.py, run once for the whole file (CrewAI takes seconds
    to import)."""
    runs: dict[str, Any] = json.loads(_run([str(ROOT / "tests" / "crewai_run.py")]))
    return runs


def _problems(messages: list[dict[str, Any]]) -> dict[str, int]:
    """What histnorm would fix in a request of these messages (none: valid)."""
    return dict(histnorm.repair(messages, format="openai-chat", tail="close").applied)


def _roles(messages: list[dict[str, Any]]) -> str:
    return " ".join(m["role"] for m in messages)


def test_crewai_runs_its_own_venv_apart_from_the_test_venv() -> None:
    """The reason for `.venv-crewai`: the venv's histnorm is this tree, and CrewAI's
    `openai` is below 3 there."""
    code = "import histnorm, openai; print(histnorm.__file__); print(openai.__version__)"
    where, version = _run(["-c", code]).split()
    assert Path(where).resolve() == ROOT / "histnorm" / "__init__.py"
    assert int(version.split(".")[0]) < 3


def test_without_the_hook_the_trimmed_history_reaches_the_llm_broken() -> None:
    """The control: the trimming hook alone sends the third call a tool result whose call
    it cut away, so what the repair test checks is a real defect of this run."""
    calls = _runs()["trim"]["calls"]
    assert len(calls) == 3
    third = calls[2]
    assert _roles(third["received"]) == "system user tool assistant tool"
    assert _problems(third["received"]) == {"HN002": 1}


def test_the_hook_repairs_the_trimmed_history_in_place() -> None:
    run = _runs()["trim-repair"]
    assert run["output"] == "The answer is A and B."
    calls = run["calls"]
    assert len(calls) == 3
    for call in calls:
        assert call["same_list"], "the LLM was not sent the list the hooks were handed"
        assert all(call["kept_objects"]), "a message the repair kept was copied"
        assert _problems(call["received"]) == {}
    built = calls[2]["built"]  # as CrewAI built it, before the trimming hook
    assert _roles(built) == "system user assistant tool assistant tool"
    # trimmed to built[:2] + built[3:]; the repair drops the result of the cut call
    assert calls[2]["received"] == [built[0], built[1], built[4], built[5]]
    assert built[3]["tool_call_id"] == "call_a"
    assert built[4]["tool_calls"][0]["id"] == "call_b"


def test_a_clean_history_passes_through_unchanged() -> None:
    run = _runs()["repair"]
    assert run["output"] == "The answer is A and B."
    calls = run["calls"]
    assert [len(call["received"]) for call in calls] == [2, 4, 6]
    for call in calls:
        assert call["same_list"]
        assert call["received"] == call["built"]
        assert all(call["kept_objects"]), "the hook replaced a message of a clean history"


def test_the_readme_recipe_runs_as_written() -> None:
    """The recipe of the README's CrewAI section, run in the CrewAI venv, prints what the
    README shows beneath it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("CrewAI (`pip install histnorm crewai`)", 1)[1]
    code, rest = section.split("```python\n", 1)[1].split("```\n", 1)
    shown = rest.split("```text\n", 1)[1].split("```", 1)[0]
    assert _run(["-c", code]) == shown
