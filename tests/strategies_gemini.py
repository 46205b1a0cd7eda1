"""Hypothesis strategies for native Google Gemini `contents` documents (formats.md §4).

Documents are a bare list of Content objects `{role?, parts}` or a request body
`{contents, systemInstruction?, tools?, generationConfig?, ...}`. Every part kind is drawn:
text (plain, `thought: true`, blank text carrying a `thoughtSignature`), signature-only
parts, `inlineData`, `fileData`, `functionCall` (with and without `id`, `""` included,
`partialArgs`, `willContinue`), `functionResponse` (`output`, `error` or any object,
multimodal `parts`), `executableCode` / `codeExecutionResult`, server-side `toolCall` /
`toolResponse`, and parts of unknown kinds; a `thoughtSignature` may sit on any part, and
unknown fields appear at every level.

Four spelling styles are drawn per document:

- `"camel"`: the REST wire format;
- `"snake"`: the Python SDK's field names (`model_dump(exclude_none=True)`);
- `"sdk"`: `model_dump(mode="json")`: snake_case with every unset field as null;
- `"mixed"`: each object picks camelCase or snake_case on its own.

Keys inside data values (`args`, `response`, ...) are data and never restyled.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st
from strategies_json import JSON_OBJECTS as OBJECTS
from strategies_json import JSON_VALUES, damaged
from strategies_json import locations as locations
from strategies_json import replaced as replaced

ABSENT: Any = object()
"""Marks a field the object does not set."""

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
SHORT_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
NAMES = st.sampled_from(
    ["get_weather", "search", "lookup_order", "handoff_to_billing", "run_sql", "", "f"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,11}", fullmatch=True)
SIGNATURES = st.sampled_from(["CqUBAdHtim9", "EjQKMgGO", "c2lnbmF0dXJl"]) | st.from_regex(
    r"[A-Za-z0-9+/]{4,16}={0,2}", fullmatch=True
)

# The SDK's field order, per object type (the `"sdk"` style writes all of them).
PART_FIELDS = [
    "mediaResolution",
    "codeExecutionResult",
    "executableCode",
    "fileData",
    "functionCall",
    "functionResponse",
    "inlineData",
    "text",
    "thought",
    "thoughtSignature",
    "videoMetadata",
    "toolCall",
    "toolResponse",
    "partMetadata",
]
FIELDS = {
    "part": PART_FIELDS,
    "content": ["parts", "role"],
    "functionCall": ["id", "args", "name", "partialArgs", "willContinue"],
    "functionResponse": ["willContinue", "scheduling", "parts", "id", "name", "response"],
    "toolCall": ["id", "toolType", "args"],
    "toolResponse": ["id", "toolType", "response"],
    "executableCode": ["code", "language", "id"],
    "codeExecutionResult": ["outcome", "output", "id"],
    "inlineData": ["data", "displayName", "mimeType"],
    "fileData": ["displayName", "fileUri", "mimeType"],
    "videoMetadata": ["endOffset", "fps", "startOffset"],
}


def snake(name: str) -> str:
    return re.sub(r"([A-Z])", r"_\1", name).lower()


def _norm(key: str) -> str:
    return key.replace("_", "").casefold()


# Unknown keys: never the spelling of a field the codec reads, nor one the sniffer rejects.
_TAKEN = {_norm(n) for names in FIELDS.values() for n in names} | {
    "content",
    "contents",
    "toolcalls",
    "toolcallid",
    "$type",
    "type",
    "messages",
    "systeminstruction",
}
EXTRA_KEYS = (
    st.sampled_from(["x_vendor", "xTrace", "metadata", "cache_control", "", "a/b~c"])
    | SHORT_TEXT.map(lambda s: "x_" + s)
).filter(lambda key: _norm(key) not in _TAKEN)


@st.composite
def objects(
    draw: st.DrawFn, style: str, kind: str, values: dict[str, Any], max_extra: int = 1
) -> dict[str, Any]:
    """An object of `kind` with `values` (field name -> value or ABSENT) in `style`."""
    own = draw(st.sampled_from(["camel", "snake"])) if style == "mixed" else style
    spelled = (lambda n: n) if own == "camel" else snake
    names = FIELDS.get(kind, list(values))
    names = names + [n for n in values if n not in names]
    if own == "sdk":
        items = [
            (spelled(n), None if values.get(n, ABSENT) is ABSENT else values[n]) for n in names
        ]
    else:
        items = [(spelled(n), values[n]) for n in names if values.get(n, ABSENT) is not ABSENT]
        items = [items[i] for i in draw(st.permutations(range(len(items))))]
    taken = {_norm(k) for k, _ in items}
    for _ in range(draw(st.integers(0, max_extra))):
        key = draw(EXTRA_KEYS.filter(lambda k: _norm(k) not in taken))
        taken.add(_norm(key))
        items.insert(draw(st.integers(0, len(items))), (key, draw(JSON_VALUES)))
    return dict(items)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`strategy`, or ABSENT."""
    return st.just(ABSENT) | strategy


# --- parts -------------------------------------------------------------------------------


@st.composite
def call_ids(draw: st.DrawFn, pool: list[str]) -> Any:
    """A call id: absent (Gemini's ids are optional), reused, new or empty."""
    if draw(st.integers(0, 2)) == 0:
        return ABSENT
    if pool and draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(pool))
    new = draw(
        st.sampled_from(["", "c1", "fc_2"]) | st.from_regex(r"[a-z0-9]{1,12}", fullmatch=True)
    )
    pool.append(new)
    return new


def _part(style: str, data: dict[str, Any], draw: st.DrawFn, signed: bool = False) -> Any:
    values = dict(data)
    if signed or draw(st.integers(0, 5)) == 0:
        values["thoughtSignature"] = draw(SIGNATURES)
    if draw(st.integers(0, 6)) == 0:
        values["videoMetadata"] = draw(
            objects(
                style, "videoMetadata", {"startOffset": "1.5s", "fps": draw(st.integers(1, 24))}
            )
        )
    if draw(st.integers(0, 8)) == 0:
        values["partMetadata"] = draw(OBJECTS)
    return draw(objects(style, "part", values))


@st.composite
def text_parts(draw: st.DrawFn, style: str) -> Any:
    shape = draw(st.sampled_from(["plain", "plain", "thought", "blank-signed", "thought-false"]))
    values: dict[str, Any] = {"text": draw(TEXT)}
    if shape == "thought":
        values["thought"] = True
    elif shape == "thought-false":
        values["thought"] = False
    elif shape == "blank-signed":
        values["text"] = draw(st.sampled_from(["", " ", "\n"]))
    return _part(style, values, draw, signed=shape == "blank-signed")


@st.composite
def signature_parts(draw: st.DrawFn, style: str) -> Any:
    """A part holding only a thought signature (and maybe `thought: true`)."""
    values: dict[str, Any] = {"thoughtSignature": draw(SIGNATURES)}
    if draw(st.booleans()):
        values["thought"] = True
    return draw(objects(style, "part", values, max_extra=0))


@st.composite
def media_parts(draw: st.DrawFn, style: str) -> Any:
    mime = maybe(st.sampled_from(["image/png", "audio/wav", "application/pdf", "video/mp4"]))
    if draw(st.booleans()):
        body = {
            "mimeType": draw(mime),
            "data": draw(st.sampled_from(["iVBORw0KGgo=", "UklGRg==", ""])),
        }
        return _part(style, {"inlineData": draw(objects(style, "inlineData", body))}, draw)
    uri = draw(
        st.sampled_from(
            ["gs://bucket/report.pdf", "https://generativelanguage.googleapis.com/v1beta/files/abc"]
        )
    )
    body = {"mimeType": draw(mime), "fileUri": uri}
    if draw(st.integers(0, 3)) == 0:
        body["displayName"] = draw(TEXT)
    return _part(style, {"fileData": draw(objects(style, "fileData", body))}, draw)


@st.composite
def function_call_parts(draw: st.DrawFn, style: str, pool: list[str]) -> Any:
    body: dict[str, Any] = {
        "id": draw(call_ids(pool)),
        "name": draw(NAMES),
        "args": draw(maybe(OBJECTS)),
    }
    if draw(st.integers(0, 5)) == 0:
        body["partialArgs"] = [{"jsonPath": "$.city", "stringValue": draw(TEXT)}]
        body["willContinue"] = draw(st.booleans())
    call = draw(objects(style, "functionCall", body))
    return _part(style, {"functionCall": call}, draw, signed=draw(st.booleans()))


@st.composite
def function_response_parts(draw: st.DrawFn, style: str, pool: list[str]) -> Any:
    if pool and draw(st.booleans()):
        call_id: Any = draw(st.sampled_from(pool))
    else:
        call_id = draw(call_ids(pool))
    key = draw(st.sampled_from(["output", "error", "other"]))
    response = {key if key != "other" else "result": draw(JSON_VALUES)}
    if key == "other" and draw(st.booleans()):
        response = draw(OBJECTS)
    body: dict[str, Any] = {"id": call_id, "name": draw(NAMES), "response": response}
    if draw(st.integers(0, 5)) == 0:
        blob = draw(objects(style, "inlineData", {"mimeType": "image/png", "data": "iVBORw0KGgo="}))
        body["parts"] = [draw(objects(style, "part", {"inlineData": blob}, max_extra=0))]
    if draw(st.integers(0, 6)) == 0:
        body["willContinue"] = draw(st.booleans())
    return _part(style, {"functionResponse": draw(objects(style, "functionResponse", body))}, draw)


@st.composite
def code_parts(draw: st.DrawFn, style: str) -> Any:
    if draw(st.booleans()):
        body = {"language": "PYTHON", "code": draw(TEXT)}
        return _part(style, {"executableCode": draw(objects(style, "executableCode", body))}, draw)
    outcome = draw(
        st.sampled_from(["OUTCOME_OK", "OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED", "outcome_ok"])
    )
    body = {"outcome": outcome, "output": draw(maybe(TEXT))}
    return _part(
        style, {"codeExecutionResult": draw(objects(style, "codeExecutionResult", body))}, draw
    )


@st.composite
def server_tool_parts(draw: st.DrawFn, style: str, pool: list[str]) -> Any:
    tool_type = draw(maybe(st.sampled_from(["GOOGLE_SEARCH_WEB", "URL_CONTEXT", "GOOGLE_MAPS"])))
    call_id = draw(call_ids(pool))
    if draw(st.booleans()):
        body = {"id": call_id, "toolType": tool_type, "args": draw(maybe(OBJECTS))}
        return _part(style, {"toolCall": draw(objects(style, "toolCall", body))}, draw)
    body = {"id": call_id, "toolType": tool_type, "response": draw(maybe(OBJECTS))}
    return _part(style, {"toolResponse": draw(objects(style, "toolResponse", body))}, draw)


@st.composite
def unknown_parts(draw: st.DrawFn, style: str) -> Any:
    """A part that sets no data field the codec knows (a new field, or only metadata)."""
    values: dict[str, Any] = {}
    if draw(st.booleans()):
        values[draw(st.sampled_from(["searchEntryPoint", "x_widget", "audioTranscription"]))] = (
            draw(OBJECTS)
        )
    else:
        values["videoMetadata"] = draw(OBJECTS)
    return draw(objects(style, "part", values))


def parts(style: str, pool: list[str]) -> st.SearchStrategy[Any]:
    """Any part."""
    return st.one_of(
        text_parts(style),
        text_parts(style),
        signature_parts(style),
        media_parts(style),
        function_call_parts(style, pool),
        function_response_parts(style, pool),
        code_parts(style),
        server_tool_parts(style, pool),
        unknown_parts(style),
    )


# --- messages and envelopes ----------------------------------------------------------------


@st.composite
def contents(draw: st.DrawFn, style: str, pool: list[str], with_parts: bool = False) -> Any:
    """One Content object."""
    role = draw(st.sampled_from(["user", "model", "model", "user", "tool", "function", ABSENT]))
    if style == "sdk" and role is ABSENT:
        role = None  # the SDK writes an unset role as null
    shape = (
        "list" if with_parts else draw(st.sampled_from(["list"] * 6 + ["empty", "null", "absent"]))
    )
    values: dict[str, Any] = {"role": role}
    if shape == "list":
        values["parts"] = draw(st.lists(parts(style, pool), min_size=1, max_size=4))
    elif shape == "empty":
        values["parts"] = []
    elif shape == "null":
        values["parts"] = None
    return draw(objects(style, "content", values))


@st.composite
def content_lists(draw: st.DrawFn, style: str, min_size: int = 1, max_size: int = 6) -> list[Any]:
    pool: list[str] = []
    size = draw(st.integers(min_size, max_size))
    return [draw(contents(style, pool, with_parts=i == 0)) for i in range(size)]


TOOLS = [
    {
        "functionDeclarations": [
            {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
            }
        ]
    },
    {"codeExecution": {}},
]


@st.composite
def request_bodies(draw: st.DrawFn, style: str, body: list[Any]) -> dict[str, Any]:
    """A `generateContent` request body around `body`."""
    own = "snake" if style in ("snake", "sdk") else "camel"
    if style == "mixed":
        own = draw(st.sampled_from(["camel", "snake"]))
    name = (lambda n: n) if own == "camel" else snake
    items: list[tuple[str, Any]] = [("contents", body)]
    if draw(st.booleans()):
        instruction = {"parts": [{"text": draw(TEXT)}]}
        if draw(st.booleans()):
            instruction = {"role": "user", **instruction}
        items.insert(draw(st.integers(0, 1)), (name("systemInstruction"), instruction))
    if draw(st.booleans()):
        items.append(("tools", TOOLS[: draw(st.integers(1, 2))]))
    if draw(st.booleans()):
        config = {name("maxOutputTokens"): draw(st.integers(1, 8192)), "temperature": 0.2}
        items.append((name("generationConfig"), config))
    if draw(st.booleans()):
        items.append(("model", "gemini-2.5-flash"))
    if draw(st.booleans()):
        items.append(("x_trace", draw(JSON_VALUES)))
    order = draw(st.permutations(range(len(items))))
    return {items[i][0]: items[i][1] for i in order}


STYLES = ("camel", "snake", "sdk", "mixed")


@st.composite
def documents(draw: st.DrawFn, style: str | None = None, max_messages: int = 6) -> Any:
    """A native Gemini document: a bare Content list or a request body."""
    style = style or draw(st.sampled_from(STYLES))
    body = draw(content_lists(style, max_size=max_messages))
    if draw(st.booleans()):
        return body
    return draw(request_bodies(style, body))


# --- damaged documents ---------------------------------------------------------------------


def damaged_documents() -> st.SearchStrategy[Any]:
    """A valid document with one value (anywhere) replaced by an arbitrary JSON value."""
    return damaged(
        documents(max_messages=4), JSON_VALUES | st.sampled_from([[], {}, [1], "x", None])
    )
