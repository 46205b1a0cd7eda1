"""Which files a run takes: named paths, folder scans, excludes and `.gitignore`.

A folder scan (a folder named, or the working directory when no path is given) never
enters a hidden folder nor one of `DEFAULT_EXCLUDE`, nor a folder or file an exclude
pattern or (unless `respect_gitignore` is off) a `.gitignore` matches. Nor does it take
a file of `DEFAULT_EXCLUDE_FILES` (tool configurations and lock files). The `.gitignore`
files read are those in the scanned folders and, inside a git repository, those of its
parent folders up to the repository's top and `.git/info/exclude`. A file named on the
command line is always taken, unless `force_exclude` is on: then the default and the
user's exclude patterns apply to it too (not `.gitignore`: a file pre-commit passes is
tracked).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from dataclasses import field
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

from histnorm._record import record
from histnorm_cli.files import DEFAULT_INCLUDE, STDIN, TEMPORARY
from histnorm_cli.gitignore import GitIgnore
from histnorm_cli.identity import regular_error
from histnorm_cli.postgres import is_url

DEFAULT_EXCLUDE = (".git", ".venv", "venv", "node_modules", "__pycache__", "site-packages")
"""Folders never scanned (hidden folders, whose names start with a dot, neither)."""
DEFAULT_EXCLUDE_FILES = (
    "tsconfig*.json",
    "jsconfig*.json",
    ".eslintrc*",
    ".babelrc*",
    ".swcrc",
    "tslint.json",
    "biome.json",
    "deno.json",
    "devcontainer.json",
    ".devcontainer.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "composer.lock",
    "Pipfile.lock",
    "flake.lock",
    "deno.lock",
    "bun.lock",
)
"""Files never taken from a folder: tool configurations (JSON with comments, as
`tsconfig.json`) and lock files, which are never transcripts."""


@cache
def _defaults() -> GitIgnore:
    """The default excludes, compiled when a run first scans a folder or excludes a named
    path (a run that does neither compiles none of their patterns)."""
    return GitIgnore.of([f"{name}/" for name in DEFAULT_EXCLUDE] + [".*/", *DEFAULT_EXCLUDE_FILES])


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _relative(path: str, base: str) -> tuple[str, bool]:
    """`path` relative to `base` ("" for itself, leading `..` dropped), and whether it
    lies inside `base`."""
    parts = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(base))).parts
    inside = not parts or parts[0] != ".."
    while parts and parts[0] in ("..", "."):
        parts = parts[1:]
    return "/".join(parts), inside


@record(frozen=True)
class Patterns:
    """The include globs and exclude patterns that hold in a folder, and the folder
    anchored patterns are relative to."""

    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: GitIgnore = field(default_factory=lambda: GitIgnore.of([]))
    base: str = "."

    def excludes(self, rel: str, inside: bool, is_dir: bool) -> bool:
        """Whether the exclude patterns match `rel` (relative to `base`; anchored
        patterns only apply `inside` it)."""
        for pattern in reversed(self.exclude.patterns):
            if (inside or not pattern.anchored) and pattern.matches(rel, is_dir):
                return not pattern.negated
        return False


@record
class Discovery:
    """How to find files: the patterns and switches of the command line and config."""

    include: tuple[str, ...] | list[str] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] | list[str] = ()
    exclude_base: str = "."
    """The folder anchored exclude patterns are relative to."""
    force_exclude: bool = False
    respect_gitignore: bool = True
    local: Callable[[str], Patterns] | None = None
    """The patterns that hold in a folder (an absolute path), when they differ from
    folder to folder (one configuration per folder); None: `include` and `exclude`."""
    excluded: list[str] = field(default_factory=list)
    """The named paths `force_exclude` left out (filled in by `expand`)."""

    def __post_init__(self) -> None:
        self._fixed = Patterns(
            tuple(self.include), GitIgnore.of(list(self.exclude)), self.exclude_base
        )

    def patterns(self, folder: str) -> Patterns:
        """The patterns that hold in `folder`."""
        if self.local is None:
            return self._fixed
        return self.local(os.path.abspath(folder))

    def force_excluded(self, path: str) -> bool:
        """Whether `force_exclude` leaves out a named path: it or a folder above it (below
        the exclude base) matches a default or user exclude pattern."""
        patterns = self.patterns(os.path.dirname(os.path.abspath(path)))
        rel, inside = _relative(path, patterns.base)
        parts = rel.split("/") if rel else []
        for end in range(1, len(parts) + 1):
            prefix = "/".join(parts[:end])
            is_dir = end < len(parts) or os.path.isdir(path)
            if _defaults().match(prefix, is_dir) or patterns.excludes(prefix, inside, is_dir):
                return True
        return False


def _repository_top(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _read(path: Path, base: str) -> GitIgnore | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return GitIgnore.parse(text, "" if base == "." else base)


def _inherited(root: Path) -> tuple[Path, list[GitIgnore]]:
    """The folder `.gitignore` paths are relative to (the repository's top, else `root`),
    and the rules that apply to `root` from above it (most specific first)."""
    top = _repository_top(root)
    if top is None:
        return root, []
    rules: list[GitIgnore] = []
    for folder in reversed([root.parent, *root.parent.parents]):
        if folder.is_relative_to(top):
            found = _read(folder / ".gitignore", folder.relative_to(top).as_posix())
            if found is not None:
                rules.insert(0, found)
    exclude = _read(top / ".git" / "info" / "exclude", "")
    if exclude is not None:
        rules.append(exclude)
    return top, rules


def _ignored(rules: list[GitIgnore], rel: str, is_dir: bool) -> bool:
    for ruleset in rules:
        verdict = ruleset.match(rel, is_dir)
        if verdict is not None:
            return verdict
    return False


@record
class _Folder:
    """A folder being scanned, with its path relative to each root patterns use."""

    path: str
    own: str
    """Relative to the scanned folder (for the default excludes)."""
    patterns: Patterns
    user: str
    """Relative to the base of `patterns`."""
    inside: bool
    """Whether the folder lies inside that base."""
    top: str
    """Relative to the repository's top (for `.gitignore`)."""
    rules: list[GitIgnore]


def _folder(path: str, own: str, discovery: Discovery, parent: _Folder | None) -> _Folder:
    patterns = discovery.patterns(path)
    if parent is not None and patterns is parent.patterns:
        user, inside = _join(parent.user, os.path.basename(path)), parent.inside
    else:
        user, inside = _relative(path, patterns.base)
    top = _join(parent.top, os.path.basename(path)) if parent is not None else ""
    return _Folder(path, own, patterns, user, inside, top, parent.rules if parent else [])


def scan(folder: Path, discovery: Discovery) -> list[Path]:
    """The regular files below `folder` to take, sorted; a symlink is taken only when it
    points to a file inside `folder`, and one file reached by several names once."""
    root = folder.resolve()
    start = Path(os.path.abspath(folder))
    top, inherited = _inherited(start) if discovery.respect_gitignore else (start, [])
    first = _folder(str(folder), "", discovery, None)
    first.top, first.rules = _relative(str(folder), str(top))[0], inherited
    stack = [first]
    chosen: dict[str, Path] = {}
    while stack:
        here = stack.pop()
        rules = here.rules
        if discovery.respect_gitignore:
            own = _read(Path(here.path) / ".gitignore", here.top)
            rules = here.rules = rules if own is None else [own, *rules]
        try:
            entries = sorted(os.scandir(here.path), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            own_rel, user_rel = _join(here.own, entry.name), _join(here.user, entry.name)
            top_rel = _join(here.top, entry.name)
            if (
                _defaults().match(own_rel, is_dir)
                or here.patterns.excludes(user_rel, here.inside, is_dir)
                or (discovery.respect_gitignore and _ignored(rules, top_rel, is_dir))
            ):
                continue
            path = os.path.join(here.path, entry.name)
            if is_dir:
                stack.append(_folder(path, own_rel, discovery, here))
            else:
                _take(Path(path), root, here, chosen)
    return sorted(chosen.values())


def _take(path: Path, root: Path, here: _Folder, chosen: dict[str, Path]) -> None:
    if TEMPORARY.fullmatch(path.name) or not _included(path, here):
        return
    link = path.is_symlink()
    real = path.resolve()
    if (link and not real.is_relative_to(root)) or not path.is_file():
        return  # out of the folder, dangling, a symlink to a folder, or no regular file
    key = str(real)
    if key not in chosen or (chosen[key].is_symlink() and not link):
        chosen[key] = path


def _included(path: Path, here: _Folder) -> bool:
    """Whether an include glob matches the file's name or (a glob with a slash) its path
    relative to the base of the folder's patterns."""
    rel = _join(here.user, path.name)
    return any(
        fnmatch(path.name, p) or ("/" in p and fnmatch(rel, p)) for p in here.patterns.include
    )


def expand(paths: list[str], discovery: Discovery) -> Iterator[tuple[str, str | None]]:
    """Yield (path, error) for each file named or found below a named folder, sorted.

    Files named explicitly are taken (a symlink is followed) unless `force_exclude`
    leaves them out; files found in folders are those `scan` takes. A path that does not
    exist, or is a FIFO, device or socket, yields an error instead.
    """
    seen: set[str] = set()
    for name in paths:
        if name == STDIN or is_url(name):
            yield name, None  # a PostgreSQL database is named by its connection string
            continue
        path = Path(name)
        if discovery.force_exclude and os.path.lexists(name) and discovery.force_excluded(name):
            discovery.excluded.append(name)
        elif path.is_dir():
            for file in scan(path, discovery):
                if _new(file, seen):
                    yield str(file), None
        elif path.exists():
            if _new(path, seen):
                yield name, regular_error(name)
        else:
            yield name, f"{name}: {_missing(name)}"


def _missing(name: str) -> str:
    """Why a named path that is no file or folder cannot be read."""
    try:
        os.stat(name)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop (a symlink that, followed, leads back to itself)"
        if os.path.islink(name):
            return f"a broken symlink (it points to {os.readlink(name)}, which does not exist)"
        if exc.errno not in (errno.ENOENT, None):
            return exc.strerror or str(exc)
    return "no such file or directory"


def _new(path: Path, seen: set[str]) -> bool:
    """Whether `path` names a file not yielded yet (by this or another name)."""
    keys = {os.path.normpath(path), os.path.realpath(path)}
    if keys & seen:
        return False
    seen.update(keys)
    return True
