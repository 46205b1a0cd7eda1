"""TRL conversational records (`histnorm.formats.trl`): prompt-completion and preference
rows (https://huggingface.co/docs/trl/dataset_formats), each side a chat-template message
list. A preference pair is two conversations, the prompt with `chosen` and the prompt with
`rejected`: a defect is reported at its side and a fix rewrites only that side.

The fixtures (fixtures/formats/trl/) are in the dataset types of TRL's guide:
prompt-completion.json, implicit-prompt.json and unpaired-preference.json are its
conversational examples; preference-tool-calls.json is the "Preference with tool calls"
example of huggingface/trl tests/test_data_utils.py (commit f2cd577), and
tool-completion.json the tool-calling turns of its `test_message_with_tool_calling_turns`
split into prompt and completion (object `arguments`, no ids, the tool message's `name`);
dataset.jsonl, preference.jsonl and preference-multi-turn.json are rows in those shapes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

import histnorm
from histnorm.document import Layout
from histnorm.formats import claims, get_codec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "trl"
CODEC = get_codec("trl")


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": args}}


PROMPT = [{"role": "user", "content": "Weather in Paris?"}]
ANSWERED = [
    {"role": "assistant", "tool_calls": [_call("weather", city="Paris")]},
    {"role": "tool", "name": "weather", "content": "18C"},
    {"role": "assistant", "content": "It is 18C."},
]
ORPHAN = [  # the call has no result, and the answer goes on (HN001)
    {"role": "assistant", "tool_calls": [_call("weather", city="Paris")]},
    {"role": "assistant", "content": "Sunny, I think."},
]
TOOLS = [{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}]


def _pair(chosen: list[Any], rejected: list[Any], prompt: list[Any] = PROMPT) -> dict[str, Any]:
    return copy.deepcopy({"prompt": prompt, "chosen": chosen, "rejected": rejected, "tools": TOOLS})


def _found(value: Any, **options: Any) -> list[tuple[str, str | None]]:
    return [(d.code, d.location.pointer) for d in histnorm.lint(value, **options)]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json*")), ids=lambda p: p.name)
def test_fixtures_are_trl_lint_clean_and_fix_to_the_same_bytes(path: Path) -> None:
    data = path.read_bytes()
    assert histnorm.lint_document(data, path_hint=path.name).diagnostics == ()
    result = histnorm.fix_document(data, path_hint=path.name)
    assert result.output is None and result.transcripts >= 1
    for line in data.splitlines() if path.suffix == ".jsonl" else [data]:
        value = json.loads(line)
        assert histnorm.detect_format(value) == "trl" and set(claims(value)) == {"trl"}
        assert CODEC.encode(CODEC.decode(value)) == value


def test_detection_needs_the_trl_keys_holding_message_lists() -> None:
    standard = {"prompt": "The sky is", "chosen": " blue.", "rejected": " green."}
    with pytest.raises(histnorm.NotATranscript, match="preference pair"):
        histnorm.detect_format(standard)
    assert CODEC.sniff({"prompt": "The sky is", "completion": " blue."}) == 0
    assert CODEC.sniff({"prompt": PROMPT}) == 0  # prompt-only: no answer to check
    assert CODEC.sniff({"messages": PROMPT, "prompt": PROMPT, "completion": ANSWERED}) == 0
    assert CODEC.sniff({"prompt": [], "completion": [{"content": "x"}]}) == 0  # no role
    assert CODEC.sniff({"chosen": ANSWERED, "rejected": ORPHAN}) == 0.95  # implicit prompt
    assert histnorm.detect_format({"prompt": PROMPT, "completion": ANSWERED}) == "trl"


def test_a_defect_in_rejected_points_into_rejected() -> None:
    assert _found(_pair(ANSWERED, ORPHAN)) == [("HN001", "/rejected/0/tool_calls/0")]
    assert _found(_pair(ORPHAN, ANSWERED)) == [("HN001", "/chosen/0/tool_calls/0")]
    completion = {"prompt": PROMPT, "completion": ORPHAN}
    assert _found(completion) == [("HN001", "/completion/0/tool_calls/0")]
    both = _found(_pair(ORPHAN, ORPHAN))
    assert both == [("HN001", "/chosen/0/tool_calls/0"), ("HN001", "/rejected/0/tool_calls/0")]


def test_the_sides_are_separate_conversations() -> None:
    # chosen's result must not answer rejected's call (nor the other way round)
    result_only = [{"role": "tool", "name": "weather", "content": "18C"}]
    pair = _pair([{"role": "assistant", "tool_calls": [_call("weather")]}], result_only)
    assert _found(pair) == [("HN011", "/chosen/0/tool_calls/0"), ("HN002", "/rejected/0")]


def test_a_defect_in_the_shared_prompt_is_reported_once_and_fixed_once() -> None:
    prompt = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "tool_calls": [_call("weather")]},
        {"role": "user", "content": "Never mind, tell me a joke."},
    ]
    joke = [{"role": "assistant", "content": "A joke."}]
    pair = _pair(joke, [{"role": "assistant", "content": "No."}], prompt)
    assert _found(pair) == [("HN001", "/prompt/1/tool_calls/0")]
    result = histnorm.repair(pair)
    assert dict(result.applied) == {"HN001": 1}
    assert [m["content"] for m in result.value["prompt"]] == [
        "Weather?",
        "Never mind, tell me a joke.",
    ]
    assert result.value["chosen"] is pair["chosen"] and result.value["rejected"] is pair["rejected"]


def test_a_fix_to_the_prompt_for_one_side_only_is_refused() -> None:
    prompt = [{"role": "user", "content": "Weather?"}, ORPHAN[0]]
    chosen = [ANSWERED[1], ANSWERED[2]]  # answers the prompt's call
    rejected = [{"role": "user", "content": "Never mind."}]
    pair = _pair(chosen, rejected, prompt)
    result = histnorm.repair(pair)
    assert not result.changed and result.value is pair
    (left,) = result.remaining
    assert left.location.pointer == "/prompt/1/tool_calls/0" and left.fix is None
    assert "prompt that chosen and rejected share" in left.message


def test_repair_rewrites_only_the_broken_side() -> None:
    pair = _pair(ANSWERED, ORPHAN)
    before = copy.deepcopy(pair)
    result = histnorm.repair(pair)
    assert dict(result.applied) == {"HN001": 1} and pair == before
    assert result.value["rejected"] == [ORPHAN[1]]
    for key in ("prompt", "chosen", "tools"):
        assert result.value[key] is pair[key]
    assert list(result.value) == list(pair)
    synthesized = histnorm.repair(pair, orphan_tool_call="synthesize").value["rejected"]
    assert [m["role"] for m in synthesized] == ["assistant", "tool", "assistant"]
    assert histnorm.repair(result.value).value is result.value  # fix(fix(x)) == fix(x)


ODD = (
    b'{ "prompt":[ {"role":"user" , "content":"Weather in Paris?"}],\n'
    b'  "chosen" : [{"role":"assistant","content":"Let me see."} ,\n'
    b'              {"role":"assistant","content":"18C."}],\n'
    b'  "rejected": [{"role":"assistant","tool_calls":[{"type":"function",'
    b'"function":{"name":"weather","arguments":{"city":"Paris"}}}]},\n'
    b'               {"role":"assistant","content":"Sunny."}],\n'
    b'  "tools":[ ],  "score" : 1.50 }\n'
)


def test_a_fix_keeps_every_byte_outside_the_side_it_changes() -> None:
    result = histnorm.fix_document(ODD, path_hint="pair.json")
    assert result.output is not None and dict(result.applied) == {"HN001": 1}
    head, tail = ODD.split(b'"rejected": ')[0], ODD.split(b"\n", 5)[5]
    assert result.output.startswith(head + b'"rejected": [')
    assert result.output.endswith(tail)
    assert json.loads(result.output)["rejected"] == [{"role": "assistant", "content": "Sunny."}]


def test_in_jsonl_only_the_broken_line_and_side_change() -> None:
    clean = json.dumps(_pair(ANSWERED, ANSWERED)).encode()
    broken = json.dumps(_pair(ANSWERED, ORPHAN), separators=(", ", ":")).encode()
    data = clean + b"\n" + broken + b"\n" + clean + b"\n"
    lint = histnorm.lint_document(data, path_hint="pairs.jsonl")
    assert [(d.code, d.location.line, d.location.pointer) for d in lint.diagnostics] == [
        ("HN001", 2, "/rejected/0/tool_calls/0")
    ]
    result = histnorm.fix_document(data, path_hint="pairs.jsonl")
    assert result.output is not None
    lines = result.output.split(b"\n")
    assert lines[0] == clean and lines[2] == clean
    start = broken.index(b'"rejected":')
    assert lines[1][:start] == broken[:start]
    assert (
        lines[1][start:]
        == b'"rejected":[{"role":"assistant", "content":"Sunny, I think."}], '
        + (broken[broken.index(b'"tools":') :])
    )


def test_a_json_array_of_records_is_read_record_by_record() -> None:
    data = json.dumps([_pair(ANSWERED, ANSWERED), _pair(ANSWERED, ORPHAN)], indent=2).encode()
    result = histnorm.lint_document(data, path_hint="pairs.json")
    assert result.layout is Layout.JSON_ARRAY and result.transcripts == 2
    assert [d.location.pointer for d in result.diagnostics] == ["/1/rejected/0/tool_calls/0"]


def test_the_command_line_points_into_the_side(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(_pair(ANSWERED, ORPHAN)) + "\n")
    result = invoke("lint", str(path))
    assert result.exit_code == 1
    assert "HN001" in result.stdout and "/rejected/0/tool_calls/0" in result.stdout


def test_converting_a_preference_pair_is_refused_and_a_completion_converts() -> None:
    pair = histnorm.load(_pair(ANSWERED, ANSWERED))
    with pytest.raises(histnorm.HistnormError, match="cannot write a trl preference pair"):
        histnorm.encode(pair, "openai-chat")
    completion = histnorm.load({"prompt": PROMPT, "completion": [ANSWERED[2]]})
    assert histnorm.encode(completion, "anthropic") == {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "It is 18C."},
        ]
    }
    with pytest.raises(histnorm.HistnormError, match="cannot write a new TRL record"):
        histnorm.encode(histnorm.load([*PROMPT, ANSWERED[2]]), "trl")


def test_pointers_name_the_side_and_its_index() -> None:
    transcript = CODEC.decode(_pair(ANSWERED, ORPHAN))
    pointers = [CODEC.message_pointer(transcript, i) for i in range(len(transcript.messages))]
    assert pointers == [
        "/prompt/0",
        "/chosen/0",
        "/chosen/1",
        "/chosen/2",
        "/rejected/0",
        "/rejected/1",
    ]
    assert CODEC.part_pointer(transcript, 4, 0) == "/rejected/0/tool_calls/0"
    assert CODEC.message_arrays(transcript) == ("/prompt", "/chosen", "/rejected")


def test_unknown_keys_and_the_kto_label_are_kept() -> None:
    row = {"prompt": PROMPT, "completion": ORPHAN, "label": False, "x_source": {"a": [1]}}
    fixed = histnorm.repair(row).value
    assert list(fixed) == list(row) and fixed["label"] is False
    assert fixed["x_source"] is row["x_source"]
