"""One pass over one conversation: every check that needs only that conversation.

The pass walks the messages in order, keeps what later messages need (open calls, ids,
heads) and hands what each message says to the rule checks as facts (``facts``,
``dispatch``). Messages are the plain dicts the decoder produced; nothing is copied. For
bundles the pass also records the facts the cross-conversation checks need
(``model.Facts``); for a lone conversation it keeps only what later messages of
the same conversation need, so memory stays flat while streaming JSONL.
"""

from __future__ import annotations

from typing import Any

from orjson import JSONDecodeError, loads

from teamwire.envelope import MessageType
from teamwire.envelope.fast_parser import Fields, scan
from teamwire.validator.dispatch import all_quiet, quiet_unless
from teamwire.validator.facts import (
    AssistantText,
    Delivered,
    MissingResult,
    NotText,
    StrayResult,
    ToolCall,
    ToolResult,
    UserText,
)
from teamwire.validator.memo import QuietPlan
from teamwire.validator.model import Call, DeliveredEnvelope, Result, created_name
from teamwire.validator.scan import (
    HEADER_MARK,
    MARK_KEY,
    has_mark,
    json_type,
)
from teamwire.validator.tool_checks import ToolChecks, answer_of

_ROLES = ("system", "user", "assistant", "tool")
_HEADS = 256
"""Header lines of quiet deliveries remembered per conversation (a handful in practice)."""
_TASK = MessageType.TASK
_PROGRESS = MessageType.PROGRESS
_COMPLETION = MessageType.COMPLETION
_ANSWER = MessageType.ANSWER
_MESSAGE = MessageType.MESSAGE


class ConversationLinter(ToolChecks):
    """Lints the messages of one agent's conversation, fed one at a time, in order."""

    def feed(self, index: int, message: Any, file_line: int | None = None) -> None:
        """Check one message (``index`` is its 0-based position in the conversation;
        ``file_line``, the line of the file it starts on, when known)."""
        self.file_line = file_line
        if file_line is None:
            self._feed(index, message)
            return
        self.message_index = index
        lines = self.file_lines
        lines[index] = file_line
        self._feed(index, message)
        if not self.pending:
            lines.clear()  # no finding can name an earlier message once no call is open

    def _feed(self, index: int, message: Any) -> None:
        if type(message) is not dict:
            self.malformed(index, f"message is a JSON {json_type(message)}, not an object")
            return
        role = message.get("role")
        if role == "assistant":
            self._assistant(index, message)
        elif role == "tool":
            self._tool(index, message)
        elif role == "user":
            self._user(index, message)
        elif role == "system":
            if self.pending:
                self._flush_pending(index)
            content = message.get("content")
            if type(content) is not str:
                self._bad_content(index, content, "a system message")
        else:
            shown = "missing" if role is None else repr(role)
            self.malformed(index, f"role is {shown}; expected one of {', '.join(_ROLES)}",
                           "/role")

    def feed_all(self, messages: list[Any]) -> None:
        """Check every message of a conversation held in memory, in order.

        Does what ``feed`` does for each message. The messages nearly every conversation
        is made of (an ordinary tool call, its result, a delivered envelope no check
        reports) are taken here inline; anything else, or anything about them a check
        might report, goes to the handler ``feed`` uses, before any state has changed.
        """
        self.file_line = None
        assistant, user, feed = self._assistant, self._user, self._feed
        pending, call_ids, special = self.pending, self.call_ids, self.special_tools
        quiet, ids, texts, hash_ids = self.quiet, self.ids, self.texts, self.hash_ids
        heads = self.heads
        # has_mark, with its first two tests inline: most texts fail them
        marked, key = has_mark, MARK_KEY
        # What the enabled checks' triggers let the inline paths skip: an assistant text, an
        # envelope taken by its head, a tool's output (dispatch.FastPath).
        every_text, text_ends, firsts, prefixes, suffixes, on_mark, every_envelope, \
            env_prefixes, env_suffixes, env_mark, head_ends, head_prefixes, head_suffixes, \
            every_output, out_ends, out_prefixes, out_suffixes, out_mark, every_call \
            = self.selection.fast
        protocol_plain, protocol_call = self.protocol_plain, self.protocol_call
        settle, find_quiet, known_head = self.settle, self._quiet_plan, self._known_head
        success_hands, success_hand, strict = self.success_hands, self.success_hand, self.strict
        for index, message in enumerate(messages):
            role = message.get("role") if type(message) is dict else None
            if role == "assistant":
                content = message.get("content")
                if pending or type(content) is not str or (content and (
                        (content[0] in firsts and content.startswith(prefixes))
                        or (on_mark and not content.isascii() and key in content
                            and marked(content))
                        or (text_ends and (every_text or content.endswith(suffixes))))):
                    assistant(index, message)
                    continue
                calls = message.get("tool_calls")
                has_text = content != "" and not content.isspace()
                if calls is None:
                    if has_text and texts is not None:
                        texts.append((index, content, False))
                    continue
                if type(calls) is list and len(calls) == 1:
                    call = calls[0]
                    if type(call) is dict:
                        call_id = call.get("id")
                        function = call.get("function")
                        if type(call_id) is str and call_id and type(function) is dict \
                                and call_id not in call_ids:
                            name = function.get("name")
                            if type(name) is not str:
                                assistant(index, message)  # reported there (TW004)
                                continue
                            if name not in special and not every_call:
                                if has_text and texts is not None:
                                    texts.append((index, content, True))
                                call_ids.add(call_id)
                                pending[call_id] = (name, index)
                                continue
                            if name in protocol_plain:
                                if has_text and texts is not None:
                                    texts.append((index, content, True))
                                call_ids.add(call_id)
                                protocol_call(index, 0, call_id, name, function.get("arguments"),
                                              has_text)
                                continue
                assistant(index, message)
            elif role == "tool":
                call_id = message.get("tool_call_id")
                entry = pending.pop(call_id, None) if type(call_id) is str else None
                if type(entry) is tuple:
                    content = message.get("content")
                    if type(content) is str and (content.isascii() or key not in content or not (
                            (out_mark and marked(content)) or content.startswith(HEADER_MARK))) \
                            and not (out_ends and (
                                every_output or (out_prefixes and content.startswith(out_prefixes))
                                or (out_suffixes and content.endswith(out_suffixes)))):
                        continue  # an ordinary tool's output no check has anything to say about
                elif type(entry) is ToolCall:
                    # A protocol tool's success result, the common case: a JSON object with
                    # "success": true (what check_result_text would find, without its steps).
                    content = message.get("content")
                    if type(content) is str and content[:1] == "{" and (
                            content.isascii() or key not in content
                            or not (out_mark and marked(content))) \
                            and not (out_ends and (
                                every_output or (out_prefixes and content.startswith(out_prefixes))
                                or (out_suffixes and content.endswith(out_suffixes)))):
                        try:
                            value = loads(content)
                        except JSONDecodeError:
                            value = None
                        if type(value) is dict and value.get("success") is True:
                            # success_hand's own cache read inline: one call fewer a result
                            hand = success_hands[entry.name] if entry.name in success_hands \
                                else success_hand(entry.name)
                            if hand:
                                hand(ToolResult(index, entry.name, value, strict), self.report)
                            # Result's fields by position (a keyword costs on this path):
                            # no answer, error code or malformation; the display name given.
                            entry.result = Result(index, False, None, None, False,
                                                  created_name(entry.name, value))
                            settle(entry)
                            continue
                self._result(index, message, call_id, entry)
            elif role == "user":
                content = message.get("content")
                if pending or type(content) is not str:
                    user(index, message)
                    continue
                # A header line seen before in a quiet delivery, looked up with the "id: " that
                # starts the next line: its sender, label and tag are known, so the rest of the
                # head and the closing lines are plain strings, and no regular expression is
                # needed (what the match would have checked of the id, the id test checks more
                # strictly). Only such a line is known, so a text found by it is an envelope.
                nl = content.find("\n")
                head = None
                if nl > 0:
                    line = content[:nl + 5]
                    head = heads.get(line) or known_head(line)
                if head is not None:
                    sender, label, tag, middle, tail, quiet_plan = head
                    # The head's lines after the id start with a line break: the first place
                    # they are found ends the id when the id holds no line break.
                    id_end = content.find(middle, nl + 5)
                    body_at = id_end + len(middle)
                    body_end = len(content) - len(tail)
                    if id_end > 0 and body_end >= body_at and content.endswith(tail):
                        message_id = content[nl + 5:id_end]
                        body = content[body_at:body_end]
                        if "\n" not in message_id and quiet_plan[1](message_id) is not None \
                                and message_id not in ids \
                                and (body.isascii() or key not in body
                                     or not (env_mark and marked(body))) \
                                and not (head_ends and (
                                    every_envelope
                                    or (head_prefixes and content.startswith(head_prefixes))
                                    or (head_suffixes and content.endswith(head_suffixes)))) \
                                and not (quiet_plan[4] and body.startswith(quiet_plan[4])):
                            ids[message_id] = (index, hash((sender, label, tag, body))) \
                                if hash_ids else (index, sender, label, tag, body)
                            collected = quiet_plan[2]
                            if collected is not None:
                                collected.append(
                                    (index, message_id, quiet_plan[0], body) if quiet_plan[3]
                                    else DeliveredEnvelope(index, message_id, sender, quiet_plan[0], body))
                            self.protocol_seen = True
                            continue
                elif not content.startswith(HEADER_MARK):
                    user(index, message)
                    continue
                fields = scan(content)
                if fields is None:
                    user(index, message)
                    continue
                sender, receiver, label, message_id, tag, attributes, body = fields
                plan = quiet.get((label, tag, sender)) or find_quiet(label, tag, sender)
                if plan is None or receiver is not None or attributes \
                        or plan[1](message_id) is None or message_id in ids or every_envelope \
                        or (env_prefixes and content.startswith(env_prefixes)) \
                        or (env_suffixes and content.endswith(env_suffixes)) \
                        or (env_mark and not body.isascii() and key in body
                            and marked(body)) \
                        or body.startswith(plan[4]):
                    self._delivered(index, content, fields)
                    continue
                # A delivery no check reports: only remembered.
                ids[message_id] = (index, hash((sender, label, tag, body))) if hash_ids \
                    else (index, sender, label, tag, body)
                collected = plan[2]
                if collected is not None:
                    collected.append((index, message_id, plan[0], body) if plan[3]
                                     else DeliveredEnvelope(index, message_id, sender, plan[0], body))
                self.protocol_seen = True
                if nl > 0 and len(heads) < _HEADS and content.startswith("\nid: ", nl):
                    parts = (sender, label, tag, f"\n\n<{sender}>\n<{tag}>\n",
                             f"\n</{tag}>\n</{sender}>")
                    line = content[:nl + 5]
                    heads[line] = (*parts, plan)
                    self.memo.add_head_line(line, parts)
            else:
                feed(index, message)

    def finish(self) -> None:
        """Settle the calls still waiting for a result when the conversation ends.

        Calls of one message run in order, so of a message's calls without a result only
        the first may have run (an ask that still waits); the later ones did nothing yet
        and are not judged. When the Team Leader terminated this agent, even the first may
        not have run: termination ends the calls not run yet, without results (TW-ROUTE-024),
        and two conversations give no order to tell. Such a call is only recorded, as one that
        may not have run, for what it may have sent.
        """
        pending = [c for c in self.pending.values() if isinstance(c, Call)]
        self.pending.clear()
        ended = self.session is not None and self.name in self.session.terminated
        first: dict[int, int] = {}
        for call in pending:
            first[call.index] = min(call.position, first.get(call.index, call.position))
        for call in pending:
            if call.position != first[call.index]:
                continue
            if ended:
                self._maybe_unrun(call)
            else:
                self.settle(call)

    def _maybe_unrun(self, call: Call) -> None:
        """Record ``call`` as one that may not have run: judged only for what it may have
        sent (a call this agent may not make is reported already, and expects nothing)."""
        if self.facts is not None and call.name not in self.tool_verdicts:
            call.maybe_unrun = True
            self.facts.calls.append(call)

    def _bad_content(self, index: int, content: Any, what: str) -> None:
        if self.content_hand:
            self.content_hand(NotText(index, what, content), self.report)

    def _flush_pending(self, index: int) -> None:
        # Results of every call come before the next message (queued messages are
        # delivered after the tool result), so a call still open here has none.
        if self.session is not None and self.name in self.session.stopped \
                and self.stops_used < self.session.stopped[self.name]:
            self._stopped_here()
            return
        missing_hand = self.missing_hand
        for call_id, entry in self.pending.items():
            name, where = (entry.name, entry.index) if isinstance(entry, Call) else entry
            if missing_hand:
                missing_hand(MissingResult(where, call_id, name, index, False), self.report)
            self.late.add(call_id)
            if isinstance(entry, Call):
                self.settle(entry)
        self.pending.clear()

    def _stopped_here(self) -> None:
        """Take the open calls as those an astrion stop_sub_agent ended (TW-PROF-025): the
        stop cancelled the turn before they got results. One such place per stop; two
        conversations give no order to tell which place it was, so the first ones are taken.
        Like a terminated agent's open calls, they are recorded as calls that may not have
        run, for what they may have sent."""
        self.stops_used += 1
        for call_id, entry in self.pending.items():
            if isinstance(entry, Call):
                self.stopped_calls[call_id] = (entry.name, entry.index)
                self._maybe_unrun(entry)
            else:
                self.stopped_calls[call_id] = entry
        self.pending.clear()

    # -- user messages --------------------------------------------------------------------------

    def _user(self, index: int, message: dict[str, Any]) -> None:
        if self.pending:
            self._flush_pending(index)
        content = message.get("content")
        if type(content) is not str:
            self._bad_content(index, content, "a user message")
            return
        if content.startswith(HEADER_MARK):
            fields = scan(content)
            if fields is not None:
                self._delivered(index, content, fields)
                return
            parsed = self.parse_envelope(index, content)
            if type(parsed) is tuple:
                self._delivered(index, content, parsed)
                return
            if parsed:
                return
        if self.user_hand and self.user_gate.opens(content, content):
            self.user_hand(UserText(index, content), self.report)

    def _delivered(self, index: int, text: str, fields: Fields) -> None:
        mtype = self.check_envelope(index, text, fields)
        sender = fields[0]
        if self.delivered_hand:
            self.delivered_hand(Delivered(index, text, sender, mtype, self.owner, self.tasks,
                                          self.protocol_seen, fields[6],
                                          None if self.facts is None else self.facts.run_results),
                                self.report)
        if mtype is not None:
            if mtype is _TASK:
                self.tasks += 1
            self.record_id(index, fields, text)
            is_output = mtype is _PROGRESS or mtype is _COMPLETION
            collected = self._collected(is_output, sender)
            if collected is not None:
                collected.append((index, fields[3], mtype, fields[6]) if is_output
                                 else DeliveredEnvelope(index, fields[3], sender, mtype, fields[6],
                                               question_id=answer_of(fields).question_id
                                               if mtype is _ANSWER else None))
            key = (fields[2], fields[4], sender)
            plan = self.plans.get(key)
            unless = None if plan is None else self._placement_quiet(mtype, sender)
            if plan is not None and unless is not None:
                self.quiet[key] = (plan[0], plan[1], collected, is_output, unless)
                self.memo.add_quiet(self._quiet_key(*key), (plan[0], plan[1], is_output, unless))
        self.protocol_seen = True

    def _known_head(self, line: str) -> tuple[str, str, str, str, str, QuietPlan] | None:
        """The head of a header line another conversation delivered quietly, when its
        sender, label and tag are quiet here too (now remembered here); else None."""
        parts = self.memo.head_lines.get(line)
        if parts is None or len(self.heads) >= _HEADS:
            return None
        sender, label, tag = parts[0], parts[1], parts[2]
        plan = self.quiet.get((label, tag, sender))
        if plan is None:
            # The first Output of a sender starts its list: only once it is taken (the scan
            # path does that), so a failed match here leaves the facts as they were.
            if tag == "Output" and self.facts is not None and sender not in self.facts.outputs:
                return None
            plan = self._quiet_plan(label, tag, sender)
            if plan is None:
                return None
        head = self.heads[line] = (*parts, plan)
        return head

    def _quiet_key(self, label: str, tag: str, sender: str) -> tuple[object, ...]:
        # What makes a head quiet here: its plan, and the owner of the conversation.
        return (self._plan_key(label, tag, sender), self.is_leader, self.is_sub, self.name)

    def _quiet_plan(self, label: str, tag: str,
                    sender: str) -> QuietPlan | None:
        """The quiet plan of a head not delivered here before, when another conversation
        with an owner like this one's found it quiet (now also this one's); else None."""
        verdict = self.memo.quiet.get(self._quiet_key(label, tag, sender))
        if verdict is None:
            return None
        mtype, id_test, is_output, unless = verdict
        plan = (mtype, id_test, self._collected(is_output, sender), is_output, unless)
        self.quiet[(label, tag, sender)] = plan
        return plan

    def _collected(self, is_output: bool, sender: str) -> list[Any] | None:
        """The list a delivery from ``sender`` is collected in (its outputs, or the other
        deliveries), if collecting."""
        facts = self.facts
        if facts is None:
            return None
        if is_output:
            return facts.outputs.setdefault(sender, [])
        return facts.deliveries

    def _placement_quiet(self, mtype: MessageType, sender: str) -> tuple[str, ...] | None:
        """What the content of a delivery of ``mtype`` from ``sender`` must start with for a
        check of deliveries to report it here (() for none); None when a check may report
        any such delivery."""
        key = (self.owner, mtype, sender)
        if key in self.memo.placement_quiet:
            return self.memo.placement_quiet[key]
        found = quiet_unless(self.placement_checks, mtype, sender, self.owner)
        # The quiet paths take only envelopes without attributes or a header receiver, so
        # the checks of attributes must be quiet about such an envelope of this type too.
        if found is not None and not all_quiet(self.attribute_every, mtype, self.owner):
            found = None
        self.memo.add_placement_quiet(key, found)
        return found

    # -- assistant messages and tool results ----------------------------------------------------

    def _assistant(self, index: int, message: dict[str, Any]) -> None:
        if self.pending:
            self._flush_pending(index)
        content = message.get("content")
        calls = message.get("tool_calls")
        has_text = False
        if type(content) is str:
            if content:
                has_text = not content.isspace()
                if has_text and self.texts is not None:
                    self.texts.append((index, content, bool(calls)))
                if self.assistant_hand and self.assistant_gate.opens(content, content):
                    self.assistant_hand(AssistantText(index, content, bool(calls)), self.report)
        elif content is not None:
            self._bad_content(index, content, "an assistant message")
        if calls is None:
            if content is None:
                self.malformed(index, "assistant message has neither content nor tool_calls")
            return
        if type(calls) is not list:
            self.malformed(index, f"tool_calls is {json_type(calls)}, not an array",
                           "/tool_calls")
            return
        call_ids, special, pending = self.call_ids, self.special_tools, self.pending
        every_call = self.selection.fast.every_call
        for position, call in enumerate(calls):
            # The common case inline: a well-formed call of a tool no check of calls looks
            # into (dispatch.FastPath).
            if type(call) is dict and not every_call:
                call_id = call.get("id")
                function = call.get("function")
                if type(call_id) is str and call_id not in call_ids and type(function) is dict:
                    name = function.get("name")
                    if type(name) is str and name not in special and call_id:
                        call_ids.add(call_id)
                        pending[call_id] = (name, index)
                        continue
            self.check_call(index, position, call, has_text)

    def _tool(self, index: int, message: dict[str, Any]) -> None:
        call_id = message.get("tool_call_id")
        entry = self.pending.pop(call_id, None) if type(call_id) is str else None
        self._result(index, message, call_id, entry)

    def _result(self, index: int, message: dict[str, Any], call_id: Any,
                entry: Call | tuple[str, int] | None) -> None:
        """Check a tool message whose call (``entry``, now no longer pending) is known."""
        content = message.get("content")
        if entry is None:
            self._unmatched_result(index, call_id)
            tool = None
        elif type(entry) is tuple:
            tool = entry[0]
        else:
            assert isinstance(entry, Call)
            tool = entry.name
        if type(content) is str:
            if tool is None or tool not in self.protocol:
                # The common case: an ordinary tool's output, which only an envelope in it or
                # a check of tool texts may have something to say about.
                if content.startswith(HEADER_MARK) or (
                        self.tool_text_hand and self.tool_text_gate.opens(content, content)):
                    self.check_result_text(index, content, tool)
                return
            result = self.check_result_text(index, content, tool)
        else:
            self._bad_content(index, content, "a tool message")
            result = None
        if isinstance(entry, Call):
            entry.result = result or Result(index, False)
            self.settle(entry)

    def _unmatched_result(self, index: int, call_id: Any) -> None:
        if type(call_id) is not str or not call_id:
            self.malformed(index, "tool message has no tool_call_id string", "/tool_call_id")
        elif call_id in self.late:
            self.late.discard(call_id)
        elif call_id in self.stopped_calls:
            # The call was taken as one a stop ended without a result; a result after the
            # next message is one that came late after all.
            name, where = self.stopped_calls.pop(call_id)
            if self.missing_hand:
                self.missing_hand(MissingResult(where, call_id, name, index, True), self.report)
        elif self.stray_hand:
            self.stray_hand(StrayResult(index, call_id, call_id in self.call_ids), self.report)
