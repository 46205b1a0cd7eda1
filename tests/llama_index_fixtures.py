"""The `llama-index` fixtures, written by llama-index-core itself.

`python tests/llama_index_fixtures.py` (with llama-index-core importable; they were
written by 0.14.25 with pydantic 2.14) writes fixtures/formats/llama-index/: message dumps
as `json.dumps([m.model_dump() for m in messages], indent=2)` (`mode="json"` where a
block holds a URL), and chat stores as the JSON `SimpleChatStore.persist` writes. With
pydantic 2.14, `persist` itself fails in llama-index-core 0.14.25 (its wrap serializer
calls the handler with an extra argument), so the store's JSON is written here from each
message's own JSON dump, in `persist`'s compact form, and read back with
`SimpleChatStore.from_persist_path` to check that it is what the store holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic_core
from llama_index.core.base.llms.types import (
    AudioBlock,
    CacheControl,
    CachePoint,
    ChatMessage,
    CitableBlock,
    CitationBlock,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from llama_index.core.storage.chat_store import SimpleChatStore
from openai.types.chat import ChatCompletionMessageToolCall

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "llama-index"


def dump(name: str, messages: list[ChatMessage], mode: str = "python") -> None:
    dumped = [m.model_dump(mode=mode) for m in messages]
    (OUT / name).write_text(json.dumps(dumped, indent=2, ensure_ascii=False) + "\n")
    for message in json.loads((OUT / name).read_text()):
        ChatMessage.model_validate(message)


def persist(name: str, store: SimpleChatStore) -> None:
    def dumped(held: SimpleChatStore) -> dict[str, Any]:
        return {k: [m.model_dump(mode="json") for m in v] for k, v in held.store.items()}

    data = {"store": dumped(store), "class_name": store.class_name()}
    (OUT / name).write_bytes(pydantic_core.to_json(data))
    assert dumped(SimpleChatStore.from_persist_path(str(OUT / name))) == dumped(store), name


def call(suffix: str, name: str, arguments: str) -> ChatCompletionMessageToolCall:
    function = {"name": name, "arguments": arguments}
    return ChatCompletionMessageToolCall(id=f"call_{suffix}", type="function", function=function)


AGENT = [
    ChatMessage(role="system", content="You are a weather bot."),
    ChatMessage(role="user", content="Weather in Paris?"),
    ChatMessage(
        role="assistant",
        blocks=[
            TextBlock(text="Let me check."),
            ToolCallBlock(
                tool_call_id="call_1", tool_name="get_weather", tool_kwargs={"city": "Paris"}
            ),
        ],
    ),
    ChatMessage(role="tool", content="18 C, sunny", additional_kwargs={"tool_call_id": "call_1"}),
    ChatMessage(role="assistant", content="It is 18 C and sunny in Paris."),
]
"""A `FunctionAgent` history: a `ToolCallBlock` and the tool message answering it."""

OPENAI = [
    ChatMessage(role="user", content="Compare the weather in Paris and Oslo."),
    ChatMessage(
        role="assistant",
        content="",
        additional_kwargs={
            "tool_calls": [
                call("a1", "get_weather", '{"city": "Paris"}'),
                call("a2", "get_weather", '{"city": "Oslo"}'),
            ]
        },
    ),
    ChatMessage(
        role="tool",
        content="18 C, sunny",
        additional_kwargs={"tool_call_id": "call_a1", "name": "get_weather"},
    ),
    ChatMessage(
        role="tool",
        content="-3 C, snow",
        additional_kwargs={"tool_call_id": "call_a2", "name": "get_weather"},
    ),
    ChatMessage(role="assistant", content="Paris is 21 degrees warmer than Oslo."),
]
"""Parallel calls stored as llama-index-llms-openai stores them (`additional_kwargs`)."""


def main() -> None:
    """Write every fixture."""
    dump("weather-tool.json", AGENT)
    dump("openai-tool-calls.json", OPENAI)
    media = [
        ChatMessage(
            role="user",
            blocks=[
                TextBlock(text="What is in this picture and this file?"),
                ImageBlock(url="https://example.com/cat.png"),
                DocumentBlock(url="https://example.com/report.pdf", title="report"),
            ],
        ),
        ChatMessage(
            role="assistant",
            blocks=[
                ThinkingBlock(
                    content="A cat, and a quarterly report.",
                    num_tokens=9,
                    additional_information={"signature": "c2lnbmF0dXJl"},
                ),
                TextBlock(text="A cat on a sofa; the report covers Q3."),
            ],
        ),
        ChatMessage(
            role="user", blocks=[AudioBlock(url="https://example.com/q.mp3", format="mp3")]
        ),
        ChatMessage(role="assistant", content="You asked whether the cat is hungry: it is not."),
    ]
    dump("media-and-thinking.json", media, mode="json")
    location = {"start_char_index": 0, "end_char_index": 20}
    cited = [
        ChatMessage(
            role="system",
            blocks=[
                TextBlock(text="Answer from the sources."),
                CachePoint(cache_control=CacheControl(type="ephemeral")),
            ],
        ),
        ChatMessage(
            role="user",
            blocks=[
                CitableBlock(
                    title="Handbook", source="handbook.md", content="Refunds take 5 days."
                ),
                TextBlock(text="How long do refunds take?"),
            ],
        ),
        ChatMessage(
            role="assistant",
            blocks=[
                CitationBlock(
                    cited_content="Refunds take 5 days.",
                    source="handbook.md",
                    title="Handbook",
                    additional_location_info=location,
                ),
                TextBlock(text="Five days."),
            ],
        ),
    ]
    dump("citations.json", cited, mode="json")
    dump(
        "content-string-tool-kwargs.json",
        [
            ChatMessage(role="user", content="Add 2 and 3."),
            ChatMessage(
                role="assistant",
                blocks=[
                    ToolCallBlock(
                        tool_call_id=None, tool_name="add", tool_kwargs='{"a": 2, "b": 3}'
                    )
                ],
            ),
            ChatMessage(role="tool", content="5", additional_kwargs={"tool_call_id": ""}),
            ChatMessage(role="assistant", content="5"),
        ],
    )
    two = SimpleChatStore()
    two.set_messages("alice", AGENT[1:])
    bob = [ChatMessage(role="user", content="Héllo, how are you?")]
    two.set_messages("bob", [*bob, ChatMessage(role="assistant", content="Fine, thanks.")])
    persist("chat-store.json", two)
    one = SimpleChatStore()
    one.set_messages("session-42", OPENAI)
    persist("chat-store-openai.json", one)


if __name__ == "__main__":
    main()
