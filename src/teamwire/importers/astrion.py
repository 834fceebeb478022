"""Import astrion's stored sessions as teamwire session bundles.

One bundle per leader conversation: the Team Leader's messages from
``conversations/<workspace>/<id>.json`` and every sub-agent that ``sub_agents.json``
records for that conversation, with its messages from
``sub_agent_tasks/<task id>/conversation.json``. A sub-agent's key and agent_id come from
astrion's display name (``UI Operator_2`` is instance 2 of its role, whatever astrion's
internal agent_id, which is kept under ``astrion``). What cannot be recovered is reported
as a :class:`~teamwire.importers.files.Problem` and left out, never made up.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from teamwire import schemas
from teamwire.envelope import LEADER_NAME, parse_display_name
from teamwire.envelope.names import LEADER_ROLE_ID, ROLE_ID_PATTERN, InvalidNameError
from teamwire.importers.astrion_messages import EXTENSION, Notes, convert
from teamwire.importers.astrion_store import (
    ConversationFile,
    Report,
    TaskIndex,
    TaskRecord,
    UnusableInput,
    check_data_dir,
    find_conversations,
    read_task_index,
    task_conversation_path,
    unindexed_tasks,
)
from teamwire.importers.files import DEFAULT_MAX_BYTES, DataDir, JsonFile, Problem, Unreadable
from teamwire.importers.output import bundle_bytes, bundle_name, write_atomically
from teamwire.json_members import json_type
from teamwire.spec_version import SPEC_VERSION

__all__ = ["ImportSummary", "UnusableInput", "UnusableOutput", "build_bundle", "import_data_dir",
           "without_extension"]

BUNDLE_VERSION = SPEC_VERSION


class UnusableOutput(Exception):
    """The output directory cannot be created or written."""


@dataclass
class ImportSummary:
    """What an import did: bundles written, conversations passed over, problems reported."""

    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Bundles already there and not overwritten (no ``force``)."""
    skipped: int = 0
    problems: int = 0


def import_data_dir(root: str, out_dir: str, *, report: Report, workspace: str | None = None,
                    force: bool = False, max_bytes: int = DEFAULT_MAX_BYTES, plain: bool = False,
                    wrote: Callable[[str], None] | None = None) -> ImportSummary:
    """Write one bundle per astrion conversation under ``root`` into ``out_dir``.

    Problems go to ``report`` as they are found, each written bundle's path to ``wrote``.
    ``plain`` leaves out the ``astrion`` members (astrion's ids, times, the tool text its
    model saw), keeping only what the bundle format defines.
    Raises UnusableInput when ``root`` is not an astrion data directory (or has no such
    ``workspace``) and UnusableOutput when ``out_dir`` cannot be written; bundles written
    before that stay written.
    """
    summary = ImportSummary()

    def counted(problem: Problem) -> None:
        summary.problems += 1
        report(problem)

    data = DataDir(root, max_bytes)
    check_data_dir(data)
    try:
        conversations = find_conversations(data, workspace, counted)
    except Unreadable as exc:  # conversations/ listed a moment ago, unreadable now
        raise UnusableInput(f"{exc.problem.file}: {exc.problem.message}") from None
    index = read_task_index(data, counted)
    _make_output_dir(out_dir)
    names: dict[str, str] = {}
    for conversation in conversations:
        name = bundle_name(conversation.workspace, conversation.stem)
        target = os.path.join(out_dir, name)
        if name.lower() in names:  # only a cut name's hash could collide; never overwrite
            counted(Problem(conversation.path, f"its bundle name {name} is taken by "
                                               f"{names[name.lower()]}; not imported"))
            summary.skipped += 1
            continue
        names[name.lower()] = conversation.path
        if not force and os.path.lexists(target):
            summary.kept.append(target)
            counted(Problem(target, "exists; not overwritten (--force overwrites)"))
            continue
        bundle, problems = build_bundle(data, conversation, index)
        for problem in problems:
            counted(problem)
        if bundle is None:
            summary.skipped += 1
            continue
        if plain:
            bundle = without_extension(bundle)
        try:
            data_bytes = bundle_bytes(bundle)
        except ValueError as exc:  # a guard, as for the schema: text that is not Unicode
            counted(Problem(conversation.path, f"the bundle cannot be written as JSON text "
                                               f"({exc}); not imported"))
            summary.skipped += 1
            continue
        try:
            write_atomically(target, data_bytes)
        except OSError as exc:
            raise UnusableOutput(f"{target}: cannot write: {exc.strerror or exc}") from None
        summary.written.append(target)
        if wrote is not None:
            wrote(target)
    if workspace is None:
        for path in unindexed_tasks(data, index):
            counted(Problem(path, "a sub-agent task that sub_agents.json does not list: its "
                                  "conversation is unknown; not imported"))
    if not conversations:
        where = f"workspace {workspace!r}" if workspace is not None else data.path("conversations")
        counted(Problem(data.root, f"no conversation found in {where}; nothing imported"))
    return summary


def without_extension(bundle: dict[str, Any]) -> dict[str, Any]:
    """``bundle`` without its ``astrion`` members (at the top, on agents, on messages)."""
    agents = {name: {key: value for key, value in agent.items() if key != EXTENSION}
              | {"messages": [{key: value for key, value in message.items() if key != EXTENSION}
                              for message in agent["messages"]]}
              for name, agent in bundle["agents"].items()}
    return {key: value for key, value in bundle.items() if key != EXTENSION} | {"agents": agents}


def _make_output_dir(out_dir: str) -> None:
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise UnusableOutput(f"{out_dir}: cannot create the output directory: "
                             f"{exc.strerror or exc}") from None
    if not os.path.isdir(out_dir):
        raise UnusableOutput(f"{out_dir}: not a directory")


def build_bundle(data: DataDir, conversation: ConversationFile,
                 index: TaskIndex) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The bundle of one leader conversation, or None when its file cannot be used, and
    every problem found, located in its file."""
    try:
        leader_file = data.read_json(conversation.path)
    except Unreadable as exc:
        return None, [_not_imported(exc.problem)]
    notes = Notes()
    files = [leader_file]
    value = leader_file.value
    if not isinstance(value, dict) or "messages" not in value:
        what = "an object without \"messages\"" if isinstance(value, dict) else json_type(value)
        notes.add(conversation.path, f"not an astrion conversation: the file holds {what}; "
                                     "not imported")
        return None, notes.located(files)
    conversation_id = value.get("id")
    if not isinstance(conversation_id, str) or not conversation_id:
        conversation_id = conversation.stem
    elif conversation_id != conversation.stem:
        notes.add(conversation.path, f"the conversation's id {conversation_id!r} differs from "
                                     "its file name; sub-agents are looked up by the id", "/id")
    leader = convert(value["messages"], conversation.path, "/messages", notes, leader=True)
    agents: dict[str, Any] = {LEADER_NAME: {"role_id": LEADER_ROLE_ID, "messages": leader}}
    for task in index.tasks_of(conversation_id):
        entry = _sub_agent(data, task, index, notes, files)
        if entry is None:
            continue
        name, agent = entry
        if name in agents:
            notes.add(_index_name(data, index), f"{name} is recorded twice for this "
                                                "conversation; the later task is left out",
                      task.pointer)
            continue
        agents[name] = agent
    _check_created(value["messages"], agents, conversation.path, notes)
    bundle: dict[str, Any] = {
        "teamwire": BUNDLE_VERSION,
        "session": _unicode(f"{conversation.workspace}/{conversation_id}"
                            if conversation.workspace else conversation_id),
        "agents": agents,
        EXTENSION: _conversation_facts(data, conversation, value),
    }
    errors = schemas.validate("bundle", bundle)
    if errors:  # a guard: every value is checked on the way in, so this should not happen
        first = errors[0]
        notes.add(conversation.path, f"the bundle would not match the bundle schema "
                                     f"({first.path or '/'}: {first.message}); not imported")
        return None, notes.located(files)
    return bundle, notes.located(files)


def _not_imported(problem: Problem) -> Problem:
    return Problem(problem.file, f"{problem.message}; not imported", problem.pointer,
                   problem.line, problem.column)


def _index_name(data: DataDir, index: TaskIndex) -> str:
    return index.file.name if index.file is not None else data.path("sub_agents.json")


def _sub_agent(data: DataDir, task: TaskRecord, index: TaskIndex, notes: Notes,
               files: list[JsonFile]) -> tuple[str, dict[str, Any]] | None:
    """The key and entry of one sub-agent, or None (noted) if it cannot be imported."""
    source = _index_name(data, index)
    name = task.display_name if isinstance(task.display_name, str) else task.snapshot_name
    if not isinstance(name, str):
        mode = "" if task.multi_agent else " (not a multi-agent task)"
        notes.add(source, f"task {task.task_id!r} has no display name{mode}; its sub-agent "
                          "is left out", task.pointer)
        return None
    if isinstance(task.snapshot_name, str) and task.snapshot_name != name:
        notes.add(source, f"task {task.task_id!r} is {name!r} but astrion's multi-agent state "
                          f"calls it {task.snapshot_name!r}; the task's name is used", task.pointer)
    try:
        parsed = parse_display_name(name)
    except InvalidNameError as exc:
        notes.add(source, f"task {task.task_id!r}: {exc}; its sub-agent is left out",
                  f"{task.pointer}/display_name")
        return None
    if parsed.agent_id is None:
        notes.add(source, f"task {task.task_id!r} is named {LEADER_NAME!r}; left out",
                  f"{task.pointer}/display_name")
        return None
    role_id = task.role_id
    if not isinstance(role_id, str) or not ROLE_ID_PATTERN.fullmatch(role_id) \
            or role_id == LEADER_ROLE_ID:
        shown = repr(role_id) if isinstance(role_id, str) else json_type(role_id)
        notes.add(source, f"{name}: unknown role (role_id {shown} is not a sub-agent role id); "
                          "left out", f"{task.pointer}/role_id")
        return None
    path = task_conversation_path(data, task.task_id)
    if path is None:
        notes.add(source, f"{name}: task id {task.task_id!r} is not a plain file name; its "
                          "conversation is not read, the sub-agent is left out", task.pointer)
        return None
    if not os.path.lexists(path):
        notes.add(source, f"{name}: its conversation {path} is missing; left out", task.pointer)
        return None
    try:
        file = data.read_json(path)
    except Unreadable as exc:
        problem = exc.problem
        notes.items.append(Problem(problem.file, f"{problem.message}; {name} is left out",
                                   problem.pointer, problem.line, problem.column))
        return None
    files.append(file)
    value = file.value
    if not isinstance(value, dict) or "messages" not in value:
        what = "an object without \"messages\"" if isinstance(value, dict) else json_type(value)
        notes.add(path, f"not a sub-agent conversation: the file holds {what}; {name} is left out")
        return None
    messages = convert(value["messages"], path, "/messages", notes, leader=False)
    facts: dict[str, Any] = {"task_id": task.task_id}
    for key, fact in (("agent_id", task.agent_id), ("status", task.status)):
        if isinstance(fact, (str, int)) and not isinstance(fact, bool):
            facts[key] = fact
    return name, {"role_id": role_id, "agent_id": parsed.agent_id, "messages": messages,
                  EXTENSION: facts}


def _check_created(messages: Any, agents: dict[str, Any], file: str, notes: Notes) -> None:
    """Note each sub-agent the leader created (by astrion's stored result) whose
    conversation is not in the bundle."""
    seen: set[str] = set()
    for index, message in enumerate(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict) or message.get("role") != "tool" \
                or message.get("name") != "create_sub_agent":
            continue
        metadata = message.get("metadata")
        result = metadata.get("tool_payload") if isinstance(metadata, dict) else None
        name = result.get("display_name") if isinstance(result, dict) else None
        if isinstance(name, str) and isinstance(result, dict) and result.get("success") is True \
                and name not in agents \
                and name not in seen:
            seen.add(name)
            notes.add(file, f"the leader created {name}, but sub_agents.json holds no usable "
                            "record of it: its conversation is not in the bundle",
                      f"/messages/{index}")


def _conversation_facts(data: DataDir, conversation: ConversationFile,
                        value: dict[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {"file": _unicode(os.path.relpath(conversation.path, data.root))}
    if conversation.workspace:
        facts["workspace"] = _unicode(conversation.workspace)
    for key in ("id", "title", "created_at", "updated_at"):
        if isinstance(value.get(key), str):
            facts[key] = value[key]
    return facts


def _unicode(name: str) -> str:
    """A file name as text that UTF-8 can hold: bytes that were not UTF-8 (which Python
    carries as lone surrogates) become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
