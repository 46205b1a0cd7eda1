"""The dense corpus: many small messages, like fine-tuning data.

The bench corpus (`benchmarks/corpus.py`) holds long agent transcripts with tool outputs
up to 40 KB, so per-message costs hide behind `orjson.loads`. Fine-tuning files are the
opposite: short records of short messages (about 400 bytes each, about 2,400 messages
per MB), where every per-record and per-message cost shows. This corpus is that case.

A record has 2 to 40 messages (log-normal, median about 8); 40% of records use tools
(one to three rounds of one to three parallel calls, outputs of 40 to 700 bytes).
`defect_rate` (default 10%) of the records, spread evenly, get one or two defects that
histnorm's fixes repair (per format: `DEFECTS`). Records are rendered as
`openai-chat` (fine-tuning records with `tools`), `chat-template` (Hugging Face chat
template records: arguments as objects, calls and results paired by position) or
`sharegpt` (`conversations` of `from`/`value` turns, `tools` as a JSON string).

Everything comes from one `random.Random(seed)`: same arguments, same bytes. Corpora are
generated into the benchmark cache (`benchmarks/.corpus/`, never committed) and are not
part of the repository; `ensure` checks the free disk space before it writes.

    python -m benchmarks.dense --format sharegpt --size 16     # prints the summary
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson

from benchmarks import corpus
from benchmarks.corpus import MB, Call, CorpusInfo, Event, Result, Transcript

GENERATOR_VERSION = 1
"""Bump when the output changes, so cached corpora are regenerated."""

FORMATS = ("openai-chat", "chat-template", "sharegpt")
MESSAGES_PER_MB = 2400
"""What the corpus is built to hold (within 10%): about 440 bytes of JSONL per message."""

DEFECT_KINDS = (
    "orphan-call",  # HN001: a call never answered (with ids: an extra call in a batch;
    #   without: the batch's results are missing)
    "orphan-result",  # HN002: a result whose call was never made
    "displaced-result",  # HN008: a user turn between a batch of calls and its results
    "repeated-call-id",  # HN006 / HN001: the assistant emits the same batch again
    "duplicate-result",  # HN010: a call answered twice with the same result
)
DEFECTS: dict[str, tuple[str, ...]] = {format: DEFECT_KINDS for format in FORMATS}
"""The defects each format gets: the bench corpus's catalogue (`corpus.DEFECTS`) without
the empty text part, which the profiles of these formats accept. Where results are
paired by position (chat-template, ShareGPT), an orphan call is a batch without results,
an orphan result stands alone after the first user turn, and a duplicate answers a
single call, so that every defect is one histnorm reports and repairs."""

DISK_MARGIN = 1.0 * 1024 * MB
"""Free space left on the disk after a corpus and the fixed copy the benchmark writes."""


def _check(format: str, size_mb: float, defect_rate: float) -> None:
    if format not in FORMATS:
        raise ValueError(f"unknown dense format {format!r}; known: {', '.join(FORMATS)}")
    if not 0 < size_mb <= corpus.MAX_SIZE_MB:
        raise ValueError(f"size must be in (0, {corpus.MAX_SIZE_MB}] MB, got {size_mb}")
    if not 0 <= defect_rate <= 1:
        raise ValueError(f"defect rate must be in [0, 1], got {defect_rate}")


class _Drawer(corpus._Drawer):
    """Short records of short messages, from one seeded generator."""

    def _output(self, name: str) -> str:
        rng = self.rng
        length = rng.randrange(40, 120) if rng.random() < 0.5 else rng.randrange(120, 550)
        if name in ("get_weather", "lookup_order"):
            note = self.pools.text(rng, length // 2)
            value = {"status": "ok", "value": rng.randrange(-30, 40), "note": note}
            return orjson.dumps(value).decode()
        if name in ("read_file", "bash", "run_sql", "list_directory"):
            return self.pools.code_text(rng, length)
        return self.pools.text(rng, length)

    def _calls(self) -> tuple[Event, Event]:
        rng = self.rng
        width = 1 if rng.random() < 0.7 else 2 if rng.random() < 0.7 else 3
        calls, results = [], []
        for _ in range(width):
            name, _desc, params = rng.choice(corpus._TOOLS)
            call = Call(self.call_id(), name, self._arguments(name, params))
            calls.append(call)
            results.append(Result(call.id, name, self._output(name)))
        return Event("calls", calls=calls), Event("results", results=results)

    def _text(self, low: int, high: int) -> str:
        return self.pools.text(self.rng, self.rng.randrange(low, high))

    def draw(self, index: int, defect_rate: float) -> Transcript:
        rng = self.rng
        defective = int((index + 1) * defect_rate + self.phase) > int(
            index * defect_rate + self.phase
        )
        target = max(2, min(40, int(rng.lognormvariate(math.log(8), 0.6))))
        tools = defective or rng.random() < 0.4
        events: list[Event] = []
        if rng.random() < 0.5:
            events.append(Event("system", text=self._text(30, 400)))
        count, rounds_left = len(events), (rng.randrange(1, 4) if tools else 0)
        while count < target or (defective and rounds_left > 0):
            events.append(Event("user", text=self._text(20, 450)))
            count += 1
            if rounds_left > 0 and rng.random() < 0.6:
                calls, results = self._calls()
                events += (calls, results)
                count += 1 + len(results.results)
                rounds_left -= 1
            events.append(Event("assistant", text=self._text(30, 700)))
            count += 1
        defects: list[str] = []
        if defective:
            for kind in rng.sample(self.format_defects, 1 if rng.random() < 0.75 else 2):
                if _inject(kind, events, self):
                    defects.append(kind)
            if not defects:  # a defective record always has a batch with its results
                _inject("displaced-result", events, self)
                defects.append("displaced-result")
        return Transcript(events, defects, index)

    format_defects: tuple[str, ...] = DEFECT_KINDS
    positional = False


def _inject(kind: str, events: list[Event], drawer: _Drawer) -> bool:
    """Inject one defect of `kind`; False when the record has no place for it."""
    if not drawer.positional or kind not in ("orphan-call", "orphan-result", "duplicate-result"):
        return corpus._inject(kind, events, drawer)
    rng = drawer.rng
    batches = corpus._batches(events)
    if kind == "orphan-result":
        first = next(i for i, e in enumerate(events) if e.kind == "user")
        if events[first + 1].kind == "results":
            return False
        name = rng.choice(corpus._TOOLS)[0]
        lone = Result(drawer.call_id(), name, drawer._output(name))
        events.insert(first + 1, Event("results", results=[lone]))
        return True
    if kind == "orphan-call":
        if not batches:
            return False
        del events[rng.choice(batches) + 1]
        return True
    singles = [i for i in batches if len(events[i].calls) == 1]
    if not singles:
        return False
    results = events[rng.choice(singles) + 1].results
    results.append(Result(results[0].id, results[0].name, results[0].output))
    return True


# --------------------------------------------------------------------------- renderers


def _chat_template_tools(events: list[Event]) -> list[dict[str, Any]]:
    return [corpus._CHAT_TOOLS[name] for name in corpus._tool_names(events)]


def render_chat_template(t: Transcript, drawer: _Drawer) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for e in t.events:
        if e.kind in ("system", "user", "assistant"):
            messages.append({"role": e.kind, "content": e.text})
        elif e.kind == "calls":
            calls = [
                {"type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in e.calls
            ]
            messages.append({"role": "assistant", "tool_calls": calls})
        else:
            messages.extend(
                {"role": "tool", "name": r.name, "content": r.output} for r in e.results
            )
    line: dict[str, Any] = {"messages": messages}
    tools = _chat_template_tools(t.events)
    if tools:
        line["tools"] = tools
    return line


def render_sharegpt(t: Transcript, drawer: _Drawer) -> dict[str, Any]:
    turns: list[dict[str, str]] = []
    system = None
    for e in t.events:
        if e.kind == "system":
            system = e.text
        elif e.kind in ("user", "assistant"):
            turns.append({"from": "human" if e.kind == "user" else "gpt", "value": e.text})
        elif e.kind == "calls":
            calls = [{"name": c.name, "arguments": c.arguments} for c in e.calls]
            value = calls[0] if len(calls) == 1 else calls
            turns.append({"from": "function_call", "value": corpus._dumps_args(value)})
        else:
            turns.extend({"from": "observation", "value": r.output} for r in e.results)
    line: dict[str, Any] = {"conversations": turns}
    if system is not None:
        line["system"] = system
    tools = _chat_template_tools(t.events)
    if tools:
        line["tools"] = json.dumps([tool["function"] for tool in tools], ensure_ascii=False)
    return line


RENDERERS: dict[str, Callable[[Transcript, _Drawer], dict[str, Any]]] = {
    "openai-chat": corpus.render_openai_chat,
    "chat-template": render_chat_template,
    "sharegpt": render_sharegpt,
}


def messages_of(value: dict[str, Any]) -> list[Any]:
    """The messages of one rendered record."""
    return value.get("messages") or value.get("conversations") or []


def records(
    format: str, defect_rate: float = 0.1, seed: int = 0
) -> Iterator[tuple[Transcript, dict[str, Any]]]:
    """An endless stream of (abstract record with its defects, native value in `format`)."""
    _check(format, 1, defect_rate)
    rng = random.Random(corpus._seed_for(f"dense-{format}", seed, defect_rate))
    drawer = _Drawer(rng, "openai")
    drawer.format_defects = DEFECTS[format]
    drawer.positional = format != "openai-chat"
    render = RENDERERS[format]
    index = 0
    while True:
        t = drawer.draw(index, defect_rate)
        yield t, render(t, drawer)
        index += 1


# --------------------------------------------------------------------------- files


def _name(format: str, size_mb: float, defect_rate: float, seed: int) -> str:
    size = f"{size_mb:g}".replace(".", "p")
    rate = f"{defect_rate:g}".replace(".", "p")
    return f"dense-{format}-{size}mb-d{rate}-s{seed}-v{GENERATOR_VERSION}"


def write(info: CorpusInfo, target: Path) -> None:
    """Stream one-record-per-line JSONL to `target` until it holds `info.size_mb`."""
    limit = int(info.size_mb * MB)
    with open(target, "wb", buffering=1 << 20) as out:
        for t, value in records(info.format, info.defect_rate, info.seed):
            line = orjson.dumps(value) + b"\n"
            out.write(line)
            info.bytes += len(line)
            info.lines += 1
            corpus._count(info, t, len(messages_of(value)))
            if info.bytes >= limit:
                break


def check_space(root: Path, size_mb: float, copies: float = 2.0) -> None:
    """Refuse to write `copies` x `size_mb` when that would leave less than DISK_MARGIN."""
    root.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(root).free
    needed = copies * size_mb * MB + DISK_MARGIN
    if free < needed:
        raise OSError(
            f"not enough free disk space in {root} for a {size_mb:g} MB dense corpus and its "
            f"fixed copy: {free / MB:.0f} MB free, {needed / MB:.0f} MB needed"
        )


def ensure(
    format: str,
    size_mb: float,
    defect_rate: float = 0.1,
    seed: int = 0,
    root: Path = corpus.CORPUS_DIR,
) -> CorpusInfo:
    """The cached dense corpus for these arguments, generating it first if needed."""
    _check(format, size_mb, defect_rate)
    corpus.ensure_root(root)
    name = _name(format, size_mb, defect_rate, seed)
    path, meta = root / f"{name}.jsonl", root / f"{name}.meta.json"
    if meta.exists() and path.exists():
        cached = CorpusInfo(**json.loads(meta.read_text()))
        if path.stat().st_size == cached.bytes:
            cached.path = str(path)
            return cached
    check_space(root, size_mb)
    info = CorpusInfo(format, size_mb, defect_rate, seed, str(path), version=GENERATOR_VERSION)
    partial = root / f".{name}.partial"
    try:
        write(info, partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    meta.write_text(json.dumps(asdict(info), indent=1) + "\n")
    return info


def remove(
    format: str,
    size_mb: float,
    defect_rate: float = 0.1,
    seed: int = 0,
    root: Path = corpus.CORPUS_DIR,
) -> None:
    """Delete a generated corpus and its summary (the 1 GB one is not kept by default)."""
    name = _name(format, size_mb, defect_rate, seed)
    for path in (root / f"{name}.jsonl", root / f"{name}.meta.json", root / f".{name}.partial"):
        path.unlink(missing_ok=True)


def summary(info: CorpusInfo) -> dict[str, float]:
    """Messages per MB, bytes per message and the damaged share of one corpus."""
    return {
        "messages_per_mb": info.messages / (info.bytes / MB) if info.bytes else 0.0,
        "bytes_per_message": info.bytes / info.messages if info.messages else 0.0,
        "damaged_share": info.defective / info.transcripts if info.transcripts else 0.0,
    }


def _main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.dense", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--format", default="openai-chat", choices=FORMATS)
    parser.add_argument("--size", type=float, default=1, help="size in MB (up to 2048)")
    parser.add_argument("--defect-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    info = ensure(args.format, args.size, args.defect_rate, args.seed)
    print(json.dumps({**asdict(info), **summary(info)}, indent=1))


if __name__ == "__main__":
    _main()
