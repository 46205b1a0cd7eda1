"""Plain shapes (`histnorm.shape`) keep their two promises, for every codec that has one.

1. A codec's `shape(value)` is None or equals `shape_of` the transcript it decodes to.
2. A transcript whose shape `is_plain` under a profile lints without a single diagnostic
   under that profile.

Checked on every fixture, on transcripts drawn by the benchmark corpus generator (with
a high defect rate), and on fuzzed damage of the format fixtures. Then, end to end, the
command-line runner reports and writes exactly the same with and without the shortcut.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli import documents, lines, runner
from histnorm_cli.runner import Job
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_mutations import damaged

import histnorm
from benchmarks.corpus import available_formats, transcripts
from histnorm.formats import CODECS
from histnorm.formats.base import Codec
from histnorm.profiles import PROFILES, profile_for
from histnorm.rules import ALL_RULES
from histnorm.settings import Settings
from histnorm.shape import Step, is_plain, shape_of

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
SHAPED = tuple(
    name for name, codec in CODECS.items() if type(codec).read_outline is not Codec.read_outline
)
"""Formats whose codec reads shapes (the others never claim one)."""


def _fixture_values() -> Iterator[tuple[str, str, Any]]:
    for path in sorted((ROOT / "formats").glob("*/*.json")):
        yield path.parent.name, str(path.relative_to(ROOT)), orjson.loads(path.read_bytes())
    for path in sorted((ROOT / "rules").glob("*/*.json")):
        fmt = path.name.split(".")[-2]
        if fmt in CODECS:
            yield fmt, str(path.relative_to(ROOT)), orjson.loads(path.read_bytes())
    for path in sorted(ROOT.glob("*/*/*.jsonl")):
        fmt = path.parent.name
        if fmt in CODECS:
            for n, line in enumerate(path.read_bytes().splitlines(), 1):
                if line.strip():
                    yield fmt, f"{path.relative_to(ROOT)}:{n}", orjson.loads(line)


def _corpus_values(per_format: int = 120) -> Iterator[tuple[str, str, Any]]:
    for fmt in available_formats():
        if fmt in SHAPED:
            drawn = itertools.islice(transcripts(fmt, defect_rate=0.4, seed=7), per_format)
            for n, (_, value) in enumerate(drawn):
                yield fmt, f"corpus {fmt} #{n}", value


SAMPLES = [s for s in [*_fixture_values(), *_corpus_values()] if s[0] in SHAPED]


def check_promises(fmt: str, where: str, value: Any) -> bool:
    """Both promises for one native value; True when its shape was plain somewhere."""
    codec = CODECS[fmt]
    claimed = codec.shape(value)
    if claimed is None:
        return False
    transcript = codec.decode(value)  # a claimed shape means the value decodes
    assert claimed == shape_of(transcript), f"{where}: the codec's shape differs from the model's"
    plain_anywhere = False
    for name, profile in PROFILES.items():
        if is_plain(claimed, profile, codec.items_are_messages):
            plain_anywhere = True
            found = histnorm.lint(transcript, Settings(profile=name))
            assert found == (), f"{where}: plain under {name}, yet lint reports {found}"
    return plain_anywhere


@pytest.mark.parametrize(("fmt", "where", "value"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_shape_promises(fmt: str, where: str, value: Any) -> None:
    check_promises(fmt, where, value)


@pytest.mark.parametrize(("fmt", "where", "value"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_public_lint_is_the_same_with_the_shortcut(
    monkeypatch: pytest.MonkeyPatch, fmt: str, where: str, value: Any
) -> None:
    """`histnorm.lint` of a native value or its bytes gives the same with the shortcut."""
    fast = (histnorm.lint(value, format=fmt), histnorm.lint(orjson.dumps(value), format=fmt))
    monkeypatch.setattr(histnorm.engine, "proven_clean", lambda *args: False)
    slow = (histnorm.lint(value, format=fmt), histnorm.lint(orjson.dumps(value), format=fmt))
    assert fast == slow


EXAMPLES = [
    (rule.code, n, example)
    for rule in ALL_RULES
    for n, example in enumerate(rule.examples)
    if example.format in SHAPED
]


@pytest.mark.parametrize(
    ("code", "n", "example"), EXAMPLES, ids=[f"{c}-{n}" for c, n, _ in EXAMPLES]
)
def test_no_rule_example_is_plain_where_its_rule_reports(code: str, n: int, example: Any) -> None:
    """Every documented defect is kept from the shortcut (a new rule's examples included)."""
    codec = CODECS[example.format]
    found = histnorm.lint(histnorm.load(example.bad, example.format), example.settings)
    if any(d.code == code for d in found):
        profile = profile_for(example.settings.profile, example.format)
        assert not is_plain(codec.shape(example.bad), profile, codec.items_are_messages)
    if example.good is not None:
        check_promises(example.format, f"{code} example {n} fixed", example.good)
    check_promises(example.format, f"{code} example {n}", example.bad)


@pytest.mark.parametrize("fmt", SHAPED)
def test_most_clean_corpus_transcripts_are_plain(fmt: str) -> None:
    """The shortcut is taken: clean generated transcripts are plain under their profile."""
    codec = CODECS[fmt]
    values = [v for _, v in itertools.islice(transcripts(fmt, defect_rate=0.0, seed=3), 60)]
    plain = [v for v in values if histnorm.engine.proven_clean(v, fmt)]
    assert len(plain) >= 0.9 * len(values), f"{fmt}: only {len(plain)}/{len(values)} plain"
    assert all(codec.shape(v) is not None for v in plain)


def test_plain_needs_every_call_answered_right_after_it() -> None:
    profile = PROFILES["meai"]
    user, answer = Step("user", (), (), 1, 0), Step("tool", (), ("c1",), 0, 0)
    call = Step("assistant", ("c1",), (), 0, 0)
    assert is_plain((user, call, answer), profile)
    assert not is_plain((user, call), profile)  # open at the end
    assert not is_plain((user, call, user, answer), profile)  # displaced
    assert not is_plain((user, call, answer, answer), profile)  # duplicate result
    assert not is_plain((user, answer), profile)  # orphan result
    assert not is_plain((user, call, answer, call, answer), profile)  # id reused
    assert not is_plain((), profile)


def test_plain_follows_the_profile() -> None:
    system = Step("system", (), (), 1, 0)
    user = Step("user", (), (), 1, 0)
    reasoning = Step("assistant", (), (), 1, 1)
    long_call = Step("assistant", ("c" * 50,), (), 0, 0)
    answer = Step("tool", (), ("c" * 50,), 0, 0)
    assert is_plain((system, user), PROFILES["openai-chat"])
    assert not is_plain((system, user), PROFILES["anthropic"])  # system is top-level there
    assert not is_plain((user, system), PROFILES["portable"])
    assert not is_plain((user, reasoning), PROFILES["openai-responses"])
    assert is_plain((user, reasoning), PROFILES["openai-chat"])
    assert is_plain((user, long_call, answer), PROFILES["meai"])
    assert not is_plain((user, long_call, answer), PROFILES["openai-chat"])  # 40 at most


@settings(
    max_examples=int(os.environ.get("HISTNORM_FUZZ_EXAMPLES", "100")),
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_shape_promises_on_fuzzed_damage(data: st.DataObject) -> None:
    fmt, name, broken, _, applied = data.draw(damaged())
    if fmt in SHAPED:
        check_promises(fmt, f"{fmt}/{name} damaged by {applied}", histnorm.encode(broken))


def _corpus_file(tmp_path: Path, fmt: str) -> Path:
    rows = [orjson.dumps(v) for _, v in itertools.islice(transcripts(fmt, 0.3, seed=11), 80)]
    path = tmp_path / f"{fmt}.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    return path


@pytest.mark.parametrize("fmt", SHAPED)
@pytest.mark.parametrize("mode", ["lint", "fix"])
def test_runner_is_the_same_without_the_shortcut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, mode: str
) -> None:
    path = _corpus_file(tmp_path, fmt)
    fixtures = [
        *ROOT.glob(f"formats/{fmt}/*.json*"),
        *ROOT.glob(f"rules/*/*.{fmt}.json"),
        *ROOT.glob("malformed/*"),
        *ROOT.glob("demo/*"),
    ]
    copies = []
    for n, fixture in enumerate(sorted(fixtures)):
        copy = tmp_path / f"{n}-{fixture.name}"  # fix writes in place
        copy.write_bytes(fixture.read_bytes())
        copies.append(str(copy))
    paths = [str(path), *copies]
    outcomes = []
    for shortcut in (True, False):
        if not shortcut:
            for module in (lines, documents):
                monkeypatch.setattr(module, "proven_clean", lambda *args: False)
        job = Job(mode="fix" if mode == "fix" else "lint", settings=Settings(), diff=True)
        outcomes.append([runner.run(p, job) for p in paths])  # diff only: nothing is written
    fast, slow = outcomes
    for a, b in zip(fast, slow, strict=True):
        assert a.diagnostics == b.diagnostics, a.path
        assert (a.diff, a.changed, a.error) == (b.diff, b.changed, b.error), a.path
    assert any(o.diagnostics or o.changed for o in fast), "the corpus has defects to find"


@pytest.mark.parametrize(
    "value",
    [
        [{"role": ["user"], "content": "hi"}],
        [{"role": {"a": 1}, "content": "hi"}],
        [{"role": "user", "content": "hi", "name": ["x"]}],
        [{"role": "assistant", "tool_calls": [{"id": ["c"], "function": {}}]}],
        [["user", "hi"]],
        {"messages": None},
        None,
        42,
    ],
)
def test_odd_values_never_raise(value: Any) -> None:
    """Odd types anywhere give None, or a shape that keeps both promises; never an error."""
    for fmt in SHAPED:
        check_promises(fmt, f"{fmt}: {value!r}", value)


def test_huge_integers_survive_the_shortcut_and_the_rules(tmp_path: Path) -> None:
    """A plain line is proven clean from a typed parse (a huge integer reads as a float
    there) and kept byte for byte; a line the rules must fix is read exactly."""
    huge = b"123456789012345678901234567890"
    plain = b'{"seed":' + huge + b',"messages":[{"role":"user","content":"hi"}]}'
    broken = (
        b'{"seed":' + huge + b',"messages":[{"role":"user","content":"hi"},'
        b'{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",'
        b'"function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"again"}]}'
    )
    path = tmp_path / "huge.jsonl"
    path.write_bytes(plain + b"\n" + broken + b"\n")
    outcome = runner.run(str(path), Job(mode="fix", settings=Settings(), write=True))
    assert outcome.changed and outcome.error is None
    first, second = path.read_bytes().splitlines()
    assert first == plain
    assert second != broken and second.startswith(b'{"seed":' + huge + b",")
