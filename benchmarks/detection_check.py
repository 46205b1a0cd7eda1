"""Detection on real third-party files, outside the suite.

`python benchmarks/detection_check.py ../shared/real-world`: each provider-verdict body
must be detected as its folder's format, and each body of the second set
(`provider-verdicts-2`, whose index names the format) as that format (Bedrock Converse
bodies as `bedrock-converse`); the dataset files are reported whole and record by record
(Alpaca, the registry and preference pairs: NotATranscript)."""

import collections
import json
import sys
from pathlib import Path

import histnorm
from histnorm import jsonio
from histnorm.formats import detect_format

root = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/real-world")
pv = root / "provider-verdicts"
tally = collections.Counter()
wrong = []
for entry in json.loads((pv / "index.json").read_text()):
    folder = entry["file"].split("/")[0]
    value = jsonio.loads((pv / entry["file"]).read_bytes())
    try:
        got = detect_format(value)
    except histnorm.HistnormError as exc:
        got = f"{type(exc).__name__}: {str(exc)[:100]}"
    ok = got == folder
    tally[(folder, ok)] += 1
    if not ok:
        wrong.append((entry["file"], got))
for key, n in sorted(tally.items()):
    print(key, n)
print("right:", sum(n for (f, ok), n in tally.items() if ok), "of", sum(tally.values()))
for f, got in wrong[:20]:
    print("  WRONG", f, "->", got)
pv2 = root / "provider-verdicts-2"
unread: dict[str, str] = {}
"""Formats histnorm has no codec for, and what detection must give for their bodies."""
tally2 = collections.Counter()
wrong2 = []
for entry in json.loads((pv2 / "index.json").read_text()) if pv2.is_dir() else []:
    value = jsonio.loads((pv2 / entry["file"]).read_bytes())
    try:
        got = detect_format(value)
    except histnorm.HistnormError as exc:
        got = type(exc).__name__
    ok = got == unread.get(entry["format"], entry["format"])
    tally2[(entry["format"], ok)] += 1
    if not ok:
        wrong2.append((entry["file"], entry["format"], got))
if tally2:
    print("provider-verdicts-2:")
    for key, n in sorted(tally2.items()):
        print(key, n)
    print("right:", sum(n for (f, ok), n in tally2.items() if ok), "of", sum(tally2.values()))
    for f, want, got in wrong2[:20]:
        print("  WRONG", f, want, "->", got)
ds = root / "datasets"
for name in [
    "alpaca_en_demo.json",
    "dataset_info.json",
    "glaive_toolcall_en_demo.json",
    "trl/preference_tool_calls.json",
    "trl/messages_tool_calling_turns.json",
    "trl/messages_tool_calling_turns_prepared.json",
]:
    value = jsonio.loads((ds / name).read_bytes())
    items = value if isinstance(value, list) else [value]
    c = collections.Counter()
    for it in items:
        try:
            c[detect_format(it)] += 1
        except histnorm.HistnormError as exc:
            c[type(exc).__name__ + ":" + exc.message[:50]] += 1
    try:
        whole = detect_format(value)
    except histnorm.HistnormError as exc:
        whole = type(exc).__name__
    print(name, "whole:", whole, "records:", dict(c))
