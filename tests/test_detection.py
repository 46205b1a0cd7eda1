"""Positive detection: a value is read as a format only on that format's own marks.

Valid JSON that holds no transcript (an Alpaca dataset, a dataset registry, preference
pairs, a package.json, a format histnorm does not read) is "not a transcript": the
library raises `NotATranscript`, the command line skips it (counted, never written, exit
code unchanged). One file is read in one format unless `--detect per-line` is asked for.
Fixtures: `fixtures/not-transcripts/` and `fixtures/detection/` (see their READMEs).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner, Result

import histnorm
from histnorm import jsonio
from histnorm.document import WINDOW, read_json, read_jsonl
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import detect_format

ROOT = Path(__file__).resolve().parent.parent
NOT_TRANSCRIPTS = ROOT / "fixtures" / "not-transcripts"
DETECTION = ROOT / "fixtures" / "detection"
SKIPPED = sorted(p.name for p in NOT_TRANSCRIPTS.iterdir() if p.suffix in (".json", ".jsonl"))

FIXABLE = (
    '{"messages":[{"role":"user","content":"Weather and time?"},'
    '{"role":"assistant","content":null,"tool_calls":['
    '{"id":"call_w","type":"function","function":{"name":"weather","arguments":"{}"}},'
    '{"id":"call_t","type":"function","function":{"name":"time","arguments":"{}"}}]},'
    '{"role":"tool","tool_call_id":"call_w","content":"4 C"},'
    '{"role":"user","content":"Never mind the time."}]}'
)


def cli(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(app, list(args), input=input)


def report(result: Result) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads(result.stdout)
    return records


def values(name: str) -> list[Any]:
    """The values of a fixture: the document, or each line of a JSONL file."""
    raw = (NOT_TRANSCRIPTS / name).read_bytes()
    if name.endswith(".jsonl"):
        return [jsonio.loads(line) for line in raw.splitlines() if line.strip()]
    return [jsonio.loads(raw)]


# --- the library ---------------------------------------------------------------------


@pytest.mark.parametrize("name", SKIPPED)
def test_valid_json_that_is_no_transcript_is_not_a_transcript(name: str) -> None:
    for value in values(name):
        with pytest.raises(NotATranscript):
            detect_format(value)
        with pytest.raises(NotATranscript):
            histnorm.lint(value)
        with pytest.raises(NotATranscript):
            histnorm.load(value)


def test_not_a_transcript_is_a_histnorm_error() -> None:
    assert issubclass(NotATranscript, HistnormError)
    assert histnorm.NotATranscript is NotATranscript


@pytest.mark.parametrize(
    "record",
    [
        {"instruction": "Say hi.", "input": "", "output": "hi"},
        {"instruction": "Say hi.", "input": "to Ann", "output": "hi Ann"},
        {"input": "", "output": "hi"},
        {"input": "hello"},
    ],
)
def test_a_string_input_alone_is_no_responses_body(record: dict[str, Any]) -> None:
    with pytest.raises(NotATranscript):
        detect_format(record)
    with pytest.raises(NotATranscript):
        detect_format([record, record])


@pytest.mark.parametrize(
    "body",
    [
        {"model": "gpt-5", "input": "Weather in Oslo?"},
        {"instructions": "Be terse.", "input": "Weather in Oslo?"},
        {"previous_response_id": "resp_1", "input": "And Bergen?"},
        {"model": "gpt-5", "input": [{"role": "user", "content": "Weather?"}]},
        {"input": [{"type": "function_call_output", "call_id": "c1", "output": "4 C"}]},
    ],
)
def test_a_responses_body_carries_responses_marks(body: dict[str, Any]) -> None:
    assert detect_format(body) == "openai-responses"


def test_an_alpaca_array_is_never_fixed_into_a_responses_body() -> None:
    raw = (NOT_TRANSCRIPTS / "alpaca.json").read_bytes()
    document = read_json(raw)
    assert all(isinstance(r.error, NotATranscript) for r in document.records)
    assert all(r.transcript is None for r in document.records)


def test_a_pydantic_ai_dump_is_read_as_pydantic_ai_not_gemini() -> None:
    path = ROOT / "fixtures" / "rules" / "HN001" / "cancelled-partial-turn.pydantic-ai.json"
    assert detect_format(json.loads(path.read_bytes())) == "pydantic-ai"
    # Gemini itself keeps being detected on its own part keys
    gemini = [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": []}]
    assert detect_format(gemini) == "gemini"


def test_anthropic_sdk_block_objects_are_read_as_anthropic() -> None:
    from anthropic.types import TextBlock, ToolUseBlock

    blocks = [
        TextBlock(type="text", text="Checking."),
        ToolUseBlock(type="tool_use", id="toolu_1", name="weather", input={"city": "Oslo"}),
    ]
    history: list[Any] = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": "Never mind."},
    ]
    assert histnorm.load(history).format == "anthropic"
    codes = [d.code for d in histnorm.lint(history)]
    assert "HN001" in codes  # the unanswered tool_use is seen
    assert history[1]["content"] is blocks  # the caller's value is not changed


def test_tool_use_and_tool_result_blocks_never_pass_as_openai_chat() -> None:
    history: list[Any] = [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "4"}]},
    ]
    assert detect_format(history) == "anthropic"
    assert histnorm.get_codec("openai-chat").sniff(history) == 0


def test_objects_that_are_not_json_are_refused_clearly() -> None:
    history: list[Any] = [{"role": "user", "content": [object()]}]
    with pytest.raises(HistnormError, match="/0/content/0") as caught:
        histnorm.load(history)
    assert not isinstance(caught.value, NotATranscript)
    (diagnostic,) = histnorm.lint(history)
    assert diagnostic.code == "HN000"


def test_marks_of_two_formats_are_an_error_naming_no_guess() -> None:
    history: list[Any] = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "w", "input": {}}],
        },
    ]
    with pytest.raises(HistnormError) as caught:
        detect_format(history)
    assert not isinstance(caught.value, NotATranscript)
    assert "format" in caught.value.message


def test_a_sharegpt_record_is_still_sharegpt() -> None:
    record = {
        "conversations": [
            {"from": "human", "value": "Weather?"},
            {"from": "function_call", "value": '{"name": "w", "arguments": {}}'},
            {"from": "observation", "value": "4 C"},
            {"from": "gpt", "value": "4 C."},
        ],
        "tools": "[]",
    }
    assert detect_format(record) == "sharegpt"
    assert detect_format(record["conversations"]) == "sharegpt"


def test_an_anthropic_body_with_text_blocks_is_anthropic_by_its_envelope() -> None:
    body = {
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "17 * 23?"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "391"}]},
        ],
        "model": "claude-sonnet-4-5",
        "thinking": {"budget_tokens": 1024, "type": "enabled"},
    }
    assert detect_format(body) == "anthropic"


# --- one format per file ---------------------------------------------------------------


def test_a_jsonl_file_is_read_in_one_format() -> None:
    document = read_jsonl((DETECTION / "two-formats.jsonl").read_bytes())
    first, second, third = document.records
    assert first.transcript is not None and first.transcript.format == "openai-chat"
    assert third.transcript is not None and third.transcript.format == "openai-chat"
    assert second.transcript is None and second.error is not None
    assert not isinstance(second.error, NotATranscript)
    assert "anthropic" in second.error.message and "openai-chat" in second.error.message
    assert "per-line" in second.error.message


def test_per_line_detection_when_asked() -> None:
    document = read_jsonl((DETECTION / "two-formats.jsonl").read_bytes(), detect="per-line")
    formats = [r.transcript.format for r in document.records if r.transcript is not None]
    assert formats == ["openai-chat", "anthropic", "openai-chat"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_refuses_a_line_in_another_format(tmp_path: Path, jobs: str) -> None:
    path = tmp_path / "two-formats.jsonl"
    shutil.copy(DETECTION / "two-formats.jsonl", path)
    result = cli("lint", "--output-format", "json", "-j", jobs, str(path))
    assert result.exit_code == 1, result.output
    found = [(r["code"], r["location"]["line"]) for r in report(result)]
    assert found == [("HN000", 2)]
    before = path.read_bytes()
    cli("fix", str(path))
    assert path.read_bytes() == before  # nothing to fix in the lines read; line 2 untouched


def test_cli_per_line_detection(tmp_path: Path) -> None:
    path = tmp_path / "two-formats.jsonl"
    shutil.copy(DETECTION / "two-formats.jsonl", path)
    result = cli("lint", "--output-format", "json", "--detect", "per-line", str(path))
    found = [(r["code"], r["location"]["line"]) for r in report(result)]
    assert found == [("HN001", 2)]  # the Anthropic line, read as Anthropic
    assert cli("lint", "--detect", "sometimes", str(path)).exit_code == 2


def test_the_file_format_is_settled_by_all_its_lines(tmp_path: Path) -> None:
    plain = '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}'
    template = (
        '{"messages":[{"role":"user","content":"w?"},{"role":"assistant","tool_calls":'
        '[{"type":"function","function":{"name":"w","arguments":{"city":"Oslo"}}}]},'
        '{"role":"tool","content":"4"}]}'
    )
    document = read_jsonl(f"{plain}\n{template}\n{plain}\n".encode())
    formats = {r.transcript.format for r in document.records if r.transcript is not None}
    assert formats == {"chat-template"}


def test_tool_rows_after_the_settling_window_are_not_refused(tmp_path: Path) -> None:
    # A Hugging Face dataset: plain rows first (OpenAI Chat rows, and chat-template ones),
    # its tool rows with object arguments (chat-template only) far past the first lines.
    plain = '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}'
    template = (
        '{"messages":[{"role":"user","content":"w?"},{"role":"assistant","tool_calls":'
        '[{"type":"function","function":{"name":"w","arguments":{"city":"Oslo"}}}]},'
        '{"role":"tool","content":"4"},{"role":"assistant","content":"4 C"}]}'
    )
    data = (f"{plain}\n" * (WINDOW + 5) + f"{template}\n").encode()
    last = read_jsonl(data).records[-1]
    assert last.transcript is not None and last.transcript.format == "chat-template"
    path = tmp_path / "dataset.jsonl"
    path.write_bytes(data)
    result = cli("lint", "--output-format", "json", str(path))
    assert result.exit_code == 0 and report(result) == [], result.output


# --- not a transcript is not an error ------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in SKIPPED:
        shutil.copy(NOT_TRANSCRIPTS / name, tmp_path / name)
    (tmp_path / "chat.json").write_text(FIXABLE)
    return tmp_path


def test_a_folder_walk_skips_what_is_no_transcript(folder: Path) -> None:
    result = cli("lint", str(folder))
    assert result.exit_code == 1  # the one transcript has an error
    assert f"{len(SKIPPED)} files skipped: not a transcript" in result.stdout
    assert "HN000" not in result.stdout
    assert "HN004" not in result.stdout


def test_skipped_files_do_not_change_the_exit_code(folder: Path) -> None:
    (folder / "chat.json").unlink()
    result = cli("lint", str(folder))
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.stdout
    assert f"{len(SKIPPED)} files skipped: not a transcript" in result.stdout


def test_fix_never_writes_a_skipped_file(folder: Path) -> None:
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    result = cli("fix", str(folder))
    assert result.exit_code == 0, result.output
    after = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert {n for n in before if before[n] != after[n]} == {"chat.json"}
    out = folder / "copy.json"
    assert cli("fix", str(folder / "alpaca.json"), "-o", str(out)).exit_code == 0
    assert not out.exists()


def test_json_output_has_a_record_per_skipped_file(folder: Path) -> None:
    result = cli("lint", "--output-format", "json", str(folder / "alpaca.json"))
    assert result.exit_code == 0
    (record,) = report(result)
    assert record["skipped"] == "not-a-transcript"
    assert record["filename"] == str(folder / "alpaca.json")
    lines = cli("lint", "--output-format", "jsonl", str(folder)).stdout.splitlines()
    skipped = [json.loads(line) for line in lines if '"skipped"' in line]
    assert len(skipped) == len(SKIPPED)


def test_the_report_schema_allows_skipped_records(folder: Path) -> None:
    import jsonschema

    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    result = cli("lint", "--output-format", "json", str(folder))
    jsonschema.validate(report(result), schema)
    assert any("skipped" in r for r in report(result))


def test_an_explicit_format_makes_it_an_error(folder: Path) -> None:
    result = cli("lint", "--format", "openai-chat", "--output-format", "json", str(folder))
    codes = [r.get("code") for r in report(result)]
    assert codes.count("HN000") >= 3  # package.json, registry, preference pairs
    assert not any("skipped" in r for r in report(result))
    assert result.exit_code == 1


def test_invalid_json_stays_an_error(tmp_path: Path) -> None:
    """When what can be read of it is a transcript (else, as JSONC, it is skipped)."""
    (tmp_path / "broken.json").write_text('{"messages": [{"role": "user", "content": "hi"},')
    result = cli("lint", str(tmp_path))
    assert result.exit_code == 1
    assert "HN000" in result.stdout
    assert "skipped" not in result.stdout


@pytest.mark.parametrize("name", ["partly-transcripts.jsonl", "partly-transcripts.json"])
def test_records_that_are_no_transcript_are_skipped_and_kept(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    shutil.copy(DETECTION / name, path)
    result = cli("lint", "--output-format", "json", str(path))
    records = report(result)
    assert [r["code"] for r in records if "code" in r] == ["HN001"]
    assert len([r for r in records if "skipped" in r]) == 2
    text = cli("lint", str(path)).stdout
    assert "2 records skipped: not a transcript" in text
    before = path.read_bytes()
    assert cli("fix", str(path)).exit_code == 0
    after = path.read_bytes()
    assert after != before
    assert after.count(b'"instruction"') == 2
    assert b'"input": ""' in after or b'"input":""' in after
    assert b"call_t" not in after


def test_stdin_that_is_no_transcript_passes_through_fix() -> None:
    data = (NOT_TRANSCRIPTS / "package.json").read_text()
    result = cli("fix", "-", input=data)
    assert result.exit_code == 0
    assert result.stdout == data


# --- HN000 points at the broken line -----------------------------------------------------


def _pretty(lines: int) -> list[str]:
    messages = [{"role": "user", "content": f"line {i}"} for i in range(lines)]
    return json.dumps({"messages": messages}, indent=2).splitlines()


@pytest.mark.parametrize(
    "damage",
    [
        lambda line: line + " junk",
        lambda line: line.replace('"content"', '"con\xfftent"'),
    ],
    ids=["junk", "invalid-utf8"],
)
def test_hn000_points_at_the_broken_line_of_a_json_file(tmp_path: Path, damage: Any) -> None:
    lines = _pretty(6)
    assert '"content"' in lines[12]
    lines[12] = damage(lines[12])
    path = tmp_path / "broken.json"
    path.write_bytes("\n".join(lines).encode("latin-1"))
    result = cli("lint", "--output-format", "json", str(path))
    ((code, line),) = [(r["code"], r["location"]["line"]) for r in report(result)]
    assert (code, line) == ("HN000", 13)
    diagnostic = histnorm.lint(path.read_bytes())[0]
    assert diagnostic.location.line == 13


def test_hn000_points_at_the_broken_line_of_a_jsonl_file(tmp_path: Path) -> None:
    good = '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}'
    bad = good.replace("yo", "y\xffo")
    path = tmp_path / "broken.jsonl"
    path.write_bytes("\n".join([good] * 12 + [bad, good]).encode("latin-1") + b"\n")
    for mode in ("auto", "transcript"):
        result = cli("lint", "--output-format", "json", "--jsonl-mode", mode, str(path))
        assert [(r["code"], r["location"]["line"]) for r in report(result)] == [("HN000", 13)]
    messages = tmp_path / "session.jsonl"
    rows = [f'{{"role":"user","content":"m{i}"}}' for i in range(14)]
    rows[12] = rows[12].replace("m12", "m\xff12")
    messages.write_bytes("\n".join(rows).encode("latin-1") + b"\n")
    result = cli("lint", "--output-format", "json", str(messages))
    assert [(r["code"], r["location"]["line"]) for r in report(result)] == [("HN000", 13)]


def test_per_line_detection_from_the_configuration(tmp_path: Path) -> None:
    path = tmp_path / "two-formats.jsonl"
    shutil.copy(DETECTION / "two-formats.jsonl", path)
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.histnorm]\ndetect = "per-line"\n')
    result = cli("lint", "--config", str(config), "--output-format", "json", str(path))
    assert [(r["code"], r["location"]["line"]) for r in report(result)] == [("HN001", 2)]
    config.write_text('[tool.histnorm]\ndetect = "never"\n')
    assert cli("lint", "--config", str(config), str(path)).exit_code == 2


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("alpaca.json", "instruction"),
        ("preference-pairs.json", "preference"),
        ("dataset-registry.json", "no messages"),
    ],
)
def test_the_skip_says_what_the_file_looks_like(name: str, words: str) -> None:
    (value,) = values(name)
    with pytest.raises(NotATranscript, match=words):
        detect_format(value)


def test_an_anthropic_message_object_with_server_tool_blocks_is_not_a_responses_item() -> None:
    # An Anthropic message object has `"type": "message"` too; its blocks are not
    # Responses content parts, so Responses makes no claim (hypothesis found the tie).
    doc = [
        {
            "role": "assistant",
            "content": [{"type": "server_tool_use", "id": "", "name": "web_search", "input": {}}],
            "id": "msg_",
            "type": "message",
        }
    ]
    assert detect_format(doc) == "anthropic"
    responses = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ]
    assert detect_format(responses) == "openai-responses"
