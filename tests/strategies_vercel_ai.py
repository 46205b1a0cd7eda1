"""Hypothesis strategies for native Vercel AI SDK `UIMessage` lists.

Shapes follow `UIMessage` and its parts in vercel/ai packages/ai/src/ui/ui-messages.ts and
the schema of validate-ui-messages.ts (ai 7.0.77, commit ed857f50): `{id, role, metadata?,
parts}`; parts text, reasoning, file, reasoning-file, source-url, source-document,
step-start, custom, `data-*`, and tool parts (`tool-<name>`, `dynamic-tool` with
`toolName`) in every state with the keys that state carries (`input`, `output`,
`errorText`, `approval`, `providerExecuted`, `preliminary`, provider metadata). Also drawn:
tool parts of an unknown state or without one, unknown part types, unknown keys, repeated
call ids, `""` ids, and both envelopes (a bare list, `useChat`'s `{id, messages, trigger}`).

The values are JSON-safe: `orjson.loads(orjson.dumps(x))` gives back `x` exactly. No object
is shared between two places (the codec groups the parts of one native part by identity).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS, JSON_VALUES, damaged

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
NAMES = st.sampled_from(["getWeather", "web_search", "rm", "f", ""]) | st.from_regex(
    r"[A-Za-z_][A-Za-z0-9_\-]{0,11}", fullmatch=True
)
ROLES = st.sampled_from(["system", "user", "user", "assistant", "assistant", "tool", "critic"])
PROVIDER_METADATA = st.dictionaries(
    st.sampled_from(["openai", "anthropic"]), JSON_OBJECTS, min_size=1, max_size=1
)
STATES = [
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
]


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> str:
    """A call id: sometimes one already used, sometimes `""`."""
    if pool and draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(st.sampled_from(["", "call_1", "toolu_01"]) | TEXT)
    pool.append(new)
    return new


@st.composite
def objects(
    draw: st.DrawFn,
    required: list[tuple[str, Any]],
    optional: list[tuple[str, st.SearchStrategy[Any]]] | None = None,
) -> dict[str, Any]:
    """An object of `required` keys, some `optional` ones, sometimes an unknown key."""
    items = list(required)
    for name, values in optional or []:
        if draw(st.booleans()):
            items.append((name, draw(values)))
    if draw(st.integers(0, 5)) == 0:
        key = "x_" + draw(SHORT_TEXT)
        items.insert(draw(st.integers(0, len(items))), (key, draw(JSON_VALUES)))
    return dict(items)


@st.composite
def approvals(draw: st.DrawFn, state: str) -> dict[str, Any]:
    required: list[tuple[str, Any]] = [("id", draw(st.sampled_from(["approval-1", ""]) | TEXT))]
    if state in ("approval-responded", "output-denied"):
        approved = draw(st.booleans()) if state == "approval-responded" else False
        required.append(("approved", approved))
    elif state in ("output-available", "output-error"):
        required.append(("approved", True))
    optional: list[tuple[str, st.SearchStrategy[Any]]] = [
        ("isAutomatic", st.booleans()),
        ("signature", TEXT),
    ]
    if "approved" in {k for k, _ in required}:
        optional.append(("reason", TEXT))
    return draw(objects(required, optional))


@st.composite
def tool_parts(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """A tool part in any state (or an unknown one), with the keys its state carries."""
    name = draw(NAMES)
    dynamic = draw(st.integers(0, 3)) == 0
    head: list[tuple[str, Any]] = [("type", "dynamic-tool" if dynamic else f"tool-{name}")]
    if dynamic:
        head.append(("toolName", name))
    head.append(("toolCallId", draw(call_ids(pool))))
    state = draw(st.sampled_from([*STATES, *STATES, "result", None]))
    if state is not None:
        head.append(("state", state))
    if state != "input-streaming" or draw(st.booleans()):
        head.append(("input", draw(JSON_VALUES)))
    if state == "output-available":
        head.append(("output", draw(JSON_VALUES)))
    if state == "output-error":
        head.append(("errorText", draw(TEXT)))
    approval = state in ("approval-requested", "approval-responded", "output-denied")
    if approval or (state in ("output-available", "output-error") and draw(st.booleans())):
        head.append(("approval", draw(approvals(state))))
    optional: list[tuple[str, st.SearchStrategy[Any]]] = [
        ("providerExecuted", st.booleans()),
        ("callProviderMetadata", PROVIDER_METADATA),
        ("title", TEXT),
    ]
    if state == "output-available":
        optional.append(("preliminary", st.booleans()))
    if state in ("output-available", "output-error"):
        optional.append(("resultProviderMetadata", PROVIDER_METADATA))
    return draw(objects(head, optional))


@st.composite
def parts(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """Any UIMessage part, or one of a type no SDK writes."""
    which = draw(st.integers(0, 11))
    state = ("state", st.sampled_from(["streaming", "done"]))
    meta = ("providerMetadata", PROVIDER_METADATA)
    if which == 0:
        return draw(objects([("type", "text"), ("text", draw(TEXT))], [state, meta]))
    if which == 1:
        optional = [("id", TEXT), state, meta]
        return draw(objects([("type", "reasoning"), ("text", draw(TEXT))], optional))
    if which == 2:
        media = draw(st.sampled_from(["image/png", "application/pdf", "image"]))
        url = draw(st.sampled_from(["https://example.com/a.png", "data:image/png;base64,iVBO"]))
        required = [("type", "file"), ("mediaType", media)]
        return draw(objects([*required, ("url", url)], [("filename", TEXT), meta]))
    if which == 3:
        return {"type": "step-start"}
    if which == 4:
        required = [("type", "source-url"), ("sourceId", draw(TEXT)), ("url", "https://x.org")]
        return draw(objects(required, [("title", TEXT), meta]))
    if which == 5:
        required = [("type", "source-document"), ("sourceId", draw(TEXT))]
        required += [("mediaType", "application/pdf"), ("title", draw(TEXT))]
        return draw(objects(required, [("filename", TEXT)]))
    if which == 6:
        kind = "data-" + draw(st.sampled_from(["weather", "progress", "tool-status"]))
        return draw(objects([("type", kind), ("data", draw(JSON_VALUES))], [("id", TEXT)]))
    if which == 7:
        kind = draw(st.sampled_from(["custom", "reasoning-file"]))
        if kind == "custom":
            return draw(objects([("type", kind), ("kind", "openai.compaction")], [meta]))
        return draw(objects([("type", kind), ("mediaType", "image/png"), ("url", "https://x")]))
    if which in (8, 9, 10):
        return draw(tool_parts(pool))
    kind = draw(st.sampled_from(["tool-invocation", "widget", "Text"]) | SHORT_TEXT)
    return draw(objects([("type", kind)], [("value", JSON_VALUES)]))


@st.composite
def messages(draw: st.DrawFn, pool: list[str]) -> dict[str, Any]:
    """One UIMessage."""
    ident = draw(st.sampled_from(["msg-1", ""]) | TEXT)
    body = draw(st.lists(parts(pool), max_size=4))
    required: list[tuple[str, Any]] = [("id", ident), ("role", draw(ROLES)), ("parts", body)]
    optional = [("metadata", JSON_VALUES)]
    return draw(objects(required, optional))


@st.composite
def transcripts(draw: st.DrawFn) -> Any:
    """A native document: a bare message list or `useChat`'s request body."""
    pool: list[str] = []
    body = [draw(messages(pool)) for _ in range(draw(st.integers(1, 5)))]
    if draw(st.booleans()):
        return body
    items: list[tuple[str, Any]] = [("messages", body)]
    if draw(st.booleans()):
        items.insert(0, ("id", draw(st.sampled_from(["chat-1", ""]))))
    if draw(st.booleans()):
        items.append(("trigger", draw(st.sampled_from(["submit-message", "regenerate-message"]))))
    return dict(items)


def damaged_transcripts() -> st.SearchStrategy[Any]:
    """Valid documents with one value replaced by an arbitrary JSON value."""
    return damaged(
        transcripts(), JSON_VALUES | st.sampled_from([[], {}, ["x"], {"a": 1}, 1.5, None, "x"])
    )
