"""Where astrion keeps a session, read into plain records.

An astrion data directory (its ``DATA_DIR``, one per user or workspace in web mode) holds:

- ``conversations/<workspace>/<conversation id>.json``: the Team Leader's conversation,
  ``{"id", "title", "messages": [...], "metadata": {...}, ...}``, next to astrion's own
  ``index.json``; conversations of older versions may lie in ``conversations/`` itself.
- ``sub_agents.json``: ``{"tasks": {task id: record}, "conversation_agents": {...},
  "multi_agent_states": {conversation id: {"agents": [...], "role_counters": {...}}}}``;
  a task record names its conversation (``conversation_id``), its sub-agent's
  ``display_name`` (``UI Operator_2``), ``role_id`` and ``agent_id`` (astrion's own number,
  unique in the conversation, not the instance number of the display name).
- ``sub_agent_tasks/<task id>/conversation.json``: that sub-agent's conversation,
  ``{"agent_id", "messages": [...], ...}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from teamwire.importers.files import DataDir, JsonFile, Problem, Unreadable
from teamwire.json_text import json_pointer
from teamwire.near_names import did_you_mean

CONVERSATIONS = "conversations"
TASK_INDEX = "sub_agents.json"
TASKS = "sub_agent_tasks"
TASK_CONVERSATION = "conversation.json"
INDEX = "index.json"

Report = Callable[[Problem], None]
"""Where problems go as they are found (the command prints them)."""


class UnusableInput(Exception):
    """The input as a whole cannot be imported (not an astrion data directory, say)."""


@dataclass(frozen=True)
class ConversationFile:
    """One leader conversation file: its workspace ("" for the top level) and file stem."""

    workspace: str
    stem: str
    path: str


@dataclass(frozen=True)
class TaskRecord:
    """One sub-agent task of ``sub_agents.json``: the fields an import needs, unchecked."""

    task_id: str
    conversation_id: Any
    display_name: Any
    role_id: Any
    agent_id: Any
    status: Any
    created_at: Any
    multi_agent: bool
    pointer: str
    snapshot_name: Any = None
    """The display name astrion's multi-agent state gives the task, if it lists it."""


@dataclass
class TaskIndex:
    """``sub_agents.json`` as read, by conversation id; empty if it is missing or unusable."""

    file: JsonFile | None = None
    by_conversation: dict[str, list[TaskRecord]] = field(default_factory=dict)
    task_ids: set[str] = field(default_factory=set)

    def tasks_of(self, conversation_id: str) -> list[TaskRecord]:
        """The tasks recorded for ``conversation_id``, oldest first."""
        return self.by_conversation.get(conversation_id, [])


def check_data_dir(data: DataDir) -> None:
    """Raise UnusableInput unless ``data`` looks like an astrion data directory."""
    if not os.path.isdir(data.root):
        kind = "does not exist" if not os.path.exists(data.root) else "is not a directory"
        raise UnusableInput(f"{data.root}: {kind}")
    conversations = data.path(CONVERSATIONS)
    if not os.path.isdir(conversations):
        raise UnusableInput(
            f"{data.root}: not an astrion data directory: it has no {CONVERSATIONS}/ "
            f"directory (astrion keeps the leader's conversations in "
            f"DATA_DIR/{CONVERSATIONS}/<workspace>/<conversation id>.json)")
    if not data.inside(conversations):
        raise UnusableInput(f"{conversations}: a symbolic link that leads out of the data "
                            "directory; not followed")
    try:
        data.entries(conversations)
    except Unreadable as exc:
        raise UnusableInput(f"{conversations}: {exc.problem.message}") from None


def workspaces(data: DataDir) -> list[str]:
    """The workspace directories under ``conversations/`` that stay inside the data directory."""
    root = data.path(CONVERSATIONS)
    return [name for name in data.entries(root)
            if os.path.isdir(os.path.join(root, name)) and data.inside(os.path.join(root, name))]


def find_conversations(data: DataDir, workspace: str | None, report: Report) -> list[ConversationFile]:
    """The leader conversation files to import, in a stable order: every workspace (and the
    top level of ``conversations/``), or only ``workspace``. Directories that cannot be
    listed and links out of the data directory are reported and passed over."""
    root = data.path(CONVERSATIONS)
    found: list[ConversationFile] = []
    names = data.entries(root)
    if workspace is not None:
        if workspace not in names or not os.path.isdir(os.path.join(root, workspace)):
            known = ", ".join(workspaces(data)) or "none"
            raise UnusableInput(f"{root}: no workspace {workspace!r}"
                                f"{did_you_mean(workspace, workspaces(data))} "
                                f"(workspaces: {known})")
        names = [workspace]
    for name in names:
        path = os.path.join(root, name)
        if os.path.islink(path) and not data.inside(path):
            report(Problem(path, "a symbolic link that leads out of the data directory; "
                                 "not followed"))
            continue
        if os.path.isdir(path):
            try:
                entries = data.entries(path)
            except Unreadable as exc:
                report(exc.problem)
                continue
            found += [ConversationFile(name, entry.removesuffix(".json"), os.path.join(path, entry))
                      for entry in entries if _is_conversation_name(entry)]
        elif workspace is None and _is_conversation_name(name):
            found.append(ConversationFile("", name.removesuffix(".json"), path))
    return found


def _is_conversation_name(name: str) -> bool:
    return name.endswith(".json") and name != INDEX and len(name) > len(".json")


def read_task_index(data: DataDir, report: Report) -> TaskIndex:
    """``sub_agents.json``, its task records grouped by conversation; problems reported."""
    path = data.path(TASK_INDEX)
    if not os.path.lexists(path):
        return TaskIndex()
    try:
        file = data.read_json(path)
    except Unreadable as exc:
        report(Problem(exc.problem.file, exc.problem.message + "; no sub-agent can be imported",
                       exc.problem.pointer, exc.problem.line, exc.problem.column))
        return TaskIndex()
    index = TaskIndex(file)
    value = file.value
    tasks = value.get("tasks") if isinstance(value, dict) else None
    if not isinstance(tasks, dict):
        report(Problem(path, "no \"tasks\" object: no sub-agent can be imported",
                       "/tasks" if isinstance(value, dict) and "tasks" in value else ""))
        return index
    names = _snapshot_names(value.get("multi_agent_states"))
    records: list[TaskRecord] = []
    for task_id, record in tasks.items():
        pointer = json_pointer(["tasks", task_id])
        if not isinstance(record, dict):
            report(Problem(path, f"task {task_id!r} is not an object; left out", pointer))
            continue
        conversation_id = record.get("conversation_id")
        if not isinstance(conversation_id, str):
            conversation_id = record.get("parent_conversation_id")
        records.append(TaskRecord(
            task_id=task_id, conversation_id=conversation_id,
            display_name=record.get("display_name"), role_id=record.get("role_id"),
            agent_id=record.get("agent_id"), status=record.get("status"),
            created_at=record.get("created_at"),
            multi_agent=record.get("multi_agent_mode") is True, pointer=pointer,
            snapshot_name=names.get((conversation_id, task_id))
            if isinstance(conversation_id, str) else None))
    records.sort(key=_created)
    index.task_ids = {task.task_id for task in records}
    for task in records:
        if isinstance(task.conversation_id, str):
            index.by_conversation.setdefault(task.conversation_id, []).append(task)
        else:
            report(Problem(path, f"task {task.task_id!r} names no conversation; left out",
                           task.pointer))
    return index


def _created(task: TaskRecord) -> tuple[float, str]:
    created = task.created_at
    number = float(created) if isinstance(created, (int, float)) and not isinstance(
        created, bool) and created == created else float("inf")
    return number, task.task_id


def _snapshot_names(states: Any) -> dict[tuple[str, str], Any]:
    """(conversation id, task id) -> display name, from astrion's multi-agent state."""
    names: dict[tuple[str, str], Any] = {}
    if not isinstance(states, dict):
        return names
    for conversation_id, state in states.items():
        agents = state.get("agents") if isinstance(state, dict) else None
        for agent in agents if isinstance(agents, list) else []:
            if isinstance(agent, dict) and isinstance(agent.get("task_id"), str):
                names[(conversation_id, agent["task_id"])] = agent.get("display_name")
    return names


def task_conversation_path(data: DataDir, task_id: str) -> str | None:
    """``sub_agent_tasks/<task id>/conversation.json``, or None if the task id is not a
    plain file name (it would lead elsewhere)."""
    if (not task_id or task_id in {".", ".."} or "/" in task_id or "\\" in task_id
            or "\x00" in task_id or (os.altsep and os.altsep in task_id)):
        return None
    return data.path(TASKS, task_id, TASK_CONVERSATION)


def unindexed_tasks(data: DataDir, index: TaskIndex) -> list[str]:
    """Task directories under ``sub_agent_tasks/`` that ``sub_agents.json`` does not list:
    nothing says which conversation they belong to."""
    root = data.path(TASKS)
    if not data.is_dir(root):
        return []
    try:
        names = data.entries(root)
    except Unreadable:
        return []
    return [os.path.join(root, name) for name in names
            if name not in index.task_ids and os.path.isdir(os.path.join(root, name))]
