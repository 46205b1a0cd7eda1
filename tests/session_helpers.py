"""Session files for the tests: a format's fixture, as it is or damaged."""

from __future__ import annotations

from pathlib import Path

import orjson

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def session(fmt: str, damaged: bool, name: str = "simple") -> bytes:
    """The fixture `name`.jsonl of `fmt` (`claude-code` or `codex`); `damaged`: with a
    result no call answers appended (HN002, which `fix` removes with its line), so both
    lint and fix build models."""
    data = (FIXTURES / "formats" / fmt / f"{name}.jsonl").read_bytes()
    if not damaged:
        return data
    last = orjson.loads(data.splitlines()[-1])
    if fmt == "codex":
        item = {"type": "function_call_output", "call_id": "call_gone", "output": "ok"}
        extra = {"timestamp": last["timestamp"], "type": "response_item", "payload": item}
    else:
        block = {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "ok"}
        extra = {
            **last,
            "parentUuid": last["uuid"],
            "uuid": "00000000-0000-4000-8000-000000000999",
            "type": "user",
            "message": {"role": "user", "content": [block]},
        }
    return data + orjson.dumps(extra) + b"\n"
