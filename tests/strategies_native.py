"""A strategy of valid native documents for every codec, by format name."""

from __future__ import annotations

from typing import Any

import strategies_agent_framework
import strategies_anthropic
import strategies_bedrock_converse
import strategies_chat_template
import strategies_claude_code
import strategies_codex
import strategies_gemini
import strategies_langchain
import strategies_llama_index
import strategies_meai
import strategies_openai_chat
import strategies_openai_responses
import strategies_pydantic_ai
import strategies_semantic_kernel
import strategies_sharegpt
import strategies_trl
import strategies_vercel_ai
from hypothesis import strategies as st

DOCUMENTS: dict[str, st.SearchStrategy[Any]] = {
    "openai-chat": strategies_openai_chat.transcripts(),
    "meai": strategies_meai.transcripts(),
    "anthropic": strategies_anthropic.transcripts(),
    "openai-responses": strategies_openai_responses.documents(),
    "gemini": strategies_gemini.documents(),
    "sharegpt": strategies_sharegpt.transcripts(),
    "chat-template": strategies_chat_template.transcripts(),
    "langchain": strategies_langchain.transcripts(),
    "agent-framework": strategies_agent_framework.transcripts(),
    "claude-code": strategies_claude_code.sessions(),
    "codex": strategies_codex.rollouts(),
    "pydantic-ai": strategies_pydantic_ai.transcripts(),
    "vercel-ai": strategies_vercel_ai.transcripts(),
    "trl": strategies_trl.transcripts(),
    "bedrock-converse": strategies_bedrock_converse.transcripts(),
    "semantic-kernel": strategies_semantic_kernel.transcripts(),
    "llama-index": strategies_llama_index.transcripts(),
}
"""Valid native documents of each format."""
