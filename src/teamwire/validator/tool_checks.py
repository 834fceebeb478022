"""The tool half of a conversation pass: reads tool calls and their results into the facts
their rules check (``facts``), and keeps the leader's view of its team."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import orjson

from teamwire.envelope import LEADER_NAME, MessageType
from teamwire.envelope.fast_parser import Fields, scan
from teamwire.envelope.ids import MESSAGE_ID
from teamwire.envelope.names import astrion_lookup
from teamwire.json_members import ARGUMENTS_DEPTH_LIMIT, depth, member_count, repeated_member
from teamwire.schemas.arguments import ArgumentProblem, ProblemKind, read_arguments
from teamwire.validator.dispatch import Hand, all_quiet
from teamwire.validator.envelope_checks import EnvelopeChecks
from teamwire.validator.facts import (
    AgentCreated,
    AskAnswered,
    CallTarget,
    EnvelopeAttributes,
    PeerAsk,
    Returned,
    RoleDefined,
    ToolCall,
    ToolResult,
    ToolText,
    call_pointer,
)
from teamwire.validator.memo import IdTest
from teamwire.validator.model import UNTOLD, Answer, Call, Result, created_name
from teamwire.validator.scan import HEADER_MARK, json_type
from teamwire.validator.tooling import (
    ASK_TOOLS,
    TARGETING_TOOLS,
    ask_other_form,
    named_target,
)


def answer_of(fields: Fields) -> Answer:
    """The Answer of an Answer envelope's parts."""
    question_id = None
    for name, value in fields[5]:
        if name == "question_id":
            question_id = value
            break  # a parsed envelope never holds an attribute twice
    return Answer(fields[0], question_id, fields[6])
_NUMBER = re.compile(r"(?<=.)_([0-9]{1,18})\Z", re.DOTALL)
"""The instance number a display name ends with."""
_ANSWER_HEADS = 256


def read_call_arguments(raw: Any) -> tuple[dict[str, Any] | None, ArgumentProblem | None]:
    """The arguments object of a call, and what marred reading it, as
    ``schemas.arguments.read_arguments`` tells (the object is None when the problem stops
    reading); told at the least cost for the common, well-formed case."""
    if type(raw) is str:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = None if raw and not raw.isspace() else {}
        if type(value) is dict:
            # Each member has one colon outside strings: as many colons as the decoded
            # objects hold members means no name was dropped as a repeat. Most arguments are
            # flat, with no colon in their texts, so their own length tells at once.
            colons = raw.count(":")
            if colons == len(value) or colons == member_count(value) \
                    or repeated_member(raw) is None:
                for item in value.values():  # most arguments hold no object or array at all
                    if type(item) is dict or type(item) is list:
                        if depth(value) <= ARGUMENTS_DEPTH_LIMIT:
                            return value, None
                        break
                else:
                    return value, None
    reading = read_arguments(raw)
    problem = reading.problem
    if problem is None or problem.kind is ProblemKind.TOO_DEEP:
        return reading.arguments, problem
    return None, problem


class ToolChecks(EnvelopeChecks):
    """The tool half of a conversation pass."""

    # -- calls ---------------------------------------------------------------------------------

    def check_call(self, index: int, position: int, call: Any, has_text: bool) -> None:
        """Check one entry of an assistant message's tool_calls and remember it as pending."""
        if type(call) is dict:
            call_id = call.get("id")
            function = call.get("function")
            if type(call_id) is str and call_id and type(function) is dict:
                name = function.get("name")
                if type(name) is str:
                    repeated = call_id in self.call_ids
                    if not repeated:
                        self.call_ids.add(call_id)
                    if name in self.protocol:
                        self.protocol_call(index, position, call_id, name,
                                           function.get("arguments"), has_text, repeated)
                    else:
                        verdict = self.tool_verdicts.get(name)
                        hand = self.call_hand(name, False, verdict is not None, repeated,
                                              False)
                        if hand:
                            raw = function.get("arguments")
                            hand(ToolCall(index, call_id, position, name, None, None, has_text,
                                          False, verdict, repeated, False, raw, None,
                                          self.tools, self.owner), self.report)
                        self.pending[call_id] = (name, index)
                    return
                self.malformed(index, "tool call has no function name",
                               f"{call_pointer(position)}/function")
                return
            self.malformed(index, "tool call needs an 'id' string and a 'function' object",
                           call_pointer(position))
            return
        self.malformed(index, f"tool call is {json_type(call)}, not an object",
                       call_pointer(position))

    def protocol_call(self, index: int, position: int, call_id: str, name: str, raw: Any,
                      has_text: bool, repeated: bool = False) -> None:
        """Hand a call of protocol tool ``name`` to the checks of calls and remember it as
        pending."""
        arguments, problem = read_call_arguments(raw)
        verdict = self.tool_verdicts.get(name)
        # Only the checks of calls that look into a call of this kind (Trigger.calls); those
        # of most calls (a first id, arguments read cleanly) kept by tool for this pass.
        plain = self.plain_call_hands
        if repeated or problem is not None:
            hand = self.call_hand(name, True, verdict is not None, repeated, problem is not None)
        elif name in plain:
            hand = plain[name]
        else:
            hand = plain[name] = self.call_hand(name, True, verdict is not None, False, False)
        # One object for the call: the fact the checks of calls take, then the pending Call.
        call = ToolCall(index, call_id, position, name, arguments, None, has_text, False,
                        verdict, repeated, True, raw, problem, self.tools, self.owner)
        if hand:
            hand(call, self.report)
        self.pending[call_id] = call

    # -- results -------------------------------------------------------------------------------

    def check_result_text(self, index: int, text: str, tool: str | None) -> Result | None:
        """Check the content of a tool result; the Result matters for protocol tools only."""
        if text.startswith(HEADER_MARK):
            quiet = self._quiet_answer(index, text, tool)
            if quiet is not None:
                return quiet
            fields = scan(text)
            if fields is None:
                parsed = self.parse_envelope(index, text)
                if parsed is True:
                    return Result(index, rejected=False, malformed=True)
                if type(parsed) is tuple:
                    fields = parsed
            if fields is not None:
                mtype = self.check_envelope(index, text, fields)
                if self.returned_hand:
                    self.returned_hand(Returned(index, text, fields[0], mtype, fields[4], tool,
                                                self.owner), self.report)
                if mtype is MessageType.ANSWER:
                    self.record_id(index, fields, text)
                    self._remember_answer(text, fields)
                    return Result(index, False, answer_of(fields))
                return Result(index, False)
        if self.tool_text_hand and self.tool_text_gate.opens(text, text):
            self.tool_text_hand(ToolText(index, text, tool), self.report)
        if tool is None or tool not in self.protocol:
            return None
        texts = self.tools.result_texts.get(tool)
        if texts is not None and text[:1] != "{":
            return self._text_result(index, text, tool, texts)
        value: Any = None
        if text[:1] == "{":
            try:
                value = orjson.loads(text)
            except orjson.JSONDecodeError:
                value = None
        success = value.get("success") if type(value) is dict else None
        hand = self.success_hand(tool) if success is True else self.result_hand
        if hand:
            hand(ToolResult(index, tool, value, self.strict), self.report)
        if success is False:
            error = value.get("error")
            if type(error) is dict and type(error.get("code")) is str \
                    and type(error.get("message")) is str:
                return Result(index, rejected=True, error_code=error["code"])
            if not self.strict and type(error) is str and error.strip():
                return Result(index, rejected=True, error_code=UNTOLD)  # TW-PROF-030
            return Result(index, rejected=True)
        return Result(index, False, None, None, False, created_name(tool, value))  # by position

    @staticmethod
    def _text_result(index: int, text: str, tool: str, texts: tuple[str, ...]) -> Result:
        """A result the profile's implementation writes as text (TW-PROF-028): a success
        when it starts with one of ``texts`` (an ask's answer follows), else an error result
        that does not say whether the call's message went out."""
        for start in texts:
            if text.startswith(start):
                answer = Answer("", None, text[len(start):], True) if tool in ASK_TOOLS else None
                return Result(index, False, answer)
        return Result(index, rejected=True, error_code=UNTOLD)

    def _remember_answer(self, text: str, fields: Fields) -> None:
        """Remember the header line of an Answer whose head no check reports here."""
        sender, receiver, label, _id, tag, attributes, _content = fields
        plan = self.plans.get((label, tag, sender))
        if plan is None or receiver is not None or tag != "Answer" \
                or not self._answer_quiet(sender, None) or len(attributes) != 1 \
                or attributes[0][0] != "question_id" \
                or len(self.answer_heads) >= _ANSWER_HEADS:
            return
        nl = text.find("\n")
        if not text.startswith("\nid: ", nl):
            return
        line = text[:nl + 5]
        parts = (sender, label, f'\n\n<{sender}>\n<Answer question_id="',
                 f"\n</Answer>\n</{sender}>")
        self.answer_heads[line] = (*parts, plan[1])
        self.memo.add_answer_line(line, parts)

    def _known_answer(self, line: str) -> tuple[str, str, str, str, IdTest] | None:
        """The head of an Answer header line another conversation found quiet, when it is
        quiet here too (now remembered here); else None."""
        parts = self.memo.answer_lines.get(line)
        if parts is None or len(self.answer_heads) >= _ANSWER_HEADS \
                or not self._answer_quiet(parts[0], None):
            return None
        sender, label = parts[0], parts[1]
        plan = self.plans.get((label, "Answer", sender)) or self._shared_plan(label, "Answer",
                                                                               sender)
        if plan is None:
            return None
        head = self.answer_heads[line] = (*parts, plan[1])
        return head

    def success_hand(self, tool: str) -> Hand | None:
        """The hand-out of a successful result of ``tool``: None when every enabled check of
        results is quiet about those (``Check.quiet``), so that no fact is made for them."""
        hands = self.success_hands
        if tool in hands:
            return hands[tool]
        hand = None if all_quiet(self.result_checks, tool, self.owner) else self.result_hand
        hands[tool] = hand
        return hand

    def _answer_quiet(self, sender: str, tool: str | None) -> bool:
        """Whether no check of returned envelopes ever reports an Answer from ``sender`` as
        the result of ``tool`` (None: of no call) in this conversation."""
        key = (self.owner, sender, tool)
        found = self.memo.answer_quiet.get(key)
        if found is None:
            found = all_quiet(self.returned_every, MessageType.ANSWER, sender, tool, self.owner)
            self.memo.add_answer_quiet(key, found)
        return found

    def _quiet_answer(self, index: int, text: str, tool: str | None) -> Result | None:
        """The Result of an Answer no check reports, told with string tests from a header
        line seen before; None (having changed nothing) otherwise."""
        nl = text.find("\n")
        if nl <= 0:
            return None
        line = text[:nl + 5]  # with the "id: " that starts the next line, as remembered
        head = self.answer_heads.get(line) or self._known_answer(line)
        if head is None:
            return None
        sender, label, middle, tail, id_test = head
        quiet = self.memo.answer_quiet.get((self.owner, sender, tool))
        if not (self._answer_quiet(sender, tool) if quiet is None else quiet):
            return None
        # The lines after the id start with a line break: where they are first found ends
        # the id when it holds no line break.
        id_end = text.find(middle, nl + 5)
        if id_end <= 0:
            return None
        value_at = id_end + len(middle)
        value_end = text.find('">\n', value_at)
        body_at = value_end + 3
        body_end = len(text) - len(tail)
        if value_end < 0 or body_end < body_at or not text.endswith(tail):
            return None
        question_id = text[value_at:value_end]
        message_id = text[nl + 5:id_end]
        # A question id that is a message id surely is an attribute value the grammar takes.
        if "\n" in message_id or MESSAGE_ID.fullmatch(question_id) is None \
                or id_test(message_id) is None:
            return None
        body = text[body_at:body_end]
        if self.envelope_opens is not None and self.envelope_opens(text, body):
            return None
        if self.strict or message_id != question_id:  # astrion: it may reuse its question's id
            if message_id in self.ids:
                return None
            self.ids[message_id] = (index, hash((sender, label, "Answer", body))) \
                if self.hash_ids else (index, sender, label, "Answer", body)
        if self.attribute_hand:
            self.attribute_hand(EnvelopeAttributes(index, text, sender, None, label, "Answer",
                                                   MessageType.ANSWER,
                                                   (("question_id", question_id),), self.owner),
                                self.report)
        return Result(index, False, Answer(sender, question_id, body))

    # -- settled calls: checks that depend on the result -----------------------------------------

    def settle(self, call: Call) -> None:
        """Checks of a call once its result is known (or known to be missing)."""
        arguments = call.arguments
        if arguments is None:
            return
        name = call.name
        result = call.result
        if name in ASK_TOOLS and result is not None and not result.rejected \
                and not result.malformed:
            self._answered(call, arguments, result)
        if self.is_leader:
            self._leader_state(call, arguments)
        elif self.is_sub and (result is None or not result.rejected):  # call.accepted
            key = "target_agent_id" if name == "ask_other_agent" else (
                "source_agent_id" if name == "answer_other_agent" else None)
            if key is not None:
                agent_id, role_id = arguments.get(key), arguments.get("role_id")
                named = named_target(arguments, key, self.strict)
                if named is not None:
                    agent_id, role_id = self._named_key(named)
                    if agent_id is not None and agent_id < 0:
                        self._nowhere(call, named)
                        agent_id = None
                self._sub_target(call, agent_id, role_id)
        if self.facts is not None and name not in self.tool_verdicts:
            # A tool this agent may not call is reported here (TW403-TW406); whatever its
            # result says, the checks across conversations expect nothing of it.
            self.facts.calls.append(call)

    def _answered(self, call: Call, arguments: dict[str, Any], result: Result) -> None:
        """Hand the checks of answers the successful result of an ask; an answer astrion
        wrote as text takes its answerer and question from the call."""
        answer = result.answer
        expected: Any = None
        answerer: str | None = None
        if answer is not None:
            expected = ask_other_form(arguments, self.strict)[0] \
                if call.name == "ask_other_agent" else arguments.get("question_id")
            answerer = self._answerer(call, arguments)
            if answer.text_form:
                answer.sender = answerer or ""
                answer.question_id = expected if type(expected) is str else None
        if self.answered_hand:
            self.answered_hand(AskAnswered(result.index, call.name, answer, expected, answerer),
                               self.report)

    def _answerer(self, call: Call, arguments: dict[str, Any]) -> str | None:
        if call.name == "ask_master":
            return LEADER_NAME
        key = "agent_id" if call.name == "ask_sub_agent" else "target_agent_id"
        named = named_target(arguments, key, self.strict)
        if named is not None:
            agent = self.session.by_name(named) if self.session is not None else None
            return None if agent is None or agent.name == self.name else agent.name
        agent_id = arguments.get(key)
        if type(agent_id) is not int or self.session is None:
            return None
        role_id = arguments.get("role_id")
        return self.target_of(agent_id, role_id if type(role_id) is str else None)

    def _named_key(self, name: str) -> tuple[int | None, str | None]:
        """(agent_id, role_id) of the sub-agent an astrion call names by display name
        (TW-PROF-026): the bundle's entry of that name; without a bundle, the sub-agent this
        conversation created under that name, the first of them, else the first whose name
        differs only in case (TW-PROF-031); failing that, the number the name ends with and
        the role of the one sub-agent known here with that number (role None when there are
        several, or none)."""
        if self.session is not None:
            agent = self.session.by_name(name)
            if agent is None:
                return -1, None  # no sub-agent of the session has that name
            return agent.agent_id, agent.role_id
        shown = self.shown_names.get(name)
        if shown is None:
            other = astrion_lookup(name, self.shown_names)
            shown = None if other is None else self.shown_names[other]
        if shown is not None:
            return shown[1], shown[0]
        number = _NUMBER.search(name)
        if number is None:
            return None, None
        agent_id = int(number[1])
        roles = self.known.get(agent_id, ())
        return agent_id, next(iter(roles)) if len(roles) == 1 else None

    def target_of(self, agent_id: int, role_id: str | None) -> str | None:
        """The one other sub-agent of the session with this agent_id (and role_id), or None."""
        key = (agent_id, role_id)
        cache = self.targets
        if key not in cache:
            assert self.session is not None
            matches = [m for m in self.session.subs_with(agent_id, role_id)
                       if m.name != self.name]
            cache[key] = matches[0].name if len(matches) == 1 else None
        return cache[key]

    def _sub_target(self, call: Call, agent_id: Any, role_id: Any) -> None:
        """A sub-agent's target: never itself, and (in a bundle) one existing sub-agent."""
        if type(agent_id) is not int:
            return
        me = self.agent
        others = self._others()
        if agent_id == me.agent_id and (
                (type(role_id) is str and role_id == me.role_id)
                or (role_id is None and others is not None and not others.get(agent_id))):
            if self.target_hand:
                self.target_hand(CallTarget(call.index, call.position, call.name, None, None,
                                            agent_id, (), False, False, True), self.report)
            return
        if others is not None:
            self._check_target(call, agent_id, role_id, others)
        if call.name == "ask_other_agent" and self.peer_hand:
            # Count per target agent: one peer named with and without role_id is one peer, so
            # in a bundle the key takes the role id of the agent the call resolves to.
            role = role_id if type(role_id) is str else None
            if role is None and self.session is not None \
                    and self.target_of(agent_id, None) is not None:
                role = next(m.role_id for m in self.session.subs_with(agent_id)
                            if m.name != self.name)
            key = (agent_id, role)
            count = self.rounds.get(key, 0) + 1
            self.rounds[key] = count
            self.peer_hand(PeerAsk(call.index, call_pointer(call.position), agent_id, count,
                                   self.round_limit), self.report)

    def _others(self) -> dict[int, set[str]] | None:
        """Role ids of the session's other sub-agents by agent_id (None outside a bundle)."""
        if self.session is None:
            return None
        if self.others is None:
            me = self.agent
            others = {n: set(r) for n, r in self.session.sub_roles().items()}
            if me.agent_id is not None and me.role_id is not None:
                others.get(me.agent_id, set()).discard(me.role_id)
            self.others = others
        return self.others

    def know(self, role_id: str, agent_id: int) -> None:
        """Record that the sub-agent (role_id, agent_id) exists."""
        self.known.setdefault(agent_id, set()).add(role_id)

    def _leader_state(self, call: Call, arguments: dict[str, Any]) -> None:
        name = call.name
        accepted = call.result is None or not call.result.rejected  # Call.accepted, inline
        if name == "create_sub_agent":
            role_id = arguments.get("role_id")
            agent_id = arguments.get("agent_id")
            if type(role_id) is not str:
                return
            if agent_id is None and not self.strict:
                taken = [n for n, roles in self.known.items() if role_id in roles]
                agent_id = max(taken, default=0) + 1
            if type(agent_id) is not int or not accepted:
                return
            key = (role_id, agent_id)
            first = self.created.get(key)
            if self.created_hand:
                self.created_hand(AgentCreated(call.index, call_pointer(call.position), role_id,
                                               agent_id, first), self.report)
            if first is not None:
                return
            self.created[key] = call.index
            self.know(role_id, agent_id)
            shown = call.result.display_name if call.result is not None else None
            if shown is not None:
                # astrion looks a name up in creation order: the first of a name wins
                self.shown_names.setdefault(shown, key)
        elif name == "create_custom_agent" and accepted:
            self._custom_role(call, arguments)
        elif name in TARGETING_TOOLS and accepted:
            role_id = arguments.get("role_id")
            if name == "get_sub_agent_status" and "agent_ids" in arguments:
                targets = arguments.get("agent_ids")
                for agent_id in targets if type(targets) is list else ():
                    self._check_target(call, agent_id, None, self.known, terminated_ok=True)
                return
            if name == "get_sub_agent_status" and "display_names" in arguments \
                    and not self.strict:
                names = arguments.get("display_names")
                for shown in names if type(names) is list else ():
                    if type(shown) is str:
                        self._check_named(call, shown, terminated_ok=True)
                return
            named = named_target(arguments, "agent_id", self.strict)
            if named is not None:
                target = self._check_named(call, named, name == "get_sub_agent_status")
            else:
                target = self._check_target(call, arguments.get("agent_id"), role_id, self.known,
                                            name == "get_sub_agent_status")  # terminated_ok
            if target is not None and name == "terminate_sub_agent":
                self.terminated.add(target)

    def _custom_role(self, call: Call, arguments: dict[str, Any]) -> None:
        """Hand the checks of roles a role create_custom_agent defines again: one defined
        before with that id or name, or the role of a sub-agent created or known before
        (TW-TOOL-018; astrion replaces the role instead, TW-PROF-020)."""
        role_id, role_name = arguments.get("role_id"), arguments.get("name")
        if type(role_id) is not str:
            return
        keys = [("role id", role_id)] + ([("name", role_name)] if type(role_name) is str else [])
        for kind, value in keys:
            first = self.custom_roles.get((kind, value))
            if first is None and kind == "role id" and any(
                    role_id in roles for roles in self.known.values()):
                first = -1
            if first is not None:
                if self.role_hand:
                    self.role_hand(RoleDefined(call.index, call_pointer(call.position), kind,
                                               value, None if first < 0 else first, self.strict),
                                   self.report)
                return
        for key in keys:
            self.custom_roles[key] = call.index

    def _check_named(self, call: Call, name: str,
                     terminated_ok: bool = False) -> tuple[str, int] | None:
        """``_check_target`` for a sub-agent an astrion call names by display name. Without a
        bundle, a number several roles share is left alone: the name tells the role, which
        the conversation need not."""
        agent_id, role_id = self._named_key(name)
        if agent_id is None or (role_id is None and len(self.known.get(agent_id, ())) > 1):
            return None
        if agent_id < 0:
            self._nowhere(call, name)
            return None
        return self._check_target(call, agent_id, role_id, self.known, terminated_ok)

    def _check_target(self, call: Call, agent_id: Any, role_id: Any, known: dict[int, set[str]],
                      terminated_ok: bool = False) -> tuple[str, int] | None:
        """Hand the checks of targets the sub-agent a call targets (whether it exists, is
        ambiguous or was terminated); its key when it is one sub-agent."""
        if type(agent_id) is not int:
            return None
        roles: Collection[str] = known.get(agent_id) or ()
        if type(role_id) is str:
            roles = (role_id,) if role_id in roles else ()
        key = (next(iter(roles)), agent_id) if len(roles) == 1 else None
        if self.target_hand:
            self.target_hand(CallTarget(call.index, call.position, call.name,
                                        role_id if type(role_id) is str else None, None, agent_id,
                                        tuple(roles) if len(roles) < 2 else tuple(sorted(roles)),
                                        key is not None and key in self.terminated,
                                        terminated_ok, False), self.report)
        return key

    def _nowhere(self, call: Call, name: str) -> None:
        """Hand the checks of targets a display name no sub-agent of the session has."""
        if self.target_hand:
            self.target_hand(CallTarget(call.index, call.position, call.name, None, name, None,
                                        (), False, False, False), self.report)
