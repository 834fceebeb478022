"""Paths a directory search must not trust: a FIFO (reading it would block for ever), a
device or a link to one (reading it would never end), a link that leaves the searched tree
(its target's lines would be printed into a CI log), and a directory that cannot be listed
(which must not pass as "nothing to check"). Each ends in a verdict and an exit code, never
a hang or a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from teamwire.validator import LintOptions, lint_bytes, lint_file, runner

SECRET = "root:x:0:0:the runner's secret:/root:/bin/bash"
CLEAN = [{"role": "system", "content": "You are UI Operator_1."}]


def _lint(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "teamwire", "lint", "--agent", "UI Operator_1",
                           *args], capture_output=True, text=True, timeout=timeout,
                          check=False)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_a_searched_directory_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_text(json.dumps(CLEAN), encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.json")  # nobody ever writes to it
    result = _lint("-q", str(tmp_path), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "pipe.json" not in result.stdout + result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_named_on_the_command_line_is_read_bounded(tmp_path: Path) -> None:
    link = tmp_path / "x.json"
    link.symlink_to("/dev/zero")
    for named in ("/dev/zero", str(link)):
        result = _lint(named)
        assert result.returncode == 2
        assert f"cannot read {named}: it is not a regular file and holds more than 256 MiB" \
            in result.stderr
        assert "Traceback" not in result.stderr


def test_a_link_that_leaves_the_searched_tree_is_not_followed(tmp_path: Path) -> None:
    outside, tree = tmp_path / "outside", tmp_path / "tree"
    outside.mkdir()
    tree.mkdir()
    (outside / "passwd.jsonl").write_text(SECRET + "\n", encoding="utf-8")
    (tree / "leak.jsonl").symlink_to(outside / "passwd.jsonl")
    (tree / "ok.json").write_text(json.dumps(CLEAN), encoding="utf-8")
    (tree / "again.json").symlink_to(tree / "ok.json")  # inside the tree: the same file
    for output in ("text", "junit", "json"):
        result = _lint("-f", output, str(tree))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "the runner's secret" not in result.stdout + result.stderr
        assert "leak.jsonl" not in result.stdout + result.stderr
    named = _lint(str(tree / "leak.jsonl"))  # named on the command line: linted as asked
    assert named.returncode == 1


def test_a_directory_that_cannot_be_listed_is_unreadable(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ok.json").write_text(json.dumps(CLEAN), encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(locked))
        return real_scandir(path)  # type: ignore[call-overload]

    # Root may list any directory, so the refusal is simulated where os.walk lists.
    monkeypatch.setattr(os, "scandir", scandir)
    inputs = runner.find_inputs([str(tmp_path)])
    reports = [i for i in inputs if not isinstance(i, str)]
    assert [r.error for r in reports] == [f"cannot read {locked}: Permission denied"]
    assert [str(i) for i in inputs if isinstance(i, str)] == [str(tmp_path / "ok.json")]


def test_a_create_call_whose_id_is_a_list_gives_findings_not_a_traceback() -> None:
    """Found by the byte-order-mark fuzz test: the leader pre-scan looked a create call's id up
    in a set, and an id that is a JSON array is unhashable."""
    from teamwire.validator import LintOptions, lint_value

    conversation = [
        {"role": "system", "content": "You are the Team Leader."},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": ["call_1"], "type": "function",
            "function": {"name": "create_sub_agent",
                         "arguments": '{"agent_id": 1, "role_id": "ui-operator", "task": "t"}'}}]},
    ]
    bundle = {"teamwire": "1.0", "agents": {"Team Leader": {"role_id": "team-leader",
                                                          "messages": conversation}}}
    for value, options in ((conversation, LintOptions(agent="Team Leader")),
                           (bundle, LintOptions())):
        report = lint_value(value, options=options)
        assert "TW004" in {f.rule for f in report.findings}


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="needs /dev/fd")
@pytest.mark.parametrize("name", ["conversation.json", "conversation.jsonl"])
def test_a_pipe_named_on_its_own_is_read_whole_and_linted(tmp_path: Path, name: str) -> None:
    # A pipe holding a conversation, reached by a link whose name says JSON or JSON Lines: it
    # is linted as the same bytes in a file would be, the name choosing the format.
    messages = [*CLEAN, {"role": "user", "content": "来自 Nobody 的任务发布\nhello"}]
    data = (json.dumps(messages) if name.endswith(".json")
            else "\n".join(json.dumps(m) for m in messages) + "\n").encode()
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)  # smaller than a pipe's buffer: written at once
        os.close(write_end)
        link = tmp_path / name
        link.symlink_to(f"/dev/fd/{read_end}")
        options = LintOptions(agent="UI Operator_1")
        piped = lint_file(str(link), options)
    finally:
        os.close(read_end)
    assert piped.error is None
    expected = lint_bytes(data, str(link), options, jsonl=name.endswith(".jsonl")).findings
    assert [(f.rule, f.index, f.message) for f in piped.findings] \
        == [(f.rule, f.index, f.message) for f in expected]
    assert [f.rule for f in piped.findings] == ["TW101"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_too_long_to_read_is_reported_under_its_name() -> None:
    report = lint_file("/dev/zero")
    assert report.file == "/dev/zero"
    assert [(f.rule, f.file) for f in report.findings] == [("TW010", "/dev/zero")]
    assert report.error == ("cannot read /dev/zero: it is not a regular file and holds more "
                            "than 256 MiB")


def test_a_link_into_a_sibling_whose_name_begins_with_the_searched_directorys_is_outside(
        tmp_path: Path) -> None:
    """``runs-secret/`` is next to ``runs/``, not inside it, though its path begins with the
    same characters: a link from ``runs/`` into it leaves the searched directory and is not
    linted; a link that stays inside still is, and so is the tree searched through a link to
    it."""
    runs, secret = tmp_path / "runs", tmp_path / "runs-secret"
    runs.mkdir()
    secret.mkdir()
    (secret / "passwd.jsonl").write_text(SECRET + "\n", encoding="utf-8")
    (runs / "ok.json").write_text(json.dumps(CLEAN), encoding="utf-8")
    (runs / "leak.jsonl").symlink_to(secret / "passwd.jsonl")
    (runs / "sub").mkdir()
    (runs / "sub" / "inner.json").write_text(json.dumps(CLEAN), encoding="utf-8")
    (runs / "link.json").symlink_to(runs / "sub" / "inner.json")
    (runs / "linked-secret").symlink_to(secret)  # a directory link: os.walk does not follow it
    (tmp_path / "alias").symlink_to(runs)
    for searched in (runs, tmp_path / "alias"):
        files, missing = runner.discover([str(searched)])
        assert missing == []
        assert sorted(os.path.basename(f) for f in files) == ["link.json", "ok.json"]
        assert {os.path.realpath(f) for f in files} == {
            str((runs / "ok.json").resolve()), str((runs / "sub" / "inner.json").resolve())}
