"""The choices the command line offers before it loads anything: formats, profiles, modes.

`histnorm --help` lists them; loading the codec and profile registries (and pydantic) to do
so would cost more than the rest of the command. `tests/test_choices.py` holds each name
tuple to the registry it names (`histnorm.formats.CODECS`, `histnorm.profiles.PROFILES`),
in order; `histnorm.settings` takes its modes from here.
"""

from __future__ import annotations

from enum import StrEnum

FORMAT_NAMES = (
    "openai-chat",
    "meai",
    "anthropic",
    "openai-responses",
    "gemini",
    "sharegpt",
    "chat-template",
    "langchain",
    "agent-framework",
    "claude-code",
    "codex",
    "pydantic-ai",
    "vercel-ai",
    "bedrock-converse",
    "trl",
    "semantic-kernel",
    "llama-index",
)
"""Every format, in `histnorm.formats.CODECS` order."""

PROFILE_NAMES = (
    "openai-chat",
    "openai-responses",
    "anthropic",
    "anthropic-thinking",
    "bedrock-converse",
    "gemini",
    "gemini-3",
    "vertex",
    "mistral",
    "ollama",
    "meai",
    "vllm",
    "deepseek",
    "groq",
    "portable",
)
"""Every profile, in `histnorm.profiles.PROFILES` order."""

JSONL_MODES = ("auto", "transcript", "message")
"""How JSONL lines are read: `auto` (by the first line), one transcript per line, or one
message (or session event) per line."""

DETECT_MODES = ("file", "per-line")
"""`file`: one format per file, settled by its first transcripts; `per-line`: each
transcript of a JSONL file or JSON array is detected on its own."""


class TailMode(StrEnum):
    """How calls and approvals still open at the end of a transcript are treated."""

    KEEP = "keep"
    """A live state or a training target: reported as HN011 (info) and left alone."""
    CLOSE = "close"
    """The transcript is finished or about to be replayed: open items are defects."""


class Scope(StrEnum):
    """Which messages diagnostics are reported for."""

    ALL = "all"
    TAIL = "tail"
    """Messages after the last user message."""
    MARKED = "marked"
    """Messages carrying the partial-response marker."""
