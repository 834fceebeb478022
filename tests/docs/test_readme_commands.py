"""The README's command line section: the completion commands it prints work, and the extras
its command table names exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
INDEX = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
SCRIPT = Path(sys.executable).with_name("teamwire")


@pytest.mark.parametrize("text", [README, INDEX], ids=["README", "docs/index"])
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_completion_command_printed_works(text: str, shell: str) -> None:
    assert f"_TEAMWIRE_COMPLETE={shell}_source teamwire" in text
    env = {**os.environ, "_TEAMWIRE_COMPLETE": f"{shell}_source"}
    out = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, check=True,
                         timeout=60).stdout
    assert "_TEAMWIRE_COMPLETE" in out and "teamwire" in out


def test_the_command_table_names_the_extra_fuzzing_needs() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extras = set(re.findall(r"^([\w-]+) = \[", pyproject.partition(
        "[project.optional-dependencies]")[2].partition("\n[")[0], re.MULTILINE))
    row = next(line for line in README.splitlines() if "--fuzz" in line and line.startswith("|"))
    named = re.findall(r"\.\[(\w+)\]", row)
    assert named and all(name in extras for name in named)
