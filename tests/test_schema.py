"""Committed JSON Schemas match the models, and decoded fixtures validate against them."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest
from histnorm_cli.reference import SCHEMAS, render

from histnorm.document import read_json, read_jsonl

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(
    p
    for p in (ROOT / "fixtures").rglob("*")
    if p.suffix in (".json", ".jsonl")
    and "malformed" not in p.parts
    and "not-transcripts" not in p.parts  # valid JSON, no transcript: tests/test_detection.py
    and "detection" not in p.parts
    and "bad" not in p.stem
    and not p.name.endswith(".settings.json")
    and p.name != "expect.json"  # the issue corpus's expectations: tests/test_issue_corpus.py
)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_models(name):
    committed = (ROOT / "schemas" / name).read_bytes()
    assert committed == render(name), f"schemas/{name} is stale: run `histnorm schema`"


def test_every_schema_file_is_generated():
    on_disk = {p.name for p in (ROOT / "schemas").glob("*.json")}
    assert on_disk == set(SCHEMAS)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_decoded_fixtures_validate(path):
    schema = orjson.loads((ROOT / "schemas" / "transcript.schema.json").read_bytes())
    validator = jsonschema.Draft202012Validator(schema)
    data = path.read_bytes()
    document = read_jsonl(data) if path.suffix == ".jsonl" else read_json(data)
    assert document.records
    for record in document.records:
        assert record.error is None, str(record.error)
        validator.validate(record.transcript.model_dump(mode="json"))


def test_schema_rejects_a_malformed_transcript():
    schema = orjson.loads((ROOT / "schemas" / "transcript.schema.json").read_bytes())
    bad = {"messages": [{"role": "user", "parts": [{"kind": "tool_call"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
