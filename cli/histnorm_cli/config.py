"""`[tool.histnorm]` in pyproject.toml: discovery, validation and merging with flags."""

from __future__ import annotations

import os
import tomllib
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from histnorm import HistnormError, Settings
from histnorm.rules import resolve
from histnorm.selection import codes

POLICY_FIELDS = {
    "orphan-tool-call": "orphan_tool_call",
    "pending-approval-request": "pending_approval",
    "pending-approval": "pending_approval",
}


class ConfigError(Exception):
    """A configuration file or option that histnorm cannot use (exit code 2)."""


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class FileConfig(BaseModel):
    """The keys `[tool.histnorm]` accepts (kebab-case, as in ruff)."""

    model_config = ConfigDict(extra="forbid", alias_generator=_kebab, populate_by_name=True)

    select: list[str] | None = None
    extend_select: list[str] = []
    ignore: list[str] = []
    fixable: list[str] | None = None
    unfixable: list[str] = []
    per_file_ignores: dict[str, list[str]] = {}
    unsafe_fixes: bool | None = None
    policy: dict[str, str] = {}
    tail: str | None = None
    scope: str | None = None
    profile: str | None = None
    whitespace_is_empty: bool | None = None
    severity: dict[str, str] = {}
    output_format: str | None = None
    format: str | None = None
    jsonl_mode: str | None = None
    detect: str | None = None
    include: list[str] | None = None
    exclude: list[str] = []
    force_exclude: bool | None = None
    respect_gitignore: bool | None = None
    root: str | None = None
    """The folder of the configuration file (set when it is read, not a key)."""


def plain(error: ErrorDetails) -> str:
    """`key: what is wrong` for one validation error, in histnorm's words."""
    key = _kebab(".".join(str(p) for p in error["loc"]))
    kind = error["type"]
    if kind == "extra_forbidden":
        known = ", ".join(_kebab(name) for name in FileConfig.model_fields if name != "root")
        return f"{key}: unknown key; known keys: {known}"
    if kind == "value_error" and "error" in error.get("ctx", {}):
        return f"{key}: {error['ctx']['error']}"
    wanted = error["msg"].removeprefix("Input should be ").replace("a valid ", "a ", 1)
    return f"{key}: expected {wanted}, got {error['input']!r}"


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a `[tool.histnorm]` table."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return candidate  # load_config reports what is wrong with it
            if "histnorm" in data.get("tool", {}):
                return candidate
    return None


def load_config(path: Path) -> FileConfig:
    """Read and validate `[tool.histnorm]` from `path`; raise `ConfigError` naming the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("histnorm", {})
    try:
        config = FileConfig.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(f"{path}: [tool.histnorm] {plain(exc.errors()[0])}") from None
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
                raise ConfigError(f"{path}: [tool.histnorm] {key}: {exc}") from None
    return config.model_copy(update={"root": str(path.parent)})


def build_settings(config: FileConfig, overrides: dict[str, Any]) -> Settings:
    """Merge the file's settings with command-line overrides (flags win) and validate.
    As in ruff, `--select` replaces the file's `select` and `extend-select`, `--fixable`
    its `fixable` and `unfixable`; `--extend-select`, `--ignore` and `--unfixable` add."""
    values: dict[str, Any] = {}
    if config.select is not None:
        values["select"] = tuple(config.select)
    values["ignore"] = tuple(config.ignore)
    replaced = overrides.get("select") is not None
    values["extend_select"] = (() if replaced else tuple(config.extend_select)) + tuple(
        overrides.pop("extend_select", ())
    )
    if config.fixable is not None:
        values["fixable"] = tuple(config.fixable)
    replaced = overrides.get("fixable") is not None
    values["unfixable"] = (() if replaced else tuple(config.unfixable)) + tuple(
        overrides.pop("extend_unfixable", ())
    )
    for key in ("unsafe_fixes", "tail", "scope", "profile", "whitespace_is_empty"):
        if getattr(config, key) is not None:
            values[key] = getattr(config, key)
    if config.severity:
        values["severity"] = dict(config.severity)
    policies = dict(config.policy)
    policies.update(overrides.pop("policy", {}))
    for name, value in policies.items():
        if name not in POLICY_FIELDS:
            known = ", ".join(sorted(POLICY_FIELDS))
            raise ConfigError(f"unknown policy {name!r}; known policies: {known}")
        values[POLICY_FIELDS[name]] = value
    extra_ignore = overrides.pop("extend_ignore", ())
    values.update({k: v for k, v in overrides.items() if v is not None})
    values["ignore"] = tuple(values.get("ignore", ())) + tuple(extra_ignore)
    try:
        settings = Settings.model_validate(values)
        for name in (
            *(settings.select or ()),
            *settings.extend_select,
            *settings.ignore,
            *(settings.fixable or ()),
            *settings.unfixable,
        ):
            codes(name)
        for name in settings.severity:
            resolve(name)
    except ValidationError as exc:
        raise ConfigError(plain(exc.errors()[0])) from None
    except HistnormError as exc:
        raise ConfigError(str(exc)) from None
    return settings


def ignored_for(config: FileConfig, path: str) -> tuple[str, ...]:
    """The codes `per-file-ignores` switches off for `path`; patterns are relative to the
    folder of the configuration file."""
    relative = Path(os.path.relpath(path, config.root or ".")).as_posix()
    codes: list[str] = []
    for pattern, names in config.per_file_ignores.items():
        if fnmatch(relative, pattern) or fnmatch(Path(relative).name, pattern):
            codes.extend(names)
    return tuple(codes)
