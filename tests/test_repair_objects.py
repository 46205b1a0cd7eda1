"""repair() on message objects: OpenAI and Anthropic SDK objects, pydantic models and
LangChain messages come back as the same kind of objects, untouched ones as passed."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Literal

import pytest
from anthropic.types import Message, TextBlock, ToolUseBlock, Usage
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseReasoningItem,
)
from openai.types.responses.response_input_item import FunctionCallOutput
from pydantic import BaseModel, ConfigDict, Field, field_serializer

import histnorm

SYNTHESIZED = "Tool call was interrupted before it produced a result."


def _chat_call(i: int) -> ChatCompletionMessageFunctionToolCall:
    function = {"name": "get_weather", "arguments": '{"city":"Oslo"}'}
    return ChatCompletionMessageFunctionToolCall.model_validate(
        {"id": f"call_{i}", "type": "function", "function": function}
    )


def _reply(*calls: int) -> ChatCompletionMessage:
    """What `response.choices[0].message` is: the assistant turn asking for tools."""
    tool_calls = [_chat_call(i) for i in calls]
    return ChatCompletionMessage(role="assistant", content=None, tool_calls=tool_calls)


def _unchanged_by_repair(value: Any, **options: Any) -> Any:
    """`histnorm.repair(value, **options).value`, checking the input is left as it was."""
    before = copy.deepcopy(value)
    result = histnorm.repair(value, **options)
    assert result.changed and value == before
    again = histnorm.repair(result.value, **options)
    assert not again.changed and again.value is result.value  # idempotent
    return result.value


# --- OpenAI Chat Completions -----------------------------------------------------------


def test_a_chat_message_whose_calls_were_pruned_comes_back_as_its_class() -> None:
    reply = _reply(0, 1)
    messages: list[Any] = [{"role": "user", "content": "Weather in Oslo and Bergen?"}, reply]
    messages += [{"role": "tool", "tool_call_id": "call_0", "content": "4 C"}]
    messages += [{"role": "user", "content": "Thanks"}]
    value = _unchanged_by_repair(messages)
    assert isinstance(value[1], ChatCompletionMessage) and value[1] is not reply
    assert [call.id for call in value[1].tool_calls or []] == ["call_0"]
    assert value[0] is messages[0] and value[2] is messages[2] and value[3] is messages[3]
    assert reply.tool_calls is not None and len(reply.tool_calls) == 2


def test_a_result_added_beside_a_chat_message_is_a_dict_its_class_rejects() -> None:
    reply = _reply(0)
    messages: list[Any] = [{"role": "user", "content": "Weather?"}, reply]
    messages += [{"role": "user", "content": "Never mind"}]
    value = _unchanged_by_repair(messages, orphan_tool_call="synthesize")
    assert value[1] is reply  # answered, not rewritten
    # ChatCompletionMessage holds assistant turns only: the result is the dict the SDK takes
    assert value[2] == {"role": "tool", "tool_call_id": "call_0", "content": SYNTHESIZED}
    assert type(value[2]) is dict


def test_a_rewritten_dict_beside_a_chat_message_stays_a_dict() -> None:
    hello = ChatCompletionMessage(role="assistant", content="Hello.")
    asking = {"role": "assistant", "content": "Checking.", "tool_calls": [_chat_call(0)]}
    messages = [{"role": "user", "content": "Hi"}, hello, asking]
    messages += [{"role": "user", "content": "Never mind"}]
    value = _unchanged_by_repair(messages)
    assert value[1] is hello
    assert value[2] == {"role": "assistant", "content": "Checking."} and type(value[2]) is dict


# --- OpenAI Responses ------------------------------------------------------------------


def _output_message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage.model_validate(
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    )


def _function_call(call_id: str = "call_1") -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", id="fc_1", call_id=call_id, name="f", arguments="{}"
    )


def test_responses_output_items_come_back_as_passed_and_an_added_output_as_sdk_type() -> None:
    reasoning = ResponseReasoningItem(id="rs_1", type="reasoning", summary=[])
    said, call = _output_message("Let me check."), _function_call()
    items: list[Any] = [{"role": "user", "content": "Weather?"}, reasoning, said, call]
    items += [{"role": "user", "content": "Never mind"}]
    value = _unchanged_by_repair(items, orphan_tool_call="synthesize")
    assert value[:4] == items[:4] and all(a is b for a, b in zip(value, items[:4], strict=False))
    added = value[4]
    assert isinstance(added, FunctionCallOutput)  # the SDK's input item beside its items
    assert (added.call_id, added.output) == ("call_1", SYNTHESIZED)
    assert value[5] is items[4]


def test_a_rewritten_responses_call_comes_back_as_its_class() -> None:
    long_id = "call_" + "x" * 70  # longer than the Responses API accepts
    call = _function_call(long_id)
    result = {"type": "function_call_output", "call_id": long_id, "output": "4 C"}
    items: list[Any] = [{"role": "user", "content": "Weather?"}, call, result]
    value = _unchanged_by_repair(items, profile="openai-responses")
    assert isinstance(value[1], ResponseFunctionToolCall) and value[1].id == "fc_1"
    assert value[1].call_id != long_id and value[1].call_id == value[2]["call_id"]
    assert type(value[2]) is dict and value[0] is items[0]


def test_an_orphan_responses_call_is_dropped() -> None:
    items: list[Any] = [{"role": "user", "content": "Weather?"}, _function_call()]
    items += [{"role": "user", "content": "Never mind"}]
    value = _unchanged_by_repair(items)
    assert value == [items[0], items[2]] and value[1] is items[2]


# --- Anthropic -------------------------------------------------------------------------


def _tool_use(tool_id: str) -> ToolUseBlock:
    return ToolUseBlock(id=tool_id, name="get_weather", input={"city": "Oslo"}, type="tool_use")


def test_anthropic_response_blocks_in_a_rewritten_turn_are_kept_or_rebuilt() -> None:
    text, use = TextBlock(text="Let me check.", type="text"), _tool_use("toolu:1")
    turn = {"role": "assistant", "content": [text, use]}  # response.content appended
    answer = {"type": "tool_result", "tool_use_id": "toolu:1", "content": "4 C"}
    messages = [
        {"role": "user", "content": "Weather?"},
        turn,
        {"role": "user", "content": [answer]},
    ]
    value = _unchanged_by_repair(messages, format="anthropic", profile="anthropic")
    content = value[1]["content"]
    assert content[0] is text  # untouched block: the object passed
    assert isinstance(content[1], ToolUseBlock) and content[1] is not use
    assert content[1].id == value[2]["content"][0]["tool_use_id"] != "toolu:1"
    assert type(value[1]) is dict and use.id == "toolu:1"


def test_an_anthropic_message_object_in_the_history_comes_back_as_message() -> None:
    response = Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        content=[TextBlock(text="Let me check.", type="text"), _tool_use("toolu_1")],
        stop_reason="tool_use",
        usage=Usage(input_tokens=10, output_tokens=5),
    )
    messages: list[Any] = [{"role": "user", "content": "Weather?"}, response]
    messages += [{"role": "user", "content": "Never mind"}]
    value = _unchanged_by_repair(messages, format="anthropic")
    assert isinstance(value[1], Message) and value[1].id == "msg_1"
    assert [block.type for block in value[1].content] == ["text"]
    assert value[0] is messages[0] and value[2] is messages[2]


# --- pydantic models: the class decides ------------------------------------------------


class Call(BaseModel):
    id: str
    type: Literal["function"]
    function: dict[str, str]


class StrictTurn(BaseModel):
    """A caller's model for an assistant turn that always asks for at least one tool."""

    role: Literal["assistant"]
    content: str | None
    tool_calls: list[Call] = Field(min_length=1)


def _turn_dict(*calls: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [_chat_call(i).model_dump(exclude_unset=True) for i in calls],
    }


def test_a_rewrite_the_class_accepts_comes_back_as_the_class() -> None:
    turn = StrictTurn.model_validate(_turn_dict(0, 1))
    messages = [{"role": "user", "content": "Weather?"}, turn]
    messages += [{"role": "tool", "tool_call_id": "call_1", "content": "4 C"}]
    messages += [{"role": "user", "content": "Thanks"}]
    value = _unchanged_by_repair(messages)
    assert isinstance(value[1], StrictTurn) and [c.id for c in value[1].tool_calls] == ["call_1"]


def test_a_rewrite_the_class_rejects_comes_back_as_a_dict() -> None:
    turn = StrictTurn.model_validate(_turn_dict(0))
    messages = [{"role": "user", "content": "Weather?"}, turn, {"role": "user", "content": "No"}]
    value = _unchanged_by_repair(messages)
    assert value[1] == {"role": "assistant", "content": "Checking."}  # no call left
    assert type(value[1]) is dict


class ToolResult(BaseModel):
    """A caller's model for a tool result message."""

    role: Literal["tool"]
    tool_call_id: str
    content: str


class ShoutedResult(ToolResult):
    """A model that does not give back what it was given: it dumps its content shouted."""

    @field_serializer("content")
    def _shout(self, content: str) -> str:
        return content.upper()


def _parallel(result: BaseModel) -> list[Any]:
    """Two parallel calls, the first answered by `result`, the second by nothing."""
    thanks = {"role": "user", "content": "Thanks"}
    return [{"role": "user", "content": "Weather?"}, _turn_dict(0, 1), result, thanks]


def test_an_item_added_beside_an_object_takes_its_class_when_it_holds_it() -> None:
    answered = ToolResult(role="tool", tool_call_id="call_0", content="4 C")
    value = _unchanged_by_repair(_parallel(answered), orphan_tool_call="synthesize")
    assert value[2] is answered
    assert value[3] == ToolResult(role="tool", tool_call_id="call_1", content=SYNTHESIZED)


def test_an_item_added_beside_an_object_whose_class_would_change_it_is_a_dict() -> None:
    answered = ShoutedResult(role="tool", tool_call_id="call_0", content="4 c")
    value = _unchanged_by_repair(_parallel(answered), orphan_tool_call="synthesize")
    assert value[2] is answered
    assert value[3] == {"role": "tool", "tool_call_id": "call_1", "content": SYNTHESIZED}
    assert type(value[3]) is dict


# --- LangChain -------------------------------------------------------------------------

CALL = {"name": "lookup", "args": {"q": "tides"}, "id": "call_1", "type": "tool_call"}


def _langchain_history() -> list[BaseMessage]:
    return [
        SystemMessage("You look things up.", id="s"),
        HumanMessage("When is high tide?", id="h1"),
        AIMessage("Let me look.", tool_calls=[CALL], id="a1"),
        HumanMessage("Still there?", id="h2"),
    ]


def test_langchain_messages_come_back_as_langchain_messages() -> None:
    messages = _langchain_history()
    result = histnorm.repair(messages)
    assert result.format == "langchain" and dict(result.applied) == {"HN001": 1}
    value = result.value
    assert [type(m) for m in value] == [SystemMessage, HumanMessage, AIMessage, HumanMessage]
    assert isinstance(value[2], AIMessage) and value[2].tool_calls == []
    assert value[2].content == "Let me look." and value[2].id == "a1"
    assert all(value[i] is messages[i] for i in (0, 1, 3))
    assert isinstance(messages[2], AIMessage) and messages[2].tool_calls == [CALL]
    assert not histnorm.repair(value).changed


def test_a_tool_message_is_added_as_a_langchain_message() -> None:
    messages = _langchain_history()
    value = histnorm.repair(messages, orphan_tool_call="synthesize").value
    assert isinstance(value[3], ToolMessage) and value[3].tool_call_id == "call_1"
    assert value[2] is messages[2] and value[4] is messages[3]


def test_a_state_dict_of_langchain_messages_keeps_its_other_keys() -> None:
    state = {"messages": _langchain_history(), "step": 3}
    result = histnorm.repair(state)
    assert dict(result.applied) == {"HN001": 1}
    value = result.value
    assert value["step"] == 3 and all(isinstance(m, BaseMessage) for m in value["messages"])
    assert value["messages"][0] is state["messages"][0]
    assert isinstance(value["messages"][2], AIMessage) and value["messages"][2].tool_calls == []


def test_a_clean_langchain_history_is_the_list_passed() -> None:
    messages = _langchain_history()[:2]
    assert histnorm.repair(messages).value is messages


def test_lint_reads_langchain_messages_too() -> None:
    codes = [d.code for d in histnorm.lint(_langchain_history())]
    assert codes == ["HN001"]


def test_the_core_finds_langchain_messages_without_importing_langchain() -> None:
    import histnorm.objects as objects

    assert objects.is_langchain(HumanMessage("hi"))
    assert not objects.is_langchain(_reply(0))
    assert "import langchain" not in Path(objects.__file__).read_text(encoding="utf-8")


# --- what repair cannot read -----------------------------------------------------------


class Opaque:
    """Neither JSON data nor an object with `model_dump()`."""


class Holder(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    role: str
    content: Opaque


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (
            [HumanMessage("hi"), AIMessage("", additional_kwargs={"raw": b"\x00"})],
            "at /1/data/additional_kwargs/raw",
        ),
        ([{"role": "user", "content": "hi"}, Holder(role="user", content=Opaque())], "at /1"),
        ({"messages": [_reply(0), Opaque()]}, "at /messages/1"),
    ],
    ids=["langchain-bytes", "model-dump-fails", "object-in-a-body"],
)
def test_an_object_repair_cannot_read_is_a_type_error_saying_where(value: Any, where: str) -> None:
    with pytest.raises(TypeError, match="LangChain messages") as info:
        histnorm.repair(value)
    assert where in str(info.value)


# --- any pydantic SDK: Google Gen AI --------------------------------------------------


def test_google_genai_contents_come_back_as_contents() -> None:
    from google.genai import types

    def said(role: str, text: str) -> types.Content:
        return types.Content(role=role, parts=[types.Part(text=text)])

    asking = types.Content(
        role="model",
        parts=[
            types.Part(text="Checking."),
            types.Part(function_call=types.FunctionCall(name="get_weather", args={"q": "Oslo"})),
        ],
    )
    contents = [said("user", "Weather?"), asking, said("user", "Never mind")]
    dropped = _unchanged_by_repair(contents)
    assert all(isinstance(c, types.Content) for c in dropped)
    assert dropped[0] is contents[0] and dropped[2] is contents[2]
    assert dropped[1].parts == [types.Part(text="Checking.")]
    answered = _unchanged_by_repair(contents, orphan_tool_call="synthesize")
    assert answered[1] is asking and isinstance(answered[2], types.Content)
    assert answered[2].parts and answered[2].parts[0].function_response is not None
