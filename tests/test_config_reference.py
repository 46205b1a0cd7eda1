"""The configuration's JSON Schema (`schemas/config.schema.json`) and reference page
(`docs/config.md`) are generated from the model the loader validates with, committed,
and agree with what `histnorm` accepts."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import jsonschema
import orjson
import pytest
from histnorm_cli.app import app
from histnorm_cli.config import FileConfig
from histnorm_cli.config_keys import NO_CONFIG
from histnorm_cli.reference import EXAMPLE, config_schema, reference, render
from typer.testing import CliRunner, Result

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "config.md"
SCHEMA = ROOT / "schemas" / "config.schema.json"
CLEAN = b'[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]\n'


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(orjson.loads(SCHEMA.read_bytes()))


def test_no_configuration_reads_as_an_empty_configuration_file():
    """A run with no configuration file takes the keys an empty file gives (without
    building the model), key for key."""
    empty = FileConfig()
    for name in FileConfig.model_fields:
        assert getattr(NO_CONFIG, name) == getattr(empty, name), name
    assert NO_CONFIG.root == empty.root
    assert set(NO_CONFIG._fields) == {*FileConfig.model_fields, "root"}


def test_committed_reference_is_generated():
    assert DOCS.read_text(encoding="utf-8") == reference(), (
        "docs/config.md is stale: run `make schema`"
    )


def test_committed_schema_is_generated():
    assert SCHEMA.read_bytes() == render("config.schema.json"), (
        "schemas/config.schema.json is stale: run `make schema`"
    )


def test_schema_check_covers_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas", ignore=shutil.ignore_patterns("vendor"))
    (tmp_path / "docs").mkdir()
    shutil.copyfile(DOCS, tmp_path / "docs" / "config.md")
    monkeypatch.chdir(tmp_path)
    args = ("schema", "--check", "--reference", "docs/config.md")
    assert invoke(*args).exit_code == 0
    Path("docs/config.md").write_text("# old\n")
    result = invoke(*args)
    assert result.exit_code == 1
    assert "config.md" in result.stderr
    assert invoke("schema", "--reference", "docs/config.md").exit_code == 0
    assert Path("docs/config.md").read_bytes() == DOCS.read_bytes()
    Path("schemas/config.schema.json").unlink()
    assert invoke(*args).exit_code == 1


def test_every_key_is_in_the_schema_and_the_reference():
    properties = config_schema()["properties"]
    keys = [name.replace("_", "-") for name in FileConfig.model_fields]
    assert list(properties) == keys
    rows = {
        line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:5]]
        for line in DOCS.read_text().splitlines()
        if line.startswith("| `")
    }
    assert list(rows) == [f"`{k}`" for k in keys]
    for key, (kind, default, description) in rows.items():
        assert kind and default and description, key
    for key, spec in properties.items():
        assert spec.get("description"), f"{key} has no description"
    assert rows["`tail`"] == [
        "one of `keep` or `close`",
        "unset",
        "`keep`: calls still open at the end are a live state (HN011); `close`: defects; "
        "unset: `close` for a request body (`model`, `max_tokens`... beside the messages), "
        "`keep` otherwise (`histnorm.tail`).",
    ]
    assert rows["`include`"][1] == '`["*.json", "*.jsonl", "*.db", "*.sqlite", "*.sqlite3"]`'


def test_the_example_is_valid_for_the_schema_and_for_histnorm(tmp_path, monkeypatch):
    validator().validate(tomllib.loads(EXAMPLE)["tool"]["histnorm"])
    monkeypatch.chdir(tmp_path)
    Path("pyproject.toml").write_text(EXAMPLE)
    Path("x.json").write_bytes(CLEAN)
    result = invoke("lint", "x.json")
    assert result.exit_code == 0, result.output
    assert "```toml\n" + EXAMPLE + "```" in DOCS.read_text()


BAD = [
    'selectt = ["HN001"]',
    'select = "HN001"',
    'tail = "sometimes"',
    'scope = "middle"',
    'profile = "nowhere"',
    'output-format = "xml"',
    'format = "nope"',
    'jsonl-mode = "bogus"',
    'detect = "never"',
    'severity = {HN001 = "fatal"}',
    'policy = {orphan-tool-call = "ignore"}',
    'policy = {no-such-policy = "drop"}',
    "unsafe-fixes = 'maybe'",
    'per-file-ignores = ["x"]',
    "force-exclude = 1",
    'respect-gitignore = "yes"',
]


@pytest.mark.parametrize("line", BAD)
def test_schema_and_histnorm_reject_the_same_values(line, tmp_path, monkeypatch):
    table = tomllib.loads(line)
    assert list(validator().iter_errors(table)), f"the schema accepts {line}"
    monkeypatch.chdir(tmp_path)
    Path("histnorm.toml").write_text(line + "\n")
    Path("x.json").write_bytes(CLEAN)
    result = invoke("lint", "x.json")
    assert result.exit_code == 2, result.output
    assert "histnorm.toml" in result.stderr
    assert "Traceback" not in result.output


def _choices() -> list[tuple[str, str]]:
    schema = config_schema()
    found = []
    for key, spec in schema["properties"].items():
        if "$ref" in spec:
            spec = schema["$defs"][spec["$ref"].rsplit("/", 1)[-1]]
        found.extend((key, value) for value in spec.get("enum", ()))
    return found


@pytest.mark.parametrize(("key", "value"), _choices())
def test_every_value_the_schema_names_is_accepted(key, value, tmp_path, monkeypatch):
    line = f'{key} = "{value}"'
    validator().validate(tomllib.loads(line))
    monkeypatch.chdir(tmp_path)
    Path("histnorm.toml").write_text(line + "\n")
    Path("x.json").write_bytes(CLEAN)
    result = invoke("lint", "--output-format", "json", "x.json")
    assert result.exit_code in (0, 1), result.output
