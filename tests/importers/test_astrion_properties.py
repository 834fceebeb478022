"""Properties of the astrion importer: whatever JSON a conversation file holds, the import
never raises, and every bundle it writes matches the bundle schema; bundle file names are
safe on every file system and never shared by two conversations."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire import schemas
from teamwire.cli import main
from teamwire.importers.astrion import import_data_dir
from teamwire.importers.files import Problem
from teamwire.importers.output import bundle_name
from tests.importers.helpers import DATA, read_json

json_leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)

# Values close to astrion's shapes reach further into the importer than arbitrary JSON.
tool_calls = st.lists(st.fixed_dictionaries({}, optional={
    "id": st.sampled_from(["call_1", "call_2", ""]) | json_leaves,
    "type": st.sampled_from(["function", "other"]) | json_leaves,
    "function": st.fixed_dictionaries({}, optional={
        "name": st.sampled_from(["create_sub_agent", "ask_master"]) | json_leaves,
        "arguments": st.sampled_from(["{}", '{"a": 1}']) | json_values,
    }) | json_values,
}) | json_values, max_size=3)
messages = st.lists(st.fixed_dictionaries({}, optional={
    "role": st.sampled_from(["system", "user", "assistant", "tool", "function"]) | json_leaves,
    "content": st.text(max_size=20) | st.lists(
        st.fixed_dictionaries({"type": st.sampled_from(["text", "image_url"]),
                               "text": st.text(max_size=5)}) | json_values, max_size=3)
    | json_values,
    "tool_calls": tool_calls,
    "tool_call_id": st.sampled_from(["call_1", "call_2", ""]) | json_leaves,
    "name": st.sampled_from(["create_sub_agent", "answer_sub_agent_question"]) | json_leaves,
    "reasoning_content": st.text(max_size=5) | json_leaves,
    "timestamp": st.text(max_size=5) | json_leaves,
    "message_id": st.text(max_size=5) | json_leaves,
    "metadata": st.fixed_dictionaries({}, optional={
        "tool_payload": st.fixed_dictionaries({}, optional={
            "success": st.booleans(), "display_name": st.sampled_from(
                ["UI Operator_1", "UI Operator_9", "Team Leader"]) | json_leaves,
        }) | json_values}) | json_values,
}) | json_values, max_size=6)
conversations = (st.fixed_dictionaries({"messages": messages}, optional={"id": json_leaves})
                 | json_values)


def import_with(conversation: Any, sub_agent: Any | None = None) -> tuple[list[Path], list[Problem]]:
    """Import the fixture with the leader's conversation (and UI Operator_1's) replaced."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        (root / "conversations" / "default").mkdir(parents=True)
        (root / "conversations" / "default" / "conv_20261201_101500_ab12.json").write_text(
            json.dumps(conversation), encoding="utf-8")
        (root / "sub_agents.json").write_bytes((DATA / "sub_agents.json").read_bytes())
        task = root / "sub_agent_tasks" / "sub_1_1764583000"
        task.mkdir(parents=True)
        (task / "conversation.json").write_text(
            json.dumps(sub_agent if sub_agent is not None else {"messages": []}), encoding="utf-8")
        problems: list[Problem] = []
        summary = import_data_dir(str(root), str(Path(tmp) / "out"), report=problems.append)
        written = [Path(p) for p in summary.written]
        for path in written:
            assert schemas.validate("bundle", read_json(path)) == []
        return written, problems


@given(conversations)
def test_any_json_in_a_conversation_file_never_raises(conversation: Any) -> None:
    written, problems = import_with(conversation)
    assert all(isinstance(p, Problem) for p in problems)
    if not (isinstance(conversation, dict) and "messages" in conversation):
        assert written == []


@given(conversations, conversations)
def test_any_json_in_a_sub_agent_conversation_never_raises(leader: Any, sub_agent: Any) -> None:
    import_with(leader, sub_agent)


@settings(max_examples=40)
@given(conversations)
def test_the_command_on_any_conversation_exits_0_or_1_without_a_traceback(
        conversation: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        (root / "conversations" / "w").mkdir(parents=True)
        (root / "conversations" / "w" / "c.json").write_text(json.dumps(conversation),
                                                             encoding="utf-8")
        result = CliRunner().invoke(main, ["import", "astrion", str(root), "-o",
                                           str(Path(tmp) / "out")])
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.exit_code in (0, 1), result.output
        for line in result.stdout.splitlines():
            assert schemas.validate("bundle", read_json(Path(line))) == []


@given(json_values)
def test_any_json_in_the_task_index_never_raises(index: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        (root / "conversations" / "w").mkdir(parents=True)
        (root / "conversations" / "w" / "c.json").write_text('{"messages": []}', encoding="utf-8")
        (root / "sub_agents.json").write_text(json.dumps(index), encoding="utf-8")
        summary = import_data_dir(str(root), str(Path(tmp) / "out"), report=lambda _p: None)
        assert len(summary.written) == 1


_SAFE_NAME = re.compile(r"[a-z0-9_%~-]+(\.[a-z0-9_%~-]+)?\.json")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                     *(f"lpt{i}" for i in range(10))}


@given(st.text(max_size=300), st.text(min_size=1, max_size=300))
def test_bundle_names_are_safe_on_every_file_system(workspace: str, conversation: str) -> None:
    name = bundle_name(workspace, conversation)
    assert _SAFE_NAME.fullmatch(name), name
    assert len(name.encode()) <= 200
    assert name.split(".")[0] not in _WINDOWS_RESERVED


@given(st.text(max_size=40), st.text(min_size=1, max_size=40),
       st.text(max_size=40), st.text(min_size=1, max_size=40))
def test_two_conversations_never_share_a_bundle_name(w1: str, c1: str, w2: str, c2: str) -> None:
    if (w1, c1) != (w2, c2):
        assert bundle_name(w1, c1).lower() != bundle_name(w2, c2).lower()


def test_bundle_names_read_as_workspace_and_conversation() -> None:
    assert bundle_name("default", "conv_20261201_101500_ab12") == \
        "default.conv_20261201_101500_ab12.json"
    assert bundle_name("", "conv_1") == "conv_1.json"
    assert bundle_name("My Space", "a/b.c") == "%4dy%20%53pace.a%2fb%2ec.json"
    assert bundle_name("con", "x") == "%63on.x.json"
    assert bundle_name("工作区", "x") == "%e5%b7%a5%e4%bd%9c%e5%8c%ba.x.json"
