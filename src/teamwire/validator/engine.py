"""Lint one input: decode it, recognise its shape, run the conversation and session checks."""

from __future__ import annotations

import io
import os
import re
import stat
from collections.abc import Iterable, Iterator
from itertools import compress, repeat
from typing import IO, Any, NamedTuple

import orjson

from teamwire.bounded_read import read_at_most
from teamwire.envelope import LEADER_NAME, MessageType, Profile
from teamwire.envelope.errors import caret_context, position
from teamwire.json_members import has_repeats, repeats
from teamwire.json_text import escape_pointer_token, json_pointer, value_kind
from teamwire.validator.conversation import ConversationLinter
from teamwire.validator.cross_conversation import SessionChecker
from teamwire.validator.dispatch import Emit, dispatch
from teamwire.validator.emitter import Emitter, Policy
from teamwire.validator.facts import (
    BundleEntry,
    BundleHead,
    DisplayName,
    LoneConversation,
    LongRecord,
    NotJson,
    Place,
    RepeatedMember,
    TopLevel,
    Unreadable,
)
from teamwire.validator.findings import FileReport
from teamwire.validator.locate import Lines
from teamwire.validator.memo import Memo
from teamwire.validator.model import LEADER, Agent, AgentKind, Facts, Link
from teamwire.validator.options import LintOptions
from teamwire.validator.registry import REGISTRY, Rule
from teamwire.validator.rules.input_rules import REPEATED_MEMBER_NAME
from teamwire.validator.scan import HEADER_MARK
from teamwire.validator.session_checks import SessionSelections
from teamwire.validator.session_index import SessionIndex
from teamwire.validator.tooling import ToolCatalog, named_target

_BOM = b"\xef\xbb\xbf"
_NUMBER_SUFFIX = re.compile(r"(?<=.)_([0-9]{1,18})\Z", re.DOTALL)
_READ_CHUNK = 1 << 20


FileFact = (NotJson | TopLevel | BundleHead | BundleEntry | LongRecord | LoneConversation
            | Unreadable | RepeatedMember)
"""The facts found reading an input, each with the place its findings go."""


def _check(fact: FileFact, emitter: Emitter) -> None:
    """Hand ``fact`` to the checks of the input rules; their findings go to its place."""
    dispatch(fact, REGISTRY.checks_of(type(fact)), _placed(emitter, fact.place))


def _placed(emitter: Emitter, place: Place) -> Emit:
    def emit(rule: Rule, message: str, index: int | None, tail: str, text: str | None,
             offset: int | None) -> None:
        emitter.emit(rule, message, agent=place.agent, index=place.index,
                     pointer=None if place.pointer is None else place.pointer + tail,
                     line=place.line, column=place.column, snippet=place.snippet,
                     file_line=place.file_line, file_column=place.file_column)
    return emit


class _NotTranscript(Exception):
    """Raised in a file found by searching a directory whose shape says it is no transcript."""


def not_transcript(value: Any) -> str | None:
    """Why a decoded document is plainly no transcript (a package.json, a list of numbers),
    or None when it may be one: a bundle, a message, a conversation, even an empty one."""
    if type(value) is dict:
        if "agents" in value or "teamwire" in value or "role" in value:
            return None
        return "a JSON object with no 'agents' or 'teamwire' member"
    if type(value) is list:
        if not value or any(type(m) is dict and "role" in m for m in value):
            return None
        return "a JSON array with no message in it (no object with a 'role')"
    return f"{value_kind(value)} at the top level"


def _not_transcript_lines(first: Any) -> str | None:
    """``not_transcript`` for JSON Lines, told by the first record (None: blank or not JSON,
    which the pass over the records reports)."""
    if first is None or (type(first) is dict and "role" in first):
        return None
    if is_event_log(first):
        return "a teamwire event log; lint the session bundle instead"
    if type(first) is dict:
        return "JSON Lines whose first record has no 'role'"
    return f"JSON Lines whose first record is {value_kind(first)}"


def is_event_log(first: Any) -> bool:
    """Whether the first record of JSON Lines is a router event log's (seq and event, no role)."""
    return type(first) is dict and "seq" in first and "event" in first and "role" not in first


class Linter:
    """Lints inputs with one set of options.

    It owns the memo its conversation passes share (``memo.Memo``): what one conversation
    taught about envelope heads speeds up the next ones, of this input and of later inputs
    linted by the same linter, and of no other linter.
    """

    def __init__(self, options: LintOptions | None = None) -> None:
        self.options = options if options is not None else LintOptions()
        self.memo = Memo()
        self.session_checks = SessionSelections()
        """The checks of the session facts, per set of enabled rules, selected once."""

    def lint_bytes(self, data: bytes, name: str = "<stdin>", jsonl: bool | None = None,
                   searched: bool = False, links: list[Link] | None = None) -> FileReport:
        """Lint the bytes of one input file (see the module's ``lint_bytes``); ``links``,
        when given, receives each send of a bundle matched to its delivery."""
        options, memo = self.options, self.memo
        emitter = Emitter(name, options.policy_for(name))
        report = FileReport(name)
        if data.startswith(_BOM):
            data = data[len(_BOM):]
        try:
            if jsonl:
                report.messages = _lint_jsonl(io.BytesIO(data), emitter, options, memo,
                                              io.BytesIO(data), searched)
            else:
                try:
                    value = orjson.loads(data)
                except orjson.JSONDecodeError as exc:
                    if jsonl is None and "after document" in str(exc) \
                            and data.lstrip()[:1] == b"{":
                        stream = io.BytesIO(data)
                        report.messages = _lint_jsonl(stream, emitter, options, memo,
                                                      io.BytesIO(data), searched)
                    else:
                        _decode_error(data, emitter)
                else:
                    reason = not_transcript(value) if searched else None
                    if reason is not None:
                        raise _NotTranscript(reason)
                    report.messages = _lint_value(value, emitter, options, memo, links,
                                                  self.session_checks)
                    if emitter.on(_REPEATS):
                        _report_repeats(data.decode("utf-8"), value, emitter, options, memo)
        except _NotTranscript as exc:
            report.skipped = str(exc)
            return report
        report.findings = _sorted(emitter)
        return report

    def lint_value(self, value: Any, name: str = "<input>",
                   links: list[Link] | None = None) -> FileReport:
        """Lint an already decoded input (see the module's ``lint_value``); ``links`` as
        for ``lint_bytes``."""
        emitter = Emitter(name, self.options.policy_for(name))
        report = FileReport(name)
        report.messages = _lint_value(value, emitter, self.options, self.memo, links,
                                      self.session_checks)
        report.findings = _sorted(emitter)
        return report

    def lint_file(self, path: str, searched: bool = False) -> FileReport:
        """Lint one file (see the module's ``lint_file``)."""
        options = self.options
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                # A pipe or a device has no end to stream towards: read it whole, bounded,
                # so that /dev/zero (or a link to it) is an error, not all the memory there is.
                with open(path, "rb") as handle:
                    data = read_at_most(handle, MAX_UNSIZED_BYTES)
                if data is None:
                    return unreadable(path, f"cannot read {path}: it is not a regular file and "
                                      f"holds more than {MAX_UNSIZED_BYTES // 2**20} MiB")
                return self.lint_bytes(data, path, jsonl=path.endswith(".jsonl"),
                                       searched=searched)
            if path.endswith(".jsonl"):
                emitter = Emitter(path, options.policy_for(path))
                report = FileReport(path)
                with open(path, "rb") as stream, open(path, "rb") as scan:
                    try:
                        report.messages = _lint_jsonl(stream, emitter, options, self.memo, scan,
                                                      searched)
                    except _NotTranscript as exc:
                        report.skipped = str(exc)
                        return report
                report.findings = _sorted(emitter)
                return report
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            return unreadable(path, f"cannot read {path}: {exc.strerror or exc}")
        return self.lint_bytes(data, path, jsonl=False, searched=searched)


MAX_UNSIZED_BYTES = 256 * 2**20
"""The most ``lint`` reads from an input that is not a regular file (a pipe, a device)."""


DEFAULT_LINTER = Linter()
"""The linter of calls that give no options (it lists every rule, so it is built once)."""


def _linter(options: LintOptions | None) -> Linter:
    return DEFAULT_LINTER if options is None else Linter(options)


def lint_bytes(data: bytes, name: str = "<stdin>", options: LintOptions | None = None,
               jsonl: bool | None = None, searched: bool = False) -> FileReport:
    """Lint the bytes of one input file.

    ``jsonl`` says whether the input is JSON Lines; None decides by content (a
    document followed by more documents is JSON Lines). ``searched`` says the file was
    found by searching a directory: one that is plainly no transcript is then not linted
    but marked ``skipped`` (named on its own, it gets TW003).
    """
    return _linter(options).lint_bytes(data, name, jsonl, searched)


def lint_value(value: Any, name: str = "<input>",
               options: LintOptions | None = None) -> FileReport:
    """Lint an already decoded input: a bundle, or one conversation as a list of messages."""
    return _linter(options).lint_value(value, name)


def lint_file(path: str, options: LintOptions | None = None,
              searched: bool = False) -> FileReport:
    """Lint one file; ``.jsonl`` files are streamed record by record. ``searched`` is as
    for ``lint_bytes``."""
    return _linter(options).lint_file(path, searched)


def unreadable(path: str, reason: str) -> FileReport:
    """The report of an input that cannot be read: its TW010 finding, whatever is selected."""
    every_rule = Policy(frozenset(REGISTRY.codes()), {r.code: r.severity for r in REGISTRY})
    emitter = Emitter(path, every_rule)
    _check(Unreadable(Place(), reason), emitter)
    return FileReport(path, findings=emitter.findings, error=reason)


def _sorted(emitter: Emitter) -> list[Any]:
    # Findings about the file come first; then, in a bundle, each agent's findings together,
    # in the order the agents appear; within one conversation, by message index.
    agents = emitter.agents

    def rank(pointer: str | None) -> int:
        if not pointer or not pointer.startswith("/agents/"):
            return -1
        end = pointer.find("/", len("/agents/"))
        return agents.get(pointer if end < 0 else pointer[:end], len(agents))

    return sorted(emitter.findings, key=lambda f: (rank(f.pointer), f.sort_key()))


# -- decoding -------------------------------------------------------------------------------


def _decode_error(data: bytes, emitter: Emitter, line_offset: int = 0,
                  index: int | None = None) -> None:
    """Hand the checks why ``data`` is not JSON: bad UTF-8 or a syntax error, with its place."""
    if not data.strip():
        first = 1 + line_offset
        _check(NotJson(Place(index=index, line=first, column=1, file_line=first), True, None,
                       0, None), emitter)
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line, column = position(prefix, len(prefix))
        place = Place(index=index, line=line + line_offset, column=column,
                      file_line=line + line_offset)
        _check(NotJson(place, False, data[exc.start], exc.start, exc.reason), emitter)
        return
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        offset = min(exc.pos, len(text))
        line, column = position(text, offset)
        place = Place(index=index, line=line + line_offset, column=column,
                      snippet=caret_context(text, offset), file_line=line + line_offset)
        _check(NotJson(place, False, None, offset, exc.msg if exc.msg else str(exc)), emitter)
        return
    # Decodes as text but not as bytes: nothing left to say beyond that.
    _check(NotJson(Place(index=index, line=1 + line_offset, column=1), False, None, 0, None),
           emitter)


_REPEATS = REPEATED_MEMBER_NAME
_SNIPPET_SPAN = 40


def _report_repeats(text: str, value: Any, emitter: Emitter, options: LintOptions, memo: Memo,
                    index: int | None = None, file_line: int | None = None,
                    agent: str | None = None) -> None:
    """Hand the checks every object of ``text`` (which decoded to ``value``) that names a
    member twice, once per object and name; ``index``, ``file_line`` and ``agent`` place a
    JSONL record's text."""
    if not has_repeats(text):
        return
    found: dict[tuple[tuple[str | int, ...], str], list[int]] = {}
    for name, offset, path in repeats(text):
        found.setdefault((path, name), []).append(offset)
    # Offsets only grow in this order, so lines are counted once over the whole text.
    lines = Lines(text)
    conversation_agent: list[str | None] = []  # a lone conversation's, once inferred
    for (path, name), offsets in sorted(found.items(), key=lambda item: item[1][0]):
        message_index = index
        owner = agent
        if index is None and type(value) is list and path and type(path[0]) is int:
            message_index = path[0]
            if not conversation_agent:
                tools = memo.tools(options.profile)
                conversation_agent.append(_identity(options, lambda: value, tools).name)
            owner = conversation_agent[0]
        elif index is None and len(path) >= 2 and path[0] == "agents":
            owner = str(path[1])
            if len(path) >= 4 and path[2] == "messages" and type(path[3]) is int:
                message_index = path[3]
        pointer = json_pointer(path)
        if index is not None:
            pointer = f"/{index}{pointer}"
        offset = offsets[0]
        line, column = lines.at(offset)
        # The snippet from a window around the offset: a minified file is one long line.
        start = max(lines.line_start, offset - _SNIPPET_SPAN)
        end = text.find("\n", offset, offset + _SNIPPET_SPAN)
        end = offset + _SNIPPET_SPAN if end < 0 else end - (text[end - 1] == "\r")
        snippet = caret_context(text[start:end], offset - start)
        # The position is in the file (an object is no string to hold one): file_line and
        # file_column carry it, as reporters that annotate files expect.
        place = Place(agent=owner, index=message_index, pointer=pointer, snippet=snippet,
                      file_line=line if file_line is None else file_line, file_column=column)
        _check(RepeatedMember(place, name, len(offsets)), emitter)


def _records(stream: IO[bytes], limit: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line) of each line; None for a line longer than ``limit`` bytes (but
    an empty one for a line of white space only, however long: it holds no record)."""
    number = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            blank = not line.strip()
            while True:
                rest = stream.readline(_READ_CHUNK)
                blank = blank and not rest.strip()
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, b"" if blank else None
            continue
        yield number, line


def _lint_jsonl(stream: IO[bytes], emitter: Emitter, options: LintOptions, memo: Memo,
                scan: IO[bytes], searched: bool = False) -> int:
    first = _first_record(scan, options.max_record_bytes)
    reason = _not_transcript_lines(first) if searched else None
    if reason is not None:
        raise _NotTranscript(reason)
    if is_event_log(first):
        _check(TopLevel(Place(line=1, column=1), first, True), emitter)
        return 0
    scan.seek(0)
    tools = memo.tools(options.profile)
    agent = _identity(options, lambda: _scan_jsonl(scan, options.max_record_bytes), tools)
    linter = ConversationLinter(emitter, agent, profile=options.profile, tools=tools,
                                round_limit=options.round_limit, memo=memo)
    index = 0
    for number, line in _records(stream, options.max_record_bytes):
        if line is None:
            place = Place(agent=agent.name, index=index, line=number, column=1, file_line=number)
            _check(LongRecord(place, options.max_record_bytes), emitter)
            index += 1
            continue
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM):]
        if not line.strip():
            continue
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            _decode_error(line.rstrip(b"\r\n"), emitter, number - 1, index)
            index += 1
            continue
        if emitter.on(_REPEATS):
            _report_repeats(line.rstrip(b"\r\n").decode("utf-8"), message, emitter, options,
                            memo, index, number, agent.name)
        linter.feed(index, message, number)
        index += 1
    linter.finish()
    _unidentified(agent, index, emitter)
    return index


def _first_record(stream: IO[bytes], limit: int) -> Any:
    """The first record of a JSONL stream that is not blank, decoded; None if it does not
    decode (the pass over the records reports why)."""
    for _number, line in _records(stream, limit):
        if line is None:
            return None
        if line.strip():
            try:
                return orjson.loads(line.removeprefix(_BOM))
            except orjson.JSONDecodeError:
                return None
    return None


def _scan_jsonl(stream: IO[bytes], limit: int) -> Iterator[Any]:
    """The messages of a JSONL stream that can tell whose conversation it is."""
    for number, line in _records(stream, limit):
        if line is None or (b"tool_calls" not in line and b"\xe6\x9d\xa5\xe8\x87\xaa" not in line
                            and b"\\u6765" not in line):
            continue
        if number == 1:
            line = line.removeprefix(_BOM)
        try:
            yield orjson.loads(line)
        except orjson.JSONDecodeError:
            continue


# -- shapes -----------------------------------------------------------------------------------


def _lint_value(value: Any, emitter: Emitter, options: LintOptions, memo: Memo,
                links: list[Link] | None, selections: SessionSelections) -> int:
    if type(value) is dict and ("agents" in value or "teamwire" in value):
        return _lint_bundle(value, emitter, options, memo, links, selections)
    if type(value) is list:
        tools = memo.tools(options.profile)
        agent = _identity(options, lambda: value, tools)
        linter = ConversationLinter(emitter, agent, profile=options.profile, tools=tools,
                                round_limit=options.round_limit, memo=memo)
        linter.feed_all(value)
        linter.finish()
        _unidentified(agent, len(value), emitter)
        return len(value)
    _check(TopLevel(Place(pointer=""), value, False), emitter)
    return 0

def _identity(options: LintOptions, messages: Any, tools: ToolCatalog) -> Agent:
    if options.agent is not None:
        return agent_for_name(options.agent)
    return infer_agent(messages(), tools, options.profile)


def _unidentified(agent: Agent, messages: int, emitter: Emitter) -> None:
    _check(LoneConversation(Place(pointer=""), agent.kind is not AgentKind.UNKNOWN, messages),
           emitter)


def agent_for_name(name: str) -> Agent:
    """The agent a display name given on the command line stands for."""
    if name == LEADER_NAME:
        return LEADER
    number = _NUMBER_SUFFIX.search(name)
    agent_id = int(number[1]) if number is not None and number[1][0] != "0" else None
    return Agent(name, AgentKind.SUB_AGENT, None, agent_id)


def infer_agent(messages: Iterable[Any], tools: ToolCatalog, profile: Profile) -> Agent:
    """Whose conversation ``messages`` are: the leader if it calls leader tools or receives
    reports; a sub-agent if it calls sub-agent tools or receives tasks (named when an astrion
    header names the receiver); otherwise unknown."""
    sub = False
    receiver: str | None = None
    for message in messages:
        if type(message) is not dict:
            continue
        role = message.get("role")
        if role == "assistant":
            calls = message.get("tool_calls")
            for call in calls if type(calls) is list else ():
                function = call.get("function") if type(call) is dict else None
                name = function.get("name") if type(function) is dict else None
                if type(name) is not str:
                    continue
                if name in tools.leader_only:
                    return LEADER
                if name in tools.sub_agent_only:
                    sub = True
        elif role == "user":
            content = message.get("content")
            if type(content) is not str or not content.startswith(HEADER_MARK):
                continue
            end = content.find("\n")
            header = content if end < 0 else content[:end]
            cut = header.rfind(" 的")
            if cut < 0:
                continue
            mtype = MessageType.from_label(header[cut + 2:], Profile.ASTRION)
            if mtype is MessageType.PROGRESS or mtype is MessageType.COMPLETION:
                return LEADER
            if mtype is MessageType.TASK or mtype is MessageType.MESSAGE:
                sub = True
            to = header.find(" 向 ")
            if 0 <= to < cut:
                receiver = header[to + 3:cut]
    if receiver == LEADER_NAME:
        return LEADER
    if receiver is not None:
        return agent_for_name(receiver)
    return Agent(None, AgentKind.SUB_AGENT) if sub else Agent(None, AgentKind.UNKNOWN)


# -- bundles ----------------------------------------------------------------------------------


def _lint_bundle(bundle: dict[str, Any], emitter: Emitter, options: LintOptions,
                 memo: Memo, links: list[Link] | None, selections: SessionSelections) -> int:
    _check(BundleHead(Place(pointer=""), bundle), emitter)
    agents_value = bundle.get("agents")
    if type(agents_value) is not dict:
        return 0
    entries: list[tuple[Agent, list[Any], str]] = []
    for name, entry in agents_value.items():
        pointer = "/agents/" + escape_pointer_token(name)
        emitter.agents[pointer] = len(emitter.agents)
        agent = _bundle_agent(name, entry, pointer, emitter)
        if agent is None:
            continue
        messages = entry.get("messages")
        if type(messages) is not list:
            continue
        entries.append((agent, messages, pointer + "/messages"))
    profile = options.profile
    tools = memo.tools(profile)
    leader_messages = next((m for a, m, _ in entries if a.kind is AgentKind.LEADER), [])
    agents = [a for a, _, _ in entries]
    index = SessionIndex(agents, *_leader_calls(leader_messages, profile, agents))
    facts: list[Facts] = []
    total = 0
    for agent, messages, pointer in entries:
        linter = ConversationLinter(emitter, agent, profile=profile, tools=tools,
                                    pointer=pointer, session=index, collect=True,
                                    round_limit=options.round_limit, memo=memo)
        linter.feed_all(messages)
        linter.finish()
        total += len(messages)
        if linter.facts is not None:
            facts.append(linter.facts)
    SessionChecker(facts, index, emitter, profile=profile, links=links,
                   checks=selections.of(emitter.policy.enabled)).run()
    return total


def _bundle_agent(name: str, entry: Any, pointer: str, emitter: Emitter) -> Agent | None:
    """The agent a bundle entry stands for, its entry checked; None when it is no object."""
    match = _NUMBER_SUFFIX.search(name)
    number = int(match[1]) if match is not None else None
    _check(BundleEntry(Place(agent=name, pointer=pointer), name, entry, number), emitter)
    if type(entry) is not dict:
        return None

    def emit(rule: Rule, message: str, index: int | None, tail: str = "",
             text: str | None = None, offset: int | None = None) -> None:
        emitter.emit(rule, message, agent=name, pointer=pointer)  # the entry's key: no place
    dispatch(DisplayName(None, None, name, None), REGISTRY.checks_of(DisplayName), emit)
    if name == LEADER_NAME:
        return LEADER
    role_id = entry.get("role_id")
    agent_id = entry.get("agent_id")
    if type(agent_id) is not int or isinstance(agent_id, bool) or agent_id != number:
        agent_id = number
    return Agent(name, AgentKind.SUB_AGENT, role_id if type(role_id) is str else None, agent_id)


_LEADER_CALLS = {
    False: frozenset({"create_sub_agent", "terminate_sub_agent"}),
    True: frozenset({"create_sub_agent", "terminate_sub_agent", "stop_sub_agent"}),
}
"""The leader's calls the pre-scan reads, without and with profile astrion's stop."""


class LeaderCalls(NamedTuple):
    """What the Team Leader's conversation does to its sub-agents, read before the checks."""

    creates: list[tuple[str, int]]
    """(role_id, agent_id) of every create_sub_agent call."""
    terminates: list[tuple[int, str | None]]
    """(agent_id, role_id) of every terminate_sub_agent call that did not fail."""
    stops: list[tuple[int, str | None]]
    """(agent_id, role_id) of every astrion stop_sub_agent call that did not fail."""


def _leader_calls(messages: list[Any], profile: Profile, agents: list[Agent]) -> LeaderCalls:
    """The creations, terminations and (profile astrion) stops the leader's calls make; an
    astrion call may name its target by display name (TW-PROF-026), one of ``agents``."""
    by_name: SessionIndex | None = None
    # create_sub_agent calls in order: (call id, role_id, agent_id or None)
    creates: list[tuple[Any, str, Any]] = []
    ends: dict[str, tuple[int, str | None]] = {}
    stops: dict[str, tuple[int, str | None]] = {}
    wanted = _LEADER_CALLS[profile is Profile.ASTRION]
    for message in _holding(messages, "tool_calls"):
        calls = message.get("tool_calls") if type(message) is dict else None
        if type(calls) is not list or message.get("role") != "assistant":
            continue
        for call in calls:
            # Most calls are of other tools: the name is reached by subscripts, anything that
            # is not an object with a hashable name failing them (a string's name is the only
            # one among the wanted).
            try:
                function = call["function"]
                if function["name"] not in wanted:
                    continue
            except (TypeError, KeyError):
                continue
            name = function["name"]
            raw = function.get("arguments")
            try:
                arguments = orjson.loads(raw) if type(raw) is str else None
            except orjson.JSONDecodeError:
                continue
            if type(arguments) is not dict:
                continue
            role_id = arguments.get("role_id")
            agent_id = arguments.get("agent_id")
            named = named_target(arguments, "agent_id", profile is not Profile.ASTRION)
            if named is not None:
                by_name = by_name or SessionIndex(agents)
                found = by_name.by_name(named)
                if found is not None:
                    agent_id, role_id = found.agent_id, found.role_id
            if name != "create_sub_agent":
                if type(agent_id) is int and type(call.get("id")) is str:
                    (ends if name == "terminate_sub_agent" else stops)[call["id"]] = (
                        agent_id, role_id if type(role_id) is str else None)
                continue
            if type(role_id) is str:
                creates.append((call.get("id"), role_id, agent_id))
    # A call that failed made nothing and ended nothing (TW-TOOL-026).
    failed: set[str] = set()
    judged = {c[0] for c in creates if type(c[0]) is str} | ends.keys() | stops.keys()
    if judged:
        for message in _holding(messages, "tool_call_id"):
            try:  # (only a string id is judged; anything not an object fails the subscript)
                call_id = message["tool_call_id"]
                if call_id not in judged:
                    continue
            except (TypeError, KeyError):
                continue
            if message.get("role") == "tool" and _failed(message.get("content")):
                failed.add(call_id)
    keys: list[tuple[str, int]] = []
    per_role: dict[str, int] = {}
    for call_id, role_id, agent_id in creates:
        if type(call_id) is str and call_id in failed:  # an id that is no string failed nothing
            continue
        if agent_id is None and profile is Profile.ASTRION:
            agent_id = per_role.get(role_id, 0) + 1
        if type(agent_id) is int:
            per_role[role_id] = max(per_role.get(role_id, 0), agent_id)
            keys.append((role_id, agent_id))
    return LeaderCalls(keys, [v for k, v in ends.items() if k not in failed],
                       [v for k, v in stops.items() if k not in failed])


def _holding(messages: list[Any], key: str) -> Iterable[Any]:
    """The messages with a true ``key`` (tool calls, a tool call id), selected in one go when
    every message is an object (dict.get refuses anything else); else all of them, which the
    caller checks one by one."""
    try:
        return list(compress(messages, map(dict.get, messages, repeat(key))))
    except TypeError:
        return messages


def _failed(content: Any) -> bool:
    """Whether a tool result is an error result (``"success": false``)."""
    if type(content) is not str or "false" not in content:
        return False  # JSON has one way to write false: without it, nothing to decode
    try:
        value = orjson.loads(content)
    except orjson.JSONDecodeError:
        return False
    return type(value) is dict and value.get("success") is False
