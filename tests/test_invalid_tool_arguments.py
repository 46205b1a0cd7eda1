"""HN109 invalid-tool-arguments: what it reports under `vllm`, what it leaves alone under
the default profiles, and the three policies of its fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

import histnorm
from histnorm.rules.invalid_tool_arguments import inspect_arguments


def _chat(arguments: Any, result: Any = "error: bad arguments") -> list[Any]:
    call = {"id": "call_1", "type": "function", "function": {"name": "bash"}}
    call["function"]["arguments"] = arguments
    return [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
        {"role": "user", "content": "Continue."},
    ]


def _codes(doc: Any, format: str = "openai-chat", **options: Any) -> list[str]:
    return [d.code for d in histnorm.lint(json.dumps(doc), format=format, **options)]


def _fixed(doc: Any, format: str = "openai-chat", **options: Any) -> Any:
    result = histnorm.fix(json.dumps(doc), format=format, **options)
    return histnorm.encode(result.transcript, format)


TRUNCATED = '{"command": "ls -la /tmp/wor'


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [
        (TRUNCATED, "invalid"),
        ("   ", "invalid"),
        ('["ls"]', "not-object"),
        ("42", "not-object"),
        (json.dumps(json.dumps({"location": "Paris"})), "double-encoded"),
        ({"command": "ls"}, "object-form"),
    ],
)
def test_openai_chat_arguments_the_target_rejects(arguments: Any, kind: str) -> None:
    found = inspect_arguments(arguments, "string")
    assert found is not None and found.kind == kind


@pytest.mark.parametrize("arguments", [None, "", "{}", '{"command": "ls"}'])
def test_a_json_object_string_is_clean(arguments: Any) -> None:
    assert inspect_arguments(arguments, "string") is None
    assert _codes(_chat(arguments), profile="vllm") == []


def test_a_string_where_a_chat_template_needs_an_object() -> None:
    found = inspect_arguments('{"city": "Paris"}', "object")
    assert found is not None and found.kind == "string-form" and found.value == {"city": "Paris"}
    assert found.exact
    assert inspect_arguments({"city": "Paris"}, "object") is None


def test_a_string_with_duplicate_keys_does_not_convert_exactly() -> None:
    found = inspect_arguments('{"a": 1, "a": 2}', "object")
    assert found is not None and not found.exact


def test_the_default_profiles_do_not_check_arguments() -> None:
    assert _codes(_chat(TRUNCATED)) == []
    assert _codes(_chat(TRUNCATED), profile="openai-responses") == []


def test_vllm_and_portable_report_truncated_arguments() -> None:
    assert "HN109" in _codes(_chat(TRUNCATED), profile="vllm")
    assert "HN109" in _codes(_chat(TRUNCATED), profile="sglang")
    assert "HN109" in _codes(_chat(TRUNCATED), profile="portable")


def test_replace_keeps_the_raw_text_in_the_result() -> None:
    fixed = _fixed(_chat(TRUNCATED), profile="vllm")
    assert fixed[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    content = fixed[2]["content"]
    assert content.startswith("error: bad arguments\n\n") and TRUNCATED in content
    assert _codes(fixed, profile="vllm") == []
    assert _fixed(fixed, profile="vllm") == fixed


def test_replace_writes_a_result_for_a_call_without_one() -> None:
    doc = _chat(TRUNCATED)[:2]
    fixed = _fixed(doc, profile="vllm", orphan_tool_call="synthesize", tail="close")
    assert len(fixed) == 3 and fixed[2]["role"] == "tool"
    assert fixed[2]["tool_call_id"] == "call_1" and TRUNCATED in fixed[2]["content"]


def test_drop_removes_the_call_and_its_result() -> None:
    doc = _chat(TRUNCATED)
    fixed = _fixed(doc, profile="vllm", invalid_tool_arguments="drop", select=["HN109"])
    assert fixed == [doc[0], doc[3]]


def test_fail_reports_without_a_fix() -> None:
    (found,) = histnorm.lint(
        json.dumps(_chat(TRUNCATED)),
        format="openai-chat",
        profile="vllm",
        invalid_tool_arguments="fail",
    )
    assert found.code == "HN109" and found.fix is None
    result = histnorm.fix(
        json.dumps(_chat(TRUNCATED)),
        format="openai-chat",
        profile="vllm",
        invalid_tool_arguments="fail",
    )
    assert not result.applied


def test_double_encoded_arguments_are_decoded_once() -> None:
    inner = json.dumps({"location": "Paris"})
    fixed = _fixed(_chat(json.dumps(inner)), profile="vllm")
    assert fixed[1]["tool_calls"][0]["function"]["arguments"] == inner
    assert fixed[2]["content"] == "error: bad arguments"


def test_object_arguments_become_a_string_in_openai_chat() -> None:
    doc = _chat({"command": "ls"})
    assert "HN109" in _codes(doc, profile="vllm")
    fixed = _fixed(doc, profile="vllm")
    assert json.loads(fixed[1]["tool_calls"][0]["function"]["arguments"]) == {"command": "ls"}


def test_string_arguments_become_an_object_in_chat_template() -> None:
    doc = [
        {"role": "user", "content": "Look up Paris"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"type": "function", "function": {"name": "lookup", "arguments": {"city": "Oslo"}}},
                {
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"city": "Paris"}'},
                },
            ],
        },
    ]
    assert "HN109" in _codes(doc, "chat-template", profile="vllm")
    assert "HN109" not in _codes(doc, "chat-template")
    fixed = _fixed(doc, "chat-template", profile="vllm")
    assert fixed[1]["tool_calls"][1]["function"]["arguments"] == {"city": "Paris"}


def test_anthropic_result_blocks_take_the_note_as_a_text_block() -> None:
    doc = {
        "messages": [
            {"role": "user", "content": "Run it."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": "[1]"}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": "failed"}],
                    }
                ],
            },
        ]
    }
    assert "HN109" in _codes(doc, "anthropic", profile="portable")
    fixed = _fixed(doc, "anthropic", profile="portable")
    assert fixed["messages"][1]["content"][0]["input"] == {}
    blocks = fixed["messages"][2]["content"][0]["content"]
    assert blocks[0] == {"type": "text", "text": "failed"} and "[1]" in blocks[1]["text"]


def test_responses_items_whose_arguments_are_objects_by_definition_are_not_checked() -> None:
    body = {
        "input": [
            {"role": "user", "content": "Find a tool."},
            {
                "type": "tool_search_call",
                "call_id": "call_s",
                "execution": "client",
                "arguments": {"queries": ["exchange rate"]},
            },
            {"type": "tool_search_output", "call_id": "call_s", "execution": "client", "tools": []},
            {
                "type": "local_shell_call",
                "call_id": "call_l",
                "action": {"type": "exec", "command": ["ls"]},
            },
            {"type": "local_shell_call_output", "call_id": "call_l", "output": "a.txt"},
            {"role": "user", "content": "Go on."},
        ]
    }
    assert "HN109" not in _codes(body, "openai-responses", profile="portable")


def test_the_default_profile_keeps_the_fast_path() -> None:
    from histnorm.engine import outline_clean
    from histnorm.formats import outline_of

    native = _chat(TRUNCATED)
    transcript = histnorm.load(json.dumps(native), format="openai-chat")
    assert outline_clean(outline_of(transcript), histnorm.Settings(), native)
    assert not outline_clean(outline_of(transcript), histnorm.Settings(profile="vllm"), native)


def _template_call(arguments: Any) -> list[Any]:
    call = {"type": "function", "function": {"name": "lookup", "arguments": arguments}}
    return [
        {"role": "user", "content": "Look it up."},
        {"role": "assistant", "content": "", "tool_calls": [call]},
    ]


@pytest.mark.parametrize(
    "number",
    ["1e-400", "0.1000000000000000055511151231257827", "-0", "1E2", "1.50", "-0.0e0", "1e-7"],
)
@pytest.mark.parametrize("twice", [False, True])
@pytest.mark.parametrize("unsafe", [False, True])
def test_a_conversion_that_would_respell_a_number_is_not_offered(
    number: str, twice: bool, unsafe: bool
) -> None:
    """Numbers no rule owns keep their spelling: JSON text whose numbers would be written
    back otherwise (`1e-400` as `0.0`, `1E2` as `100.0`, `-0` as `0`) stays as it is."""
    text = '{"x": ' + number + "}"
    arguments = json.dumps(text) if twice else text
    found = inspect_arguments(arguments, "object")
    assert found is not None and found.kind in ("string-form", "double-encoded")
    assert not found.exact and found.value is None
    data = json.dumps(_template_call(arguments)).encode()
    options: dict[str, Any] = {"profile": "vllm", "unsafe_fixes": unsafe}
    hn109 = [d for d in histnorm.lint(data, format="chat-template", **options) if d.code == "HN109"]
    assert hn109 and all(d.fix is None for d in hn109)
    assert "would re-spell" in hn109[0].message and number in hn109[0].message
    fixed = histnorm.fix_document(data, format="chat-template", path_hint="c.json", **options)
    assert fixed.output is None


@pytest.mark.parametrize("number", ["1", "-2", "0.5", "-0.0", "12345678901234567890123", "1.0"])
def test_a_conversion_that_keeps_every_number_is_safe(number: str) -> None:
    text = '{"x": ' + number + "}"
    found = inspect_arguments(text, "object")
    assert found is not None and found.exact
    data = json.dumps(_template_call(text)).encode()
    fixed = histnorm.fix_document(data, format="chat-template", path_hint="c.json", profile="vllm")
    assert fixed.output is not None
    assert ('"x": ' + number).encode() in fixed.output or ('"x":' + number).encode() in fixed.output


def _unanswered(arguments: Any, at_end: bool) -> list[Any]:
    """A call with no result, in the middle of the history or at its end."""
    doc = _chat(arguments)
    del doc[2]
    return doc[:2] if at_end else doc


@pytest.mark.parametrize(
    ("options", "at_end"),
    [
        ({"orphan_tool_call": "fail"}, False),
        ({"orphan_tool_call": "fail", "tail": "close"}, True),
        ({"tail": "keep"}, True),
        ({"tail": "keep", "orphan_tool_call": "synthesize"}, True),
        ({"tail": "keep", "unsafe_fixes": True}, True),
    ],
)
def test_replace_adds_no_result_where_hn001_would_not(
    options: dict[str, Any], at_end: bool
) -> None:
    """`replace` keeps the raw text in the call's result; for a call with none it adds
    one only where HN001 would add one itself (orphan-tool-call=synthesize, and not a
    call left open at the end under tail=keep). Elsewhere it offers no fix."""
    doc = _unanswered(TRUNCATED, at_end)
    settings: dict[str, Any] = {"profile": "vllm", **options}
    found = [d for d in histnorm.lint(json.dumps(doc), format="openai-chat", **settings)]
    hn109 = [d for d in found if d.code == "HN109"]
    assert hn109 and all(d.fix is None for d in hn109)
    fixed = _fixed(doc, **settings)
    assert not any(m["role"] == "tool" for m in fixed), "no result is invented"
    assert fixed[1]["tool_calls"][0]["function"]["arguments"] == TRUNCATED


@pytest.mark.parametrize("at_end", [False, True])
def test_replace_adds_a_result_where_hn001_synthesizes_one(at_end: bool) -> None:
    doc = _unanswered(TRUNCATED, at_end)
    fixed = _fixed(
        doc, profile="vllm", orphan_tool_call="synthesize", tail="close", select=["HN109"]
    )
    results = [m for m in fixed if m["role"] == "tool"]
    assert len(results) == 1 and TRUNCATED in results[0]["content"]
    assert fixed[1]["tool_calls"][0]["function"]["arguments"] == "{}"
