"""The import graph of the core: one direction, no cycles, no reach into the CLI or a rule.

The graph is read statically (`tests/import_graph.py`): module-level, lazy (function-level)
and type-only imports all count, because each one is a dependency the design has to carry.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from import_graph import Edge, cycles, edges, modules, public_names

ROOT = Path(__file__).resolve().parents[1]
MODULES = modules(ROOT, "histnorm") | modules(ROOT / "cli", "histnorm_cli")
GRAPH = edges(MODULES)
CORE = [edge for edge in GRAPH if edge.importer.startswith("histnorm.")]
"""What the modules of the core import (`histnorm/__init__.py`, the face, is not one)."""

HEAVY = ("histnorm_cli", "typer", "click", "rich", "jsonschema", "hypothesis", "pytest")
"""What `import histnorm` must not load: the CLI and what only the CLI or the tests use."""

FRAMEWORKS = (
    "langchain",
    "langchain_core",
    "langgraph",
    "langsmith",
    "agents",
    "litellm",
    "agent_framework",
    "ray",
    "dask",
    "openai",
    "anthropic",
    "pydantic_ai",
    "datasets",
    "google",
    "crewai",
)
"""What only an adapter of `histnorm.integrations` loads, when it is itself imported."""


def _lines(found: list[Edge]) -> str:
    return "\n".join(f"  {edge}" for edge in found)


def test_the_graph_reads_every_kind_of_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from pkg import a\n")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "import pkg.sub.c as c\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.sub.c import T\n"
        "def f():\n"
        "    from .b import g\n"
    )
    (package / "b.py").write_text("from pkg import a\n")
    (package / "sub" / "__init__.py").write_text("from . import c\n")
    (package / "sub" / "c.py").write_text("from ..b import g\n")
    graph = edges(modules(tmp_path, "pkg"))
    found = {(e.importer, e.target, e.kind, e.implied) for e in graph}
    assert found == {
        ("pkg", "pkg.a", "module", False),
        ("pkg.a", "pkg.sub.c", "module", False),
        ("pkg.a", "pkg.sub", "module", True),
        ("pkg.a", "pkg.sub.c", "type", False),
        ("pkg.a", "pkg.sub", "type", True),
        ("pkg.a", "pkg.b", "function", False),
        ("pkg.b", "pkg", "module", False),
        ("pkg.b", "pkg.a", "module", False),
        ("pkg.sub", "pkg.sub.c", "module", False),
        ("pkg.sub.c", "pkg.b", "module", False),
    }
    loops = cycles(graph, "pkg")
    assert len(loops) == 1
    assert [(e.importer, e.target) for e in loops[0]] == [
        ("pkg", "pkg.a"),
        ("pkg.a", "pkg.b"),
        ("pkg.b", "pkg"),
    ]


def test_the_graph_sees_the_real_imports() -> None:
    assert len(MODULES) > 100
    assert any(e.importer == "histnorm.engine" and e.target == "histnorm.rules" for e in GRAPH)
    assert any(e.importer == "histnorm_cli.app" and e.target.startswith("histnorm") for e in GRAPH)


def test_no_import_cycles_in_the_core() -> None:
    found = cycles(GRAPH, "histnorm")
    assert not found, "import cycles in histnorm (each line imports the next):\n" + "\n\n".join(
        _lines(loop) for loop in found
    )


ENTRY_POINT = "histnorm.__main__"
"""`python -m histnorm` runs the command: the one module of the package that may import
the CLI. Nothing imports it (checked below), so the core never loads the CLI."""


def test_the_core_never_imports_the_cli() -> None:
    found = [
        e
        for e in GRAPH
        if e.importer.split(".")[0] == "histnorm"
        and e.importer != ENTRY_POINT
        and e.target.split(".")[0] == "histnorm_cli"
    ]
    assert not found, "the core imports the CLI:\n" + _lines(found)


def test_nothing_imports_the_entry_point() -> None:
    found = [e for e in GRAPH if e.target == ENTRY_POINT]
    assert not found, "modules import histnorm.__main__:\n" + _lines(found)


def test_only_the_rule_registry_is_imported_from_outside_the_rules() -> None:
    """Outside `histnorm/rules/`, a rule is reached through the registry `histnorm.rules`
    (`ALL_RULES`, `FIX_ORDER`, `BY_CODE`, `BY_NAME`, `resolve`), never through its module:
    what a rule module holds besides its `RULE` is its own business."""
    registry = public_names(MODULES["histnorm.rules"])
    assert {"ALL_RULES", "FIX_ORDER", "resolve"} <= registry
    outside = [e for e in GRAPH if not e.importer.startswith("histnorm.rules")]
    found = [
        e
        for e in outside
        if e.target.startswith("histnorm.rules.")
        or (e.target == "histnorm.rules" and not set(e.names) <= registry)
    ]
    assert not found, (
        "imports of a rule's internals (import what is shared from a core module, and rules "
        f"from histnorm.rules: {', '.join(sorted(registry))}):\n" + _lines(found)
    )


def test_no_core_module_imports_the_package_face() -> None:
    """`histnorm/__init__.py` is the public API, built on the core: a core module that
    imports from it (even `from histnorm import jsonio`, which reads its namespace) depends on
    everything the face imports. Write `import histnorm.jsonio as jsonio` instead."""
    found = [e for e in CORE if e.target == "histnorm"]
    assert not found, "core modules that import the package face:\n" + _lines(found)


def test_import_histnorm_loads_neither_the_cli_nor_its_dependencies() -> None:
    path = os.pathsep.join([str(ROOT), str(ROOT / "cli")])
    env = {**os.environ, "PYTHONPATH": path}
    code = "import histnorm, sys; print(histnorm.__file__); print(*sorted(sys.modules))"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    where, loaded = completed.stdout.splitlines()
    assert Path(where).is_relative_to(ROOT / "histnorm")
    heavy = sorted(m for m in loaded.split() if m.split(".")[0] in HEAVY)
    assert not heavy, f"import histnorm loads {heavy}"


MODEL_MODULES = (
    "pydantic",
    "histnorm.model",
    "histnorm.report",
    "histnorm.plain",
    "histnorm.objects",
)
"""pydantic and the models of transcripts and reports: loaded only when a model is needed."""

_LINT = (
    "import json, sys\n"
    "from histnorm_cli import main\n"
    "def loaded():\n"
    "    print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    "import atexit; atexit.register(loaded)\n"
    "sys.argv = ['histnorm', 'lint', sys.argv[1]]\n"
    "main()\n"
)

_HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Where is order 8801?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "lookup_order", "arguments": '{"order_id": 8801}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "shipped"}'},
    {"role": "assistant", "content": "It has shipped."},
    {"role": "user", "content": "Thanks."},
]


def _lint_in_a_process(path: Path) -> tuple[int, str, set[str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "cli")])}
    completed = subprocess.run(
        [sys.executable, "-c", _LINT, str(path)], capture_output=True, text=True, env=env
    )
    *_, modules = completed.stderr.splitlines()
    return completed.returncode, completed.stdout, set(json.loads(modules))


def test_linting_a_clean_transcript_builds_no_model(tmp_path: Path) -> None:
    """`histnorm lint` of a transcript its outline proves clean reads no model: neither
    pydantic nor the models (`histnorm.model`, the report models) are even imported."""
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps({"messages": _HISTORY}))
    code, out, loaded = _lint_in_a_process(clean)
    assert code == 0, out
    assert "histnorm.engine" in loaded  # it did lint
    assert not loaded & set(MODEL_MODULES), sorted(loaded & set(MODEL_MODULES))


_REPAIR = (
    "import json, sys\n"
    "import histnorm\n"
    "history = json.loads(sys.argv[1])\n"
    "result = histnorm.repair(history)\n"
    "print(json.dumps([result.value is history, result.changed, result.format]))\n"
    "print(json.dumps(sorted(sys.modules)))\n"
)


@pytest.mark.parametrize("damaged", [False, True], ids=["clean", "damaged"])
def test_repairing_a_clean_history_builds_no_model(damaged: bool) -> None:
    """`repair()` of a list of plain message dicts that its reader proves clean hands the
    list back as it is, without copying it or loading pydantic; a damaged one builds the
    model it fixes."""
    history = [m for m in _HISTORY if not (damaged and "tool_calls" in m)]  # a lone result
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "cli")])}
    completed = subprocess.run(
        [sys.executable, "-c", _REPAIR, json.dumps(history)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    answer, modules = completed.stdout.splitlines()
    assert json.loads(answer) == [not damaged, damaged, "openai-chat"]
    models = set(json.loads(modules)) & set(MODEL_MODULES)
    assert bool(models) is damaged, sorted(models)


def test_a_lint_imports_only_the_codecs_that_may_read_the_file(tmp_path: Path) -> None:
    """`histnorm.formats.CODECS` imports a codec the first time it is asked for: a lint
    of an OpenAI Chat history loads the codecs detection asks (those whose format the
    history's keys could be) and no other, not the session formats' code for their rules."""
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps({"messages": _HISTORY}))
    code, out, loaded = _lint_in_a_process(clean)
    assert code == 0, out
    assert "histnorm.formats.openai_chat" in loaded
    others = {"gemini", "codex", "claude_code", "pydantic_ai", "vercel_ai", "meai", "trl"}
    assert not {f"histnorm.formats.{name}" for name in others} & loaded


def test_the_codec_registry_builds_each_codec_once_on_first_use() -> None:
    from histnorm.choices import FORMAT_NAMES
    from histnorm.formats import CODECS, get_codec

    assert tuple(CODECS) == FORMAT_NAMES and len(CODECS) == len(FORMAT_NAMES)
    assert "gemini" in CODECS and "nope" not in CODECS
    assert CODECS["gemini"] is get_codec("gemini") is CODECS.get("gemini")
    assert CODECS.get("nope") is None
    assert [codec.name for codec in CODECS.values()] == list(FORMAT_NAMES)


def test_linting_a_damaged_transcript_loads_the_model_it_needs(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps({"messages": [m for m in _HISTORY if m["role"] != "tool"]}))
    code, out, loaded = _lint_in_a_process(damaged)
    assert code == 1, out
    assert "HN001" in out and "call_1" in out
    assert "histnorm.model" in loaded


def test_the_integrations_package_loads_no_framework() -> None:
    """`histnorm.integrations` holds adapters; each imports its framework only when it is
    itself imported, so neither `import histnorm` nor the package loads one."""
    path = os.pathsep.join([str(ROOT), str(ROOT / "cli")])
    env = {**os.environ, "PYTHONPATH": path}
    code = "import histnorm, histnorm.integrations, sys; print(*sorted(sys.modules))"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    loaded = sorted(m for m in completed.stdout.split() if m.split(".")[0] in FRAMEWORKS)
    assert not loaded, f"import histnorm.integrations loads {loaded}"


def test_only_the_integrations_import_a_framework() -> None:
    found = []
    for name, path in MODULES.items():
        if name.startswith("histnorm.integrations"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [node.module]
            found += [f"{name}: {t}" for t in targets if t.split(".")[0] in FRAMEWORKS]
    assert not found, "modules outside histnorm.integrations import a framework:\n" + "\n".join(
        found
    )


def test_every_public_name_resolves() -> None:
    """Some names of the face are imported on first use (`histnorm.__getattr__`)."""
    import histnorm
    import histnorm.behaviours

    missing = [name for name in histnorm.__all__ if not hasattr(histnorm, name)]
    assert not missing
    assert histnorm.is_partial is histnorm.behaviours.is_partial


ADAPTERS = [
    ("langchain", "langchain_core", "langchain-core"),
    ("langgraph", "langgraph", "langgraph"),
    ("openai_agents", "agents", "openai-agents"),
    ("litellm", "litellm", "litellm"),
    ("agent_framework", "agent_framework", "agent-framework-core"),
    ("pydantic_ai", "pydantic_ai", "pydantic-ai-slim"),
    ("datasets", "datasets", "datasets"),
    ("adk", "google.adk", "google-adk"),
    ("ray", "ray", "'ray[data]'"),
    ("dask", "dask", "'dask[bag]'"),
    ("crewai", "crewai", "crewai"),
]
"""Each adapter of `histnorm.integrations`, the package it imports, and what to install."""


def test_every_adapter_is_listed() -> None:
    found = {
        path.stem
        for path in (ROOT / "histnorm" / "integrations").glob("*.py")
        if not path.stem.startswith("_")
    }
    assert found == {adapter for adapter, _, _ in ADAPTERS}


@pytest.mark.parametrize(("adapter", "hidden", "install"), ADAPTERS)
def test_an_adapter_without_its_framework_names_the_package(
    monkeypatch: pytest.MonkeyPatch, adapter: str, hidden: str, install: str
) -> None:
    """Importing an adapter whose framework is missing is an ImportError that says what
    to install, not a traceback from deep inside the adapter."""
    for name in list(sys.modules):
        if name.startswith((f"{hidden}.", "histnorm.integrations.")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, hidden, None)
    with pytest.raises(ImportError, match=re.escape(f"pip install {install}")):
        importlib.import_module(f"histnorm.integrations.{adapter}")
