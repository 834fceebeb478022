"""The README's pre-commit snippet works as printed: pre-commit, given the snippet with only
the repository's address pointed at a local clone tagged as the snippet's ``rev``, installs
teamwire from that clone and lints the transcripts the snippet selects (a broken one fails the
commit check, a valid one passes, a file outside ``files`` is not linted)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


def _snippet() -> dict[str, Any]:
    [block] = [b for b in re.findall(r"^```yaml\n(.*?)^```$", README, re.MULTILINE | re.DOTALL)
               if "teamwire-lint" in b]
    config: dict[str, Any] = yaml.safe_load(block)
    return config


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True,
                   capture_output=True)


def _clone_of_this_tree(target: Path, tag: str) -> None:
    """A repository holding the tracked files as they are now, tagged ``tag``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "snapshot")
    _git(target, "tag", tag)


@pytest.mark.timeout(900)
def test_the_readme_s_pre_commit_snippet_lints_what_it_selects(tmp_path: Path) -> None:
    if not PRE_COMMIT.exists():
        pytest.fail("pre-commit is part of the test extra")
    config = _snippet()
    [repo] = config["repos"]
    clone = tmp_path / "teamwire"
    clone.mkdir()
    _clone_of_this_tree(clone, repo["rev"])
    repo["repo"] = str(clone)  # the one change: where the repository is

    project = tmp_path / "project"
    (project / "transcripts").mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "teamwire", "demo", "--quiet", "--dir",
                    str(tmp_path / "demo")], check=True, capture_output=True)
    shutil.copy(tmp_path / "demo" / "bundle.json", project / "transcripts" / "session.json")
    (project / "notes.json").write_text("{not json", encoding="utf-8")  # outside `files`
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(PRE_COMMIT), "run", "--all-files"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=900, check=False)

    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"teamwire lint\.+Passed", passed.stdout), passed.stdout

    (project / "transcripts" / "broken.json").write_text('{"conversations": [', "utf-8")
    _git(project, "add", "-A")
    failed = run()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert re.search(r"teamwire lint\.+Failed", failed.stdout), failed.stdout
    assert "transcripts/broken.json" in failed.stdout and "notes.json" not in failed.stdout
