"""A deterministic, seeded corpus of stored chat transcripts for the benchmarks.

Each corpus file is JSONL with one transcript per line, in one format: `openai-chat`
(fine-tuning records with `tools`), `openai-responses` (request bodies with `input`),
`anthropic` (request bodies with `system`, `tools`, thinking blocks) or `meai`
(Agent Framework stores, camelCase or PascalCase). `claude-code` is a session log, one
message per line and one transcript per file, so its corpus is a folder of session
files; it is generated only when `claude-code` is one of `histnorm.CODECS`.

A transcript is first drawn as format-neutral events (user, assistant, a batch of
parallel calls, their results), then defects from the catalogue below are injected into
a share of them (`defect_rate`, default 10%), then it is rendered in the target format.
Everything comes from one `random.Random(seed)`: same arguments, same bytes. Lines are
streamed to disk as they are made, and a finished corpus is cached under
`benchmarks/.corpus/` by (format, size, defect rate, seed, generator version).

    python -m benchmarks.corpus --format anthropic --size 16        # prints the path
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import random
import shutil
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

GENERATOR_VERSION = 2
"""Bump when the output changes, so cached corpora are regenerated."""

ROOT = Path(__file__).resolve().parent
CORPUS_DIR = ROOT / ".corpus"
MB = 1024 * 1024
MAX_SIZE_MB = 2048

LINE_FORMATS = ("openai-chat", "openai-responses", "anthropic", "meai")
SESSION_FORMAT = "claude-code"
ALL_FORMATS = (*LINE_FORMATS, SESSION_FORMAT)

DEFECTS = (
    "orphan-call",  # HN001: a call in a batch never gets a result
    "orphan-result",  # HN002: a result whose call id was never emitted
    "displaced-result",  # HN008: a user message between a batch of calls and its results
    "repeated-call-id",  # HN006: the assistant re-emits a pending call under its id
    "empty-text",  # HN004: an empty text part beside real text
    "duplicate-result",  # HN010: a call answered twice
)
"""The defect catalogue; a defective transcript gets one to three distinct kinds."""


def available_formats() -> tuple[str, ...]:
    """The formats this checkout can read: the line formats, plus Claude Code if registered."""
    from histnorm import CODECS

    return tuple(f for f in ALL_FORMATS if f in CODECS)


# --------------------------------------------------------------------------- text pools

_WORDS = (  # noqa: SIM905
    "the quick brown fox jumps over lazy dog please check order status weather tomorrow "
    "report summary revenue growth quarter customer ticket refund shipping address "
    "deploy rollback service latency error budget incident database migration index "
    "query result table column function argument return value cache invalidation "
    "Straße Größe Übersicht Rückerstattung müssen können Bestellung Lieferung "
    "café résumé naïve déjà façade crème brûlée garçon élève où "
    "año mañana niño corazón información canción "
    "Привет мир заказ доставка отчёт погода завтра "
    "Γειά σου κόσμε παραγγελία "  # noqa: RUF001
    "こんにちは 世界 注文 の 状況 を 確認 して ください 天気 明日 東京 "
    "你好 世界 订单 状态 天气 报告 收入 增长 "
    "مرحبا بالعالم الطلب "
    "שלום עולם "
    "नमस्ते दुनिया "
    "🙂 🚀 ✅ ⚠️ 🔥 📦 👍🏽 🇳🇴 "
).split()

_CODE_LINES = (
    "def calc_total(lines):",
    '    """Sum the line prices, then apply the discount."""',
    "    return sum(l.price * l.qty for l in lines)",
    "class Cart:",
    "    def __init__(self, items=None):",
    "        self.items = list(items or [])",
    "import os, sys, json",
    '    print(f"{name!r}: {value:>10.2f} €")',
    '    raise ValueError("bad input: \\"%s\\"" % raw)',
    "\tif (x < 0 && y > 0) { return -1; }",
    "SELECT id, name, total FROM orders WHERE status = 'shipped' ORDER BY total DESC;",
    "2026-07-14T09:12:03.111Z INFO  worker[3] processed batch 4812 in 38ms",
    "2026-07-14T09:12:03.512Z WARN  retrying request to https://api.example.com/v1/x",
    '  File "/srv/app/main.py", line 42, in handler',
    "    KeyError: 'customer_id'",
    "| id | name | total |",
    "|---:|------|------:|",
    "| 17 | Ærøskøbing Ltd. | 1 204,50 kr |",
    "// TODO(ünïcödé): handle the 東京 timezone",
    "    }",
    "",
)

_TOOLS: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("get_weather", "Current weather for a city.", {"city": "string", "unit": "string"}),
    ("search_web", "Search the web and return the top results.", {"query": "string"}),
    ("read_file", "Read a file from the workspace.", {"path": "string"}),
    ("run_sql", "Run a read-only SQL query.", {"query": "string"}),
    ("bash", "Run a shell command.", {"command": "string", "timeout": "integer"}),
    ("lookup_order", "Look up an order by id.", {"order_id": "integer"}),
    ("list_directory", "List a directory.", {"path": "string"}),
    ("fetch_url", "Fetch a URL and return its text.", {"url": "string"}),
    ("create_ticket", "Open a support ticket.", {"title": "string", "body": "string"}),
    ("translate", "Translate text.", {"text": "string", "target": "string"}),
)
_LONG_TOOLS = {"read_file", "run_sql", "bash", "fetch_url", "search_web", "list_directory"}
_CITIES = ("Oslo", "München", "Zürich", "Kraków", "São Paulo", "東京", "Москва", "Québec")


class _Pools:
    """Large seeded strings that texts and tool outputs are sliced from (fast to draw)."""

    def __init__(self, rng: random.Random) -> None:
        words = rng.choices(_WORDS, k=200_000)
        for i in range(0, len(words), 17):
            words[i] = words[i].capitalize() + "."
        self.prose = " ".join(words)
        lines = rng.choices(_CODE_LINES, k=40_000)
        self.code = "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(lines, 1))
        self.b64 = base64.b64encode(rng.randbytes(96 * 1024)).decode()

    @staticmethod
    def _slice(pool: str, rng: random.Random, length: int) -> str:
        length = min(length, len(pool) - 1)
        start = rng.randrange(len(pool) - length)
        return pool[start : start + length]

    def text(self, rng: random.Random, length: int) -> str:
        return self._slice(self.prose, rng, length).strip() or "ok"

    def code_text(self, rng: random.Random, length: int) -> str:
        return self._slice(self.code, rng, length)

    def blob(self, rng: random.Random, length: int) -> str:
        return self._slice(self.b64, rng, length)


# --------------------------------------------------------------------------- events


@dataclass
class Call:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Result:
    id: str
    name: str
    output: str
    is_error: bool = False


@dataclass
class Event:
    """One abstract message: system, user or assistant text, a batch of calls or results."""

    kind: str  # "system" | "user" | "assistant" | "calls" | "results"
    text: str = ""
    reasoning: str | None = None
    calls: list[Call] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    empty_part: bool = False  # an extra empty text part before the text (a defect)
    repeat: bool = False  # a re-emission of an earlier batch


@dataclass
class Transcript:
    events: list[Event]
    defects: list[str]
    index: int


def _message_count(rng: random.Random) -> int:
    """4 to 200 messages, most between 8 and 60 (log-normal, median 20)."""
    return max(4, min(200, int(rng.lognormvariate(math.log(20), 0.85))))


def _output_length(rng: random.Random, long_tool: bool) -> int:
    roll = rng.random()
    if long_tool and roll < 0.12:
        return rng.randrange(4_000, 40_000)
    if roll < 0.55:
        return rng.randrange(40, 400)
    return rng.randrange(400, 3_000)


class _Drawer:
    """Draws abstract transcripts from one seeded generator."""

    def __init__(self, rng: random.Random, id_style: str) -> None:
        self.rng = rng
        self.pools = _Pools(rng)
        self.id_style = id_style
        self.phase = rng.random()

    def call_id(self) -> str:
        bits = self.rng.getrandbits(96)
        if self.id_style == "anthropic":
            return f"toolu_01{bits:024x}"
        return f"call_{bits:024x}"

    def _arguments(self, name: str, params: dict[str, str]) -> dict[str, Any]:
        rng = self.rng
        args: dict[str, Any] = {}
        for key, kind in params.items():
            if kind == "integer":
                args[key] = rng.randrange(1, 100_000)
            elif key == "city":
                args[key] = rng.choice(_CITIES)
            elif key in ("path",):
                args[key] = f"/srv/app/{self.pools.text(rng, 12).replace(' ', '_')}.py"
            elif key == "url":
                args[key] = f"https://example.com/{rng.getrandbits(32):x}?q=ü"
            else:
                args[key] = self.pools.text(rng, rng.randrange(8, 120))
        return args

    def _output(self, name: str) -> str:
        rng = self.rng
        length = _output_length(rng, name in _LONG_TOOLS)
        if name in ("get_weather", "lookup_order") and length < 400:
            return orjson.dumps(
                {
                    "status": rng.choice(("ok", "shipped", "pending")),
                    "value": rng.randrange(-30, 40),
                    "note": self.pools.text(rng, length // 2),
                }
            ).decode()
        if name in ("read_file", "bash", "run_sql", "list_directory"):
            return self.pools.code_text(rng, length)
        return self.pools.text(rng, length)

    def _batch(self) -> tuple[Event, Event]:
        rng = self.rng
        roll = rng.random()
        width = (
            1 if roll < 0.62 else 2 if roll < 0.82 else 3 if roll < 0.93 else rng.randrange(4, 7)
        )
        calls, results = [], []
        for _ in range(width):
            name, _desc, params = rng.choice(_TOOLS)
            call = Call(self.call_id(), name, self._arguments(name, params))
            calls.append(call)
            results.append(Result(call.id, name, self._output(name), rng.random() < 0.04))
        preamble = self.pools.text(rng, rng.randrange(20, 200)) if rng.random() < 0.3 else ""
        reasoning = self.pools.text(rng, rng.randrange(40, 600)) if rng.random() < 0.3 else None
        return (
            Event("calls", text=preamble, reasoning=reasoning, calls=calls),
            Event("results", results=results),
        )

    def draw(self, index: int, defect_rate: float) -> Transcript:
        rng = self.rng
        # Spread evenly: exactly round(n * rate) of any n consecutive transcripts (±1), so
        # even a 1 MB corpus gets its share; the seeded phase moves where they fall.
        defective = int((index + 1) * defect_rate + self.phase) > int(
            index * defect_rate + self.phase
        )
        target = _message_count(rng)
        events: list[Event] = []
        count = 0
        if rng.random() < 0.6:
            events.append(Event("system", text=self.pools.text(rng, rng.randrange(30, 1500))))
            count += 1
        rounds_needed = 2 if defective else 0
        while count < target - 1 or rounds_needed > 0:
            events.append(Event("user", text=self.pools.text(rng, rng.randrange(5, 800))))
            count += 1
            roll = rng.random()
            rounds = 0 if roll < 0.3 else 1 if roll < 0.65 else 2 if roll < 0.82 else 3
            rounds = max(rounds, min(rounds_needed, 2))
            for _ in range(rounds):
                if count >= 196 and rounds_needed <= 0:
                    break
                calls, results = self._batch()
                events += (calls, results)
                count += 1 + len(results.results)
                rounds_needed -= 1
            reasoning = self.pools.text(rng, rng.randrange(40, 600)) if rng.random() < 0.2 else None
            length = rng.randrange(20, 2500)
            events.append(
                Event("assistant", text=self.pools.text(rng, length), reasoning=reasoning)
            )
            count += 1
            if count >= 198:
                break
        defects: list[str] = []
        if defective:
            wanted = 1 if rng.random() < 0.7 else 2 if rng.random() < 0.67 else 3
            for kind in rng.sample(DEFECTS, wanted):
                if _inject(kind, events, self):
                    defects.append(kind)
            if not defects:  # always applicable
                _inject("empty-text", events, self)
                defects.append("empty-text")
        return Transcript(events, defects, index)


def _batches(events: list[Event]) -> list[int]:
    """Indices of call batches that are directly answered by the next event."""
    return [
        i
        for i, e in enumerate(events[:-1])
        if e.kind == "calls" and not e.repeat and events[i + 1].kind == "results"
    ]


def _inject(kind: str, events: list[Event], drawer: _Drawer) -> bool:
    """Inject one defect of `kind` into `events`; False when the transcript has no place for it."""
    rng = drawer.rng
    batches = _batches(events)
    if kind == "empty-text":
        texts = [i for i, e in enumerate(events) if e.kind in ("user", "assistant")]
        if not texts:
            return False
        events[rng.choice(texts)].empty_part = True
        return True
    if not batches:
        return False
    at = rng.choice(batches)
    calls, results = events[at], events[at + 1]
    if kind == "orphan-call":
        name, _desc, params = rng.choice(_TOOLS)
        calls.calls.append(Call(drawer.call_id(), name, drawer._arguments(name, params)))
    elif kind == "orphan-result":
        name = rng.choice(_TOOLS)[0]
        results.results.append(Result(drawer.call_id(), name, drawer._output(name)))
    elif kind == "duplicate-result":
        first = results.results[0]  # an identical copy, as an unreconciled approval appends it
        results.results.append(Result(first.id, first.name, first.output, first.is_error))
    elif kind == "repeated-call-id":
        again = Event("calls", calls=[Call(c.id, c.name, dict(c.arguments)) for c in calls.calls])
        again.repeat = True
        events.insert(at + 1, again)
    elif kind == "displaced-result":
        text = drawer.pools.text(rng, rng.randrange(10, 200))
        events.insert(at + 1, Event("user", text=text))
    else:
        raise ValueError(f"unknown defect {kind!r}")
    return True


# --------------------------------------------------------------------------- renderers


def _schema(params: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": v} for k, v in params.items()},
        "required": list(params)[:1],
    }


_CHAT_TOOLS = {
    name: {
        "type": "function",
        "function": {"name": name, "description": desc, "parameters": _schema(params)},
    }
    for name, desc, params in _TOOLS
}
_RESPONSES_TOOLS = {
    name: {
        "type": "function",
        "name": name,
        "description": desc,
        "parameters": _schema(params),
        "strict": False,
    }
    for name, desc, params in _TOOLS
}
_ANTHROPIC_TOOLS = {
    name: {"name": name, "description": desc, "input_schema": _schema(params)}
    for name, desc, params in _TOOLS
}


def _tool_names(events: list[Event]) -> list[str]:
    seen: dict[str, None] = {}
    for event in events:
        for call in event.calls:
            seen[call.name] = None
    return list(seen)


def _dumps_args(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False)


def render_openai_chat(t: Transcript, drawer: _Drawer) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for e in t.events:
        if e.kind in ("system", "user", "assistant"):
            role = e.kind
            content: Any = e.text
            if e.empty_part:
                content = [{"type": "text", "text": ""}, {"type": "text", "text": e.text}]
            elif role == "user" and t.index % 3 == 0:
                content = [{"type": "text", "text": e.text}]
            message: dict[str, Any] = {"role": role, "content": content}
            if role == "assistant" and e.reasoning is not None and t.index % 2:
                message["reasoning_content"] = e.reasoning
            messages.append(message)
        elif e.kind == "calls":
            messages.append(
                {
                    "role": "assistant",
                    "content": e.text or None,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": _dumps_args(c.arguments)},
                        }
                        for c in e.calls
                    ],
                }
            )
        else:
            messages.extend(
                {"role": "tool", "tool_call_id": r.id, "content": r.output} for r in e.results
            )
    line: dict[str, Any] = {"messages": messages}
    names = _tool_names(t.events)
    if names:
        line["tools"] = [_CHAT_TOOLS[n] for n in names]
        line["parallel_tool_calls"] = True
    return line


def render_openai_responses(t: Transcript, drawer: _Drawer) -> dict[str, Any]:
    rng = drawer.rng
    items: list[dict[str, Any]] = []
    easy = t.index % 2 == 0

    def reasoning(text: str) -> dict[str, Any]:
        return {
            "type": "reasoning",
            "id": f"rs_{rng.getrandbits(128):032x}",
            "summary": [{"type": "summary_text", "text": text}],
            "encrypted_content": drawer.pools.blob(rng, rng.randrange(400, 3000)),
        }

    def output_text(text: str) -> dict[str, Any]:
        return {"type": "output_text", "text": text, "annotations": []}

    for e in t.events:
        if e.kind in ("system", "user"):
            role = "developer" if e.kind == "system" else "user"
            if easy and not e.empty_part:
                items.append({"role": role, "content": e.text})
            else:
                parts = [{"type": "input_text", "text": e.text}]
                if e.empty_part:
                    parts.insert(0, {"type": "input_text", "text": ""})
                items.append({"type": "message", "role": role, "content": parts})
        elif e.kind == "assistant":
            if e.reasoning is not None:
                items.append(reasoning(e.reasoning))
            parts = [output_text(e.text)]
            if e.empty_part:
                parts.insert(0, output_text(""))
            items.append(
                {
                    "type": "message",
                    "id": f"msg_{rng.getrandbits(128):032x}",
                    "role": "assistant",
                    "status": "completed",
                    "content": parts,
                }
            )
        elif e.kind == "calls":
            if e.reasoning is not None:
                items.append(reasoning(e.reasoning))
            items.extend(
                {
                    "type": "function_call",
                    "id": f"fc_{rng.getrandbits(128):032x}",
                    "call_id": c.id,
                    "name": c.name,
                    "arguments": _dumps_args(c.arguments),
                    "status": "completed",
                }
                for c in e.calls
            )
        else:
            items.extend(
                {"type": "function_call_output", "call_id": r.id, "output": r.output}
                for r in e.results
            )
    line: dict[str, Any] = {"model": "gpt-5", "input": items}
    names = _tool_names(t.events)
    if names:
        line["tools"] = [_RESPONSES_TOOLS[n] for n in names]
    return line


def render_anthropic(t: Transcript, drawer: _Drawer) -> dict[str, Any]:
    rng = drawer.rng
    thinking = t.index % 3 == 1
    messages: list[dict[str, Any]] = []
    system = None

    def think(text: str | None) -> list[dict[str, Any]]:
        if not thinking or text is None:
            return []
        signature = drawer.pools.blob(rng, rng.randrange(200, 800))
        return [{"type": "thinking", "thinking": text, "signature": signature}]

    for e in t.events:
        if e.kind == "system":
            system = e.text
        elif e.kind in ("user", "assistant"):
            if e.empty_part:
                content: Any = [{"type": "text", "text": ""}, {"type": "text", "text": e.text}]
            elif e.kind == "assistant" and thinking and e.reasoning is not None:
                content = [{"type": "text", "text": e.text}]
            else:
                content = e.text if t.index % 2 == 0 else [{"type": "text", "text": e.text}]
            if e.kind == "assistant" and isinstance(content, list):
                content = think(e.reasoning) + content
            messages.append({"role": e.kind, "content": content})
        elif e.kind == "calls":
            blocks = think(e.reasoning)
            if e.text:
                blocks.append({"type": "text", "text": e.text})
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                for c in e.calls
            ]
            messages.append({"role": "assistant", "content": blocks})
        else:
            results = []
            for r in e.results:
                block: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": r.id,
                    "content": r.output
                    if len(r.output) % 2
                    else [{"type": "text", "text": r.output}],
                }
                if r.is_error:
                    block["is_error"] = True
                results.append(block)
            messages.append({"role": "user", "content": results})
    line: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 8192}
    if system is not None:
        line["system"] = system
    line["messages"] = messages
    names = _tool_names(t.events)
    if names:
        line["tools"] = [_ANTHROPIC_TOOLS[n] for n in names]
    return line


def render_meai(t: Transcript, drawer: _Drawer) -> dict[str, Any]:
    rng = drawer.rng
    pascal = t.index % 5 == 4

    def k(name: str) -> str:
        return name[0].upper() + name[1:] if pascal else name

    def text(value: str) -> dict[str, Any]:
        return {"$type": "text", k("text"): value}

    def message(role: str, contents: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        out = {k("role"): role, k("contents"): contents}
        out.update({k(key): value for key, value in extra.items()})
        return out

    messages: list[dict[str, Any]] = []
    for e in t.events:
        if e.kind in ("system", "user", "assistant"):
            contents = [text(e.text)]
            if e.empty_part:
                contents.insert(0, text(""))
            extra: dict[str, Any] = {}
            if e.kind == "assistant":
                if e.reasoning is not None:
                    contents.insert(0, {"$type": "reasoning", k("text"): e.reasoning})
                extra = {"authorName": "assistant", "messageId": f"msg_{rng.getrandbits(64):016x}"}
            messages.append(message(e.kind, contents, **extra))
        elif e.kind == "calls":
            contents = [text(e.text)] if e.text else []
            contents += [
                {
                    "$type": "functionCall",
                    k("callId"): c.id,
                    k("name"): c.name,
                    k("arguments"): c.arguments,
                }
                for c in e.calls
            ]
            messages.append(
                message(
                    "assistant",
                    contents,
                    authorName="assistant",
                    messageId=f"msg_{rng.getrandbits(64):016x}",
                )
            )
        else:
            messages.append(
                message(
                    "tool",
                    [
                        {"$type": "functionResult", k("callId"): r.id, k("result"): r.output}
                        for r in e.results
                    ],
                )
            )
    if t.index % 2:
        return {"messages": messages, "conversationId": f"thread_{t.index:08x}", "storeVersion": 2}
    return {"messages": messages}


class _SessionWriter:
    """Claude Code session lines for one transcript, chained by `parentUuid`."""

    def __init__(self, t: Transcript, drawer: _Drawer) -> None:
        self.rng = drawer.rng
        self.session = self._uuid()
        self.parent: str | None = None
        self.tick = 0
        self.lines: list[dict[str, Any]] = []

    def _uuid(self) -> str:
        value = f"{self.rng.getrandbits(128):032x}"
        return f"{value[:8]}-{value[8:12]}-4{value[13:16]}-a{value[17:20]}-{value[20:]}"

    def _stamp(self) -> str:
        self.tick += 3
        minutes, seconds = divmod(self.tick, 60)
        hours, minutes = divmod(minutes, 60)
        return f"2026-07-14T{9 + hours % 14:02d}:{minutes:02d}:{seconds:02d}.000Z"

    def add(self, kind: str, message: dict[str, Any], **extra: Any) -> str:
        uuid = self._uuid()
        line: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/shop",
            "sessionId": self.session,
            "version": "2.0.14",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": self._stamp(),
        }
        line.update(extra)
        self.lines.append(line)
        self.parent = uuid
        return uuid


def render_claude_code(t: Transcript, drawer: _Drawer) -> list[dict[str, Any]]:
    rng = drawer.rng
    out = _SessionWriter(t, drawer)
    usage = {"input_tokens": 4, "cache_read_input_tokens": 14072, "output_tokens": 96}
    call_lines: dict[str, str] = {}

    def assistant(blocks: list[dict[str, Any]]) -> None:
        message_id = f"msg_01{rng.getrandbits(64):016x}"
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            stop = ("tool_use" if block["type"] == "tool_use" else "end_turn") if last else None
            message = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [block],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": usage,
            }
            uuid = out.add("assistant", message, requestId=f"req_{message_id[4:]}")
            if block["type"] == "tool_use":
                call_lines[block["id"]] = uuid

    for e in t.events:
        if e.kind == "system":
            continue  # Claude Code keeps its system prompt out of the session log
        if e.kind == "user":
            content: Any = e.text
            if e.empty_part:
                content = [{"type": "text", "text": ""}, {"type": "text", "text": e.text}]
            out.add("user", {"role": "user", "content": content})
        elif e.kind == "assistant":
            blocks: list[dict[str, Any]] = []
            if e.reasoning is not None:
                blocks.append({"type": "thinking", "thinking": e.reasoning, "signature": "EqMC"})
            if e.empty_part:
                blocks.append({"type": "text", "text": ""})
            blocks.append({"type": "text", "text": e.text})
            assistant(blocks)
        elif e.kind == "calls":
            blocks = [{"type": "text", "text": e.text}] if e.text else []
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                for c in e.calls
            ]
            assistant(blocks)
        else:
            for r in e.results:
                block: dict[str, Any] = {
                    "tool_use_id": r.id,
                    "type": "tool_result",
                    "content": r.output,
                }
                if r.is_error:
                    block["is_error"] = True
                extra: dict[str, Any] = {"toolUseResult": {"stdout": r.output[:200], "stderr": ""}}
                if r.id in call_lines:
                    extra["sourceToolAssistantUUID"] = call_lines[r.id]
                out.add("user", {"role": "user", "content": [block]}, **extra)
    return out.lines


def render_codex(t: Transcript, drawer: _Drawer) -> list[dict[str, Any]]:
    """A Codex CLI rollout: a `session_meta` line, the Responses items as `response_item`
    lines, a `token_count` event after each reply."""
    stamp = f"2026-07-14T09:{t.index % 60:02d}:00.000Z"
    meta = {"id": f"0199a3c4-{t.index:04x}", "cwd": "/home/dev/shop", "cli_version": "0.142.0"}
    lines: list[dict[str, Any]] = [{"timestamp": stamp, "type": "session_meta", "payload": meta}]
    for item in render_openai_responses(t, drawer)["input"]:
        lines.append({"timestamp": stamp, "type": "response_item", "payload": item})
        if item.get("role") == "assistant":
            usage = {"type": "token_count", "info": None, "rate_limits": None}
            lines.append({"timestamp": stamp, "type": "event_msg", "payload": usage})
    return lines


def render_pydantic_ai(t: Transcript, drawer: _Drawer) -> list[dict[str, Any]]:
    """A Pydantic AI `ModelMessagesTypeAdapter` dump: requests and responses with `parts`."""
    stamp = "2026-07-14T09:12:03.111000Z"

    def request(parts: list[dict[str, Any]]) -> dict[str, Any]:
        return {"parts": parts, "timestamp": stamp, "instructions": None, "kind": "request"}

    def text(kind: str, value: str) -> dict[str, Any]:
        if kind == "text":
            return {"content": value, "id": None, "part_kind": "text"}
        return {"content": value, "timestamp": stamp, "part_kind": kind}

    messages: list[dict[str, Any]] = []
    for e in t.events:
        parts: list[dict[str, Any]] = []
        if e.kind in ("system", "user"):
            kind = "system-prompt" if e.kind == "system" else "user-prompt"
            parts = [text(kind, "")] if e.empty_part else []
            messages.append(request([*parts, text(kind, e.text)]))
            continue
        if e.kind == "results":
            parts = [
                {
                    "tool_name": r.name,
                    "content": r.output,
                    "tool_call_id": r.id,
                    "timestamp": stamp,
                    "outcome": "failed" if r.is_error else "success",
                    "part_kind": "tool-return",
                }
                for r in e.results
            ]
            messages.append(request(parts))
            continue
        if e.reasoning is not None:
            parts.append({"content": e.reasoning, "signature": None, "part_kind": "thinking"})
        if e.empty_part:
            parts.append(text("text", ""))
        if e.text:
            parts.append(text("text", e.text))
        for c in e.calls:
            call = {"tool_name": c.name, "args": c.arguments, "tool_call_id": c.id}
            parts.append({**call, "part_kind": "tool-call"})
        usage = {"input_tokens": 0, "output_tokens": 0}
        messages.append({"parts": parts, "usage": usage, "model_name": "m", "kind": "response"})
    return messages


RENDERERS: dict[str, Callable[[Transcript, _Drawer], Any]] = {
    "openai-chat": render_openai_chat,
    "openai-responses": render_openai_responses,
    "anthropic": render_anthropic,
    "meai": render_meai,
    "claude-code": render_claude_code,
    "codex": render_codex,
    "pydantic-ai": render_pydantic_ai,  # for the fast-path tests; not a benchmark corpus
}


# --------------------------------------------------------------------------- files


@dataclass
class CorpusInfo:
    """One generated corpus: where it is and what it holds."""

    format: str
    size_mb: float
    defect_rate: float
    seed: int
    path: str
    bytes: int = 0
    transcripts: int = 0
    lines: int = 0
    messages: int = 0
    defective: int = 0
    defects: dict[str, int] = field(default_factory=dict)
    files: int = 1
    version: int = GENERATOR_VERSION

    def file_paths(self) -> list[str]:
        """The files of the corpus: the file itself, or the session files of a folder."""
        path = Path(self.path)
        if path.is_dir():
            return [str(p) for p in sorted(path.glob("*.jsonl"))]
        return [self.path]


def _check(format: str, size_mb: float, defect_rate: float) -> None:
    if format not in ALL_FORMATS:
        raise ValueError(f"unknown corpus format {format!r}; known: {', '.join(ALL_FORMATS)}")
    if not 0 < size_mb <= MAX_SIZE_MB:
        raise ValueError(f"size must be in (0, {MAX_SIZE_MB}] MB, got {size_mb}")
    if not 0 <= defect_rate <= 1:
        raise ValueError(f"defect rate must be in [0, 1], got {defect_rate}")


def _seed_for(format: str, seed: int, defect_rate: float) -> int:
    """A generator seed per (format, seed, rate), stable across Python runs (no hash())."""
    text = f"{format}|{seed}|{defect_rate!r}"
    return int.from_bytes(text.encode(), "big") % (2**63)


def transcripts(
    format: str, defect_rate: float = 0.1, seed: int = 0
) -> Iterator[tuple[Transcript, Any]]:
    """An endless stream of (abstract transcript, native value in `format`)."""
    rng = random.Random(_seed_for(format, seed, defect_rate))
    drawer = _Drawer(rng, "anthropic" if format in ("anthropic", "claude-code") else "openai")
    render = RENDERERS[format]
    index = 0
    while True:
        t = drawer.draw(index, defect_rate)
        yield t, render(t, drawer)
        index += 1


def _count(info: CorpusInfo, t: Transcript, messages: int) -> None:
    info.transcripts += 1
    info.messages += messages
    if t.defects:
        info.defective += 1
        for kind in t.defects:
            info.defects[kind] = info.defects.get(kind, 0) + 1


def write_lines(info: CorpusInfo, target: Path) -> None:
    """Stream one-transcript-per-line JSONL to `target` until it holds `info.size_mb`."""
    limit = int(info.size_mb * MB)
    with open(target, "wb", buffering=1 << 20) as out:
        for t, value in transcripts(info.format, info.defect_rate, info.seed):
            line = orjson.dumps(value) + b"\n"
            out.write(line)
            info.bytes += len(line)
            info.lines += 1
            messages = value.get("messages") or value.get("input") or ()
            _count(info, t, len(messages))
            if info.bytes >= limit:
                break


def write_sessions(info: CorpusInfo, target: Path) -> None:
    """Claude Code: one session file per transcript in the folder `target`."""
    limit = int(info.size_mb * MB)
    target.mkdir(parents=True)
    for t, lines in transcripts(info.format, info.defect_rate, info.seed):
        data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
        (target / f"session-{info.transcripts:06d}.jsonl").write_bytes(data)
        info.bytes += len(data)
        info.lines += len(lines)
        _count(info, t, len(lines))
        if info.bytes >= limit:
            break
    info.files = info.transcripts


def _name(format: str, size_mb: float, defect_rate: float, seed: int) -> str:
    size = f"{size_mb:g}".replace(".", "p")
    rate = f"{defect_rate:g}".replace(".", "p")
    return f"{format}-{size}mb-d{rate}-s{seed}-v{GENERATOR_VERSION}"


def ensure_root(root: Path = CORPUS_DIR) -> Path:
    """Create the cache folder, with a .gitignore that keeps it out of version control."""
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n!.gitignore\n")
    return root


def ensure(
    format: str,
    size_mb: float,
    defect_rate: float = 0.1,
    seed: int = 0,
    root: Path = CORPUS_DIR,
) -> CorpusInfo:
    """The cached corpus for these arguments, generating it first if needed."""
    _check(format, size_mb, defect_rate)
    ensure_root(root)
    name = _name(format, size_mb, defect_rate, seed)
    session = format == SESSION_FORMAT
    path = root / name if session else root / f"{name}.jsonl"
    meta = root / f"{name}.meta.json"
    if meta.exists() and path.exists():
        cached = CorpusInfo(**json.loads(meta.read_text()))
        if cached.version == GENERATOR_VERSION and (session or path.stat().st_size == cached.bytes):
            cached.path = str(path)
            return cached
    info = CorpusInfo(format, size_mb, defect_rate, seed, str(path))
    partial = root / f".{name}.partial"
    if partial.is_dir():
        shutil.rmtree(partial)
    elif partial.exists():
        partial.unlink()
    if session:
        write_sessions(info, partial)
        if path.exists():
            shutil.rmtree(path)
    else:
        write_lines(info, partial)
    os.replace(partial, path)
    meta.write_text(json.dumps(asdict(info), indent=1) + "\n")
    return info


def ensure_folder(
    formats: tuple[str, ...],
    files: int = 20,
    file_mb: float = 1,
    defect_rate: float = 0.1,
    seed: int = 0,
    root: Path = CORPUS_DIR,
) -> Path:
    """A folder of `files` JSONL corpora of `file_mb` each, formats taken in turn."""
    formats = tuple(f for f in formats if f != SESSION_FORMAT) or LINE_FORMATS
    tag = "-".join(sorted(formats)) if len(formats) < len(LINE_FORMATS) else "mixed"
    size = f"{file_mb:g}".replace(".", "p")
    rate = f"{defect_rate:g}".replace(".", "p")
    folder = (
        ensure_root(root) / f"folder-{tag}-{files}x{size}mb-d{rate}-s{seed}-v{GENERATOR_VERSION}"
    )
    done = folder / ".complete"
    if done.exists():
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    for i in range(files):
        format = formats[i % len(formats)]
        info = CorpusInfo(format, file_mb, defect_rate, seed * 1000 + i, "")
        write_lines(info, folder / f"{i:02d}-{format}.jsonl")
    done.write_text("")
    return folder


def clear_cache(root: Path = CORPUS_DIR) -> None:
    """Remove every cached corpus (the .gitignore stays)."""
    if not root.exists():
        return
    for entry in root.iterdir():
        if entry.name == ".gitignore":
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.corpus", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--format", default="openai-chat", choices=ALL_FORMATS)
    parser.add_argument("--size", type=float, default=1, help="size in MB (up to 2048)")
    parser.add_argument("--defect-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clear", action="store_true", help="remove the cache and exit")
    args = parser.parse_args()
    if args.clear:
        clear_cache()
        return
    info = ensure(args.format, args.size, args.defect_rate, args.seed)
    print(json.dumps(asdict(info), indent=1))


if __name__ == "__main__":
    _main()


__all__ = [
    "ALL_FORMATS",
    "DEFECTS",
    "LINE_FORMATS",
    "CorpusInfo",
    "available_formats",
    "clear_cache",
    "ensure",
    "ensure_folder",
]
