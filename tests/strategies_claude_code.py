"""Hypothesis strategies for Claude Code session files (formats.md §7d, blocks from §3).

`sessions` draws the list of a session file's parsed lines, built the way Claude Code
writes them: user prompts (string or block content), assistant replies streamed one
block per line (same `message.id`) or written in one line, every block type (text,
thinking, redacted_thinking, tool_use with ids including "", server tools with their
results, MCP tools, images, documents, unknown blocks), tool results chained, as
parallel siblings (each result line under its own tool_use line) or in one line, with
`toolUseResult`; non-message lines on the chain (system, progress, attachment, `isMeta`
hook feedback, API error replies) and off it (summary, file-history-snapshot,
queue-operation, custom-title); rewinds and retries (branches), compaction boundaries,
inline sidechains, whole sub-agent files, a shadowed duplicate uuid, unknown keys on
lines, messages and blocks, and lines in Claude Code's key order or a shuffled one.

With `branches=False` the file has a single conversation path (the parallel-tool forks
aside) and no duplicate uuid, so that edits can be checked by reading the result back.
The values are JSON-safe: `orjson.loads(orjson.dumps(x)) == x`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import INT64, json_values

TEXT = st.text(st.characters(codec="utf-8"), max_size=10)
SHORT = st.text(st.characters(codec="utf-8"), max_size=5)
JSON_VALUES = json_values(max_text=5, max_leaves=5)
"""Any JSON value, kept smaller than `strategies_json.JSON_VALUES`: strings and keys of
at most 5 characters (as `SHORT`), 5 scalars at the most."""

TOOL_NAMES = st.sampled_from(["Bash", "Read", "Edit", "Task", "handoff_to_billing", ""])
KNOWN_BLOCKS = {
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "server_tool_use",
    "mcp_tool_use",
    "tool_result",
    "mcp_tool_result",
    "image",
    "document",
}
LINE_KEYS = {
    "type",
    "uuid",
    "parentUuid",
    "sessionId",
    "message",
    "isSidechain",
    "isMeta",
    "isApiErrorMessage",
    "isCompactSummary",
}


@st.composite
def extras(draw: st.DrawFn, base: dict[str, Any], reserved: set[str], most: int = 2) -> dict:
    """`base` plus up to `most` unknown keys; the key order is kept or (sometimes) shuffled."""
    items = list(base.items())
    taken = set(reserved) | set(base)
    for _ in range(draw(st.integers(0, most))):
        key = draw(
            st.sampled_from(["x_vendor", "cache_control", "citations", "", "a/b~c"])
            | SHORT.map(lambda s: "x_" + s)
        )
        if key not in taken:
            taken.add(key)
            items.append((key, draw(JSON_VALUES)))
    if draw(st.integers(0, 3)) == 0:
        order = draw(st.permutations(range(len(items))))
        items = [items[i] for i in order]
    return dict(items)


# --- content blocks ---------------------------------------------------------------------


def text_block() -> st.SearchStrategy[dict[str, Any]]:
    return TEXT.flatmap(lambda t: extras({"type": "text", "text": t}, {"type", "text"}, 1))


def thinking_block() -> st.SearchStrategy[dict[str, Any]]:
    signature = st.sampled_from(["EqQBCkYIBxgCKkB", "", "sig=="])
    redacted = st.builds(lambda d: {"type": "redacted_thinking", "data": d}, signature)
    thinking = st.builds(
        lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, TEXT, signature
    )
    return thinking | thinking | redacted


def media_block() -> st.SearchStrategy[dict[str, Any]]:
    png = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    url = {"type": "url", "url": "https://example.com/a.png"}
    doc = {"type": "text", "media_type": "text/plain", "data": "notes"}
    return st.sampled_from(
        [
            {"type": "image", "source": png},
            {"type": "image", "source": url},
            {"type": "document", "source": doc, "title": "notes.txt"},
            {"type": "image"},
        ]
    )


def unknown_block() -> st.SearchStrategy[Any]:
    kind = st.sampled_from(["container_upload", "search_result", "x_widget", "mid_conv_system"])
    kind = kind | SHORT.filter(lambda k: k not in KNOWN_BLOCKS and not k.endswith("_tool_result"))
    blocks = kind.flatmap(lambda k: extras({"type": k}, {"type"}, 2))
    return blocks | st.just("stray string") | st.just({"no_type": 1})


def result_content() -> st.SearchStrategy[Any]:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}}
    items = st.lists(text_block() | st.just(image), max_size=2)
    return TEXT | items | st.none()


@st.composite
def result_block(draw: st.DrawFn, call_id: str) -> dict[str, Any]:
    block: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result"}
    if draw(st.booleans()):
        block = {"type": "tool_result", "tool_use_id": call_id}
    if draw(st.integers(0, 4)):
        block["content"] = draw(result_content())
    if draw(st.integers(0, 2)) == 0:
        block["is_error"] = draw(st.booleans())
    return draw(extras(block, {"type", "tool_use_id", "content", "is_error"}, 1))


# --- the session builder ----------------------------------------------------------------


class Builder:
    """Appends lines to a session, tracking the tip of the conversation."""

    def __init__(self, draw: st.DrawFn, *, sidechain: bool, branches: bool) -> None:
        self.draw = draw
        self.branches = branches
        self.lines: list[dict[str, Any]] = []
        self.tip: str | None = None
        self.count = 0
        self.sidechain = sidechain
        self.session = draw(st.sampled_from(["7f3c2a10-0000-4000-8000-000000000001", "s", ""]))
        self.ids: list[str] = []
        self.realistic = draw(st.booleans())

    def new_uuid(self) -> str:
        self.count += 1
        return f"{self.count:08x}-5c1e-4a1b-9f0e-{self.count * 7919:012x}"

    def node(self, kind: str, body: dict[str, Any] | None, **fields: Any) -> dict[str, Any]:
        """A line of `kind` under the current tip; it becomes the tip."""
        uuid = self.new_uuid()
        line: dict[str, Any] = {"parentUuid": fields.pop("parentUuid", self.tip)}
        if self.realistic:
            line |= {"isSidechain": self.sidechain, "userType": "external", "cwd": "/w"}
            line |= {"sessionId": self.session, "version": "2.1.3", "gitBranch": "main"}
        else:
            line["sessionId"] = self.session
            if self.sidechain:
                line["isSidechain"] = True
        line["type"] = kind
        line |= fields
        if body is not None:
            line["message"] = body
        line["uuid"] = uuid
        if self.realistic:
            line["timestamp"] = f"2026-08-01T10:00:{self.count % 60:02d}.000Z"
        line = self.draw(extras(line, LINE_KEYS, 1))
        self.lines.append(line)
        self.tip = uuid
        return line

    @staticmethod
    def branch_start(line: dict[str, Any]) -> bool:
        """Whether a line is a prompt or a reply (where /rewind and retries branch)."""
        body = line.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        if line.get("type") == "assistant":
            return not line.get("isApiErrorMessage")
        prompt = not (isinstance(content, list) and content and isinstance(content[0], dict))
        return line.get("type") == "user" and not line.get("isMeta") and prompt

    def call_id(self) -> str:
        draw = self.draw
        if self.ids and draw(st.integers(0, 5)) == 0:
            return draw(st.sampled_from(self.ids))
        new = draw(st.sampled_from(["", "toolu_01A", "toolu_01B"]) | st.just(f"toolu_{self.count}"))
        self.ids.append(new)
        return new

    def user_body(self) -> dict[str, Any]:
        draw = self.draw
        content: Any = draw(
            TEXT
            | st.lists(
                text_block() | media_block() | unknown_block() | thinking_block(), max_size=3
            )
        )
        return draw(extras({"role": "user", "content": content}, {"role", "content"}, 1))

    def assistant_blocks(self) -> list[Any]:
        draw = self.draw
        blocks: list[Any] = []
        for _ in range(draw(st.integers(0, 4))):
            choice = draw(st.integers(0, 9))
            if choice <= 1:
                blocks.append(draw(text_block()))
            elif choice == 2:
                blocks.append(draw(thinking_block()))
            elif choice <= 5:
                call = {"type": "tool_use", "id": self.call_id(), "name": draw(TOOL_NAMES)}
                call["input"] = draw(st.dictionaries(SHORT, JSON_VALUES, max_size=2))
                blocks.append(draw(extras(call, {"type", "id", "name", "input"}, 1)))
            elif choice == 6:
                ident = f"srvtoolu_{self.count}_{len(blocks)}"
                query = {"query": draw(TEXT)}
                blocks.append(
                    {"type": "server_tool_use", "id": ident, "name": "web_search", "input": query}
                )
                if draw(st.booleans()):
                    kind = draw(st.sampled_from(["web_search_tool_result", "advisor_tool_result"]))
                    blocks.append({"type": kind, "tool_use_id": ident, "content": []})
            elif choice == 7:
                ident = f"mcptoolu_{self.count}_{len(blocks)}"
                blocks.append(
                    {
                        "type": "mcp_tool_use",
                        "id": ident,
                        "name": "q",
                        "server_name": "db",
                        "input": {},
                    }
                )
                if draw(st.booleans()):
                    blocks.append({"type": "mcp_tool_result", "tool_use_id": ident, "content": "1"})
            elif choice == 8:
                blocks.append(draw(media_block()))
            else:
                blocks.append(draw(unknown_block()))
        return blocks

    def reply(self) -> list[tuple[dict[str, Any], list[str]]]:
        """An assistant reply; returns (line, tool_use ids) for each of its lines."""
        draw = self.draw
        ids = [f"msg_{self.count}"] if self.branches else [f"msg_{self.count}", "msg_same"]
        mid = draw(st.sampled_from(ids))  # one id for several replies: only on one path
        blocks = self.assistant_blocks()
        streamed = bool(blocks) and draw(st.booleans())
        chunks = [[b] for b in blocks] if streamed else [blocks]
        written = []
        for chunk in chunks:
            body = {"id": mid, "type": "message", "role": "assistant", "model": "claude-x"}
            body |= {"content": chunk, "stop_reason": None}
            if draw(st.booleans()):
                body["usage"] = {"input_tokens": 3, "output_tokens": 9}
            line = self.node("assistant", draw(extras(body, {"id", "role", "content"}, 1)))
            ids = [b["id"] for b in chunk if isinstance(b, dict) and b.get("type") == "tool_use"]
            written.append((line, ids))
        return written

    def results(self, reply: list[tuple[dict[str, Any], list[str]]]) -> None:
        draw = self.draw
        calls = [(line, i) for line, ids in reply for i in ids]
        answered = [c for c in calls if draw(st.integers(0, 5))]
        if not answered:
            return
        mode = draw(st.sampled_from(["chain", "parallel", "one"]))
        if mode == "one":
            blocks: list[Any] = [draw(result_block(i)) for _, i in answered]
            if draw(st.integers(0, 3)) == 0:
                blocks.append(draw(text_block()))
            self.node("user", {"role": "user", "content": blocks})
            return
        for line, call_id in answered:
            parent = line["uuid"] if mode == "parallel" else self.tip
            fields: dict[str, Any] = {"parentUuid": parent}
            if draw(st.booleans()):
                fields["toolUseResult"] = {"stdout": draw(TEXT), "stderr": "", "interrupted": False}
            if draw(st.booleans()):
                fields["sourceToolAssistantUUID"] = line["uuid"]
            body = {"role": "user", "content": [draw(result_block(call_id))]}
            self.node("user", body, **fields)

    def other(self) -> None:
        """A line that is not a message: on the chain, or off it (no uuid)."""
        draw = self.draw
        choice = draw(st.integers(0, 8))
        if choice == 0:
            self.node("system", None, subtype="turn_duration", durationMs=draw(INT64))
        elif choice == 1:
            self.node("progress", None, data={"type": "hook_progress"}, toolUseID="toolu_01A")
        elif choice == 2:
            body = {"role": "user", "content": draw(TEXT)}
            self.node("user", body, isMeta=True)
        elif choice == 3:
            body = {"id": "err", "role": "assistant", "model": "<synthetic>"}
            body["content"] = [{"type": "text", "text": "API Error: 529 Overloaded"}]
            self.node("assistant", body, isApiErrorMessage=True)
        elif choice == 4:
            self.node("attachment", None, attachment={"type": "hook_additional_context"})
        elif choice == 5:
            leaf = draw(st.sampled_from([line.get("uuid") for line in self.lines] or [None]))
            self.lines.append({"type": "summary", "summary": draw(TEXT), "leafUuid": leaf})
        elif choice == 6:
            snapshot = {"messageId": "m", "trackedFileBackups": {}, "timestamp": "t"}
            self.lines.append(
                {"type": "file-history-snapshot", "messageId": "m", "snapshot": snapshot}
            )
        elif choice == 7:
            self.lines.append(
                {"type": "queue-operation", "operation": "enqueue", "sessionId": self.session}
            )
        else:
            self.lines.append({"type": "custom-title", "customTitle": draw(TEXT)})

    def sidechain_lines(self) -> None:
        tip = self.tip
        self.sidechain = True
        self.tip = None
        self.node("user", {"role": "user", "content": "Find the config"})
        text = [{"type": "text", "text": "ok"}]
        body = {"id": f"msg_side_{self.count}", "role": "assistant", "content": text}
        self.node("assistant", body)
        self.sidechain = False
        self.tip = tip


@st.composite
def sessions(draw: st.DrawFn, branches: bool = True) -> list[dict[str, Any]]:
    """A session file's lines (see the module docstring)."""
    agent_file = branches and draw(st.integers(0, 6)) == 0
    build = Builder(draw, sidechain=agent_file, branches=branches)
    if draw(st.booleans()):
        build.other()
    for _ in range(draw(st.integers(1, 9))):
        step = draw(st.integers(0, 11))
        if step <= 2:
            build.node("user", build.user_body())
        elif step <= 6:
            reply = build.reply()
            if draw(st.integers(0, 3)):
                build.results(reply)
        elif step <= 8:
            build.other()
        elif step == 9 and branches and build.lines:
            # /rewind re-asks a prompt, a retry regenerates a reply: both start a sibling
            # branch under the line's parent; or a new root
            starts = [line for line in build.lines if build.branch_start(line)]
            build.tip = draw(st.sampled_from([None, *[line["parentUuid"] for line in starts]]))
        elif step == 10 and not agent_file:
            if branches and draw(st.booleans()):
                build.sidechain_lines()
            else:
                compact = {"subtype": "compact_boundary", "logicalParentUuid": build.tip}
                build.node("system", None, parentUuid=None, **compact)
                body = {"role": "user", "content": "This session is being continued..."}
                build.node("user", body, isCompactSummary=True)
        elif step == 11 and branches and build.lines and "uuid" in build.lines[-1]:
            build.lines.append(dict(build.lines[-1]))  # a replayed line shadows its uuid
    if not build.lines:
        build.node("user", build.user_body())
    return build.lines


@st.composite
def damaged_sessions(draw: st.DrawFn) -> list[Any]:
    """A session with one value replaced by an arbitrary JSON value: a line, a line key,
    a message key, a block or a block key."""
    doc: list[Any] = [dict(line) for line in draw(sessions())]
    index = draw(st.integers(0, len(doc) - 1))
    line = doc[index]
    where = draw(st.sampled_from(["line", "key", "message", "block", "block key"]))
    value = draw(JSON_VALUES)
    body = line.get("message")
    if where == "line":
        doc[index] = value
    elif where == "key" or not isinstance(body, dict):
        line[draw(st.sampled_from([*sorted(LINE_KEYS), "x"]))] = value
    else:
        body = line["message"] = dict(body)
        content = body.get("content")
        if where == "message" or not isinstance(content, list) or not content:
            body[draw(st.sampled_from(["content", "id", "role"]))] = value
        else:
            content = body["content"] = list(content)
            k = draw(st.integers(0, len(content) - 1))
            block = content[k]
            if where == "block" or not isinstance(block, dict):
                content[k] = value
            else:
                keys = ["type", "id", "name", "input", "tool_use_id", "text", "thinking", "source"]
                content[k] = {**block, draw(st.sampled_from(keys)): value}
    return doc
