"""The configuration file: its keys, reading and validating it, and merging it with flags
(which file applies to which path is `histnorm_cli.configs`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.json_schema import WithJsonSchema
from pydantic_core import ErrorDetails, to_jsonable_python

from histnorm import HistnormError, Settings
from histnorm.diagnostic import Severity
from histnorm.document import DETECT_MODES, JSONL_MODES
from histnorm.formats import CODECS
from histnorm.profiles import ALIASES, PROFILES
from histnorm.rules import resolve
from histnorm.selection import codes
from histnorm.settings import (
    ApprovalPolicy,
    InvalidArgumentsPolicy,
    OrphanCallPolicy,
    Scope,
    TailMode,
)
from histnorm_cli.config_keys import POLICY_FIELDS, ConfigError, build_settings
from histnorm_cli.files import DEFAULT_INCLUDE
from histnorm_cli.reporters import FORMATS


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _setting(name: str, default: Any = None, **schema: Any) -> Any:
    """A key that sets `Settings.<name>`: described by that field, with its default."""
    field = Settings.model_fields[name]
    value = field.get_default(call_default_factory=True)
    if value is not None:
        schema = {"default": to_jsonable_python(value), **schema}
    return Field(default, description=field.description, json_schema_extra=schema or None)


OUTPUT_FORMATS = ("auto", *FORMATS)
_CHOICES = {
    "output_format": ("output format", OUTPUT_FORMATS),
    "format": ("format", tuple(CODECS)),
    "jsonl_mode": ("mode", JSONL_MODES),
    "detect": ("mode", DETECT_MODES),
}
"""The keys that take one of a few names: what a name is, and the names."""


def _choice(key: str, default: str | None = None) -> Any:
    """A key that takes one of the names in `_CHOICES`."""
    schema: dict[str, Any] = {"enum": list(_CHOICES[key][1])}
    if default is not None:
        schema["default"] = default
    return Field(None, json_schema_extra=schema)


def _policy_schema() -> dict[str, Any]:
    values = {
        "orphan_tool_call": OrphanCallPolicy,
        "pending_approval": ApprovalPolicy,
        "invalid_tool_arguments": InvalidArgumentsPolicy,
    }
    properties = {
        name: {"type": "string", "enum": [str(v) for v in values[field]]}
        for name, field in POLICY_FIELDS.items()
    }
    return {"type": "object", "properties": properties, "additionalProperties": False}


class FileConfig(BaseModel):
    """The keys of `[tool.histnorm]` in pyproject.toml, or of histnorm.toml (kebab-case,
    as in ruff). A key left out takes its default; command-line options win over keys."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=_kebab,
        populate_by_name=True,
        use_attribute_docstrings=True,
        title="histnorm configuration",
    )

    select: list[str] | None = _setting("select")
    extend_select: list[str] = _setting("extend_select", [])
    ignore: list[str] = _setting("ignore", [])
    fixable: list[str] | None = _setting("fixable")
    unfixable: list[str] = _setting("unfixable", [])
    per_file_ignores: dict[str, list[str]] = {}
    """Rules ignored in the files a glob matches (relative to this file's folder)."""
    unsafe_fixes: StrictBool | None = _setting("unsafe_fixes")
    policy: Annotated[dict[str, str], WithJsonSchema(_policy_schema())] = {}
    """What `fix` does with an open item or bad arguments: `orphan-tool-call` (HN001),
    `pending-approval-request` (HN003) and `invalid-tool-arguments` (HN109) policies."""
    tail: TailMode | None = _setting("tail")
    scope: Scope | None = _setting("scope")
    profile: Annotated[
        str | None, WithJsonSchema({"type": "string", "enum": [*PROFILES, *ALIASES]})
    ] = _setting("profile")
    whitespace_is_empty: StrictBool | None = _setting("whitespace_is_empty")
    claude_code_line_limit: StrictInt | None = _setting(
        "claude_code_line_limit", exclusiveMinimum=0
    )
    severity: dict[str, Severity] = _setting("severity", {})
    output_format: str | None = _choice("output_format", "auto")
    """How `lint` prints diagnostics (`auto`: `github` on GitHub Actions, else `text`)."""
    format: str | None = _choice("format")
    """The input format of every file (default: detected per file)."""
    jsonl_mode: str | None = _choice("jsonl_mode", "auto")
    """How JSONL is read: `transcript` (one per line), `message` (one message per line)."""
    detect: str | None = _choice("detect", "file")
    """`file`: one format per file; `per-line`: each line (or array item) on its own."""
    include: list[str] | None = Field(None, json_schema_extra={"default": list(DEFAULT_INCLUDE)})
    """Globs of the files taken from folders."""
    exclude: list[str] = []
    """Patterns of files or folders to skip, as in .gitignore (relative to this file's folder)."""
    force_exclude: StrictBool | None = Field(None, json_schema_extra={"default": False})
    """Apply the excludes to paths named on the command line too (for pre-commit)."""
    respect_gitignore: StrictBool | None = Field(None, json_schema_extra={"default": True})
    """Skip the files .gitignore ignores when scanning folders."""
    _root: str = PrivateAttr(".")

    @field_validator(*_CHOICES)
    @classmethod
    def _one_of(cls, value: str | None, info: ValidationInfo) -> str | None:
        what, names = _CHOICES[info.field_name or ""]
        if value is not None and value not in names:
            raise ValueError(f"unknown {what} {value!r}; known: {', '.join(names)}")
        return value

    @property
    def root(self) -> str:
        """The folder of the configuration file ("." for none)."""
        return self._root


def plain(error: ErrorDetails) -> str:
    """`key: what is wrong` for one validation error, in histnorm's words."""
    key = _kebab(".".join(str(p) for p in error["loc"] if not isinstance(p, int)))
    kind = error["type"]
    if kind == "extra_forbidden":
        known = ", ".join(_kebab(name) for name in FileConfig.model_fields)
        return f"{key}: unknown key; known keys: {known}"
    if kind == "value_error" and "error" in error.get("ctx", {}):
        return f"{key}: {error['ctx']['error']}"
    wanted = error["msg"].removeprefix("Input should be ").replace("a valid ", "a ", 1)
    return f"{key}: expected {wanted}, got {error['input']!r}"


def _table(path: Path) -> tuple[dict[str, Any], str]:
    """The keys in `path` and how errors name their table: `[tool.histnorm]` of a
    pyproject.toml (or of a file with nothing but a `tool` table), else the whole file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if path.name != "pyproject.toml" and set(data) != {"tool"}:
        return data, ""
    tool = data.get("tool", {})
    table = tool.get("histnorm", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.histnorm] is not a table")
    return table, "[tool.histnorm] "


def load_config(path: Path) -> FileConfig:
    """Read and validate the configuration in `path`; raise `ConfigError` naming the file
    and the key."""
    table, where = _table(path)
    try:
        config = FileConfig.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {where}{plain(exc.errors()[0])}") from None
    for key, names in (
        ("select", config.select or []),
        ("extend-select", config.extend_select),
        ("ignore", config.ignore),
        ("fixable", config.fixable or []),
        ("unfixable", config.unfixable),
        ("severity", list(config.severity)),
        ("per-file-ignores", [n for v in config.per_file_ignores.values() for n in v]),
    ):
        for name in names:
            try:
                resolve(name) if key == "severity" else codes(name)
            except HistnormError as exc:
                raise ConfigError(f"{path}: {where}{key}: {exc}") from None
    try:
        build_settings(config, {})
    except ConfigError as exc:
        raise ConfigError(f"{path}: {where}{exc}") from None
    config._root = str(path.parent)
    return config
