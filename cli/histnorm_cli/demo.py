"""`make demo`: read every bundled transcript and show what histnorm sees in it."""

from __future__ import annotations

import sys
from pathlib import Path

from histnorm.document import write
from histnorm.model import ToolCallPart, ToolResultPart
from histnorm_cli.files import expand, read_document


def main(argv: list[str]) -> int:
    """Summarise each file under the given folders; return 1 if a file is unreadable."""
    status = 0
    for path in expand([Path(a) for a in argv] or [Path("fixtures/demo")]):
        data = path.read_bytes()
        document = read_document(path, data)
        for record in document.records:
            where = f"{path}:{record.line}" if record.line else str(path)
            if record.transcript is None:
                print(f"{where}: unreadable: {record.error}")
                status = 1
                continue
            t = record.transcript
            parts = [p for m in t.messages for p in m.parts]
            calls = {p.call_id for p in parts if isinstance(p, ToolCallPart)}
            answered = {p.call_id for p in parts if isinstance(p, ToolResultPart)}
            open_calls = sorted(str(c) for c in calls - answered)
            print(
                f"{where}: {t.format}, {len(t.messages)} messages, {len(calls)} tool calls"
                + (f", unanswered: {', '.join(open_calls)}" if open_calls else "")
            )
        identical = write(document, [r.transcript for r in document.records]) == data
        print(f"{path}: round trip {'byte-identical' if identical else 'CHANGED'}")
        status |= 0 if identical else 1
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
