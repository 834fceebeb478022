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


def check_message(tmp_path: Path, message: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    return subprocess.run([sys.executable, str(ROOT / "tools" / "commit_message.py"), str(path)],
                          capture_output=True, text=True, timeout=60, check=False)


def test_a_subject_of_72_characters_with_a_body_after_a_blank_line_passes(tmp_path: Path) -> None:
    subject = "x" * 72
    assert check_message(tmp_path, f"{subject}\n\nThe detail.\n# a comment git added\n"
                         ).returncode == 0


def test_a_longer_subject_fails_with_its_length(tmp_path: Path) -> None:
    result = check_message(tmp_path, "y" * 73 + "\n")
    assert result.returncode == 1
    assert "73 characters" in result.stderr


def test_a_body_without_a_blank_line_fails(tmp_path: Path) -> None:
    result = check_message(tmp_path, "Short subject\nThe body at once.\n")
    assert result.returncode == 1
    assert "second line" in result.stderr


def test_a_message_of_comments_only_has_no_subject(tmp_path: Path) -> None:
    result = check_message(tmp_path, "# Please enter the commit message\n\n")
    assert result.returncode == 1
    assert "no subject" in result.stderr


def test_the_subject_check_runs_at_the_commit_msg_stage() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    [hook] = [h for repo in config["repos"] for h in repo["hooks"] if h["id"] == "commit-subject"]
    assert hook["stages"] == ["commit-msg"]
    assert "commit-msg" in config["default_install_hook_types"]
