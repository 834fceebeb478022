"""The contributors' pre-commit hooks (``.pre-commit-config.yaml``) are a valid configuration
and run the same ruff and mypy commands as CI (``.ci/run``), so a commit they pass does not
fail CI on a check they skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def hooks() -> dict[str, str]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    return {hook["id"]: hook["entry"] for repo in config["repos"] for hook in repo["hooks"]}


def test_the_configuration_is_one_pre_commit_accepts() -> None:
    result = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config",
                             str(ROOT / ".pre-commit-config.yaml")],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_mypy_command_of_ci_is_a_hook() -> None:
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if "bin/mypy " in line and not line.lstrip().startswith("#")]
    assert len(ci) == 2
    entries = {entry.removeprefix("env ") for entry in hooks().values()}
    for command in ci:
        assert command in entries, command
    assert hooks()["ruff"] == ".venv/bin/ruff check"
