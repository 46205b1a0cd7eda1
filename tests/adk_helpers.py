"""What the Google ADK tests share: a fake model that records each request, and the parts
of a Gemini `Content` written the way ADK stores them. Import only after
`pytest.importorskip("google.adk")`."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field


def text(value: str) -> types.Part:
    return types.Part(text=value)


def call(name: str, call_id: str | None, **args: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name, args=args, id=call_id))


def response(name: str, call_id: str | None, result: str) -> types.Part:
    answer = types.FunctionResponse(name=name, response={"result": result}, id=call_id)
    return types.Part(function_response=answer)


def content(role: str, *parts: types.Part) -> types.Content:
    return types.Content(role=role, parts=list(parts))


class RecordingModel(BaseLlm):
    """A fake model: records the contents of each request it gets (deep copies) and
    answers with the next of `replies`, then with one short text."""

    model: str = "fake-model"
    seen: list[list[types.Content]] = Field(default_factory=list)
    replies: list[types.Content] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.seen.append([c.model_copy(deep=True) for c in llm_request.contents])
        reply = self.replies.pop(0) if self.replies else content("model", text("Done."))
        yield LlmResponse(content=reply)
