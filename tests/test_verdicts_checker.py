"""The provider-verdict checker (`benchmarks.realworld.verdicts`) on a folder written here.

Each body is ours, in the shape of recorded request bodies: a clean one the provider
accepted, one it accepted that a rule flags (a false positive), one it rejected for a
history reason histnorm must catch, one rejected for a reason outside the history, and
one sent to a host no profile models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.realworld import verdicts
from benchmarks.realworld.verdicts import Cause, check, main

_CALL: Any = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
_CLEAN: Any = {
    "model": "m",
    "messages": [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": None, "tool_calls": [_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
        {"role": "assistant", "content": "One file."},
    ],
}
_TOO_LONG = "call_" + "x" * 60
_FLAGGED: Any = {  # an id over Chat Completions' 40 characters: HN104 under openai-chat
    "model": "m",
    "messages": [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": None, "tool_calls": [{**_CALL, "id": _TOO_LONG}]},
        {"role": "tool", "tool_call_id": _TOO_LONG, "content": "a.txt"},
    ],
}
_ORPHAN: Any = {  # a result with no call: a history-caused 400
    "model": "m",
    "messages": [
        {"role": "user", "content": "Hi"},
        {"role": "tool", "tool_call_id": "call_9", "content": "x"},
    ],
}


def _folder(tmp_path: Path, bodies: dict[str, tuple[str, int, Any]]) -> Path:
    index = []
    for name, (host, status, body) in bodies.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=2))
        index.append({"file": name, "host": host, "status": status})
    (tmp_path / "index.json").write_text(json.dumps(index))
    return tmp_path


_OPENAI = "api.openai.com"
_CAUSES = {
    "openai-chat/orphan.json": Cause(True, "a tool message with no call before it"),
    "openai-chat/audio.json": Cause(False, "audio input on a text model"),
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return _folder(
        tmp_path,
        {
            "openai-chat/clean.json": (_OPENAI, 200, _CLEAN),
            "openai-chat/long-id.json": (_OPENAI, 200, _FLAGGED),
            "openai-chat/orphan.json": (_OPENAI, 400, _ORPHAN),
            "openai-chat/audio.json": (_OPENAI, 400, _CLEAN),
            "openai-chat/other-host.json": ("openrouter.ai", 200, _FLAGGED),
        },
    )


def test_counts_false_positives_and_fix_changes_on_accepted_bodies(folder: Path) -> None:
    tally = check(folder, _CAUSES).profiles["openai-chat"]
    assert (tally.bodies, tally.accepted, tally.rejected) == (4, 2, 2)
    assert tally.false_positives == {"openai-chat/long-id.json": ["HN104"]}
    assert tally.by_rule() == {"HN104": 1}
    assert tally.changed_by_fix == ["openai-chat/long-id.json"]


def test_a_history_caused_400_with_an_error_is_caught(folder: Path) -> None:
    tally = check(folder, _CAUSES).profiles["openai-chat"]
    assert (tally.history_rejected, tally.caught, tally.misses) == (1, 1, [])


def test_a_history_caused_400_without_an_error_is_a_miss(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"openai-chat/orphan.json": (_OPENAI, 400, _CLEAN)})
    tally = check(folder, _CAUSES).profiles["openai-chat"]
    assert tally.misses == ["openai-chat/orphan.json"]
    assert not check(folder, _CAUSES).clean


def test_other_hosts_are_not_evidence(folder: Path) -> None:
    report = check(folder, _CAUSES)
    assert report.not_evidence == {"openrouter.ai": 1}
    assert set(report.profiles) == {"openai-chat"}


def test_a_400_of_unknown_cause_is_listed_not_guessed(folder: Path) -> None:
    tally = check(folder, {}).profiles["openai-chat"]
    assert tally.unclassified == ["openai-chat/orphan.json", "openai-chat/audio.json"]
    assert tally.misses == []


def test_openai_verdicts_evidence_the_endpoint_of_the_folder() -> None:
    assert verdicts.profile_for("api.openai.com", "openai-responses") == "openai-responses"
    assert verdicts.profile_for("api.openai.com", "anthropic") is None
    assert verdicts.profile_for("aiplatform.googleapis.com", "gemini") == "vertex"
    assert verdicts.profile_for("api.mistral.ai", "openai-chat") == "mistral"
    assert verdicts.profile_for("openrouter.ai", "openai-chat") is None


def test_causes_are_keyed_by_cassette_and_interaction() -> None:
    entry = {"file": "a/b.json", "cassette": "c.yaml", "interaction": 2}
    assert verdicts.cause_key(entry) == "c.yaml#2"
    assert verdicts.cause_key({"file": "a/b.json"}) == "a/b.json"


def test_main_prints_a_table_and_json(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(verdicts, "KNOWN_CAUSES", _CAUSES)
    assert main([str(folder)]) == 1  # a false positive remains
    text = capsys.readouterr().out
    assert text.splitlines()[0].split()[:3] == ["profile", "bodies", "200"]
    assert "false positive [openai-chat] openai-chat/long-id.json: HN104" in text
    assert "not evidence: 1 bodies (openrouter.ai 1)" in text
    assert main([str(folder), "--json"]) == 1
    value = json.loads(capsys.readouterr().out)
    assert value["profiles"]["openai-chat"]["by_rule"] == {"HN104": 1}
    assert value["clean"] is False


def test_an_index_entry_may_name_its_format_profile_and_cause(tmp_path: Path) -> None:
    """The second verdict folder: one subfolder per source project, the format, the
    profile and the cause of a rejection named in the index."""
    bodies = {"proj/a.json": _CLEAN, "proj/b.json": _ORPHAN, "proj/c.json": _CLEAN}
    for name, body in bodies.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(body))
    entry = {"host": _OPENAI, "format": "openai-chat", "profile": "openai-chat"}
    index = [
        {**entry, "file": "proj/a.json", "status": 200},
        {**entry, "file": "proj/b.json", "status": 400, "cause": "history", "error": "orphan"},
        {**entry, "file": "proj/c.json", "status": 401, "cause": "other", "error": "key"},
        {**entry, "file": "proj/c.json", "status": 200, "profile": None},
    ]
    (tmp_path / "index.json").write_text(json.dumps(index))
    report = check(tmp_path, {})
    tally = report.profiles["openai-chat"]
    assert (tally.bodies, tally.accepted, tally.rejected) == (3, 1, 2)
    assert (tally.history_rejected, tally.caught, tally.unclassified) == (1, 1, [])
    assert report.not_evidence == {_OPENAI: 1}


def test_a_converse_body_sent_to_bedrock_is_evidence_for_its_profile(tmp_path: Path) -> None:
    """Bedrock Converse bodies (the second folder names their format, not a profile) are
    read as `bedrock-converse` and evidence for that profile; another host's are not."""
    turns = [
        {"role": "user", "content": [{"text": "a"}]},
        {"role": "user", "content": [{"text": "b"}]},  # HN107 under bedrock-converse
    ]
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "ok.json").write_text(json.dumps({"messages": turns[:1]}))
    (tmp_path / "p" / "twice.json").write_text(json.dumps({"messages": turns}))
    host = "bedrock-runtime.us-east-1.amazonaws.com:443"
    entry = {"format": "bedrock-converse", "profile": None}
    index = [
        {**entry, "host": host, "file": "p/ok.json", "status": 200},
        {**entry, "host": host, "file": "p/twice.json", "status": 400, "cause": "history"},
        {**entry, "host": "127.0.0.1:8080", "file": "p/ok.json", "status": 200},
    ]
    (tmp_path / "index.json").write_text(json.dumps(index))
    report = check(tmp_path, {})
    tally = report.profiles["bedrock-converse"]
    assert (tally.bodies, tally.accepted, tally.false_positives) == (2, 1, {})
    assert (tally.history_rejected, tally.caught) == (1, 1)
    assert report.not_evidence == {"127.0.0.1:8080": 1}
