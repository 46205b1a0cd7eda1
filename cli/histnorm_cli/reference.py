"""The configuration's JSON Schema (`schemas/config.schema.json`) and reference page
(`docs/config.md`), both generated from `FileConfig`, the model the loader validates with."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import orjson
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from histnorm.schema import SCHEMA_DIALECT
from histnorm.schema import SCHEMAS as CORE_SCHEMAS
from histnorm_cli.config import FileConfig
from histnorm_cli.configs import CONFIG_NAMES


class _Keys(GenerateJsonSchema):
    """A key's schema without the `null` that stands for "not set" in the model (TOML
    has no null)."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])


def config_schema() -> dict[str, Any]:
    """The schema of `[tool.histnorm]` in pyproject.toml, or of a histnorm.toml."""
    schema = FileConfig.model_json_schema(by_alias=True, schema_generator=_Keys)
    for key in schema["properties"].values():
        key.pop("title", None)
        if key.get("default", 0) is None:
            del key["default"]
    return {"$schema": SCHEMA_DIALECT, "$id": "config.schema.json", **schema}


SCHEMAS: Mapping[str, Callable[[], dict[str, Any]]] = MappingProxyType(
    {**CORE_SCHEMAS, "config.schema.json": config_schema}
)
"""Every schema committed under `schemas/`, by file name, with what generates it."""


def render(name: str) -> bytes:
    """The exact bytes of schema `name` as it should be committed."""
    return orjson.dumps(SCHEMAS[name](), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


EXAMPLE = """\
[tool.histnorm]
select = ["HN0", "displaced-tool-result"]   # default: every rule
extend-select = ["HN108"]
ignore = ["HN011"]
unfixable = ["HN007"]
per-file-ignores = { "datasets/*.jsonl" = ["HN011"] }
unsafe-fixes = false
policy = { orphan-tool-call = "synthesize", pending-approval-request = "deny" }
tail = "close"
scope = "all"
profile = "anthropic"
whitespace-is-empty = true
claude-code-line-limit = 524288
severity = { HN007 = "error" }
output-format = "text"
jsonl-mode = "auto"
detect = "file"
include = ["*.json", "*.jsonl"]
exclude = ["generated", "/fixtures/broken"]
force-exclude = true
respect-gitignore = true
"""
"""A pyproject.toml setting every key (`tests/test_config_reference.py` loads it)."""


def _words(schema: dict[str, Any], defs: dict[str, Any], many: bool = False) -> str:
    """A key's type in a few words (`many`: of several values, as in "list of ...")."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    if "enum" in schema:
        names = [f"`{v}`" for v in schema["enum"]]
        return ("" if many else "one of ") + ", ".join(names[:-1]) + " or " + names[-1]
    kind = schema.get("type")
    if kind == "array":
        return ("lists" if many else "list") + f" of {_words(schema['items'], defs, True)}"
    if kind == "object" and "properties" in schema:
        keys = ", ".join(f"`{k}`" for k in schema["properties"])
        return f"table with keys {keys}"
    if kind == "object":
        return f"table of {_words(schema['additionalProperties'], defs, True)}"
    return f"{kind}s" if many else str(kind)


def _toml(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, dict) and not value:
        return "`{}`"
    return f"`{orjson.dumps(value).decode().replace(',', ', ')}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def reference() -> str:
    """`docs/config.md`: every key with its type, default and description, and an example."""
    schema = config_schema()
    defs = schema.get("$defs", {})
    rows = [
        f"| `{key}` | {_cell(_words(spec, defs))} | {_cell(_toml(spec.get('default')))} "
        f"| {_cell(spec.get('description', ''))} |"
        for key, spec in schema["properties"].items()
    ]
    first, second, third = (f"`{n}`" for n in CONFIG_NAMES)
    return f"""\
# Configuration reference

<!-- Generated from histnorm_cli.config.FileConfig by `histnorm schema --reference
docs/config.md` (`make schema`); tests/test_config_reference.py keeps it in step. -->

histnorm reads its settings from `[tool.histnorm]` in a `pyproject.toml`, or from the
top level of a `histnorm.toml` or `.histnorm.toml`. Each file gets the nearest
configuration: the first of {first}, {second} and {third}
(a `pyproject.toml` counts only with a `[tool.histnorm]` table) found in the file's own
folder or a folder above it, up to the top of its git repository (the folder holding
`.git`). A file with none above it gets the one found so from the working directory, or
the defaults. Standard input read with `--stdin-filename NAME` gets NAME's. `--config
FILE` gives every file that one file. Command-line options win over any of them.

Patterns in `per-file-ignores`, `exclude` and `include` (those with a `/`) are relative
to the folder of the file that gives them. `output-format`, `force-exclude` and
`respect-gitignore` hold for the whole run: they are read from the working directory's
configuration (or `--config`) only. A configuration file histnorm cannot use is an error
naming it and the key; the files it governs are not checked (exit 2), the others are.

The JSON Schema of these keys is `schemas/config.schema.json` (for editors: it describes
`[tool.histnorm]`, and the whole of a `histnorm.toml`).

| Key | Type | Default | Description |
| --- | --- | --- | --- |
{chr(10).join(rows)}

Rules are named by code (`HN001`), name (`orphan-tool-call`), code prefix (`HN1`) or
`ALL`. "unset" means the key has no value of its own: its description says what then
holds.

## Example

```toml
{EXAMPLE}```
"""
