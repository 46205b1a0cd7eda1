"""Which configuration each file gets, found per folder as ruff finds it.

A folder's configuration is the nearest `.histnorm.toml`, `histnorm.toml` or
`pyproject.toml` with a `[tool.histnorm]` table (in that order within one folder) in it
or above it; the search stops at the top of a git repository (the folder holding `.git`)
or at the filesystem root. A file whose folders have none gets the configuration found
so from the working directory (the run's own), or the defaults. `--config` gives every
file the one file. Each folder is looked up once, and each configuration file read once.

The run's own configuration also sets what holds for the whole run: `output-format`,
`force-exclude` and `respect-gitignore`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from histnorm._record import record
from histnorm.settings import Settings
from histnorm_cli.config_keys import NO_CONFIG, ConfigError, NoConfig, build_settings, ignored_for
from histnorm_cli.discovery import Discovery, Patterns
from histnorm_cli.files import DEFAULT_INCLUDE, STDIN
from histnorm_cli.gitignore import GitIgnore
from histnorm_cli.job import Job

if TYPE_CHECKING:
    from histnorm_cli.config import FileConfig
    from histnorm_cli.run import Request

CONFIG_NAMES = (".histnorm.toml", "histnorm.toml", "pyproject.toml")
"""The names of configuration files, the first found in a folder winning."""


def own_config(folder: str) -> Path | None:
    """The configuration file in `folder` itself, if any (a pyproject.toml counts only
    with a `[tool.histnorm]` table, or when it cannot be read: loading it says why)."""
    for name in CONFIG_NAMES:
        candidate = os.path.join(folder, name)
        if not os.path.isfile(candidate):
            continue
        if name != "pyproject.toml" or _has_table(candidate):
            return Path(candidate)
    return None


def _has_table(path: str) -> bool:
    import tomllib  # only where a pyproject.toml is found

    try:
        with open(path, "rb") as stream:
            data = tomllib.load(stream)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    tool = data.get("tool")
    return isinstance(tool, dict) and "histnorm" in tool


def _shown(path: Path) -> Path:
    """`path` relative to the working directory when it lies inside it."""
    if not path.is_absolute():
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else Path(relative)


@record(frozen=True)
class Resolved:
    """A configuration, with the settings it and the flags give."""

    config: FileConfig | NoConfig
    settings: Settings


class Resolver:
    """The configuration of each folder (an absolute path), found and loaded once."""

    def __init__(self, fixed: str | None, overrides: dict[str, Any]) -> None:
        """Find (or, with `fixed`, load) the run's own configuration; raise
        `ConfigError` if it or a flag is bad (that stops the whole run)."""
        self.overrides = overrides
        self.fixed = fixed is not None
        self._nearest: dict[str, Path | None] = {}
        self._loaded: dict[Path, Resolved | ConfigError] = {}
        found = Path(fixed) if fixed is not None else self.nearest(os.getcwd())
        config = load_config(_shown(found)) if found is not None else NO_CONFIG
        self.run = Resolved(config, build_settings(config, dict(overrides)))
        if found is not None:
            self._loaded[found] = self.run

    def nearest(self, folder: str) -> Path | None:
        """The configuration file nearest `folder`, at or above it."""
        walked: list[str] = []
        current, found = folder, None
        while True:
            if current in self._nearest:
                found = self._nearest[current]
                break
            walked.append(current)
            found = own_config(current)
            parent = os.path.dirname(current)
            if found is not None or parent == current:
                break
            if os.path.exists(os.path.join(current, ".git")):
                break
            current = parent
        for name in walked:
            self._nearest[name] = found
        return found

    def for_folder(self, folder: str) -> Resolved | ConfigError:
        """What applies to the files in `folder` (absolute), or why nothing can."""
        found = None if self.fixed else self.nearest(folder)
        if found is None:
            return self.run
        if found not in self._loaded:
            self._loaded[found] = self._load(_shown(found))
        return self._loaded[found]

    def _load(self, path: Path) -> Resolved | ConfigError:
        try:
            config = load_config(path)
        except ConfigError as exc:
            return exc
        try:
            return Resolved(config, build_settings(config, dict(self.overrides)))
        except ConfigError as exc:
            return ConfigError(f"{path}: {exc}")

    def for_path(self, path: str) -> Resolved | ConfigError:
        """What applies to the file `path`."""
        return self.for_folder(os.path.dirname(os.path.abspath(path)))


class Jobs:
    """The job of each file: its configuration's settings and choices, the flags over
    them, and its `per-file-ignores` (one job per configuration, shared)."""

    def __init__(
        self, request: Request, *, show_fixes: bool = False, versions: bool = False
    ) -> None:
        self.request = request
        self.show_fixes = show_fixes
        """Whether jobs keep each fix applied (`Job.show_fixes`)."""
        self.versions = versions
        """Whether jobs keep a changed document's bytes before and after (`Job.versions`)."""
        self._jobs: dict[int, Job] = {}
        self._failed: set[str] = set()

    def failed(self, error: ConfigError) -> bool:
        """Whether `error` (a configuration that cannot be used) is new: said once."""
        new = str(error) not in self._failed
        self._failed.add(str(error))
        return new

    def job(self, resolved: Resolved, path: str, stdin: bool) -> Job:
        """The job for the file `path` (or standard input read as `path`)."""
        request, config = self.request, resolved.config
        base = self._jobs.get(id(resolved))
        if base is None:
            base = self._jobs[id(resolved)] = Job(
                mode=request.mode,
                settings=resolved.settings,
                format=request.format or config.format,
                jsonl_mode=request.jsonl_mode or config.jsonl_mode or "auto",
                detect=request.detect or config.detect or "file",
                write=request.mode == "fix" and not (request.check or request.diff),
                diff=request.diff,
                output=request.output,
                backup=request.backup,
                show_fixes=self.show_fixes,
                versions=self.versions,
            )
        job = _job_for(base, config, resolved.settings, path)
        return replace(job, stdin=True) if stdin else job


def discovery_for(request: Request, resolver: Resolver) -> Discovery:
    """Flags win over the configuration; exclude patterns are anchored to the folder of
    the file that gives them (the working directory for flags). Include and exclude come
    from each folder's configuration; the switches from the run's own."""
    config = resolver.run.config
    cache: dict[int, Patterns] = {}
    unusable = NO_CONFIG  # a folder whose configuration is bad: its files are errors

    def local(folder: str) -> Patterns:
        resolved = resolver.for_folder(folder)
        own = resolved.config if isinstance(resolved, Resolved) else unusable
        patterns = cache.get(id(own))
        if patterns is None:
            patterns = cache[id(own)] = _patterns(request, own)
        return patterns

    return Discovery(
        force_exclude=bool(_first(request.force_exclude, config.force_exclude, False)),
        respect_gitignore=bool(_first(request.respect_gitignore, config.respect_gitignore, True)),
        local=local,
    )


def _patterns(request: Request, config: FileConfig | NoConfig) -> Patterns:
    exclude, base = (request.exclude, ".") if request.exclude else (config.exclude, config.root)
    include = request.include or config.include or list(DEFAULT_INCLUDE)
    return Patterns(tuple(include), GitIgnore.of(list(exclude)), base)


def _first(*values: bool | None) -> bool | None:
    return next((v for v in values if v is not None), None)


def _job_for(base: Job, config: FileConfig | NoConfig, settings: Settings, path: str) -> Job:
    if path == STDIN or not config.per_file_ignores:
        return base
    extra = ignored_for(config, path)
    if not extra:
        return base
    return replace(base, settings=settings.model_copy(update={"ignore": settings.ignore + extra}))


def load_config(path: Path) -> FileConfig:
    """Read and validate the configuration file `path` (`histnorm_cli.config`, loaded
    only when a run has a configuration file)."""
    from histnorm_cli.config import load_config as load

    return load(path)
