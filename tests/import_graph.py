"""The static import graph of first-party packages, read with `ast` (nothing is imported).

An edge is one import statement naming a first-party module, with its line and its kind:

- `module`: runs when the importer is imported (top level, class bodies, `try`, `if`);
- `function`: runs when a function is called (a lazy import inside a `def` or `lambda`);
- `type`: never runs (inside `if TYPE_CHECKING:`), a dependency of the annotations only.

All three are dependencies in design terms, so a cycle through any of them is a cycle: a lazy
import only defers the cycle to the first call, and a type-only one still ties the layers.

What an import statement depends on:

- `import a.b.c` depends on `a.b.c`; `from a.b import c` on `a.b` (its namespace is read) and,
  when `a.b.c` is a module, on `a.b.c` too. So `from histnorm import jsonio` depends on the
  package face `histnorm/__init__.py`, and `import histnorm.jsonio as jsonio` does not.
- Importing `a.b.c` first runs the `__init__` of every enclosing package, so it also depends on
  `a.b` and `a`, unless the importer is inside that package (then the package is already
  initialised, or being initialised, by the time the importer runs). `histnorm.shape` importing
  `histnorm.rules.invalid_call_id` thus depends on `histnorm.rules`, the whole registry.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Literal, NamedTuple

Kind = Literal["module", "function", "type"]


class Edge(NamedTuple):
    """One dependency of `importer` on `target`, made by the import on `line`."""

    importer: str
    target: str
    line: int
    kind: Kind
    names: tuple[str, ...]
    """The names the statement imports from `target` (empty for `import target`)."""
    implied: bool = False
    """`target` is a package whose `__init__` runs before the module the statement names."""

    def __str__(self) -> str:
        how = "enclosing package of the import" if self.implied else "import"
        return f"{self.importer} -> {self.target} ({how} on line {self.line}, {self.kind}-level)"


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of `package` (a directory under `root`), by dotted name."""
    found: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(
    node: ast.AST, kind: Kind = "module"
) -> Iterator[tuple[ast.Import | ast.ImportFrom, Kind]]:
    """Every import statement under `node`, with the kind of import it is."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, kind
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for statement in child.body:
                yield from _statements(ast.Module(body=[statement], type_ignores=[]), "type")
            for statement in child.orelse:
                yield from _statements(ast.Module(body=[statement], type_ignores=[]), kind)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _statements(child, "type" if kind == "type" else "function")
        else:
            yield from _statements(child, kind)


def _absolute(importer: str, is_package: bool, statement: ast.ImportFrom) -> str:
    if not statement.level:
        return statement.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (statement.level - 1)]
    return ".".join(base + ([statement.module] if statement.module else []))


def edges(known: Mapping[str, Path]) -> list[Edge]:
    """Every dependency between the `known` modules."""
    out: list[Edge] = []
    for importer, path in known.items():
        is_package = path.name == "__init__.py"
        for statement, kind in _statements(ast.parse(path.read_text(), str(path))):
            direct: list[tuple[str, tuple[str, ...]]] = []
            if isinstance(statement, ast.Import):
                direct += [(alias.name, ()) for alias in statement.names]
            else:
                source = _absolute(importer, is_package, statement)
                names = tuple(alias.name for alias in statement.names)
                direct.append((source, names))
                direct += [(f"{source}.{n}", ()) for n in names if f"{source}.{n}" in known]
            for target, names in direct:
                if target not in known or target == importer:
                    continue
                out.append(Edge(importer, target, statement.lineno, kind, names))
                parts = target.split(".")
                for depth in range(1, len(parts)):
                    package = ".".join(parts[:depth])
                    inside = importer == package or importer.startswith(package + ".")
                    if package in known and not inside and package != importer:
                        out.append(Edge(importer, package, statement.lineno, kind, (), True))
    unique: dict[tuple[str, str, int], Edge] = {}
    for edge in out:
        unique.setdefault((edge.importer, edge.target, edge.line), edge)
    return list(unique.values())


def cycles(graph: Iterable[Edge], within: str) -> list[list[Edge]]:
    """One cycle through each strongly connected group of modules of package `within`."""
    following: dict[str, dict[str, Edge]] = {}
    for edge in graph:
        if _inside(edge.importer, within) and _inside(edge.target, within):
            following.setdefault(edge.importer, {}).setdefault(edge.target, edge)
    found: list[list[Edge]] = []
    done: set[str] = set()
    for start in sorted(following):
        if start in done:
            continue
        loop = _loop_from(start, following)
        if loop is not None:
            found.append(loop)
            done |= _reach(start, following) & _reach(start, _reversed(following))
    return found


def _reach(start: str, following: Mapping[str, Iterable[str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for target in following.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _reversed(following: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    back: dict[str, set[str]] = {}
    for node, targets in following.items():
        for target in targets:
            back.setdefault(target, set()).add(node)
    return back


def _loop_from(start: str, following: Mapping[str, Mapping[str, Edge]]) -> list[Edge] | None:
    """The shortest cycle through `start` (breadth first), or None."""
    came: dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        ahead: list[str] = []
        for node in frontier:
            for target, edge in sorted(following.get(node, {}).items()):
                if target == start:
                    path = [edge]
                    while path[0].importer != start:
                        path.insert(0, came[path[0].importer])
                    return path
                if target not in came:
                    came[target] = edge
                    ahead.append(target)
        frontier = ahead
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def public_names(path: Path) -> frozenset[str]:
    """The names a module defines itself at top level (not ones it imports), without a
    leading underscore."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(n for n in names if not n.startswith("_"))
