"""A call id rename (HN104) reaches every reference to the id, or is refused.

Renaming a call's id must carry the new id to everything that cites it in the file:
its results, the approval request and response wrapping it (MEAI, Agent Framework,
Vercel AI), and the Codex `event_msg` lines that name it. Where an id is cited in a place
the rename cannot reach, the rename is refused: lint offers no fix, fix leaves the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from histnorm.document import fix_document, lint_document

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ROOT / "fixtures" / "formats"


def _lines(data: bytes) -> list[Any]:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def _strings(value: Any) -> list[str]:
    """Every string value and key in `value`."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _jsonl(lines: list[Any]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def test_codex_events_follow_the_renamed_call() -> None:
    data = (FORMATS / "codex" / "shell-tools.jsonl").read_bytes()
    done = fix_document(data, path_hint="s.jsonl", profile="mistral")
    assert done.output is not None and done.applied.get("HN104") == 3
    lines = _lines(done.output)
    calls = {
        line["payload"]["call_id"]
        for line in lines
        if line["type"] == "response_item" and "call_id" in line["payload"]
    }
    cited = [line["payload"].get("call_id") for line in lines if line["type"] == "event_msg"]
    cited = [c for c in cited if c is not None]
    assert len(cited) == 2  # patch_apply_end and exec_command_end
    assert set(cited) <= calls
    for old in ("call_rg1", "call_ap2", "call_sh3"):
        assert old not in _strings(lines)


def test_codex_rename_refused_when_the_id_is_cited_where_no_rename_reaches() -> None:
    lines = _lines((FORMATS / "codex" / "shell-tools.jsonl").read_bytes())
    lines.append(
        {
            "timestamp": "2026-07-14T09:20:12.000Z",
            "type": "compacted",
            "payload": {
                "message": "",
                "replacement_history": [
                    {"type": "function_call_output", "call_id": "call_rg1", "output": "x"}
                ],
            },
        }
    )
    data = _jsonl(lines)
    linted = lint_document(data, path_hint="s.jsonl", profile="mistral")
    by_id = {d.message.split("'")[1]: d for d in linted.diagnostics if d.code == "HN104"}
    assert by_id["call_rg1"].fix is None
    assert by_id["call_ap2"].fix is not None
    done = fix_document(data, path_hint="s.jsonl", profile="mistral")
    assert done.applied.get("HN104") == 2
    assert done.output is not None
    fixed = _lines(done.output)
    assert _strings(fixed).count("call_rg1") == _strings(lines).count("call_rg1")
    assert "call_ap2" not in _strings(fixed)
    left = [d for d in done.diagnostics if d.code == "HN104"]
    assert len(left) == 1 and left[0].fix is None and "call_rg1" in left[0].message


def test_meai_approvals_follow_the_renamed_call() -> None:
    data = (FORMATS / "meai" / "approval_current.json").read_bytes()
    done = fix_document(data, path_hint="a.json", profile="mistral")
    assert done.output is not None and done.applied.get("HN104") == 1
    messages = orjson.loads(done.output)
    new = messages[3]["contents"][0]["callId"]
    assert new != "call_1"
    assert messages[1]["contents"][0]["toolCall"]["callId"] == new
    assert messages[2]["contents"][0]["toolCall"]["callId"] == new
    assert messages[4]["contents"][0]["callId"] == new
    assert "call_1" not in _strings(messages)


_VERCEL: list[Any] = [
    {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Archive /r."}]},
    {
        "id": "a1",
        "role": "assistant",
        "parts": [
            {
                "type": "tool-archive",
                "toolCallId": "call_z1",
                "state": "approval-responded",
                "input": {"path": "/r"},
                "approval": {"id": "ap1", "approved": True},
            }
        ],
    },
    {
        "id": "a2",
        "role": "assistant",
        "parts": [
            {
                "type": "tool-archive",
                "toolCallId": "call_z1",
                "state": "output-available",
                "input": {"path": "/r"},
                "output": "done",
            }
        ],
    },
]


def test_vercel_approval_follows_the_renamed_call() -> None:
    data = orjson.dumps(_VERCEL)
    done = fix_document(data, path_hint="v.json", profile="mistral")
    assert done.output is not None and done.applied.get("HN104") == 1
    messages = orjson.loads(done.output)
    ids = [part["toolCallId"] for m in messages for part in m["parts"] if "toolCallId" in part]
    assert len(ids) == 2 and ids[0] == ids[1] != "call_z1"


def test_refused_rename_lints_without_a_fix() -> None:
    """Two calls with the same bad id: which one an approval cites cannot be told, so the
    rename that would have to choose is refused and lint says so."""
    doc: list[Any] = [
        *_VERCEL,
        {
            "id": "a3",
            "role": "assistant",
            "parts": [
                {
                    "type": "tool-archive",
                    "toolCallId": "call_z1",
                    "state": "output-available",
                    "input": {"path": "/s"},
                    "output": "done",
                }
            ],
        },
    ]
    data = orjson.dumps(doc)
    linted = lint_document(data, path_hint="v.json", profile="mistral")
    renames = [d for d in linted.diagnostics if d.code == "HN104"]
    assert renames and all(d.fix is None for d in renames)
    done = fix_document(data, path_hint="v.json", profile="mistral")
    assert "HN104" not in done.applied


def test_an_approval_named_after_its_call_is_renamed_with_it() -> None:
    """MEAI (System.Text.Json) and Agent Framework approvals whose own id is the call's:
    the request and its response keep pairing, under the call's new id."""
    for path in (
        FORMATS / "meai" / "approval_stj.json",
        FORMATS / "agent-framework" / "approval.json",
    ):
        data = path.read_bytes()
        linted = lint_document(data, path_hint=path.name, profile="mistral")
        renames = [d for d in linted.diagnostics if d.code == "HN104"]
        assert renames and all(d.fix is not None for d in renames), path
        done = fix_document(data, path_hint=path.name, profile="mistral")
        assert done.output is not None and done.applied.get("HN104") == len(renames)
        old = [d.message.split("'")[1] for d in renames]
        assert not set(old) & set(_strings(orjson.loads(done.output))), path
        again = lint_document(done.output, path_hint=path.name, profile="mistral")
        assert not [d for d in again.diagnostics if d.code in ("HN003", "HN004", "HN104")]


def _cc(kind: str, uid: str, parent: str | None, **extra: Any) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "sessionId": "5e0c3b7a-6d1f-4c2e-9a83-2f4b6c8d0e17",
        "type": kind,
        **extra,
        "uuid": uid,
    }


def test_claude_code_hook_lines_follow_the_renamed_call() -> None:
    """A `system` hook line cites the tool call by `toolUseID` (Claude Code writes one per
    PostToolUse hook): it cites the new id after the rename."""
    tool_use = {"type": "tool_use", "id": "toolu_01Vx", "name": "Bash", "input": {}}
    lines = [
        _cc("user", "u1", None, message={"role": "user", "content": "Run ls."}),
        _cc(
            "assistant",
            "u2",
            "u1",
            message={"id": "msg_1", "role": "assistant", "content": [tool_use]},
        ),
        _cc("system", "u3", "u2", content="Running PostToolUse:Bash...", toolUseID="toolu_01Vx"),
        _cc(
            "user",
            "u4",
            "u3",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01Vx", "content": "a"}],
            },
        ),
    ]
    data = _jsonl(lines)
    linted = lint_document(data, path_hint="s.jsonl", profile="mistral")
    (rename,) = [d for d in linted.diagnostics if d.code == "HN104"]
    assert rename.fix is not None
    done = fix_document(data, path_hint="s.jsonl", profile="mistral")
    assert done.output is not None and done.applied.get("HN104") == 1
    fixed = _lines(done.output)
    new = fixed[1]["message"]["content"][0]["id"]
    assert fixed[2]["toolUseID"] == new == fixed[3]["message"]["content"][0]["tool_use_id"]
    assert "toolu_01Vx" not in _strings(fixed)


def test_a_reused_id_cited_by_an_event_is_not_renamed() -> None:
    """HN105 renames the later of two calls sharing an id; a Codex event citing that id
    could mean either call, so no rename is offered or made, and lint says why."""

    def item(payload: Any) -> dict[str, Any]:
        return {
            "timestamp": "2026-07-14T09:20:00.000Z",
            "type": "response_item",
            "payload": payload,
        }

    def shell(n: int) -> list[Any]:
        return [
            item({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
            {
                "timestamp": "2026-07-14T09:20:00.000Z",
                "type": "event_msg",
                "payload": {"type": "exec_command_end", "call_id": "c1", "exit_code": n},
            },
            item({"type": "function_call_output", "call_id": "c1", "output": str(n)}),
        ]

    user = item(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go."}]}
    )
    data = _jsonl([user, *shell(0), *shell(1)])
    linted = lint_document(data, path_hint="r.jsonl", format="codex")
    reused = [d for d in linted.diagnostics if d.code == "HN105"]
    assert reused and all(d.fix is None for d in reused)
    assert "cites it" in reused[0].message
    done = fix_document(data, path_hint="r.jsonl", format="codex")
    assert "HN105" not in done.applied
