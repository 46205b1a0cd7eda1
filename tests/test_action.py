"""The GitHub Action (`action.yml`) and the script it runs (`.ci/action`), without GitHub.

The script is run as the action's step runs it: the inputs in the `INPUT_*` variables
that `action.yml` sets, `GITHUB_OUTPUT` and `RUNNER_TEMP` pointing into a temporary
folder. Two variables the action never sets make it testable here: the install step is
skipped (`HISTNORM_ACTION_SKIP_INSTALL`, the spec it would install is still printed) and
histnorm runs under this interpreter (`HISTNORM_PYTHON`), so this source tree is tested.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_install import CLEAN, ORPHAN

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "action"
ACTION = ROOT / "action.yml"
DEMO = ROOT / "fixtures" / "demo"
DEFAULTS = {
    "paths": ".",
    "args": "",
    "command": "lint",
    "version": "",
    "python-version": "3.12",
    "sarif": "false",
    "output-format": "github",
}
"""The inputs `action.yml` declares, with their defaults (checked against it below)."""
SCRIPT_INPUTS = [name for name in DEFAULTS if name != "python-version"]
"""The inputs the script reads; `python-version` goes to actions/setup-python only."""
TEST_ONLY = ("HISTNORM_ACTION_SKIP_INSTALL", "HISTNORM_PYTHON")


def variable(name: str) -> str:
    """`output-format` -> `INPUT_OUTPUT_FORMAT`."""
    return "INPUT_" + name.upper().replace("-", "_")


def run_action(
    workspace: Path, script: Path = SCRIPT, env: dict[str, str] | None = None, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run the script in `workspace`; its result and the step outputs it wrote."""
    given = {**DEFAULTS, **{k.replace("_", "-"): v for k, v in inputs.items()}}
    output = workspace.parent / f"{workspace.name}.github-output"
    output.write_text("")
    runner_temp = workspace.parent / f"{workspace.name}.runner-temp"
    runner_temp.mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    environ.update({variable(name): given[name] for name in SCRIPT_INPUTS})
    environ.update(
        GITHUB_OUTPUT=str(output),
        RUNNER_TEMP=str(runner_temp),
        HISTNORM_ACTION_SKIP_INSTALL="1",
        HISTNORM_PYTHON=sys.executable,
        NO_COLOR="1",
    )
    environ.update(env or {})
    result = subprocess.run(
        ["bash", str(script)], cwd=workspace, env=environ, capture_output=True, text=True
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return result, outputs


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A user's checkout: the demo corpus (defects) under a folder with a space in its
    name, a clean transcript under another."""
    root = tmp_path / "repo"
    shutil.copytree(DEMO, root / "demo corpus")
    (root / "clean chats").mkdir()
    (root / "clean chats" / "a clean one.json").write_bytes(CLEAN)
    return root


def test_a_clean_transcript_passes(workspace: Path):
    result, outputs = run_action(workspace, paths="clean chats")
    assert result.returncode == 0, result.stdout + result.stderr
    assert outputs["exit-code"] == "0"
    assert "sarif-file" not in outputs
    assert "::error" not in result.stdout


def test_defects_fail_with_annotations(workspace: Path):
    result, outputs = run_action(workspace, paths="demo corpus")
    assert result.returncode == 1, result.stdout + result.stderr
    assert outputs["exit-code"] == "1"
    annotated = re.findall(r"^::error file=([^,]+),", result.stdout, re.MULTILINE)
    assert sorted(annotated) == [
        "demo corpus/approval-resumed.meai.json",
        "demo corpus/cancelled-stream.openai-chat.json",
        "demo corpus/dataset.openai-chat.jsonl",
    ]


def test_the_default_path_is_the_workspace(workspace: Path):
    result, _ = run_action(workspace)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "in 6 transcripts" in result.stdout  # the demo's five and the clean one


def test_paths_one_per_line_keep_their_spaces(workspace: Path):
    (workspace / "clean chats" / "-dash.json").write_bytes(CLEAN)
    paths = "\n  clean chats/a clean one.json\n\ndemo corpus/dataset.openai-chat.jsonl  \n"
    paths += "clean chats/-dash.json\n"
    result, _ = run_action(workspace, paths=paths)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "::error file=demo corpus/dataset.openai-chat.jsonl," in result.stdout
    assert "in 5 transcripts" in result.stdout  # 3 lines of the dataset, 2 clean files


def test_args_are_split_as_a_shell_would_without_expanding(workspace: Path):
    bad = workspace / "clean chats" / "skip me"
    bad.mkdir()
    (bad / "$HOME.json").write_bytes(ORPHAN)
    result, _ = run_action(workspace, paths="clean chats")
    assert result.returncode == 1  # the defect is found ...
    assert "::error file=clean chats/skip me/$HOME.json," in result.stdout
    result, outputs = run_action(
        workspace, paths="clean chats", args="--exclude 'skip me/' --statistics"
    )
    assert result.returncode == 0, result.stdout + result.stderr  # ... and excluded
    assert outputs["exit-code"] == "0"
    result, _ = run_action(workspace, paths="clean chats", args='--exclude "$HOME.json"')
    assert result.returncode == 0, result.stdout + result.stderr


def test_unbalanced_quotes_in_args_are_a_clear_error(workspace: Path):
    result, outputs = run_action(workspace, args="--exclude 'skip me/")
    assert result.returncode == 2
    assert outputs["exit-code"] == "2"
    assert "args:" in result.stderr and "Traceback" not in result.stderr


def test_fix_check_writes_nothing_and_fails(workspace: Path):
    before = {p: p.read_bytes() for p in (workspace / "demo corpus").iterdir()}
    result, outputs = run_action(workspace, paths="demo corpus", command="fix", args="--check")
    assert result.returncode == 1, result.stdout + result.stderr
    assert outputs["exit-code"] == "1"
    assert {p: p.read_bytes() for p in before} == before


def test_fix_repairs_and_passes(workspace: Path):
    result, outputs = run_action(workspace, paths="demo corpus", command="fix")
    assert result.returncode == 0, result.stdout + result.stderr
    assert outputs["exit-code"] == "0"
    result, _ = run_action(workspace, paths="demo corpus")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("command", ["rules", "fix; rm -rf /", ""])
def test_only_lint_and_fix_are_run(workspace: Path, command: str):
    result, outputs = run_action(workspace, command=command)
    assert result.returncode == 2
    assert outputs["exit-code"] == "2"
    assert "command:" in result.stderr


def test_histnorm_failing_exits_2(workspace: Path):
    result, outputs = run_action(workspace, paths="no such folder")
    assert result.returncode == 2
    assert outputs["exit-code"] == "2"
    assert "no such folder" in result.stderr


def test_output_format_is_passed(workspace: Path):
    result, _ = run_action(workspace, paths="demo corpus", output_format="json")
    assert result.returncode == 1
    assert "::error" not in result.stdout
    json.loads(result.stdout)


@pytest.mark.parametrize(("paths", "code"), [("demo corpus", 1), ("clean chats", 0)])
def test_sarif_is_written_and_the_verdict_kept(workspace: Path, paths: str, code: int):
    result, outputs = run_action(workspace, paths=paths, sarif="true")
    assert result.returncode == code, result.stdout + result.stderr
    assert outputs["exit-code"] == str(code)
    sarif = Path(outputs["sarif-file"])
    assert sarif.is_absolute() and sarif.parent == workspace.parent / "repo.runner-temp"
    log = json.loads(sarif.read_text())
    assert log["version"] == "2.1.0"
    assert len(log["runs"][0]["results"]) == 3 * code
    assert result.stdout.count("::error file=") == 3 * code  # the annotations as well


def test_sarif_false_writes_none(workspace: Path):
    result, outputs = run_action(workspace, paths="demo corpus", sarif="false")
    assert result.returncode == 1
    assert "sarif-file" not in outputs
    assert not list((workspace.parent / "repo.runner-temp").iterdir())


def test_sarif_takes_only_true_or_false(workspace: Path):
    result, outputs = run_action(workspace, sarif="yes please")
    assert result.returncode == 2
    assert outputs["exit-code"] == "2"
    assert "sarif:" in result.stderr


def _install_spec(workspace: Path, version: str, **env: str) -> str:
    result, _ = run_action(workspace, paths="clean chats", version=version, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    found = re.search(r"^Installing histnorm: (.*)$", result.stderr, re.MULTILINE)
    assert found, result.stderr
    return found.group(1)


@pytest.mark.parametrize(
    ("version", "spec"),
    [
        ("", str(ROOT)),
        ("histnorm==0.1.0", "histnorm==0.1.0"),
        ("histnorm[cli]>=0.1", "histnorm[cli]>=0.1"),
        ("==0.1.0", "histnorm==0.1.0"),
        ("~=0.1", "histnorm~=0.1"),
        ("0.1.0", "histnorm==0.1.0"),
        ("git+https://example.com/h.git@abc", "git+https://example.com/h.git@abc"),
        ("main", "git+https://github.com/someone/histnorm@main"),
        ("0123abcd", "git+https://github.com/someone/histnorm@0123abcd"),
    ],
)
def test_version_says_what_is_installed(workspace: Path, version: str, spec: str):
    env = {"HISTNORM_ACTION_REPOSITORY": "someone/histnorm"}
    assert _install_spec(workspace, version, **env) == spec


def test_a_git_ref_without_the_actions_repository_is_read_from_its_path(
    workspace: Path, tmp_path: Path
):
    """Where the runner unpacks an action: `_actions/<owner>/<name>/<ref>`."""
    copy = tmp_path / "_actions" / "someone" / "histnorm" / "main" / ".ci" / "action"
    copy.parent.mkdir(parents=True)
    shutil.copy2(SCRIPT, copy)
    result, _ = run_action(workspace, script=copy, paths="clean chats", version="abc1234")
    assert result.returncode == 0, result.stderr
    assert "Installing histnorm: git+https://github.com/someone/histnorm@abc1234" in (result.stderr)
    result, outputs = run_action(workspace, paths="clean chats", version="abc1234")
    assert result.returncode == 2
    assert outputs["exit-code"] == "2"
    assert "version:" in result.stderr and "git+https://" in result.stderr


def _action() -> dict:
    import yaml  # PyYAML: installed with pre-commit, a test dependency

    action = yaml.safe_load(ACTION.read_text())
    assert isinstance(action, dict)
    return action


def test_action_yml_declares_the_inputs_and_outputs():
    action = _action()
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    assert {name: spec.get("default") for name, spec in inputs.items()} == DEFAULTS
    assert all(spec.get("description") for spec in inputs.values())
    assert set(action["outputs"]) == {"exit-code", "sarif-file"}


def test_every_input_reaches_the_script_or_a_step():
    action = _action()
    steps = action["runs"]["steps"]
    text = json.dumps(steps)
    for name in action["inputs"]:
        assert f"inputs.{name} " in text or f"inputs.{name}}}" in text, name
    (script_step,) = [s for s in steps if ".ci/action" in s.get("run", "")]
    env = script_step["env"]
    script = SCRIPT.read_text()
    for name in SCRIPT_INPUTS:
        assert env[variable(name)] == f"${{{{ inputs.{name} }}}}", name
    for name in env:
        assert f"${name}" in script or f"${{{name}" in script, f"the script ignores {name}"
    for name in set(re.findall(r"\bINPUT_[A-Z_]+", script)):
        assert name in env, f"action.yml does not set {name}"
    for name in TEST_ONLY:
        assert name not in text, f"action.yml must not set {name}"
    (setup,) = [s for s in steps if s.get("uses", "").startswith("actions/setup-python@")]
    assert setup["with"]["python-version"] == "${{ inputs.python-version }}"


def test_the_verdict_comes_after_the_sarif_upload():
    """The step that runs histnorm does not fail the job, so the SARIF is uploaded; the
    last step fails it with histnorm's exit code."""
    steps = _action()["runs"]["steps"]
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    upload = uses.index("github/codeql-action/upload-sarif")
    run = next(i for i, s in enumerate(steps) if ".ci/action" in s.get("run", ""))
    assert run < upload == len(steps) - 2
    last = steps[-1]
    assert "steps.run.outputs.exit-code" in json.dumps(last) and "exit" in last["run"]
    assert steps[run]["id"] == "run"
    outputs = _action()["outputs"]
    assert outputs["exit-code"]["value"] == "${{ steps.run.outputs.exit-code }}"
    assert outputs["sarif-file"]["value"] == "${{ steps.run.outputs.sarif-file }}"


def _ci_section() -> str:
    text = (ROOT / "README.md").read_text()
    return text.split("\n### In CI\n", 1)[1].split("\n### Your files are safe\n", 1)[0]


def test_the_readme_snippets_use_real_inputs_and_hooks():
    section = _ci_section()
    block = section.split("uses: <owner>/histnorm@", 1)[1].split("```", 1)[0]
    named = re.findall(r"^ {10}([a-z-]+):", block, re.MULTILINE)
    assert named and set(named) <= set(DEFAULTS), named
    hooks = re.findall(r"^- id: (\S+)", (ROOT / ".pre-commit-hooks.yaml").read_text(), re.M)
    shown = re.findall(r"^ +- id: (\S+)", section, re.MULTILINE)
    assert shown and set(shown) <= set(hooks), shown
    # Both name the repository the same way and pin a commit (no release is tagged yet).
    assert "repo: https://github.com/<owner>/histnorm\n" in section
    assert re.search(r"^ +rev: <commit sha>", section, re.MULTILINE)
