"""Claude Code session logs: `~/.claude/projects/<project>/<sessionId>.jsonl` (unofficial).

**Shape.** The document is the list of the file's parsed lines (read the file with
`read_jsonl(..., mode="message")`, or store the list as a JSON array). Each line is an
event `{type, uuid, parentUuid, sessionId, message?, ...}`; lines with a uuid form a tree
through `parentUuid`. The *active branch* is the path from the newest leaf (the last line
in file order that no line names as its parent) back to the root, plus the parallel-tool
lines that path misses: the other lines of a streamed reply on the path (same
`message.id`) and the tool-result lines hanging off any of them, placed right after the
reply's last line on the path, in file order (Claude Code's own reader does the same).
Sidechain lines are skipped unless no line says `isSidechain: false` (a sub-agent file).
A session without links (no line has a string `parentUuid`: the key is missing or null
on every line, as exporters write sessions) is one chain: every line in file order.
Only branch lines are read for content; other lines need only a well-typed uuid / parent.

**Messages.** Only `user` and `assistant` lines on the active branch become messages,
and not `isMeta` (hook feedback) or `isApiErrorMessage` (synthetic error) lines. Every
other line (summary, system, file-history-snapshot, queue-operation, progress, other
branches, ...) stays in `Transcript.native` (the list of lines) and is written back in
place. Consecutive assistant lines sharing `message.id` (one line per streamed block)
are one message, and so are consecutive user lines holding only `tool_result` blocks;
role is the line `type`, `Message.id` the assistant `message.id`, and `Message.native`
the message's first line (so `message_pointer` is `/<line index>`).

**Parts.** Blocks of `message.content` (Anthropic, formats.md §3): text → text;
thinking / redacted_thinking → reasoning (`opaque` = signature / data, verbatim);
tool_use → tool_call (function, or handoff for `handoff_to_*`; `arguments` = `input`);
tool_result → tool_result (`is_error`; `content` raw); mcp_tool_use / mcp_tool_result →
MCP family; server_tool_use / `*_tool_result` → hosted family with tool types
`server_tool_use` / `server_tool_use_result` (one pairing group, as in the `anthropic`
codec; the result's `name` is its block type without `_tool_result`, and `is_error` says
whether its content is a `*_error`); image / document → media;
anything else → unknown. String content is one text part. `toolUseResult` and every
other key stay on the line. Slots: `<uuid>/content/<k>` (block k of that line) or
`<uuid>/content` (string content); `part_pointer` is `/<line>/message/content[/<k>]`.

**Writing after edits** rewrites only the lines it must, keeping every other line the
very same object (so the file layer copies its bytes) and the parent chain intact:

- A line whose parts are unchanged is kept. A removed part rewrites only the line that
  held it (`message.content` without the block). A line left with no blocks is dropped,
  and every line whose `parentUuid` was its uuid is re-pointed to its parent (unless the
  dropped lines lead to a uuid the file does not hold: it keeps its own, which reads the
  same). A message
  left with no parts keeps its lines that were already empty, or else its first line
  with `content: []`.
- A new message becomes one new line `{parentUuid, <envelope>, type, message: {role,
  content}, uuid, timestamp}`: a tool message (or a user one) is a `user` line, e.g. a
  synthesized result `[{"type": "tool_result", "tool_use_id": ..., "content": ...,
  "is_error": true}]`. The envelope (`isSidechain`, `userType`, `cwd`, `sessionId`,
  `version`, `gitBranch`, `agentId`, `slug`, ...) and the `timestamp` are those of the
  line it answers: the line of the call its first result answers, else the line before
  it on the branch; keys that line lacks are left out (`sessionId` never is).
  Its uuid is a uuid5 of the previous branch line's uuid and the first result's
  `tool_use_id` (or the line type): never random. Its parent is the line before it on
  the branch, it sits right after that line in the file, and the next branch line is
  re-pointed to it. New parts in an existing message join the line of the part before
  them. A part moved out of its message takes its whole line along when the line holds
  nothing else (`toolUseResult` included).
- In a session without links no line gets one: new lines have `parentUuid: null` and
  sit after the line before them; moved messages move their lines in the file. A line
  off the branch (a sidechain) keeps the parent it names.
- Moved messages keep their file position; the branch is re-linked in the new order:
  a line keeps its `parentUuid` when the line before it on the branch is the same as
  before (dropped lines skipped), otherwise it points at the line now before it. Lines
  that are not messages travel with the message line before them.
- The result is read back before it is returned. If the branch would not come out as
  planned, a line re-linked after lines of one streamed reply hangs off the first of
  them (reading puts the others after it), so they keep the parents they name; else the
  first line of the branch's last streamed reply is written at the end of the file
  (reading starts from it and puts the reply's other lines after it). Layouts that keep
  the links lines dropped by the edit leave dangling (a line keeps the missing uuid it
  names) are tried before those that keep only the links the file leaves dangling; a
  link to a uuid the file does not hold is never re-pointed (the writer refuses, naming
  the line). If no layout reads back (say, results that hung off a dropped reply),
  every branch line is linked to the one before it; if an older branch would still be
  the newest leaf, the branch's last line is written at the end of the file and its
  other children move up to its parent. Earlier lines that a dropped line's uuid
  shadowed are dropped with it.

A line that shares its uuid with an earlier line it shadows (not a copy of it) is never
edited: dropping it would bring the earlier line back or drop it too, and which one an
edit should reach cannot be told, so a fix reaching its message is held back
(`held_messages`).

Not expressible (dropped silently): metadata (`histnorm.synthesized`), `author_name`,
`informational`. Refusal, approval and usage parts, media without a URI or native block,
and system-role messages raise. A new hosted result is written as `<name>_tool_result`
(its name, or its call's); without either it raises.
If every line of the branch is dropped, reading back follows the newest other branch.
A call id a fix renames (HN104) is renamed where a line that is no message cites it too
(`toolUseID`, `parentToolUseID`, `sourceToolUseID` of hook and progress lines).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import BROKEN_CHAIN, LONG_LINE, Outline
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import LIST_WINDOW, Codec, expect_object
from histnorm.formats.claude_code.blocks import decode_content, parse_slot
from histnorm.formats.claude_code.encode import encode_session
from histnorm.formats.claude_code.outline import read_lines, read_outline
from histnorm.formats.claude_code.sizes import has_long_line, long_size
from histnorm.formats.claude_code.tree import (
    MESSAGE_TYPES,
    Session,
    analyse,
    check_lines,
    dangling_stitches,
    message_id,
    missing_parent,
    shadowed,
    uuid_of,
)
from histnorm.last_answer import LastAnswer
from histnorm.lazy import model
from histnorm.model_terms import JsonValue, memo_source, native_memo, same_source

if TYPE_CHECKING:
    from histnorm.model import Message, Part, Transcript

_SESSION_KEY_SET = frozenset({"uuid", "parentUuid", "sessionId", "leafUuid", "messageId"})
"""Keys only a session line has."""
_SURE = 0.95
"""The score of a session with a message line."""
_OTHER_TYPES = {
    "summary",
    "system",
    "progress",
    "attachment",
    "file-history-snapshot",
    "queue-operation",
}


def line_parts(
    lines: list[Any], session: Session, known: Mapping[int, list[Part]] | None = None
) -> dict[int, list[Part]]:
    """The parts of every message line of `session`, by line index; `known` holds the
    parts of lines already read, by the `id` of the line (a line's parts depend on nothing
    but its own content and uuid)."""
    parts: dict[int, list[Part]] = {}
    for index in session.message_lines():
        line = lines[index]
        if known is not None and (held := known.get(id(line))) is not None:
            parts[index] = held
            continue
        at = f"/{index}/message"
        body = expect_object(line.get("message"), at, f"the message of a {line['type']} line")
        parts[index] = decode_content(body.get("content"), line["uuid"], f"{at}/content")
    return parts


def _as_read(transcript: Transcript) -> tuple[list[Any], Session, dict[int, list[Part]]]:
    """The lines of `transcript.native`, their session and the parts of each message line,
    read once for every transcript of a run of fixes (`native_memo`): each one's encoding
    needs them."""
    memo = native_memo(transcript)
    found = memo.get("claude-code")
    if found is None:
        lines = check_lines(transcript.native)
        session = memo.get("claude-code-session") or analyse(lines)
        found = memo["claude-code"] = (lines, session, line_parts(lines, session))
    return found


_WRITTEN_SESSION = "_histnorm_claude_code_written"
"""Where `encode` keeps, in a transcript's `__dict__`, the session its output reads as
(the writer reads it to check it): `decode_written` of that very output reuses it."""

_AS_DECODED = "_histnorm_claude_code_as_decoded"
"""Where `decode` marks, in a transcript's `__dict__`, the values it made the transcript
of (`memo_source`): while they are the same objects, the transcript is what its lines
read as, which `encode` writes as those very lines."""

_BUILT = "_histnorm_claude_code_built"
"""Where `_decode` marks, in a message's `__dict__`, that it built the message (with the
message's `id`: a copy, which `model_copy` makes with that `__dict__`, has another `id`),
so that `decode_written` may hand it back for the very line and parts it was built of."""


def _same_parts(held: tuple[Part, ...], found: tuple[Part, ...]) -> bool:
    """Whether two tuples of parts hold the very same objects, in order."""
    return len(held) == len(found) and all(a is b for a, b in zip(held, found, strict=True))


_TOOL_ID_KEYS = ("toolUseID", "parentToolUseID", "sourceToolUseID")
"""Keys by which a line that is no message cites a tool call."""


def _renamed_line(line: Any, renames: Mapping[str, str]) -> Any:
    """A line that is no message with the call ids it cites renamed (a new object), else
    the line itself."""
    if not isinstance(line, dict) or line.get("type") in MESSAGE_TYPES:
        return line
    changes = {
        key: renames[value]
        for key in _TOOL_ID_KEYS
        if isinstance(value := line.get(key), str) and value in renames
    }
    return {**line, **changes} if changes else line


_NOT_WRITTEN = {"native", "slot", "metadata", "informational"}


def _content(message: Message) -> tuple[str, list[Any]]:
    """What a message says: its role and parts, without what the file does not hold."""
    return message.role, [part.model_dump(exclude=_NOT_WRITTEN) for part in message.parts]


def _indexes(transcript: Transcript) -> tuple[dict[int, int], dict[str, int]]:
    """Each native line's index by its identity, and the last line's index by each uuid,
    kept with the lines (`native_memo`) for every transcript that holds them: asked once
    per message, a scan each time would be quadratic in the session's length."""
    memo = native_memo(transcript)
    found = memo.get("claude-code-indexes")
    if found is None:
        found = memo["claude-code-indexes"] = _line_index(transcript.native)
    return found


def _line_index(lines: list[Any]) -> tuple[dict[int, int], dict[str, int]]:
    """Each line's index by its identity, and the last line's index by each uuid."""
    by_uuid: dict[str, int] = {}
    for i, line in enumerate(lines):
        uuid = uuid_of(line)
        if uuid is not None:
            by_uuid[uuid] = i
    return {id(line): i for i, line in reversed(list(enumerate(lines)))}, by_uuid


_CHAIN: LastAnswer[int] = LastAnswer()
"""`outline_flags`'s answer for the native lines it answered for last."""


_SHADOWS: LastAnswer[dict[str, tuple[int, int]]] = LastAnswer()
"""The `shadowed` uuids of the native lines `held_messages` answered for last."""


def _chain_flags(transcript: Transcript) -> int:
    lines = check_lines(transcript.native)
    broken = missing_parent(session_of(transcript)) is not None or bool(dangling_stitches(lines))
    return (BROKEN_CHAIN if broken else 0) | (LONG_LINE if has_long_line(lines) else 0)


def session_of(transcript: Transcript) -> Session:
    """The session of `transcript.native` (a list of lines): the one `decode` read it as,
    else analysed once for every transcript that holds those lines (`native_memo`)."""
    memo = native_memo(transcript)
    read = memo.get("claude-code")
    if read is not None:
        return read[1]  # type: ignore[no-any-return]
    found = memo.get("claude-code-session")
    if found is None:
        found = memo["claude-code-session"] = analyse(check_lines(transcript.native))
    return found


def _uuids(message: Message) -> list[str]:
    """The uuids of the lines a message was read from: its first line's, its parts'."""
    found = [uuid_of(message.native)]
    found += [parsed[0] for part in message.parts if (parsed := parse_slot(part.slot))]
    return [u for u in dict.fromkeys(found) if u is not None]


def _long_lines(outline: Outline, long: bool) -> Outline:
    """`outline`, with `LONG_LINE` when a line of its session is `long` (HN018)."""
    if not long:
        return outline
    return Outline(outline.messages, outline.format, outline.server_state, LONG_LINE)


class ClaudeCodeCodec(Codec):
    """Claude Code session JSONL: the active branch of the line tree, as messages."""

    def held_messages(self, transcript: Transcript) -> Mapping[int, str]:
        """The messages read from a line that shares its uuid with an earlier line it
        shadows, not a copy of it (`shadowed`): which of the two an edit should reach
        cannot be told, so no fix reaches them."""
        native = transcript.native
        if not isinstance(native, list):
            return {}
        shadows = _SHADOWS.get(native, lambda: shadowed(native))
        if not shadows:
            return {}
        held: dict[int, str] = {}
        for index, message in enumerate(transcript.messages):
            hit = next((shadows[u] for u in _uuids(message) if u in shadows), None)
            if hit is not None:
                held[index] = (
                    f"the line at /{hit[0]} shares its uuid with the line at /{hit[1]}, an "
                    "earlier version it shadows, so histnorm cannot tell which line an edit "
                    "should reach"
                )
        return held

    def outline_flags(self, transcript: Transcript) -> int:
        """`BROKEN_CHAIN` when the session's parent chain stops at a line the file does not
        hold (HN014) or a compaction boundary's logical parent is missing (HN017);
        `LONG_LINE` when a line is longer than the default limit (HN018)."""
        native = transcript.native
        if not isinstance(native, list):
            return 0
        return _CHAIN.get(native, lambda: _chain_flags(transcript))  # fixes keep the lines

    name = "claude-code"
    summary = "Claude Code session logs (one event per JSONL line, a tree through parentUuid)"

    def sniff(self, data: JsonValue) -> float:
        """Likely when the lines are `type`d events with uuid / parentUuid / sessionId keys."""
        if not isinstance(data, list) or not data:
            return 0.0
        score = 0.0
        for line in data[:LIST_WINDOW]:
            if not isinstance(line, dict) or "role" in line or "messages" in line:
                return 0.0
            if score == _SURE:
                continue  # only a line ruling the format out changes the answer now
            kind = line.get("type")
            if not isinstance(kind, str) or _SESSION_KEY_SET.isdisjoint(line):
                continue
            if kind in MESSAGE_TYPES and isinstance(line.get("message"), dict):
                score = _SURE
            elif kind in _OTHER_TYPES:
                score = max(score, 0.6)
        return score

    def decode(self, data: JsonValue) -> Transcript:
        """Decode the list of a session file's lines."""
        return self._decode(data, None)

    def decode_written(self, data: JsonValue, transcript: Transcript) -> Transcript:
        """`Codec.decode_written`: the parts of a line that is the very line `transcript`
        was read from are those it was read as, not decoded again."""
        if not isinstance(transcript.native, list):
            return self.decode(data)
        lines, _, parts = _as_read(transcript)
        known = {id(lines[index]): held for index, held in parts.items()}
        built = {
            id(message.native): message
            for message in transcript.messages
            if message.__dict__.get(_BUILT) == id(message)
        }
        return self._decode(data, known, transcript.__dict__.get(_WRITTEN_SESSION), built)

    def _decode(
        self,
        data: JsonValue,
        known: Mapping[int, list[Part]] | None,
        written: Session | None = None,
        built: Mapping[int, Message] | None = None,
    ) -> Transcript:
        """`decode`, with the parts `known` holds (`line_parts`), `written`, the session
        the writer read `data` as when it wrote it, if it is one, and the messages `built`
        holds by the `id` of their first line (messages this method made, unchanged since):
        one whose line and parts a group reads again is that message, not a copy."""
        lines = check_lines(data)
        session = written if written is not None and written.lines is lines else analyse(lines)
        parts = line_parts(lines, session, known)
        read = (lines, session, parts)
        messages = []
        for group in session.groups:
            first = lines[group[0]]
            found = tuple(p for index in group for p in parts[index])
            held = built.get(id(first)) if built else None
            if held is not None and _same_parts(held.parts, found):
                messages.append(held)  # the fields a message is built of are the same
                continue
            message = model.Message(
                role=first["type"],
                id=message_id(first) if first["type"] == "assistant" else None,
                parts=found,
                native=first,
            )
            message.__dict__[_BUILT] = id(message)
            messages.append(message)
        transcript = model.Transcript(messages=tuple(messages), format=self.name, native=data)
        native_memo(transcript)["claude-code"] = read
        transcript.__dict__[_AS_DECODED] = memo_source(transcript)
        return transcript

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`); a
        line longer than the default limit gives it `LONG_LINE` (HN018)."""
        outline = read_outline(data)
        if outline is None or not isinstance(data, list):
            return outline
        return _long_lines(outline, has_long_line(data))

    def read_streamed(self, lines: Iterable[Any], sizes: list[int]) -> Outline | None:
        """`read_outline` of a session's lines read one at a time and not held: `sizes`
        holds the size of each line read, in bytes, once `lines` is exhausted."""
        outline = read_lines(lines)
        return None if outline is None else _long_lines(outline, long_size(sizes))

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to session lines, rewriting only the lines the edits touch."""
        if isinstance(transcript.native, list):
            lines, session, parts = _as_read(transcript)
            if same_source(transcript.__dict__.get(_AS_DECODED), memo_source(transcript)):
                return self._as_read_back(transcript, lines, session)
        else:
            lines, session, parts = [], Session([], (), (), {}), {}
        out, read = encode_session(transcript.messages, lines, session, parts)
        if read is not None:  # the session `decode_written` reads `out` as
            transcript.__dict__[_WRITTEN_SESSION] = read
        return out

    @staticmethod
    def _as_read_back(transcript: Transcript, lines: list[Any], session: Session) -> list[Any]:
        """The lines of a transcript no edit has touched since `decode` read it: the writer
        keeps every line whose parts are unchanged and the link of every line whose
        neighbour on the branch is unchanged, so it would give these very lines (the
        property tests hold the two equal), and they read as the session read already."""
        out = list(lines)
        transcript.__dict__[_WRITTEN_SESSION] = Session(
            out, session.sequence, session.groups, session.by_uuid, session.linked
        )
        return out

    def rename_references(self, transcript: Transcript, renames: Mapping[str, str]) -> Transcript:
        """Lines that are no message (`system` hook lines, `progress`, ...) and cite a
        renamed call by `toolUseID`, `parentToolUseID` or `sourceToolUseID` cite its new
        id; every other line is the very object it was."""
        native = transcript.native
        if not isinstance(native, list):
            return transcript
        lines = [_renamed_line(line, renames) for line in native]
        if all(a is b for a, b in zip(lines, native, strict=True)):
            return transcript
        return transcript.evolve(native=lines)  # type: ignore[no-any-return]

    def read_back(self, fixed: Transcript) -> Transcript | None:
        """The session the written lines are read as, when its messages are not those of
        `fixed` (a fix that drops the whole branch leaves another branch the newest) or
        other messages are held back (`held_messages`: a re-linked line that shadowed an
        earlier one may now be its copy, which fixes reach)."""
        try:
            written = self.decode_written(self.written(fixed), fixed)
        except HistnormError:
            return None  # not writable: writing it reports why
        same = len(written.messages) == len(fixed.messages) and all(
            _content(a) == _content(b)
            for a, b in zip(written.messages, fixed.messages, strict=True)
        )
        if same and set(self.held_messages(written)) == set(self.held_messages(fixed)):
            return None
        return written

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/<line index>` of the message's first line ("" for a message not read from it)."""
        message = transcript.messages[message_index]
        if isinstance(transcript.native, list):
            by_line, by_uuid = _indexes(transcript)
            found = by_line.get(id(message.native))
            if found is not None:
                return join_pointer("", found)
            for part in message.parts:
                parsed = parse_slot(part.slot)
                index = None if parsed is None else by_uuid.get(parsed[0])
                if index is not None:
                    return join_pointer("", index)
        return ""

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`/<line index>/message/content/<block index>` (no block index for string content)."""
        part = transcript.messages[message_index].parts[part_index]
        parsed = parse_slot(part.slot)
        index = None
        if parsed is not None and isinstance(transcript.native, list):
            index = _indexes(transcript)[1].get(parsed[0])
        if parsed is None or index is None:
            return self.message_pointer(transcript, message_index)
        at = join_pointer("", index, "message", "content")
        return at if parsed[1] is None else join_pointer(at, parsed[1])
