"""Every edit conserves what it does not own (`histnorm.conserve`).

A fix may remove, move or rewrite only the values its diagnostic owns; any other key,
string, number or boolean of the input must still be in the output. HN107's merge of two
same-role messages carries every key of both or is not offered (the reason is in the
message, and lint shows no fix for it). The properties at the end damage the fixtures
(histories where two speakers write in a row; the fuzzer's damaged files, written back
through the command line's writer): with the check turned off (monkeypatched), they
catch a fix that drops what it does not own; with it on, every fix conserves.
"""

from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from fuzzing.cases import build, samples
from fuzzing.damages import DAMAGES
from fuzzing.invariants import FileRun
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from session_helpers import session

import histnorm
import histnorm.engine as engine
from histnorm.conserve import _align, atoms, lost
from histnorm.diagnostic import Applicability, Diagnostic, FixInfo
from histnorm.document import fix_document
from histnorm.model import Message, TextPart, Transcript
from histnorm.profiles import PROFILES

ROOT = Path(__file__).resolve().parent.parent


def _load(document: Any, fmt: str) -> Transcript:
    return histnorm.load(orjson.dumps(document), format=fmt)


def _merge_refused(document: Any, fmt: str, profile: str, kept: str) -> None:
    """HN107 reports the repeated role but offers no fix; `fix` leaves the history as it
    is and says why, naming the value a merge would drop."""
    transcript = _load(document, fmt)
    found = [d for d in histnorm.lint(transcript, profile=profile) if d.code == "HN107"]
    assert found, "HN107 reports the second message"
    assert all(d.fix is None for d in found), [d.message for d in found]
    assert all("(not fixable: HN107's fix would" in d.message for d in found)
    assert any(kept in d.message for d in found), [d.message for d in found]
    result = histnorm.fix(transcript, profile=profile)
    assert "HN107" not in result.applied
    assert histnorm.encode(result.transcript) == histnorm.encode(transcript)


# --- HN107: a merge carries every key of both messages, or is not offered -----------------


def test_openai_chat_merge_of_two_speakers_is_refused() -> None:
    document = [
        {"role": "user", "name": "alice", "content": "Book the room."},
        {"role": "user", "name": "bob", "content": "Not that one."},
        {"role": "assistant", "content": "Which room?"},
    ]
    _merge_refused(document, "openai-chat", "vllm", "bob")


def test_a_merge_never_reaches_past_a_message_that_stays() -> None:
    """Fuzz seed 7 case 272: in a run of three same-role messages whose second cannot be
    merged (another speaker), the third merges into the one right before it (refused:
    bob's name), never into the first past the second, which would reorder the texts."""
    document = [
        {"role": "user", "content": "Book the room."},
        {"role": "assistant", "name": "alice", "content": "One."},
        {"role": "assistant", "name": "bob", "content": "Two."},
        {"role": "assistant", "name": "alice", "content": "Three."},
    ]
    result = histnorm.fix(document, format="openai-chat", profile="vllm")
    written = histnorm.encode(result.transcript)
    assert [m["content"] for m in written] == ["Book the room.", "One.", "Two.", "Three."]
    assert written == document


def test_a_message_of_unknown_content_breaks_a_run_of_one_role() -> None:
    """Fuzz seed 7 cases 272, 357 and 72: a Responses `item_reference` or `compaction`
    item reads as an assistant message of unknown content. Nothing merges into it, across
    it or out of it: the messages on either side are not one run."""
    document = {
        "input": [
            {"role": "user", "content": "What is in these?"},
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "A cat."}]},
            {"type": "item_reference", "id": "msg_refuse"},
            {"role": "assistant", "content": "And an invoice."},
        ]
    }  # fmt: skip
    found = histnorm.lint(document, format="openai-responses", profile="bedrock-converse")
    assert not [d for d in found if d.code == "HN107"], [(d.code, d.message) for d in found]
    result = histnorm.fix(document, format="openai-responses", profile="bedrock-converse")
    assert "HN107" not in result.applied


def test_openai_chat_merge_of_one_speaker_carries_everything() -> None:
    document = [
        {"role": "user", "name": "alice", "content": "Book the room."},
        {"role": "user", "name": "alice", "content": "The big one."},
        {"role": "assistant", "content": "Done."},
    ]
    result = histnorm.fix(_load(document, "openai-chat"), profile="vllm")
    assert result.applied == {"HN107": 1}
    merged = histnorm.encode(result.transcript)
    assert len(merged) == 2
    assert merged[0]["name"] == "alice"
    assert atoms(document) <= atoms(merged) | {("s", "Book the room."), ("s", "The big one.")}
    text = orjson.dumps(merged[0]).decode()
    assert "Book the room." in text and "The big one." in text


def test_meai_merge_keeps_author_and_message_ids_or_is_refused() -> None:
    document = [
        {
            "role": "user",
            "authorName": "alice",
            "messageId": "m1",
            "contents": [{"$type": "text", "text": "Summarise this file."}],
        },
        {
            "role": "user",
            "authorName": "alice",  # one speaker: another is refused before (HN107's fix)
            "messageId": "m2",
            "additionalProperties": {"channel": "web"},
            "contents": [{"$type": "text", "text": "Please."}],
        },
        {"role": "assistant", "contents": [{"$type": "text", "text": "It is a budget."}]},
    ]
    _merge_refused(document, "meai", "bedrock-converse", "additionalProperties")


def test_langchain_merge_keeps_name_id_and_additional_kwargs_or_is_refused() -> None:
    def human(text: str, name: str, ident: str, extra: dict[str, Any]) -> dict[str, Any]:
        data = {"content": text, "additional_kwargs": extra, "response_metadata": {}}
        data |= {"type": "human", "name": name, "id": ident}
        return {"type": "human", "data": data}

    document = [
        human("Book the room.", "alice", "h1", {}),
        human("Not that one.", "alice", "h2", {"source": "slack"}),  # one speaker, as above
        {
            "type": "ai",
            "data": {
                "content": "Which room?",
                "additional_kwargs": {},
                "response_metadata": {},
                "type": "ai",
                "name": None,
                "id": "a1",
                "tool_calls": [],
                "invalid_tool_calls": [],
                "usage_metadata": None,
            },
        },
    ]
    _merge_refused(document, "langchain", "vllm", "/1/data/")


def _ai(text: str, ident: str, usage: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "type": "ai",
        "data": {
            "content": text,
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "ai",
            "name": None,
            "id": ident,
            "tool_calls": [],
            "invalid_tool_calls": [],
            "usage_metadata": usage,
        },
    }


def test_langchain_merge_of_two_usage_counts_is_refused_not_a_crash() -> None:
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}
    document = [
        {"type": "human", "data": {"content": "Hi", "type": "human"}},
        _ai("Hello.", "run-1", usage),
        _ai("How can I help?", "run-2", {**usage, "output_tokens": 4, "total_tokens": 9}),
    ]
    _merge_refused(document, "langchain", "vllm", "a second usage part cannot be written")


def test_vercel_merge_keeps_ids_and_metadata_or_is_refused() -> None:
    document = [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Book it."}]},
        {
            "id": "u2",
            "role": "user",
            "metadata": {"sentAt": "2026-07-14"},
            "parts": [{"type": "text", "text": "Now."}],
        },
        {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "Booked."}]},
    ]
    _merge_refused(document, "vercel-ai", "portable", "at /1/")


def _request(text: str, stamp: str, run_id: str, instructions: str | None) -> dict[str, Any]:
    return {
        "parts": [{"content": text, "timestamp": stamp, "part_kind": "user-prompt"}],
        "timestamp": stamp,
        "instructions": instructions,
        "kind": "request",
        "run_id": run_id,
    }


def test_pydantic_ai_merge_keeps_instructions_run_ids_and_times_or_is_refused() -> None:
    document = [
        _request("Price of A-2?", "2026-12-01T21:38:28Z", "run-1", "Answer in EUR."),
        _request("And A-3?", "2026-12-01T21:39:00Z", "run-2", "Answer briefly."),
        {
            "parts": [{"content": "3 EUR.", "part_kind": "text"}],
            "kind": "response",
            "timestamp": "2026-12-01T21:39:01Z",
        },
    ]
    _merge_refused(document, "pydantic-ai", "vllm", "at /1/")


def _codex_line(stamp: str, payload: dict[str, Any]) -> bytes:
    return orjson.dumps({"timestamp": stamp, "type": "response_item", "payload": payload})


def test_codex_merge_is_refused_and_lint_offers_no_fix() -> None:
    def message(role: str, kind: str, text: str) -> dict[str, Any]:
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    data = b"\n".join(
        [
            _codex_line("2026-07-14T09:12:00.000Z", message("user", "input_text", "Hi")),
            _codex_line("2026-07-14T09:12:01.000Z", message("assistant", "output_text", "A")),
            _codex_line("2026-07-14T09:12:02.000Z", message("assistant", "output_text", "B")),
        ]
    )
    found = histnorm.lint_document(data, path_hint="s.jsonl", format="codex", profile="vllm")
    hn107 = [d for d in found.diagnostics if d.code == "HN107"]
    assert hn107 and all(d.fix is None for d in hn107)
    fixed = histnorm.fix_document(data, path_hint="s.jsonl", format="codex", profile="vllm")
    assert fixed.output is None
    assert "HN107" not in fixed.applied


def test_a_dropped_message_takes_the_line_it_is_written_as() -> None:
    """An empty Codex message histnorm made (no native line of its own) is written with
    the time of the line before it; once that line is gone, removing the message (HN005)
    takes the time with it: the line holds nothing else."""

    def line(stamp: str, role: str, kind: str, text: str) -> dict[str, Any]:
        content = [{"type": kind, "text": text}]
        payload = {"type": "message", "role": role, "content": content}
        return {"timestamp": stamp, "type": "response_item", "payload": payload}

    document = [
        line("2026-07-14T09:12:00.000Z", "user", "input_text", "Hi"),
        line("2026-07-14T09:12:01.000Z", "assistant", "output_text", "A"),
        line("2026-07-14T09:12:02.000Z", "user", "input_text", "B"),
    ]
    read = _load(document, "codex")
    emptied = read.messages[1].evolve(native=None, parts=())
    before = read.evolve(messages=(emptied, read.messages[2]))
    assert histnorm.encode(before)[0]["timestamp"] == "2026-07-14T09:12:00.000Z"
    found = [d for d in histnorm.lint(before) if d.code == "HN005"]
    after = before.evolve(messages=before.messages[1:])
    assert len(found) == 1 and lost(before, after, found, read) is None
    assert lost(before, after, [], read) is not None  # owned by the fix, by no one else


# --- the check itself ------------------------------------------------------------------


_ORPHAN_RESULT = [
    {"role": "user", "content": "Weather?"},
    {"role": "tool", "tool_call_id": "gone", "content": "Sunny."},
    {"role": "assistant", "content": "It is sunny."},
]
_ORPHAN_CALL = [
    {"role": "user", "content": "Weather?"},
    {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "Never mind."},
]


def test_a_fix_owns_the_part_it_removes() -> None:
    result = histnorm.fix(_load(_ORPHAN_CALL, "openai-chat"))
    assert result.applied == {"HN001": 1}
    assert "tool_calls" not in histnorm.encode(result.transcript)[1]


def test_a_fix_that_drops_a_value_it_does_not_own_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HN001 removing an orphan call that also drops the message's `name` (a fix that
    takes more than it owns) leaves the transcript as it was, saying which value."""
    from histnorm.rules import orphan_tool_call

    document = [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "name": "planner",
            "content": "Checking.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "user", "content": "Never mind."},
    ]
    transcript = _load(document, "openai-chat")
    honest = orphan_tool_call.RULE.fix
    assert honest is not None

    def greedy(t: Transcript, found: Any, chosen: histnorm.Settings) -> Transcript:
        fixed = honest(t, found, chosen)
        messages = list(fixed.messages)
        native = {k: v for k, v in (messages[1].native or {}).items() if k != "name"}
        messages[1] = messages[1].evolve(native=native, author_name=None)
        return fixed.evolve(messages=tuple(messages))

    rule = dataclasses.replace(orphan_tool_call.RULE, fix=greedy)
    order = tuple(rule if r is orphan_tool_call.RULE else r for r in engine.FIX_ORDER)
    monkeypatch.setattr(engine, "FIX_ORDER", order)
    result = histnorm.fix(transcript)
    assert not result.changed
    assert histnorm.encode(result.transcript) == document
    assert any("HN001's fix would drop the value 'planner'" in d.message for d in result.remaining)


@pytest.fixture
def named(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The calls of `_named` (working out all that fixes own) from now on."""
    import histnorm.conserve as conserve

    asked: list[object] = []
    real = conserve._named
    monkeypatch.setattr(conserve, "_named", lambda *args: asked.append(args) or real(*args))
    return asked


@pytest.mark.parametrize(
    ("document", "applied"),
    [(_ORPHAN_RESULT, {"HN002": 1}), (_ORPHAN_CALL, {"HN001": 1})],
    ids=["message", "part"],
)
def test_what_a_fix_removes_is_owned_without_working_out_the_rest(
    named: list[object], document: list[dict[str, Any]], applied: dict[str, int]
) -> None:
    """A fix that removes a message (HN002's orphan result) or a part (HN001's orphan
    call) it owns is checked on what that message or part was read as: what else the fix
    owns is not worked out."""
    result = histnorm.fix(_load(document, "openai-chat"))
    assert result.applied == applied
    assert b"tool_call" not in orjson.dumps(histnorm.encode(result.transcript))  # it is gone
    assert named == []


def test_a_removed_block_owns_the_session_line_it_was_read_from(named: list[object]) -> None:
    """A Claude Code result block removed with its line (HN002) owns that line: its ids,
    links and time go with it, and nothing more is worked out."""
    result = fix_document(session("claude-code", True, "parallel-tools"), path_hint="s.jsonl")
    assert [d.code for d in result.fixes] == ["HN002"]
    assert b"toolu_gone" not in result.output
    assert named == []


def test_a_message_owned_whole_does_not_cover_a_value_dropped_elsewhere() -> None:
    """Owning a removed message owns what it holds, not a value another message lost."""
    document = [
        {"role": "user", "name": "bob", "content": "Weather?"},
        {"role": "tool", "tool_call_id": "gone", "content": "Sunny."},
        {"role": "assistant", "content": "It is sunny."},
    ]
    before = _load(document, "openai-chat")
    after = _load([{"role": "user", "content": "Weather?"}, document[2]], "openai-chat")
    removes = Diagnostic("HN002", "x", "m", histnorm.Severity.ERROR).at(message_index=1)
    assert lost(before, after, [removes]) == "would drop the value 'bob' at /0/name"
    kept = _load([document[0], document[2]], "openai-chat")
    assert lost(before, kept, [removes]) is None


def test_a_removed_call_takes_its_copy_in_the_content_blocks() -> None:
    """A LangChain AI message holds each call twice (an Anthropic `tool_use` block and a
    `tool_calls` entry): removing the call removes both, and that conserves."""
    document = orjson.loads(
        (ROOT / "fixtures/formats/langchain/anthropic-tool-use.json").read_bytes()
    )
    del document[3:5]  # the results of both calls
    result = histnorm.fix(_load(document, "langchain"))
    assert result.applied == {"HN001": 2}, [d.message for d in result.remaining]
    blocks = histnorm.encode(result.transcript)[2]["data"]["content"]
    assert [b["type"] for b in blocks] == ["thinking", "text"]


def test_the_check_does_not_run_on_a_clean_transcript(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    monkeypatch.setattr(engine, "conserved", lambda *args: calls.append(args))
    clean = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}]
    assert not histnorm.fix(_load(clean, "openai-chat")).changed
    assert calls == []


def test_lost_names_the_first_value_missing() -> None:
    before = _load([{"role": "user", "name": "bob", "content": "Hi"}], "openai-chat")
    after = _load([{"role": "user", "content": "Hi"}], "openai-chat")
    nowhere = Diagnostic("HN999", "x", "m", histnorm.Severity.ERROR)
    assert lost(before, after, [nowhere]) is None  # no position: it owns everything
    assert lost(before, after, [nowhere.at(message_index=0)]) is None  # owns the message
    owns_nothing = FixInfo(Applicability.SAFE, "t", owns=())
    found = lost(before, after, [dataclasses.replace(nowhere, fix=owns_nothing)])
    assert found == "would drop the key 'name' at /0/name"


def test_a_value_still_held_by_an_unchanged_line_is_not_lost() -> None:
    """The check skips the lines a writer hands back unchanged (the very objects) and
    looks in them only for what a changed line no longer holds."""
    from histnorm.conserve import _same_items, _written

    def history(first_name: str | None) -> Transcript:
        first = {"role": "user", "content": "Hi"} | ({"name": first_name} if first_name else {})
        later = {"role": "user", "name": "bob", "content": "Again"}
        return _load([first, {"role": "assistant", "content": "Hello."}, later], "openai-chat")

    nowhere = Diagnostic("HN999", "x", "m", histnorm.Severity.ERROR)
    owns_nothing = [dataclasses.replace(nowhere, fix=FixInfo(Applicability.SAFE, "t", owns=()))]
    for first_name, expected in (("bob", None), (None, "would drop the key 'name' at /2/name")):
        before = history(first_name)
        anonymous = before.messages[2].evolve(author_name=None, native=None)
        after = before.evolve(messages=(*before.messages[:2], anonymous))
        assert len(_same_items(_written(before), _written(after))) == 2
        assert lost(before, after, owns_nothing) == expected


# --- the property: damaged fixtures, every profile ---------------------------------------


def _damaged(seed: int) -> tuple[str, Transcript]:
    rng = random.Random(seed)
    fixtures = [s for s in samples() if s.kind == "transcript" and ":" not in s.name]
    sample = rng.choice(fixtures)
    transcript = sample.transcript
    assert transcript is not None
    for _ in range(rng.randint(1, 3)):
        for damage in rng.sample(DAMAGES, len(DAMAGES)):
            damaged = damage(transcript, rng)
            if damaged is not None:
                transcript = damaged
                break
    return sample.fmt, transcript


def _values(transcript: Transcript) -> set[tuple[str, str]]:
    """What a transcript holds that no fix owns: the `name` of every message with text
    (no fix removes such a message, nor moves or rewrites its speaker)."""
    found = set()
    for message in transcript.messages:
        native = message.native
        text = any(isinstance(p, TextPart) and p.text.strip() for p in message.parts)
        if text and isinstance(native, dict) and isinstance(native.get("name"), str):
            found.add(("s", native["name"]))
    return found


def _conserving(fmt: str, transcript: Transcript, profile: str | None) -> None:
    result = histnorm.fix(transcript, profile=profile, tail="close", unsafe_fixes=True)
    try:
        written = histnorm.encode(result.transcript)
    except histnorm.HistnormError:
        return
    missing = _values(transcript) - atoms(written)
    assert not missing, f"{fmt} ({profile}): fix dropped {sorted(missing)} {dict(result.applied)}"


CONSERVE = settings(
    max_examples=int(os.environ.get("HISTNORM_FUZZ_EXAMPLES", "40")),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _named_same_role(draw: st.DrawFn) -> tuple[str, Transcript]:
    """An OpenAI Chat history where two speakers write in a row (a damage no fixture
    has), then damaged further like the fuzzer's fixtures."""
    fmt, transcript = _damaged(draw(st.integers(0, 1 << 30)))
    people = [
        {"role": "user", "name": draw(st.sampled_from(["alice", "ann"])), "content": "One."},
        {"role": "user", "name": draw(st.sampled_from(["bob", "ben"])), "content": "Two."},
        {"role": "assistant", "content": "Three."},
    ]
    if draw(st.booleans()) or fmt != "openai-chat":
        return "openai-chat", _load(people, "openai-chat")
    return fmt, transcript


@CONSERVE
@given(st.data(), st.sampled_from([None, *sorted(PROFILES)]))
def test_every_fix_keeps_the_speakers_of_damaged_histories(
    data: st.DataObject, profile: str | None
) -> None:
    fmt, transcript = data.draw(st.composite(_named_same_role)())
    _conserving(fmt, transcript, profile)


def test_with_the_check_off_a_merge_drops_a_message_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """HN107's merge of two LangChain AI messages keeps one id: the conservation check is
    what refuses it (turned off, the second id is gone)."""
    document = [
        {"type": "human", "data": {"content": "Book the room.", "type": "human"}},
        _ai("Which room?", "a1", None),
        _ai("The blue one is free.", "a2", None),
    ]
    kept = histnorm.fix(_load(document, "langchain"), profile="vllm")
    assert "HN107" not in kept.applied and ("s", "a2") in atoms(histnorm.encode(kept.transcript))
    monkeypatch.setattr(engine, "conserved", lambda *args: None)
    dropped = histnorm.fix(_load(document, "langchain"), profile="vllm")
    assert "HN107" in dropped.applied
    assert ("s", "a2") not in atoms(histnorm.encode(dropped.transcript))


def test_a_merge_of_two_speakers_is_refused_even_where_the_name_stands_elsewhere() -> None:
    """alice, bob, alice in a row: the value 'alice' stays in the document whatever is
    merged, so only HN107's own test of the speakers refuses a merge that would give
    alice's words to bob."""
    document = [
        {"role": "user", "content": "Book the room."},
        {"role": "assistant", "name": "alice", "content": "One."},
        {"role": "assistant", "name": "bob", "content": "Two."},
        {"role": "assistant", "name": "alice", "content": "Three."},
    ]
    found = [d for d in histnorm.lint(document, format="openai-chat", profile="vllm")]
    assert [d.fix for d in found if d.code == "HN107"] == [None, None]
    assert all("would put the words of" in d.message for d in found if d.code == "HN107")


# --- damaged files: the fuzzer's cases, through the command line's reader and writer ------

LOSSY = ((1, 470), (1, 771), (2, 148))
"""Fuzz cases (seed, case) whose damage (a Claude Code line repeated under its uuid, then
blanked) leads a fix, through the writer, to drop another line's text."""


def _texts(data: bytes) -> set[str]:
    """Every non-blank `text` value of a JSON or JSONL file."""
    found: set[str] = set()
    for line in data.splitlines():
        try:
            stack = [orjson.loads(line)]
        except orjson.JSONDecodeError:
            continue
        while stack:
            here = stack.pop()
            if isinstance(here, dict):
                text = here.get("text")
                if isinstance(text, str) and text.strip():
                    found.add(text)
                stack.extend(here.values())
            elif isinstance(here, list):
                stack.extend(here)
    return found


def _lost_texts(seed: int, case: int) -> set[str]:
    run = build(seed, case)[1]
    if not isinstance(run, FileRun) or run.first.stdout is None:
        return set()
    return _texts(run.data) - _texts(run.output)


@pytest.mark.parametrize(("seed", "case"), [*LOSSY, *((0, case) for case in range(60))])
def test_damaged_files_keep_every_text(seed: int, case: int) -> None:
    assert not _lost_texts(seed, case)


def test_with_the_check_off_damaged_files_lose_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The property above fails when the conservation check is turned off, and so is the
    hold on fixes of a Claude Code line that shadows an earlier one (`held_messages`):
    the writer then drops the text of a line that shares its uuid with the one a fix
    changed."""
    monkeypatch.setattr(engine, "conserved", lambda *args: None)
    monkeypatch.setattr(engine, "_held_back", lambda transcript, found: found)
    assert all(_lost_texts(seed, case) for seed, case in LOSSY)


def test_the_hold_alone_keeps_the_text_of_a_shadowed_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the check off, the up-front hold keeps those texts on its own: no fix reaches
    a line that shadows an earlier one (the check is not what saves them any more)."""
    monkeypatch.setattr(engine, "conserved", lambda *args: None)
    assert not any(_lost_texts(seed, case) for seed, case in LOSSY)


def _messages(*counts: int) -> Transcript:
    """A transcript whose messages hold `counts` text parts each."""
    return Transcript(
        messages=tuple(
            Message(role="user", parts=tuple(TextPart(text=str(i)) for i in range(n)))
            for n in counts
        )
    )


@pytest.mark.parametrize(
    ("counts", "again", "groups"),
    [
        ([2, 0, 1], (2, 0, 1), [[0], [1], [2]]),  # each message reads as itself
        ([3, 1], (1, 2, 1), [[0, 1], [2]]),  # a message read back as two
        ([3, 0], (1, 2), None),  # the empty message is not read back
        ([2], (2, 1), None),  # a message more
        ([1, 1], (2,), None),  # two messages joined
    ],
)
def test_messages_align_with_what_they_read_back_as(
    counts: list[int], again: tuple[int, ...], groups: list[list[int]] | None
) -> None:
    assert _align(counts, _messages(*again)) == groups
