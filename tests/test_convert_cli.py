"""`histnorm convert` run as a user runs it: every layout lint reads, the target's request
envelope, and a lint of what it wrote under the target's profile.

Each test runs the command (typer's CliRunner) in its own `tmp_path`.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner, Result

import histnorm

ROOT = Path(__file__).resolve().parent.parent
CLAUDE_CODE = ROOT / "fixtures" / "formats" / "claude-code"


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def invoke(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(app, ["convert", *args], input=input)


def put(name: str, value: object) -> str:
    Path(name).write_bytes(value if isinstance(value, bytes) else orjson.dumps(value))
    return name


def lines(data: bytes) -> list[object]:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
MESSAGES = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "Weather in Oslo?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_w", "content": "4 C"},
    {"role": "assistant", "content": "4 C in Oslo."},
]
BODY = {
    "model": "gpt-4o",
    "messages": MESSAGES,
    "tools": [WEATHER_TOOL],
    "temperature": 0.2,
    "max_completion_tokens": 512,
}
"""An OpenAI Chat request body: system message, a function tool, sampling settings."""

PLAIN = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


# --- 1. every layout lint reads ----------------------------------------------------------


def test_a_json_array_of_transcripts_converts_each():
    put("many.json", [PLAIN, PLAIN[:1]])
    result = invoke("many.json", "--to", "gemini")
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout_bytes)
    assert [len(t) for t in out] == [2, 1]
    assert out[0][1] == {"role": "model", "parts": [{"text": "hello"}]}


def test_transcript_per_line_jsonl_stays_one_per_line():
    Path("set.jsonl").write_bytes(orjson.dumps({"messages": PLAIN}) + b"\n" + orjson.dumps(PLAIN))
    result = invoke("set.jsonl", "--to", "sharegpt")
    assert result.exit_code == 0, result.output
    out = lines(result.stdout_bytes)
    assert len(out) == 2
    for record in out:
        assert record["conversations"] == [
            {"from": "human", "value": "hi"},
            {"from": "gpt", "value": "hello"},
        ]


def test_message_per_line_jsonl_is_one_transcript():
    Path("log.jsonl").write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in PLAIN))
    result = invoke("log.jsonl", "--to", "anthropic")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout_bytes) == PLAIN
    assert result.stderr == ""


@pytest.mark.parametrize("name", ["simple.jsonl", "tool-use.jsonl", "parallel-tools.jsonl"])
def test_a_claude_code_session_converts(name: str):
    source = (CLAUDE_CODE / name).read_bytes()
    put(name, source)
    result = invoke(name, "--to", "openai-chat", "-o", "out.json")
    assert "HN000" not in result.stderr, result.stderr
    assert result.exit_code == 0, result.output
    thinking = b'"thinking"' in source  # OpenAI Chat has no place for it: noted
    assert ("CV001 a reasoning part has no place in openai-chat" in result.stderr) == thinking
    out = orjson.loads(Path("out.json").read_bytes())
    session = histnorm.load(b"[" + b",".join(source.splitlines()) + b"]", format="claude-code")
    calls = [p.call_id for m in session.messages for p in m.parts if p.kind == "tool_call"]
    assert [c["id"] for m in out for c in m.get("tool_calls") or ()] == calls
    assert [m["tool_call_id"] for m in out if m["role"] == "tool"] == calls
    assert histnorm.detect_format(out) == "openai-chat"
    assert out[0]["role"] == "user"


def test_a_claude_code_session_from_stdin_is_read_as_a_session():
    source = (CLAUDE_CODE / "tool-use.jsonl").read_bytes()
    result = invoke("-", "--to", "anthropic", input=source)
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout_bytes)
    assert [m["role"] for m in out][:2] == ["user", "assistant"]


def test_jsonl_mode_is_obeyed():
    Path("log.jsonl").write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in PLAIN))
    per_line = invoke("log.jsonl", "--to", "anthropic", "--jsonl-mode", "transcript")
    assert per_line.exit_code == 1
    assert "log.jsonl:1: HN000" in per_line.stderr
    put("one.jsonl", orjson.dumps({"messages": PLAIN[:1]}) + b"\n")
    assert invoke("one.jsonl", "--to", "anthropic", "--jsonl-mode", "message").exit_code == 1
    put("one.jsonl", orjson.dumps(PLAIN[0]) + b"\n")
    whole = invoke("one.jsonl", "--to", "anthropic", "--jsonl-mode", "message")
    assert whole.exit_code == 0, whole.output
    assert orjson.loads(whole.stdout_bytes) == PLAIN[:1]
    bad = invoke("log.jsonl", "--to", "anthropic", "--jsonl-mode", "lines")
    assert bad.exit_code == 2
    assert "--jsonl-mode" in bad.stderr


# --- 2. the target's envelope -------------------------------------------------------------


def test_to_anthropic_puts_system_on_top_and_carries_the_request():
    put("body.json", {**BODY, "user": "u-1"})
    result = invoke("body.json", "--to", "anthropic", "-o", "anthropic.json")
    assert result.exit_code == 0, result.output
    out = orjson.loads(Path("anthropic.json").read_bytes())
    assert out["system"] == "Answer briefly."
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "user", "assistant"]
    assert out["model"] == "gpt-4o"
    assert out["max_tokens"] == 512
    assert out["temperature"] == 0.2
    assert out["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": WEATHER_TOOL["function"]["parameters"],
        }
    ]
    assert "user" not in out
    assert "CV001" in result.stderr and "user" in result.stderr  # reported, not carried
    assert histnorm.detect_format(out) == "anthropic"
    loaded = histnorm.load(Path("anthropic.json").read_bytes(), format="anthropic")
    assert [m.role for m in loaded.messages] == ["user", "assistant", "user", "assistant"]


def test_anthropic_round_trip_keeps_system_and_tools():
    put("body.json", BODY)
    assert invoke("body.json", "--to", "anthropic", "-o", "a.json").exit_code == 0
    back = invoke("a.json", "--to", "openai-chat", "--from", "anthropic")
    assert back.exit_code == 0, back.output
    out = orjson.loads(back.stdout_bytes)
    assert out["messages"][0] == {"role": "system", "content": "Answer briefly."}
    assert [m["role"] for m in out["messages"]] == [m["role"] for m in MESSAGES]
    assert out["tools"] == [WEATHER_TOOL]
    assert {k: out[k] for k in ("model", "temperature", "max_completion_tokens")} == {
        "model": "gpt-4o",
        "temperature": 0.2,
        "max_completion_tokens": 512,
    }


def test_a_tool_the_target_has_no_shape_for_is_reported():
    custom = {"type": "custom", "custom": {"name": "run_sql"}}
    put("body.json", {**BODY, "tools": [WEATHER_TOOL, custom]})
    result = invoke("body.json", "--to", "anthropic")
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout_bytes)
    assert [t["name"] for t in out["tools"]] == ["get_weather"]
    assert "CV001" in result.stderr and "run_sql" in result.stderr


def test_to_sharegpt_writes_a_llamafactory_record():
    put("body.json", BODY)
    result = invoke("body.json", "--to", "sharegpt", "-o", "record.json")
    assert result.exit_code == 0, result.output
    out = orjson.loads(Path("record.json").read_bytes())
    assert set(out) == {"conversations", "system", "tools"}
    assert out["system"] == "Answer briefly."
    assert [t["from"] for t in out["conversations"]] == [
        "human",
        "function_call",
        "observation",
        "gpt",
    ]
    assert isinstance(out["tools"], str)
    assert json.loads(out["tools"]) == [WEATHER_TOOL["function"]]
    call = json.loads(out["conversations"][1]["value"])
    assert call["name"] == "get_weather"
    for key in ("model", "temperature", "max tokens"):
        assert key in result.stderr  # no place in a LLaMA-Factory record: reported
    assert histnorm.detect_format(out) == "sharegpt"
    back = invoke("record.json", "--to", "openai-chat")
    assert back.exit_code == 0, back.output
    again = orjson.loads(back.stdout_bytes)
    assert again["messages"][0] == {"role": "system", "content": "Answer briefly."}
    assert again["tools"] == [WEATHER_TOOL]


def test_sharegpt_record_to_anthropic():
    record = {
        "conversations": [
            {"from": "human", "value": "Weather in Oslo?"},
            {
                "from": "function_call",
                "value": '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
            },
            {"from": "observation", "value": "4 C"},
            {"from": "gpt", "value": "4 C in Oslo."},
        ],
        "system": "Answer briefly.",
        "tools": json.dumps([WEATHER_TOOL["function"]]),
    }
    put("record.json", record)
    result = invoke("record.json", "--to", "anthropic")
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout_bytes)
    assert out["system"] == "Answer briefly."
    assert out["tools"][0]["input_schema"] == WEATHER_TOOL["function"]["parameters"]
    assert out["messages"][1]["content"][0]["input"] == {"city": "Oslo"}


def test_anthropic_top_level_system_is_not_lost():
    body = {"model": "claude-x", "max_tokens": 100, "system": "Be terse.", "messages": PLAIN}
    put("a.json", body)
    for target in ("openai-chat", "meai", "langchain"):
        result = invoke("a.json", "--to", target)
        assert result.exit_code == 0, result.output
        assert b"Be terse." in result.stdout_bytes, target


# --- 3. lint the output under the target's profile --------------------------------------


ORPHAN = [
    {"role": "user", "content": "Weather?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_w", "type": "function", "function": {"name": "w", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "Never mind."},
]


def test_a_defect_that_comes_across_is_reported_with_its_code():
    put("orphan.json", ORPHAN)
    result = invoke("orphan.json", "--to", "anthropic", "-o", "out.json")
    assert result.exit_code == 1
    assert "out.json" in result.stderr and "HN001" in result.stderr
    assert "(at /" in result.stderr
    assert Path("out.json").exists()


def test_what_the_target_rejects_is_reported():
    dotted = [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call.1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call.1", "content": "4 C"},
    ]
    put("dotted.json", dotted)
    assert invoke("dotted.json", "--to", "openai-chat", "--from", "openai-chat").exit_code == 0
    result = invoke("dotted.json", "--to", "anthropic")
    assert result.exit_code == 1
    assert "HN104" in result.stderr
    chosen = invoke("dotted.json", "--to", "meai", "--profile", "anthropic")
    assert chosen.exit_code == 1
    assert "HN104" in chosen.stderr
    assert invoke("dotted.json", "--to", "meai").exit_code == 0
    assert invoke("dotted.json", "--to", "meai", "--profile", "nope").exit_code == 2


def test_a_clean_conversion_prints_nothing_on_stderr():
    put("plain.json", PLAIN)
    result = invoke("plain.json", "--to", "gemini")
    assert result.exit_code == 0
    assert result.stderr == ""


LANGCHAIN_AI = [
    {"type": "human", "data": {"content": "hi", "type": "human"}},
    {
        "type": "ai",
        "data": {
            "content": "hello",
            "type": "ai",
            "id": "run-1",
            "tool_calls": [],
            "invalid_tool_calls": [],
            "response_metadata": {"model_name": "gpt-4o", "finish_reason": "stop"},
            "usage_metadata": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
        },
    },
]


@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "gemini", "sharegpt"])
def test_langchain_usage_is_dropped_with_a_note(target: str):
    put("lc.json", LANGCHAIN_AI)
    result = invoke("lc.json", "--to", target)
    assert result.exit_code == 0, result.output
    assert "CV001" in result.stderr and "usage" in result.stderr
    assert b"output_tokens" not in result.stdout_bytes
    assert b"hello" in result.stdout_bytes


def test_usage_the_target_carries_is_kept():
    put("lc.json", LANGCHAIN_AI)
    result = invoke("lc.json", "--to", "meai")
    assert result.exit_code == 0, result.output
    assert "usage" not in result.stderr
    assert b'"usage"' in result.stdout_bytes


def test_other_request_shapes_get_their_tools_and_settings():
    put("body.json", BODY)
    gemini = invoke("body.json", "--to", "gemini")
    assert gemini.exit_code == 0, gemini.output
    out = orjson.loads(gemini.stdout_bytes)
    assert out["systemInstruction"] == {"parts": [{"text": "Answer briefly."}]}
    assert out["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Current weather for a city.",
                    "parametersJsonSchema": WEATHER_TOOL["function"]["parameters"],
                }
            ]
        }
    ]
    assert out["generationConfig"] == {"temperature": 0.2, "maxOutputTokens": 512}
    assert "the model" in gemini.stderr  # Gemini names the model in the URL, not the body
    responses = invoke("body.json", "--to", "openai-responses")
    assert responses.exit_code == 0, responses.output
    body = orjson.loads(responses.stdout_bytes)
    assert body["model"] == "gpt-4o" and body["max_output_tokens"] == 512
    assert body["tools"][0]["name"] == "get_weather"
    assert body["tools"][0]["parameters"] == WEATHER_TOOL["function"]["parameters"]
    assert body["input"][0]["role"] == "system"


def test_an_anthropic_server_tool_is_reported_not_turned_into_a_function():
    search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    function = {"name": "get_weather", "input_schema": {"type": "object"}}
    body = {"model": "claude-x", "max_tokens": 100, "messages": PLAIN, "tools": [search, function]}
    put("a.json", body)
    result = invoke("a.json", "--to", "openai-chat", "--from", "anthropic")
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout_bytes)
    assert out["tools"] == [
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
    ]
    assert "CV001 the tool 'web_search' (type web_search_20250305)" in result.stderr
    assert "(at /tools/0)" in result.stderr


def test_free_text_arguments_anthropic_cannot_take_are_reported():
    custom = [
        {"role": "user", "content": "Revenue?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_q",
                    "type": "custom",
                    "custom": {"name": "run_sql", "input": "SELECT 1;"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_q", "content": "1"},
    ]
    put("custom.json", custom)
    result = invoke("custom.json", "--to", "anthropic")
    assert result.exit_code == 0, result.output
    assert "CV001 the arguments of the call 'run_sql' are no JSON object" in result.stderr
    assert "(at /1/tool_calls/0)" in result.stderr
    put("plain.json", BODY)
    assert "arguments" not in invoke("plain.json", "--to", "anthropic").stderr


@pytest.mark.parametrize(
    ("choice", "anthropic", "gemini"),
    [
        ("auto", {"type": "auto"}, {"functionCallingConfig": {"mode": "AUTO"}}),
        ("required", {"type": "any"}, {"functionCallingConfig": {"mode": "ANY"}}),
        (
            {"type": "function", "function": {"name": "get_weather"}},
            {"type": "tool", "name": "get_weather"},
            {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}},
        ),
    ],
)
def test_the_tool_choice_is_carried(choice, anthropic, gemini):
    put("body.json", {**BODY, "tool_choice": choice})
    result = invoke("body.json", "--to", "anthropic", "-o", "a.json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(Path("a.json").read_bytes())["tool_choice"] == anthropic
    back = invoke("a.json", "--to", "openai-chat", "--from", "anthropic")
    assert orjson.loads(back.stdout_bytes)["tool_choice"] == choice
    to_gemini = invoke("a.json", "--to", "gemini", "--from", "anthropic", "-o", "g.json")
    assert to_gemini.exit_code == 0, to_gemini.output
    assert orjson.loads(Path("g.json").read_bytes())["toolConfig"] == gemini
    again = invoke("g.json", "--to", "openai-responses", "--from", "gemini")
    assert again.exit_code == 0, again.output
    responses = orjson.loads(again.stdout_bytes)["tool_choice"]
    assert responses == (
        choice if isinstance(choice, str) else {**choice["function"], "type": "function"}
    )
    sharegpt = invoke("body.json", "--to", "sharegpt")
    assert "CV001 the tool choice has no place in sharegpt" in sharegpt.stderr


@pytest.mark.parametrize(("name", "status"), [("killed-mid-write", 0), ("broken-middle-line", 1)])
def test_a_torn_session_converts_around_its_broken_lines_as_lint_reads_it(name: str, status: int):
    put("s.jsonl", (CLAUDE_CODE / "torn" / f"{name}.jsonl").read_bytes())
    result = invoke("s.jsonl", "--to", "anthropic", "-o", "out.json")
    assert result.exit_code == status, result.output
    codes = [line.split()[1] for line in result.stderr.splitlines()]
    assert codes == ["HN000", "CV001", "HN011"]
    assert "message ids have no place in anthropic" in result.stderr
    out = orjson.loads(Path("out.json").read_bytes())
    assert out[0] == {"role": "user", "content": "Run the tests."}


LANGCHAIN_DUMPD = [
    {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "HumanMessage"],
        "kwargs": {"content": "hi", "type": "human"},
    },
    {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {
            "content": "hello",
            "type": "ai",
            "id": "run-1",
            "tool_calls": [],
            "invalid_tool_calls": [],
            "response_metadata": {"model_name": "gpt-4o", "finish_reason": "stop"},
            "usage_metadata": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
        },
    },
]


def test_a_dumpd_aimessage_with_usage_converts_with_a_note():
    put("lc.json", LANGCHAIN_DUMPD)
    result = invoke("lc.json", "--to", "openai-chat")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout_bytes) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]
    assert result.stderr.splitlines() == [
        "lc.json:1: CV001 token usage has no place in openai-chat: not carried "
        "(at /1/kwargs/usage_metadata)",
        "lc.json:1: CV001 1 message id has no place in openai-chat: not carried (at /1)",
    ]


# trl: a conversion cannot say where a prompt ends, so histnorm writes no new TRL record
@pytest.mark.parametrize(
    "target", sorted(set(histnorm.CODECS) - {"openai-chat", "claude-code", "trl"})
)
def test_every_target_reads_back_what_convert_wrote(target: str):
    put("body.json", BODY)
    result = invoke("body.json", "--to", target, "-o", "out.json")
    assert "CV002" not in result.stderr and "HN0" not in result.stderr, result.stderr
    loaded = histnorm.load(Path("out.json").read_bytes(), format=target)
    texts = [p.text for m in loaded.messages for p in m.parts if p.kind == "text"]
    back = invoke("out.json", "--from", target, "--to", "openai-chat", "-o", "back.json")
    assert "CV002" not in back.stderr, back.stderr
    again = orjson.loads(Path("back.json").read_bytes())
    messages = again["messages"] if isinstance(again, dict) else again
    assert messages[0] == {"role": "system", "content": "Answer briefly."}
    assert [m["content"] for m in messages if m["role"] == "assistant"][-1] == "4 C in Oslo."
    assert "4 C in Oslo." in texts


def test_gemini_roles_are_written_in_the_target_s_words():
    contents = [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "hello"}]},
    ]
    put("g.json", contents)
    for target, role in (
        ("openai-chat", "assistant"),
        ("anthropic", "assistant"),
        ("sharegpt", "gpt"),
    ):
        result = invoke("g.json", "--to", target)
        assert result.exit_code == 0, result.output
        assert role.encode() in result.stdout_bytes and b'"model"' not in result.stdout_bytes


def test_a_system_prompt_claude_code_has_no_line_for_is_an_error():
    put("body.json", BODY)
    result = invoke("body.json", "--to", "claude-code")
    assert result.exit_code == 1
    assert "CV002 transcript 0 cannot be written as claude-code: a system message" in result.stderr


def test_nothing_converted_writes_nothing():
    put("out.json", b"kept\n")
    put("broken.json", b'[{"role": "user", "content": "hi"')
    result = invoke("broken.json", "--to", "anthropic", "-o", "out.json")
    assert result.exit_code == 1
    assert "broken.json:1: HN000" in result.stderr
    assert Path("out.json").read_bytes() == b"kept\n"
    assert invoke("broken.json", "--to", "anthropic").stdout_bytes == b""


def test_a_sharegpt_record_llamafactory_would_skip_is_reported():
    talkative = [dict(m) for m in MESSAGES]
    talkative[2]["content"] = "Checking."  # text and a call: a gpt turn, then a function_call
    put("chat.json", talkative)
    result = invoke("chat.json", "--to", "sharegpt", "-o", "record.json")
    assert result.exit_code == 0  # valid ShareGPT; only LLaMA-Factory's loader skips it
    assert "CV003 LLaMA-Factory would skip the record written for transcript 0" in result.stderr
    assert orjson.loads(Path("record.json").read_bytes())["conversations"][1]["from"] == "gpt"
    put("quiet.json", MESSAGES)
    assert "CV003" not in invoke("quiet.json", "--to", "sharegpt").stderr


PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
    "AAAABJRU5ErkJggg=="
)
PDF_B64 = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK"
PICTURE = {
    "model": "claude-x",
    "max_tokens": 100,
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What do these show?"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
                },
                {
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
                    "title": "Q3 report",
                },
            ],
        },
        {"role": "assistant", "content": "A dot and a page."},
    ],
}


def test_anthropic_base64_media_convert_to_openai_chat_as_data_urls():
    """An inline image becomes an `image_url` data URL and a PDF a `file` with
    `file_data`, as OpenAI Chat takes them; the document's title, which has no place
    there, is reported."""
    put("pic.json", PICTURE)
    result = invoke("pic.json", "--to", "openai-chat")
    assert result.exit_code == 0, result.output
    content = orjson.loads(result.stdout_bytes)["messages"][0]["content"]
    assert content[1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG_B64}"},
    }
    assert content[2] == {
        "type": "file",
        "file": {"file_data": f"data:application/pdf;base64,{PDF_B64}"},
    }
    assert "CV001 the 'title' of a media part (application/pdf)" in result.stderr
    assert "(at /messages/0/content/2/title)" in result.stderr


def test_anthropic_base64_media_convert_to_responses_as_data_urls():
    put("pic.json", PICTURE)
    result = invoke("pic.json", "--to", "openai-responses")
    assert result.exit_code == 0, result.output
    content = orjson.loads(result.stdout_bytes)["input"][0]["content"]
    assert content[1] == {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}"}
    assert content[2] == {
        "type": "input_file",
        "file_data": f"data:application/pdf;base64,{PDF_B64}",
    }


def test_media_and_author_names_a_target_cannot_hold_are_reported():
    """ShareGPT holds no media and no author name: both are left out with a CV001 note
    naming them, the rest converts."""
    chat = [
        {
            "role": "user",
            "name": "ada",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
            ],
        },
        {"role": "assistant", "content": "A dot."},
    ]
    put("chat.json", chat)
    result = invoke("chat.json", "--to", "sharegpt")
    assert result.exit_code == 0, result.output
    assert PNG_B64 not in result.stdout
    assert "CV001 a media part (image/png) has no place in sharegpt" in result.stderr
    assert "(at /0/content/1)" in result.stderr
    assert "CV001 the author name 'ada' has no place in sharegpt" in result.stderr


def test_an_image_by_url_converts_to_anthropic_as_a_url_source():
    """An image OpenAI Chat names by URL (no media type) is an Anthropic `url` image."""
    url = "https://example.com/tide-chart.png"
    chat = [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]},
        {"role": "assistant", "content": "A tide chart."},
    ]
    put("chat.json", chat)
    result = invoke("chat.json", "--to", "anthropic")
    assert result.exit_code == 0, result.output
    content = orjson.loads(result.stdout_bytes)[0]["content"]
    assert content == [{"type": "image", "source": {"type": "url", "url": url}}]
    assert "CV001" not in result.stderr


def test_message_ids_a_target_has_no_place_for_are_noted_once():
    """A Claude Code session's assistant lines carry message ids; OpenAI Chat has no place
    for them: one note counts them (at the first), none where the target keeps them."""
    put("s.jsonl", (CLAUDE_CODE / "tool-use.jsonl").read_bytes())
    result = invoke("s.jsonl", "--to", "openai-chat")
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "message id" in line]
    assert len(notes) == 1 and "message ids have no place in openai-chat" in notes[0]
    kept = invoke("s.jsonl", "--to", "langchain")
    assert "message id" not in kept.stderr
