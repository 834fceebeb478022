"""The CI guide's snippets work as printed: they name hooks, inputs and refs that exist, and
the action's lint step runs as written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from teamwire._version import __version__

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", GUIDE, re.MULTILINE | re.DOTALL)


def documents() -> list[Any]:
    return [yaml.safe_load(block) for block in blocks("yaml")]


def test_every_yaml_snippet_parses() -> None:
    assert len(documents()) >= 4


def test_the_pre_commit_snippet_names_a_hook_and_a_ref_that_exist() -> None:
    hooks = {hook["id"] for hook in
             yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    configs = [doc for doc in documents() if isinstance(doc, dict) and "repos" in doc]
    assert configs
    for config in configs:
        for repo in config["repos"]:
            assert repo["rev"] == f"v{__version__}"
            assert {hook["id"] for hook in repo["hooks"]} <= hooks


def _action_steps() -> list[dict[str, Any]]:
    found = []
    for doc in documents():
        if isinstance(doc, dict) and "jobs" in doc:
            for job in doc["jobs"].values():
                found += [step for step in job["steps"]
                          if str(step.get("uses", "")).startswith("teamwire/teamwire@")]
    return found


def test_the_workflow_uses_inputs_the_action_declares() -> None:
    steps = _action_steps()
    assert steps
    for step in steps:
        assert step["uses"] == f"teamwire/teamwire@v{__version__}"
        assert set(step.get("with", {})) <= set(ACTION["inputs"])


def test_the_input_table_is_the_action_s_inputs_with_their_defaults() -> None:
    rows = re.findall(r"^\| `([a-z-]+)` \|\s*`?([^|`]*?)`?\s*\|", GUIDE, re.MULTILINE)
    table = {name: default.strip() for name, default in rows if name in ACTION["inputs"]}
    declared = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    assert table == declared


def test_the_action_installs_its_own_checkout_unless_told_otherwise() -> None:
    install = next(s for s in ACTION["runs"]["steps"] if s.get("name") == "Install teamwire")
    assert ACTION["inputs"]["package"]["default"] == ""
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert '"${PACKAGE:-$ACTION_PATH}"' in install["run"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_action_s_lint_step_runs_as_written(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from teamwire.cli import main

    assert CliRunner().invoke(main, ["demo", "--quiet", "--dir",
                                     str(tmp_path / "transcripts")]).exit_code == 0
    bundle = tmp_path / "transcripts" / "bundle.json"
    data = json.loads(bundle.read_text(encoding="utf-8"))
    agent = next(iter(data["agents"].values()))
    agent["messages"].append({"role": "user", "content": "[系统通知|任务完成] done"})
    bundle.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "lint")
    output = tmp_path / "github_output"
    env = {**os.environ, "PATHS": "transcripts/", "PROFILE": "strict", "ARGS": "--ignore TW111",
           "SARIF": "lint.sarif", "GITHUB_OUTPUT": str(output),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert output.read_text(encoding="utf-8").strip() == "exit-code=1"
    assert "::error" in result.stdout and "TW113" in result.stdout
    sarif = json.loads((tmp_path / "lint.sarif").read_text(encoding="utf-8"))
    assert any(r["ruleId"] == "TW113" for r in sarif["runs"][0]["results"])
