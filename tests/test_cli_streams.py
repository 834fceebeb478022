"""Standard streams that fail: closed, full, endless. Each gives an error and exit 2, never a
traceback, for every command that reads or writes them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

CLEAN = '[{"role": "system", "content": "You are UI Operator_1."}]'
ENVELOPE = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign it.\n"
            "</Task>\n</Team Leader>")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "c.json").write_text(CLEAN, encoding="utf-8")
    (tmp_path / "e.txt").write_text(ENVELOPE, encoding="utf-8")
    return {"conversation": str(tmp_path / "c.json"), "envelope": str(tmp_path / "e.txt")}


def _teamwire(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    result: subprocess.CompletedProcess[str] = subprocess.run(
        [sys.executable, "-m", "teamwire", *args], text=True, stderr=subprocess.PIPE,
        check=False, timeout=120, **kwargs)
    return result


def _commands(files: dict[str, str]) -> list[list[str]]:
    return [["lint", "--agent", "UI Operator_1", files["conversation"]],
            ["lint", "-f", "sarif", "--agent", "UI Operator_1", files["conversation"]],
            ["lint", "-f", "junit", "--agent", "UI Operator_1", files["conversation"]],
            ["envelope", "parse", files["envelope"]],
            ["schema", "validate", "conversation", files["conversation"]],
            ["schema", "list"]]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_an_error(files: dict[str, str]) -> None:
    for args in _commands(files):
        with open("/dev/full", "w") as full:
            result = _teamwire(args, stdout=full)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.strip() == "error: cannot write the output: No space left on device"


def test_a_closed_standard_output_is_an_error(files: dict[str, str]) -> None:
    for args in _commands(files):
        result = _teamwire(args, stdout=subprocess.PIPE, preexec_fn=lambda: os.close(1))
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert result.stderr.strip() == "error: cannot write the output: standard output is closed"


def test_a_closed_standard_output_is_no_error_when_the_report_goes_to_a_file(
        files: dict[str, str], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = _teamwire(["lint", "-f", "json", "-o", str(report), "--agent", "UI Operator_1",
                        files["conversation"]], stdout=subprocess.PIPE,
                       preexec_fn=lambda: os.close(1))
    assert result.returncode == 0, result.stderr
    assert report.read_text(encoding="utf-8").startswith("{")


@pytest.mark.parametrize("args", [["lint", "--agent", "UI Operator_1", "-"],
                                  ["envelope", "parse", "-"],
                                  ["schema", "validate", "conversation", "-"]])
def test_a_closed_standard_input_is_an_error(args: list[str]) -> None:
    result = _teamwire(args, stdout=subprocess.PIPE, preexec_fn=lambda: os.close(0))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: cannot read standard input: it is closed"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("args", [["envelope", "parse"], ["schema", "validate", "bundle"]])
def test_an_endless_input_is_refused_at_the_bound(args: list[str], tmp_path: Path) -> None:
    link = tmp_path / "x.json"
    link.symlink_to("/dev/zero")  # committed as a link, named on the command line
    result = _teamwire([*args, str(link)], stdout=subprocess.PIPE)
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: cannot read {link}: it holds more than 256 MiB"
