"""Bad input to ``teamwire import astrion`` never produces a traceback: an unusable DIR or
OUTDIR exits 2 with a clear message; a file that cannot be used is a warning with its path
(and line and column for JSON), the rest is still imported, and the exit code is 1."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from teamwire import schemas
from tests.importers.helpers import (
    BUNDLE,
    CONVERSATION,
    FSE_TASK,
    UIO_TASK,
    astrion_dir,
    no_traceback,
    read_json,
    run_import,
    write_json,
)

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file types and links")


def second_conversation(data: Path) -> Path:
    """Add a valid leader-only conversation that sorts before the fixture's."""
    path = data / "conversations" / "default" / "conv_0_first.json"
    write_json(path, {"id": "conv_0_first", "messages": [{"role": "user", "content": "hi"}]})
    return path


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ": warning: " in line]


# ---------------------------------------------------------------- unusable input or output: 2

def test_a_missing_directory_exits_2(tmp_path: Path) -> None:
    result = run_import(tmp_path / "nowhere", tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path / 'nowhere'}: does not exist\n"
    assert not (tmp_path / "out").exists()


def test_a_file_instead_of_a_directory_exits_2(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("{}", encoding="utf-8")
    result = run_import(tmp_path / "file", tmp_path / "out")
    assert (result.exit_code, result.stderr) == (
        2, f"error: {tmp_path / 'file'}: is not a directory\n")


def test_a_directory_that_is_not_astrions_exits_2(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.json").write_text("{}", encoding="utf-8")
    result = run_import(tmp_path / "notes", tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 2
    assert "not an astrion data directory: it has no conversations/ directory" in result.stderr


def test_an_unknown_workspace_exits_2_naming_the_workspaces(tmp_path: Path) -> None:
    result = run_import(astrion_dir(tmp_path), tmp_path / "out", "--workspace", "nope")
    assert result.exit_code == 2
    assert result.stderr.endswith("no workspace 'nope' (workspaces: default)\n")
    mistyped = run_import(tmp_path / "astrion-data", tmp_path / "out", "--workspace", "defualt")
    assert mistyped.stderr.endswith("no workspace 'defualt' (did you mean 'default'?) "
                                    "(workspaces: default)\n")


def test_an_output_path_that_is_a_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("", encoding="utf-8")
    result = run_import(astrion_dir(tmp_path), tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 2
    assert "cannot create the output directory" in result.stderr


@posix_only
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_an_output_directory_that_cannot_be_written_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o500)
    try:
        result = run_import(astrion_dir(tmp_path), out)
    finally:
        out.chmod(0o700)
    no_traceback(result)
    assert result.exit_code == 2
    assert f"error: {out}" in result.stderr and "cannot write" in result.stderr


def test_bundles_written_before_a_failure_stay_written_and_whole(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    second_conversation(data)
    out = tmp_path / "out"
    (out / BUNDLE).mkdir(parents=True)  # the second bundle cannot replace a directory
    result = run_import(data, out, "--force")
    no_traceback(result)
    assert result.exit_code == 2
    first = out / "default.conv_0_first.json"
    assert schemas.validate("bundle", read_json(first)) == []
    assert result.stdout.splitlines() == [str(first)]
    assert sorted(p.name for p in out.iterdir()) == [first.name, BUNDLE]  # no temporary left


# ---------------------------------------------------------------- existing bundles

def test_existing_bundles_are_kept_unless_forced(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / BUNDLE).write_text("old", encoding="utf-8")
    result = run_import(data, out)
    assert result.exit_code == 1
    assert f"{out / BUNDLE}: warning: exists; not overwritten (--force overwrites)" in result.stderr
    assert (out / BUNDLE).read_text(encoding="utf-8") == "old"
    result = run_import(data, out, "--force")
    assert schemas.validate("bundle", read_json(out / BUNDLE)) == []


# ---------------------------------------------------------------- files that cannot be used: 1

@pytest.mark.parametrize(("content", "position", "reason"), [
    (b'{"id": "c", "messages": [}', "1:26", "invalid JSON: Expecting value"),
    (b'{"id": "c",\n "id": "d", "messages": []}', "2:2", 'invalid JSON: duplicate key "id"'),
    (b'{"id": "c\xff", "messages": []}', "1:10", "invalid UTF-8 at byte 9"),
    (b"", "1:1", "invalid JSON: the file is empty"),
    (b'{"messages": ["\\ud800"]}', "1:16", "invalid JSON: lone surrogate \\ud800"),
    (b"[" * 100_000 + b"]" * 100_000, None, "invalid JSON: nested too deep"),
], ids=["malformed", "duplicate-key", "not-utf8", "empty", "lone-surrogate", "deep"])
def test_a_conversation_that_is_not_json_is_skipped_with_its_position(
        tmp_path: Path, content: bytes, position: str | None, reason: str) -> None:
    data = astrion_dir(tmp_path)
    bad = data / "conversations" / "default" / "conv_bad.json"
    bad.write_bytes(content)
    result = run_import(data, tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 1
    place = f"{bad}:{position}" if position else str(bad)
    assert any(line.startswith(f"{place}: warning: {reason}") and line.endswith("not imported")
               for line in warnings(result.stderr)), result.stderr
    assert (tmp_path / "out" / BUNDLE).exists()


@pytest.mark.parametrize(("value", "message"), [
    ([1, 2], "not an astrion conversation: the file holds array; not imported"),
    ({"id": "x"}, 'not an astrion conversation: the file holds an object without "messages"'),
])
def test_a_conversation_of_the_wrong_shape_is_skipped(tmp_path: Path, value: object,
                                                       message: str) -> None:
    data = astrion_dir(tmp_path)
    bad = data / "conversations" / "default" / "conv_bad.json"
    write_json(bad, value)
    result = run_import(data, tmp_path / "out")
    assert result.exit_code == 1
    assert any(line.startswith(f"{bad}: warning: {message}") for line in warnings(result.stderr))


def test_messages_that_cannot_be_carried_over_are_left_out_with_their_positions(
        tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    path = data / "conversations" / "default" / "conv_odd.json"
    path.write_text(json.dumps({"id": "conv_odd", "messages": [
        {"role": "user", "content": "hello"},
        "a string",
        {"role": "narrator", "content": "x"},
        {"role": "tool", "content": "no call id"},
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function"}]},
        {"role": "user", "content": 42},
        {"role": "user", "content": [{"type": "text", "text": "see"},
                                     {"type": "image_url", "image_url": {"url": "x"}}]},
    ]}, indent=1), encoding="utf-8")
    result = run_import(data, tmp_path / "out")
    no_traceback(result)
    found = [line.removeprefix(f"{path}:") for line in warnings(result.stderr)
             if line.startswith(f"{path}:")]
    assert found == [
        "8:3: warning: message is string, not an object; left out (at /messages/1)",
        "9:3: warning: message has role \"narrator\", not system, user, assistant or tool; "
        "left out (at /messages/2)",
        "13:3: warning: tool message without a tool_call_id (the call it answers is unknown); "
        "left out (at /messages/3)",
        "21:5: warning: tool call without an id; left out (at /messages/4/tool_calls/0)",
        "26:3: warning: user message left out: its content is number, not text (at /messages/5)",
        "32:15: warning: 1 content part that is not text (images, videos) cannot be carried in "
        "a bundle; only the text parts are kept (at /messages/6/content)",
    ]
    bundle = read_json(tmp_path / "out" / "default.conv_odd.json")
    assert bundle["agents"]["Team Leader"]["messages"] == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "see"},
    ]


def test_a_leader_tool_message_without_payload_keeps_the_text_with_a_warning(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    conversation = read_json(data / CONVERSATION)
    del conversation["messages"][7]["metadata"]
    write_json(data / CONVERSATION, conversation)
    result = run_import(data, tmp_path / "out")
    assert result.exit_code == 0  # imported, with warnings
    assert any(line.startswith(f"{data / CONVERSATION}:") and
               line.endswith("warning: tool message without metadata.tool_payload: the raw result "
                             "is not stored, the content is astrion's formatted text "
                             "(at /messages/7)") for line in warnings(result.stderr))
    message = read_json(tmp_path / "out" / BUNDLE)["agents"]["Team Leader"]["messages"][7]
    assert message["content"] == "回答已送达 UI Operator_1。"
    assert "content" not in message["astrion"]


def test_a_missing_sub_agent_conversation_leaves_that_sub_agent_out(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    (data / FSE_TASK).unlink()
    result = run_import(data, tmp_path / "out")
    assert result.exit_code == 0  # imported, with warnings
    assert any("warning: Full-Stack Engineer_1: its conversation" in line and "is missing; left out"
               in line and "(at /tasks/sub_2_1764583010)" in line for line in warnings(result.stderr))
    assert any("the leader created Full-Stack Engineer_1, but sub_agents.json holds no usable "
               "record of it" in line for line in warnings(result.stderr))
    bundle = read_json(tmp_path / "out" / BUNDLE)
    assert list(bundle["agents"]) == ["Team Leader", "UI Operator_1"]


def test_an_unknown_role_leaves_the_sub_agent_out(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    index = read_json(data / "sub_agents.json")
    index["tasks"]["sub_1_1764583000"]["role_id"] = None
    write_json(data / "sub_agents.json", index)
    result = run_import(data, tmp_path / "out")
    assert any(line.startswith(f"{data / 'sub_agents.json'}:") and
               "UI Operator_1: unknown role (role_id null is not a sub-agent role id); left out "
               "(at /tasks/sub_1_1764583000/role_id)" in line for line in warnings(result.stderr))
    assert "UI Operator_1" not in read_json(tmp_path / "out" / BUNDLE)["agents"]


def test_display_names_that_are_not_display_names_leave_the_sub_agent_out(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    index = read_json(data / "sub_agents.json")
    index["tasks"]["sub_1_1764583000"]["display_name"] = "UI Operator_None"
    index["multi_agent_states"] = {}
    write_json(data / "sub_agents.json", index)
    result = run_import(data, tmp_path / "out")
    assert any("task 'sub_1_1764583000': display name is neither 'Team Leader' nor" in line
               for line in warnings(result.stderr))
    assert "UI Operator_1" not in read_json(tmp_path / "out" / BUNDLE)["agents"]


def test_a_task_id_that_is_a_path_is_never_followed(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    index = read_json(data / "sub_agents.json")
    index["tasks"]["../../escape"] = {**index["tasks"].pop("sub_1_1764583000"),
                                      "task_id": "../../escape"}
    write_json(data / "sub_agents.json", index)
    result = run_import(data, tmp_path / "out")
    assert any("task id '../../escape' is not a plain file name" in line
               for line in warnings(result.stderr))


def test_an_unusable_task_index_imports_the_leader_alone(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    (data / "sub_agents.json").write_text('{"tasks": ', encoding="utf-8")
    result = run_import(data, tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 0  # imported, with warnings
    assert warnings(result.stderr)[0].startswith(f"{data / 'sub_agents.json'}:1:11: warning: "
                                                 "invalid JSON")
    assert list(read_json(tmp_path / "out" / BUNDLE)["agents"]) == ["Team Leader"]


def test_task_directories_missing_from_the_index_are_reported(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    (data / "sub_agent_tasks" / "sub_9_orphan").mkdir()
    result = run_import(data, tmp_path / "out")
    assert f"{data / 'sub_agent_tasks' / 'sub_9_orphan'}: warning: a sub-agent task that " \
           "sub_agents.json does not list" in result.stderr


def test_files_larger_than_the_limit_are_skipped(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    result = run_import(data, tmp_path / "out", "--max-file-size", "2000")
    no_traceback(result)
    assert any(line.startswith(f"{data / CONVERSATION}: warning: larger than 2000 bytes "
                               "(--max-file-size); not read") for line in warnings(result.stderr))
    assert not (tmp_path / "out" / BUNDLE).exists()


@posix_only
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anything")
def test_an_unreadable_conversation_is_skipped(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    bad = second_conversation(data)
    bad.chmod(0)
    try:
        result = run_import(data, tmp_path / "out")
    finally:
        bad.chmod(0o600)
    assert result.exit_code == 1
    assert f"{bad}: warning: cannot read: Permission denied; not imported" in result.stderr
    assert (tmp_path / "out" / BUNDLE).exists()


# ---------------------------------------------------------------- links and special files

@posix_only
def test_a_symlink_leaving_the_directory_is_not_followed(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    outside = tmp_path / "outside.json"
    write_json(outside, {"id": "secret", "messages": [{"role": "user", "content": "secret"}]})
    link = data / "conversations" / "default" / "conv_link.json"
    link.symlink_to(outside)
    result = run_import(data, tmp_path / "out")
    assert result.exit_code == 1
    assert f"{link}: warning: a symbolic link that leads out of the data directory; not " \
           "followed; not imported" in result.stderr
    assert not (tmp_path / "out" / "default.conv_link.json").exists()


@posix_only
def test_a_workspace_linked_from_outside_is_not_followed(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    outside = tmp_path / "elsewhere"
    write_json(outside / "conv_x.json", {"messages": []})
    (data / "conversations" / "linked").symlink_to(outside, target_is_directory=True)
    result = run_import(data, tmp_path / "out")
    assert f"{data / 'conversations' / 'linked'}: warning: a symbolic link that leads out" \
        in result.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [BUNDLE]


@posix_only
def test_a_sub_agent_conversation_linked_from_outside_is_not_followed(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    outside = tmp_path / "outside.json"
    outside.write_bytes((data / UIO_TASK).read_bytes())
    (data / UIO_TASK).unlink()
    (data / UIO_TASK).symlink_to(outside)
    result = run_import(data, tmp_path / "out")
    assert f"{data / UIO_TASK}: warning: a symbolic link that leads out of the data directory; " \
           "not followed; UI Operator_1 is left out" in result.stderr


@posix_only
def test_a_symlink_inside_the_directory_is_followed(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    link = data / "conversations" / "default" / "conv_same.json"
    link.symlink_to(data / CONVERSATION)
    run_import(data, tmp_path / "out")
    assert (tmp_path / "out" / "default.conv_same.json").exists()


@posix_only
@pytest.mark.timeout(60)
def test_a_fifo_is_skipped_without_blocking(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    fifo = data / "conversations" / "default" / "conv_fifo.json"
    os.mkfifo(fifo)
    (data / FSE_TASK).unlink()
    os.mkfifo(data / FSE_TASK)
    result = run_import(data, tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 1
    assert f"{fifo}: warning: not a regular file (a FIFO); not read; not imported" in result.stderr
    assert f"{data / FSE_TASK}: warning: not a regular file (a FIFO); not read; " \
           "Full-Stack Engineer_1 is left out" in result.stderr
    assert (tmp_path / "out" / BUNDLE).exists()


def test_warnings_are_safe_for_a_terminal(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    write_json(data / "conversations" / "default" / "conv_esc.json",
               {"messages": [{"role": "\x1b[31mred"}]})
    result = run_import(data, tmp_path / "out")
    assert "\x1b" not in result.stderr
    assert "\\u001b[31mred" in result.stderr


@posix_only
def test_file_names_that_are_not_utf8_give_a_usable_bundle(tmp_path: Path) -> None:
    data = astrion_dir(tmp_path)
    workspace = os.fsencode(data / "conversations") + b"/w\xff"
    os.mkdir(workspace)
    with open(workspace + b"/c\xfe.json", "wb") as handle:
        handle.write(b'{"messages": [{"role": "user", "content": "x"}]}')
    result = run_import(data, tmp_path / "out")
    no_traceback(result)
    bundle = read_json(tmp_path / "out" / "w%ff.c%fe.json")
    assert schemas.validate("bundle", bundle) == []
    assert bundle["session"] == "w\ufffd/c\ufffd"


def test_a_file_that_cannot_be_opened_is_skipped_whoever_runs_the_tests(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As root, chmod 0 does not stop a read: refuse the open itself instead.
    data = astrion_dir(tmp_path)
    bad = second_conversation(data)
    real_open = os.open

    def refusing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(bad):
            raise PermissionError(13, "Permission denied", str(bad))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    result = run_import(data, tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 1
    assert f"{bad}: warning: cannot read: Permission denied; not imported" in result.stderr
    assert (tmp_path / "out" / BUNDLE).exists()


def test_an_output_directory_that_refuses_writes_exits_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    def refusing_mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refusing_mkstemp)
    result = run_import(astrion_dir(tmp_path), tmp_path / "out")
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"error: {tmp_path / 'out' / BUNDLE}: cannot write: Permission denied")
    assert list((tmp_path / "out").iterdir()) == []
