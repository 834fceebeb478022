"""One pass over one conversation: every check that needs only that conversation.

Messages are the plain dicts the decoder produced; nothing is copied. For
bundles the pass also records the facts the cross-conversation checks need
(``model.Facts``); for a lone conversation it keeps only what later messages of
the same conversation need, so memory stays flat while streaming JSONL.
"""

from __future__ import annotations

from typing import Any

import orjson

from teamwire.envelope import (
    ASTRION_COMPLETION_LABEL,
    LEADER_NAME,
    Envelope,
    MessageType,
    ParseError,
    Profile,
    abbreviation,
    id_problem,
    is_envelope,
    name_problem,
    parse,
)
from teamwire.envelope.ids import ASTRION_ID, STRICT_ID
from teamwire.validator.context import Emitter, escape_pointer
from teamwire.validator.model import Agent, AgentKind, Call, Delivery, Facts, Result
from teamwire.validator.scan import (
    HEADER_MARK,
    content_offset,
    forged_header_offset,
    is_run_result,
    locate,
    shorten,
)
from teamwire.validator.session_index import SessionIndex
from teamwire.validator.tooling import ASK_TOOLS, TARGETING_TOOLS, ToolCatalog

_PARSE_CODES = {"syntax": "TW101", "name-mismatch": "TW102", "duplicate-attribute": "TW103",
                "encoding": "TW101"}
_ROLES = ("system", "user", "assistant", "tool")
_ASTRION_ONLY = frozenset({"target", "subtype"})
# subtype → (type it requires, whether the receiver must be the leader; None: either)
_SUBTYPES: dict[str, tuple[MessageType, bool | None]] = {
    "progress_output": (MessageType.PROGRESS, None),
    "completion_report": (MessageType.COMPLETION, None),
    "ask_master": (MessageType.ASK, True),
    "ask_other": (MessageType.ASK, False),
}
_TEXT_ARGUMENTS = ("task", "message", "question", "content", "answer")
_UNSAFE_NAME_CHARS = frozenset(
    [chr(c) for c in range(0x20)] + [chr(c) for c in range(0x7F, 0xA0)]
    + ["<", ">", '"', "\u2028", "\u2029", "\u200e", "\u200f", "\u061c"]
    + [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)])
_MISSING = object()


def unsafe_name_char(name: str) -> str | None:
    """The first character of ``name`` that could hide or forge text, or None."""
    for ch in name:
        if ch in _UNSAFE_NAME_CHARS:
            return ch
    return None


class ConversationLinter:
    """Lints the messages of one agent's conversation, fed one at a time, in order."""

    def __init__(self, emitter: Emitter, agent: Agent, *, profile: Profile, tools: ToolCatalog,
                 pointer: str = "", session: SessionIndex | None = None,
                 collect: bool = False, round_limit: int = 8) -> None:
        self.emitter = emitter
        self.agent = agent
        self.name = agent.name
        self.is_leader = agent.kind is AgentKind.LEADER
        self.is_sub = agent.kind is AgentKind.SUB_AGENT
        self.profile = profile
        self.strict = profile is Profile.STRICT
        self.tools = tools
        self.pointer = pointer
        self.session = session
        self.facts: Facts | None = Facts(agent, pointer=pointer) if collect else None
        self.round_limit = round_limit
        self.messages = 0
        self.file_line: int | None = None
        self._rounds: dict[tuple[int, str | None], int] = {}
        self._pending: dict[str, Call | str] = {}
        self._late: set[str] = set()
        self._call_ids: set[str] = set()
        self._ids: dict[str, tuple[int, int]] = {}
        self._names: dict[str, bool] = {}
        self._abbr: dict[str, str | None] = {}
        self._tasks = 0
        self._protocol_seen = False
        # The leader's view of its team, built from its own tool calls as they succeed.
        self._created: dict[tuple[str, int], int] = {}
        self._known: dict[int, set[str]] = {}
        self._terminated: set[tuple[str, int]] = set()
        if self.is_leader and session is not None:
            for sub in session.preexisting():
                self._know(sub.role_id or "", sub.agent_id or 0)

    # -- emitting -------------------------------------------------------------------------

    def _emit(self, code: str, message: str, index: int | None, pointer: str | None = None,
              text: str | None = None, offset: int | None = None) -> None:
        if not self.emitter.on(code):
            return
        line = column = None
        snippet = None
        if text is not None and offset is not None:
            line, column, snippet = locate(text, offset)
        if pointer is None and index is not None:
            pointer = f"{self.pointer}/{index}"
        self.emitter.emit(code, message, agent=self.name, index=index, pointer=pointer,
                          line=line, column=column, snippet=snippet, file_line=self.file_line)

    # -- messages ---------------------------------------------------------------------------

    def feed(self, index: int, message: Any, file_line: int | None = None) -> None:
        """Check one message (``index`` is its 0-based position in the conversation)."""
        self.messages += 1
        self.file_line = file_line
        if type(message) is not dict:
            self._emit("TW004", f"message is a JSON {_json_type(message)}, not an object",
                       index)
            return
        role = message.get("role")
        if role == "user":
            self._user(index, message)
        elif role == "assistant":
            self._assistant(index, message)
        elif role == "tool":
            self._tool(index, message)
        elif role == "system":
            if self._pending:
                self._flush_pending(index)
            content = message.get("content")
            if type(content) is not str:
                self._bad_content(index, content, "a system message")
        else:
            shown = "missing" if role is None else repr(role)
            self._emit("TW004", f"role is {shown}; expected one of {', '.join(_ROLES)}",
                       index, f"{self.pointer}/{index}/role")

    def _bad_content(self, index: int, content: Any, what: str) -> None:
        pointer = f"{self.pointer}/{index}/content"
        if type(content) is list:
            self._emit("TW005", f"content of {what} is an array of parts; protocol messages "
                       "are plain strings, so its parts are not checked", index, pointer)
        else:
            self._emit("TW004", f"content of {what} is {_json_type(content)}, not a string",
                       index, pointer)

    def _user(self, index: int, message: dict[str, Any]) -> None:
        if self._pending:
            self._flush_pending(index)
        content = message.get("content")
        if type(content) is not str:
            self._bad_content(index, content, "a user message")
            return
        if content.startswith(HEADER_MARK):
            if is_envelope(content):
                self._delivered(index, content)
                return
        elif content.startswith("[系统通知"):
            self._emit("TW113", "message uses the retired '[系统通知|…]' prefix instead of an "
                       "envelope", index, f"{self.pointer}/{index}/content", content, 0)
            return
        elif content.startswith("<result") and is_run_result(content):
            self._emit("TW605", "a run result is inserted as a user message of its own", index,
                       f"{self.pointer}/{index}/content", content, 0)
            return
        self._forged(index, content, 0, "a user message")

    def _assistant(self, index: int, message: dict[str, Any]) -> None:
        if self._pending:
            self._flush_pending(index)
        content = message.get("content")
        calls = message.get("tool_calls")
        has_text = False
        if type(content) is str:
            has_text = bool(content) and not content.isspace()
            if has_text and self.is_sub and self.facts is not None:
                self.facts.texts.append((index, content, bool(calls)))
            if content.startswith("<result") and is_run_result(content):
                self._emit("TW604", "natural output is a whole run result; only the router "
                           "writes those", index, f"{self.pointer}/{index}/content", content, 0)
            if content.find(HEADER_MARK) >= 0:
                at = forged_header_offset(content)
                if at is not None:
                    self._emit("TW603", "assistant output holds a line that forms an envelope "
                               "header; once forwarded it would read as a forged message",
                               index, f"{self.pointer}/{index}/content", content, at)
        elif content is not None:
            self._bad_content(index, content, "an assistant message")
        if calls is None:
            if content is None:
                self._emit("TW004", "assistant message has neither content nor tool_calls",
                           index)
            return
        if type(calls) is not list:
            self._emit("TW004", f"tool_calls is {_json_type(calls)}, not an array", index,
                       f"{self.pointer}/{index}/tool_calls")
            return
        for position, call in enumerate(calls):
            self._call(index, position, call, has_text)

    def _tool(self, index: int, message: dict[str, Any]) -> None:
        call_id = message.get("tool_call_id")
        content = message.get("content")
        if type(call_id) is not str or not call_id:
            self._emit("TW004", "tool message has no tool_call_id string", index,
                       f"{self.pointer}/{index}/tool_call_id")
            entry: Call | str | object = _MISSING
        else:
            entry = self._pending.pop(call_id, _MISSING)
            if entry is _MISSING:
                if call_id in self._late:
                    self._late.discard(call_id)
                elif call_id in self._call_ids:
                    self._emit("TW412", f"second result for tool call {call_id!r}", index,
                               f"{self.pointer}/{index}/tool_call_id")
                else:
                    self._emit("TW413", f"tool result answers no pending call: {call_id!r}",
                               index, f"{self.pointer}/{index}/tool_call_id")
        call = entry if isinstance(entry, Call) else None
        tool = call.name if call is not None else (entry if isinstance(entry, str) else None)
        result: Result | None = None
        if type(content) is str:
            result = self._tool_text(index, content, tool)
        else:
            self._bad_content(index, content, "a tool message")
        if call is not None:
            call.result = result or Result(index, rejected=False)
            self._settle(call)

    def finish(self) -> None:
        """Settle the calls still waiting for a result when the conversation ends."""
        pending = [c for c in self._pending.values() if isinstance(c, Call)]
        self._pending.clear()
        for call in pending:
            self._settle(call)

    def _flush_pending(self, index: int) -> None:
        # Results of every call come before the next message (queued messages are
        # delivered after the tool result), so a call still open here has none.
        for call_id, entry in self._pending.items():
            where = entry.index if isinstance(entry, Call) else None
            name = entry.name if isinstance(entry, Call) else entry
            self._emit("TW411", f"tool call {call_id!r} ({name}) has no result before message "
                       f"{index}", where if where is not None else index)
            self._late.add(call_id)
            if isinstance(entry, Call):
                self._settle(entry)
        self._pending.clear()

    # -- envelopes ----------------------------------------------------------------------------

    def _parse(self, index: int, text: str, pointer: str) -> Envelope | None:
        try:
            return parse(text)
        except ParseError as exc:
            code = _PARSE_CODES.get(exc.code, "TW101")
            if self.emitter.on(code):
                self.emitter.emit(code, exc.message, agent=self.name, index=index,
                                  pointer=pointer, line=exc.line, column=exc.column,
                                  snippet=exc.context or None, file_line=self.file_line)
            return None

    def _delivered(self, index: int, text: str) -> None:
        pointer = f"{self.pointer}/{index}/content"
        env = self._parse(index, text, pointer)
        if env is None:
            self._protocol_seen = True
            return
        mtype = self._check_envelope(index, text, env, pointer)
        sender = env.sender
        if self.name is not None and sender == self.name:
            self._emit("TW206", f"{sender} sends a message into its own conversation", index,
                       pointer, text, 3)
        if mtype is None:
            self._protocol_seen = True
            return
        if mtype is MessageType.ANSWER:
            if self.strict:
                self._emit("TW204", "an Answer is delivered as a user message; answers are only "
                           "the result of the ask tool call", index, pointer, text, 0)
        elif mtype is MessageType.TASK:
            if sender != LEADER_NAME:
                self._emit("TW201", f"Task sent by {sender}; only the Team Leader sends tasks",
                           index, pointer, text, 3)
            if self.is_leader:
                self._emit("TW207", "Task delivered to the Team Leader; tasks go to sub-agents",
                           index, pointer, text, 0)
            elif self.is_sub:
                self._tasks += 1
                if self._tasks > 1:
                    self._emit("TW211", "second Task in this conversation; a sub-agent receives "
                               "exactly one Task", index, pointer, text, 0)
                elif self._protocol_seen:
                    self._emit("TW211", "the Task is not the first protocol message of this "
                               "conversation", index, pointer, text, 0)
        elif mtype is MessageType.PROGRESS or mtype is MessageType.COMPLETION:
            if sender == LEADER_NAME:
                self._emit("TW202", "Output sent by the Team Leader; only sub-agents report",
                           index, pointer, text, 3)
            if self.is_sub:
                self._emit("TW203", "Output delivered to a sub-agent; reports go only to the "
                           "Team Leader", index, pointer, text, 0)
        elif mtype is MessageType.MESSAGE and self.is_leader:
            self._emit("TW205", "Message delivered to the Team Leader; messages go only to "
                       "sub-agents", index, pointer, text, 0)
        self._protocol_seen = True
        self._record_id(index, env, pointer, text)
        if self.facts is not None:
            self.facts.deliveries.append(Delivery(index, env.id, sender, mtype, env.content))

    def _check_envelope(self, index: int, text: str, env: Envelope,
                        pointer: str) -> MessageType | None:
        """Checks every well-formed envelope gets, wherever it appears; returns its type."""
        header_end = text.find("\n")
        label = env.label
        mtype = MessageType.from_label(label, self.profile)
        if mtype is None:
            at = header_end - len(label)
            if label == ASTRION_COMPLETION_LABEL:
                self._emit("TW114", f"label {label!r} is the astrion dialect's completion label; "
                           "profile strict uses '任务完成汇报'", index, pointer, text, at)
                mtype = MessageType.COMPLETION
            else:
                self._emit("TW104", f"unknown label {label!r}", index, pointer, text, at)
        if mtype is not None and env.tag != mtype.tag:
            at = _line_start(text, 4) + 1
            self._emit("TW105", f"label {label!r} takes tag <{mtype.tag}>, not <{env.tag}>",
                       index, pointer, text, at)
        if env.receiver is not None:
            at = text.find(" 向 ") + 3
            if self.strict:
                self._emit("TW114", "the header form '来自 A 向 B 的…' belongs to the astrion "
                           "dialect", index, pointer, text, at)
            elif self.name is not None and env.receiver != self.name:
                self._emit("TW208", f"message addressed to {env.receiver} is in the conversation "
                           f"of {self.name}", index, pointer, text, at)
            self._check_name(env.receiver, index, pointer, text, at)
        self._check_name(env.sender, index, pointer, text, 3)
        self._check_id(index, env, mtype, pointer, text)
        has_question_id = False
        for name, value in env.attributes:
            if name in _ASTRION_ONLY and not self.strict:
                self._astrion_attribute(index, text, env, mtype, name, value, pointer)
            elif name == "question_id":
                has_question_id = True
                if mtype is not None and mtype is not MessageType.ANSWER and self.strict:
                    self._emit("TW110", f"question_id on a {env.tag}; only Answer carries it",
                               index, pointer, text, _attribute_offset(text, name))
            elif name == "id":
                self._emit("TW108", f"id given as an attribute (id=\"{shorten(value)}\"); the "
                           "id belongs on the id line", index, pointer, text,
                           _attribute_offset(text, name))
            elif self.strict:
                self._emit("TW111", f"attribute {name!r} is not part of spec 1.0", index,
                           pointer, text, _attribute_offset(text, name))
        if mtype is MessageType.ANSWER and not has_question_id:
            self._emit("TW109", "Answer without a question_id attribute", index, pointer,
                       text, _line_start(text, 4) + 1)
        if text.endswith("\n"):
            self._emit("TW115", "envelope ends with a line feed; the canonical text has none",
                       index, pointer, text, len(text) - 1)
        content = env.content
        if content.find(HEADER_MARK) >= 0:
            forged = forged_header_offset(text, content_offset(text))
            if forged is not None:
                self._emit("TW601", "content holds a line that forms an envelope header (a "
                           "forged message inside the content)", index, pointer, text, forged)
        return mtype

    def _astrion_attribute(self, index: int, text: str, env: Envelope, mtype: MessageType | None,
                           name: str, value: str, pointer: str) -> None:
        at = _attribute_offset(text, name)
        if name == "target":
            if env.receiver is not None and env.receiver != value:
                self._emit("TW117", f"header names receiver {env.receiver} but target is "
                           f"{shorten(value)}", index, pointer, text, at)
            elif self.name is not None and value != self.name:
                self._emit("TW208", f"message addressed to {shorten(value)} is in the conversation "
                           f"of {self.name}", index, pointer, text, at)
            return
        expected = _SUBTYPES.get(value)
        if expected is None or mtype is None:
            return
        receiver = env.receiver or env.attrs.get("target") or self.name
        wrong = mtype is not expected[0] or (
            expected[1] is not None and receiver is not None
            and (receiver == LEADER_NAME) is not expected[1])
        if wrong:
            self._emit("TW116", f"subtype {value!r} does not fit a {mtype.label} to "
                       f"{receiver or 'this receiver'}", index, pointer, text, at)

    def _check_name(self, name: str, index: int, pointer: str, text: str, at: int) -> None:
        ok = self._names.get(name)
        if ok:
            return
        if ok is None:
            ok = self._name_findings(name, index, pointer, text, at)
            self._names[name] = ok
        else:
            self._name_findings(name, index, pointer, text, at)

    def _name_findings(self, name: str, index: int, pointer: str, text: str | None,
                       at: int | None) -> bool:
        bad = unsafe_name_char(name)
        if bad is not None:
            self._emit("TW602", f"display name {shorten(name)!r} holds {bad!r} (U+{ord(bad):04X})",
                       index, pointer, text, at)
            return False
        problem = name_problem(name)
        if problem is not None:
            self._emit("TW112", f"{problem}: {shorten(name)!r}", index, pointer, text, at)
            return False
        return True

    def _check_id(self, index: int, env: Envelope, mtype: MessageType | None, pointer: str,
                  text: str) -> None:
        message_id = env.id
        if not self.strict and ASTRION_ID.fullmatch(message_id):
            return
        at = text.find("\n") + 5
        match = STRICT_ID.fullmatch(message_id)
        if match is None:
            chosen = mtype is MessageType.ASK or (mtype is MessageType.MESSAGE
                                                  and env.sender != LEADER_NAME)
            code = "TW304" if chosen else "TW107"
            self._emit(code, f"id {shorten(message_id)!r} is not 'task_NNN' or "
                       "'{prefix}_{abbr}_NNN'", index, pointer, text, at)
            return
        prefix = "task" if match.group("task_n") else match.group("prefix")
        if mtype is not None and prefix != mtype.prefix:
            self._emit("TW106", f"id {message_id!r} has prefix {prefix + '_'!r}; a {env.tag} "
                       f"({mtype.label}) takes {mtype.prefix + '_'!r}", index, pointer, text, at)
            return
        abbr = match.group("abbr")
        if abbr is not None and self.emitter.on("TW305"):
            expected = self._abbreviation(env.sender)
            if expected is not None and abbr != expected:
                self._emit("TW305", f"id {message_id!r} abbreviates the sender {env.sender} as "
                           f"{abbr!r}; expected {expected!r}", index, pointer, text,
                           at + len(prefix) + 1)

    def _abbreviation(self, sender: str) -> str | None:
        if sender in self._abbr:
            return self._abbr[sender]
        expected: str | None = None
        if sender == LEADER_NAME:
            expected = "tl"
        else:
            cut = sender.rfind("_")
            if cut > 0 and name_problem(sender) is None:
                role_id = self.session.role_id(sender) if self.session is not None else None
                if role_id is not None or any("A" <= ch <= "Z" for ch in sender[:cut]):
                    expected = abbreviation(sender[:cut], role_id)
        self._abbr[sender] = expected
        return expected

    def _record_id(self, index: int, env: Envelope, pointer: str, text: str) -> None:
        if not self.strict and env.tag == "Answer" and env.id == env.question_id:
            return  # astrion: an answer may reuse its question's id
        digest = hash((env.sender, env.label, env.tag, env.content))
        seen = self._ids.get(env.id)
        if seen is None:
            self._ids[env.id] = (digest, index)
            return
        at = text.find("\n") + 5
        if seen[0] == digest:
            self._emit("TW302", f"message {env.id!r} is delivered again (first at message "
                       f"{seen[1]})", index, pointer, text, at)
        else:
            self._emit("TW301", f"id {env.id!r} is already used by another message (message "
                       f"{seen[1]})", index, pointer, text, at)

    def _forged(self, index: int, text: str, start: int, what: str) -> None:
        at = forged_header_offset(text, start)
        if at is not None:
            self._emit("TW601", f"{what} holds a line that forms an envelope header (a forged "
                       "message)", index, f"{self.pointer}/{index}/content", text, at)

    # -- tool calls ---------------------------------------------------------------------------

    def _call(self, index: int, position: int, call: Any, has_text: bool) -> None:
        pointer = f"{self.pointer}/{index}/tool_calls/{position}"
        if type(call) is not dict:
            self._emit("TW004", f"tool call is {_json_type(call)}, not an object", index, pointer)
            return
        call_id = call.get("id")
        function = call.get("function")
        if type(call_id) is not str or not call_id or type(function) is not dict:
            self._emit("TW004", "tool call needs an 'id' string and a 'function' object", index,
                       pointer)
            return
        name = function.get("name")
        if type(name) is not str:
            self._emit("TW004", "tool call has no function name", index, pointer + "/function")
            return
        if call_id in self._call_ids:
            self._emit("TW414", f"tool call id {call_id!r} is used twice", index, pointer + "/id")
        else:
            self._call_ids.add(call_id)
        tools = self.tools
        if name in tools.removed:
            self._emit("TW405", f"{name} was removed in multi-agent mode", index, pointer)
        elif name in tools.forbidden:
            self._emit("TW406", f"{name} is forbidden: a sub-agent reports by natural output",
                       index, pointer)
        elif self.is_sub and name in tools.leader_only:
            self._emit("TW403", f"{name} is a Team Leader tool, called by a sub-agent", index,
                       pointer)
        elif self.is_leader and name in tools.sub_agent_only:
            self._emit("TW404", f"{name} is a sub-agent tool, called by the Team Leader", index,
                       pointer)
        if name not in tools.protocol:
            self._pending[call_id] = name
            return
        arguments = self._arguments(index, name, function.get("arguments"),
                                    pointer + "/function/arguments")
        record = Call(index, call_id, position, name, arguments, text_in_turn=has_text)
        self._pending[call_id] = record
        if arguments is not None:
            self._on_call(record, arguments, pointer)

    def _arguments(self, index: int, name: str, raw: Any, pointer: str) -> dict[str, Any] | None:
        if type(raw) is not str:
            self._emit("TW401", f"arguments of {name} are {_json_type(raw)}, not a JSON string",
                       index, pointer)
            return None
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            if self.emitter.on("TW401"):
                at = min(exc.pos, len(raw))
                self._emit("TW401", f"arguments of {name} are not valid JSON: {exc.msg}", index,
                           pointer, raw, at)
            return None
        if type(value) is not dict:
            self._emit("TW401", f"arguments of {name} are a JSON {_json_type(value)}, not an "
                       "object", index, pointer)
            return None
        if self.emitter.on("TW402"):
            for problem in self.tools.argument_errors(name, value):
                self._emit("TW402", f"{name}: {problem}", index, pointer)
            for key in _TEXT_ARGUMENTS:
                text = value.get(key)
                if type(text) is str and (not text or text.isspace()):
                    self._emit("TW402", f"{name}: {key} is blank", index, pointer)
        return value

    def _on_call(self, call: Call, arguments: dict[str, Any], pointer: str) -> None:
        name = call.name
        if name == "ask_other_agent":
            chosen = arguments.get("message_id" if self.strict else "question_id")
            notice = self.strict and type(chosen) is str and chosen.startswith("msg_")
            if self.is_sub and not call.text_in_turn and not notice:
                self._emit("TW509", "ask_other_agent is called without text for the Team "
                           "Leader in the same message", call.index, pointer)
            self._chosen_id(call, chosen, MessageType.MESSAGE if notice else MessageType.ASK,
                            pointer)
        elif name in ("ask_master", "ask_sub_agent"):
            self._chosen_id(call, arguments.get("question_id"), MessageType.ASK, pointer)

    def _chosen_id(self, call: Call, value: Any, mtype: MessageType, pointer: str) -> None:
        if type(value) is not str:
            return
        problem = id_problem(value, mtype, self.profile)
        if problem is not None:
            self._emit("TW304", f"{call.name}: {problem}", call.index,
                       pointer + "/function/arguments")

    def _tool_text(self, index: int, text: str, tool: str | None) -> Result:
        pointer = f"{self.pointer}/{index}/content"
        if text.startswith(HEADER_MARK) and is_envelope(text):
            env = self._parse(index, text, pointer)
            if env is None:
                return Result(index, rejected=False)
            mtype = self._check_envelope(index, text, env, pointer)
            if self.name is not None and env.sender == self.name:
                self._emit("TW206", f"{env.sender} answers itself", index, pointer, text, 3)
            if mtype is MessageType.ANSWER:
                if tool is not None and tool not in ASK_TOOLS:
                    self._emit("TW209", f"an Answer is the result of {tool}, which is not an ask "
                               "tool", index, pointer, text, 0)
                self._record_id(index, env, pointer, text)
                return Result(index, rejected=False, answer=env)
            if mtype is not None:
                self._emit("TW210", f"a {env.tag} envelope is returned as a tool result; only "
                           "Answers travel as tool results", index, pointer, text, 0)
            return Result(index, rejected=False)
        rejected = False
        error_code: str | None = None
        if tool is not None and tool in self.tools.protocol:
            value: Any = None
            if text[:1] == "{":
                try:
                    value = orjson.loads(text)
                except orjson.JSONDecodeError:
                    value = None
            success = value.get("success") if type(value) is dict else None
            if success is False:
                rejected = True
                error = value.get("error")
                if type(error) is dict and type(error.get("code")) is str \
                        and type(error.get("message")) is str:
                    error_code = error["code"]
                else:
                    self._emit("TW416", f"error result of {tool} lacks error.code and "
                               "error.message strings", index, pointer)
            elif success is not True and tool not in ASK_TOOLS:
                self._emit("TW416", f"result of {tool} is not a JSON object with \"success\": "
                           "true or false", index, pointer)
        if text.find(HEADER_MARK) >= 0:
            self._forged(index, text, 0, "a tool result")
        return Result(index, rejected=rejected, error_code=error_code)

    # -- settled calls: checks that depend on the result --------------------------------------

    def _settle(self, call: Call) -> None:
        arguments = call.arguments
        if arguments is None:
            return
        name = call.name
        result = call.result
        if name in ASK_TOOLS and result is not None and not result.rejected:
            self._check_answer(call, arguments, result)
        if self.is_leader:
            self._leader_state(call, arguments)
        elif self.is_sub and call.accepted:
            key = "target_agent_id" if name == "ask_other_agent" else (
                "source_agent_id" if name == "answer_other_agent" and self.strict else None)
            if key is not None:
                self._sub_target(call, arguments.get(key), arguments.get("role_id"))
        if self.facts is not None:
            self.facts.calls.append(call)

    def _sub_target(self, call: Call, agent_id: Any, role_id: Any) -> None:
        """A sub-agent's target: never itself, and (in a bundle) one existing sub-agent."""
        if type(agent_id) is not int:
            return
        me = self.agent
        others: dict[int, set[str]] | None = None
        if self.session is not None:
            others = {n: set(r) for n, r in self.session.sub_roles().items()}
            if me.agent_id is not None and me.role_id is not None:
                others.get(me.agent_id, set()).discard(me.role_id)
        if agent_id == me.agent_id and (
                (type(role_id) is str and role_id == me.role_id)
                or (role_id is None and others is not None and not others.get(agent_id))):
            self._emit("TW415", f"{call.name} targets its own caller and did not fail",
                       call.index, self._call_pointer(call))
            return
        if others is not None:
            self._check_target(call, agent_id, role_id, others)
        if call.name == "ask_other_agent" and self.emitter.on("TW510"):
            key = (agent_id, role_id if type(role_id) is str else None)
            count = self._rounds.get(key, 0) + 1
            self._rounds[key] = count
            if count == self.round_limit + 1:
                self._emit("TW510", f"ask_other_agent to agent_id {agent_id}: {count} asks, over "
                           f"the round limit of {self.round_limit}", call.index,
                           self._call_pointer(call))

    def _check_answer(self, call: Call, arguments: dict[str, Any], result: Result) -> None:
        pointer = f"{self.pointer}/{result.index}/content"
        answer = result.answer
        if answer is None:
            self._emit("TW504", f"the successful result of {call.name} is not an Answer envelope",
                       result.index, pointer)
            return
        if call.name == "ask_other_agent":
            expected = arguments.get("message_id" if self.strict else "question_id")
        else:
            expected = arguments.get("question_id")
        if type(expected) is str and answer.question_id is not None \
                and answer.question_id != expected:
            self._emit("TW504", f"{call.name} asked {expected!r} but its result answers "
                       f"{answer.question_id!r}", result.index, pointer)
        answerer = self._answerer(call, arguments)
        if answerer is not None and answer.sender != answerer:
            self._emit("TW504", f"{call.name} result is an Answer from {answer.sender}, not from "
                       f"{answerer}", result.index, pointer)

    def _answerer(self, call: Call, arguments: dict[str, Any]) -> str | None:
        if call.name == "ask_master":
            return LEADER_NAME
        key = "agent_id" if call.name == "ask_sub_agent" else "target_agent_id"
        agent_id = arguments.get(key)
        if type(agent_id) is not int or self.session is None:
            return None
        role_id = arguments.get("role_id")
        matches = self.session.subs_with(agent_id, role_id if type(role_id) is str else None)
        return matches[0].name if len(matches) == 1 else None

    def _know(self, role_id: str, agent_id: int) -> None:
        self._known.setdefault(agent_id, set()).add(role_id)

    def _leader_state(self, call: Call, arguments: dict[str, Any]) -> None:
        name = call.name
        accepted = call.accepted
        if name == "create_sub_agent":
            role_id = arguments.get("role_id")
            agent_id = arguments.get("agent_id")
            if type(role_id) is not str:
                return
            if agent_id is None and not self.strict:
                taken = [n for n, roles in self._known.items() if role_id in roles]
                agent_id = max(taken, default=0) + 1
            if type(agent_id) is not int or not accepted:
                return
            key = (role_id, agent_id)
            first = self._created.get(key)
            if first is not None:
                self._emit("TW407", f"create_sub_agent reuses {role_id} #{agent_id}, created at "
                           f"message {first}", call.index, self._call_pointer(call))
                return
            self._created[key] = call.index
            self._know(role_id, agent_id)
        elif name in TARGETING_TOOLS:
            if not accepted:
                return
            role_id = arguments.get("role_id")
            if name == "get_sub_agent_status" and not self.strict:
                targets = arguments.get("agent_ids")
                for agent_id in targets if type(targets) is list else ():
                    self._check_target(call, agent_id, None, self._known, terminated_ok=True)
                return
            target = self._check_target(call, arguments.get("agent_id"), role_id, self._known,
                                        terminated_ok=name == "get_sub_agent_status")
            if target is not None and name == "terminate_sub_agent":
                self._terminated.add(target)

    def _check_target(self, call: Call, agent_id: Any, role_id: Any, known: dict[int, set[str]],
                      terminated_ok: bool = False) -> tuple[str, int] | None:
        """Flag a target that does not exist, is ambiguous or terminated; return its key."""
        if type(agent_id) is not int:
            return None
        roles = known.get(agent_id, set())
        if type(role_id) is str:
            roles = roles & {role_id}
        pointer = self._call_pointer(call)
        if not roles:
            which = f"{role_id} #{agent_id}" if type(role_id) is str else f"agent_id {agent_id}"
            self._emit("TW408", f"{call.name} targets {which}, which does not exist", call.index,
                       pointer)
            return None
        if len(roles) > 1:
            self._emit("TW410", f"{call.name}: agent_id {agent_id} matches agents of roles "
                       f"{', '.join(sorted(roles))}; the call must fail or name a role_id",
                       call.index, pointer)
            return None
        key = (next(iter(roles)), agent_id)
        if key in self._terminated and not terminated_ok:
            self._emit("TW409", f"{call.name} targets {key[0]} #{agent_id}, which was terminated, "
                       "and did not fail", call.index, pointer)
        return key

    def _call_pointer(self, call: Call) -> str:
        return f"{self.pointer}/{call.index}/tool_calls/{call.position}"


def _line_start(text: str, n: int) -> int:
    """Offset of the start of line ``n`` (0-based) of ``text``."""
    at = -1
    for _ in range(n):
        at = text.find("\n", at + 1)
        if at < 0:
            return len(text)
    return at + 1


def _attribute_offset(text: str, name: str) -> int:
    start = _line_start(text, 4)
    at = text.find(f" {name}=", start)
    return at + 1 if at >= 0 else start


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def pointer_of(prefix: str, *tokens: str | int) -> str:
    """``prefix`` followed by the escaped ``tokens``."""
    return prefix + "".join("/" + escape_pointer(str(t)) for t in tokens)
