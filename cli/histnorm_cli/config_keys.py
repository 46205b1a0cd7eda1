"""The configuration as a run reads it: the keys of no file at all, and the merge of a
configuration with the command line's flags into `Settings`.

Reading and validating a file is `histnorm_cli.config`, which builds a pydantic model; a run
with no configuration file never loads it (nor pydantic).
"""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from histnorm import HistnormError, Settings
from histnorm.diagnostic import Severity
from histnorm.rules import resolve
from histnorm.selection import codes
from histnorm.settings import Scope, SettingsError, TailMode

if TYPE_CHECKING:
    from histnorm_cli.config import FileConfig


class ConfigError(Exception):
    """A configuration file or option that histnorm cannot use (exit code 2)."""


POLICY_FIELDS = {
    "orphan-tool-call": "orphan_tool_call",
    "pending-approval-request": "pending_approval",
    "pending-approval": "pending_approval",
    "invalid-tool-arguments": "invalid_tool_arguments",
}


class NoConfig(NamedTuple):
    """The keys of a run that no configuration file applies to: each as `FileConfig`
    leaves it when the file does not set it (`tests/test_config_reference.py` holds the
    two to each other). A named tuple, as every run defines it: in Python 3.11 each
    dataclass costs millions of instructions to define."""

    select: list[str] | None
    extend_select: list[str]
    ignore: list[str]
    fixable: list[str] | None
    unfixable: list[str]
    per_file_ignores: dict[str, list[str]]
    unsafe_fixes: bool | None
    policy: dict[str, str]
    tail: TailMode | None
    scope: Scope | None
    profile: str | None
    whitespace_is_empty: bool | None
    claude_code_line_limit: int | None
    severity: dict[str, Severity]
    output_format: str | None
    format: str | None
    jsonl_mode: str | None
    detect: str | None
    include: list[str] | None
    exclude: list[str]
    force_exclude: bool | None
    respect_gitignore: bool | None
    root: str


NO_CONFIG = NoConfig(
    select=None,
    extend_select=[],
    ignore=[],
    fixable=None,
    unfixable=[],
    per_file_ignores={},
    unsafe_fixes=None,
    policy={},
    tail=None,
    scope=None,
    profile=None,
    whitespace_is_empty=None,
    claude_code_line_limit=None,
    severity={},
    output_format=None,
    format=None,
    jsonl_mode=None,
    detect=None,
    include=None,
    exclude=[],
    force_exclude=None,
    respect_gitignore=None,
    root=".",
)


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def build_settings(config: FileConfig | NoConfig, overrides: dict[str, Any]) -> Settings:
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
    keys = ("unsafe_fixes", "tail", "scope", "profile", "whitespace_is_empty")
    for key in (*keys, "claude_code_line_limit"):
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
    except SettingsError as exc:
        raise ConfigError(f"{_kebab(exc.field)}: {exc.problem}") from None
    except HistnormError as exc:
        raise ConfigError(str(exc)) from None
    return settings


def ignored_for(config: FileConfig | NoConfig, path: str) -> tuple[str, ...]:
    """The codes `per-file-ignores` switches off for `path`; patterns are relative to the
    folder of the configuration file."""
    relative = Path(os.path.relpath(path, config.root or ".")).as_posix()
    codes: list[str] = []
    for pattern, names in config.per_file_ignores.items():
        if fnmatch(relative, pattern) or fnmatch(Path(relative).name, pattern):
            codes.extend(names)
    return tuple(codes)
