"""Checks across the conversations of one bundle: delivery, answers, ids, order.

The checker matches every send with its delivery and hands what it finds to the rules as
facts (``facts``: ``IdShared``, ``SendOutcome``, ``AnswerGiven``, the Outputs, ...); the
checks beside each rule decide the findings.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from operator import attrgetter, itemgetter
from typing import Any

from teamwire.envelope import LEADER_NAME, MessageType, Profile
from teamwire.validator.dispatch import Emit
from teamwire.validator.emitter import Emitter
from teamwire.validator.facts import (
    AnswerGiven,
    IdShared,
    MissingConversation,
    OutputMissing,
    OutputUnsaid,
    PairedOutputs,
    RelayedResult,
    SendOutcome,
    UnmatchedDelivery,
    call_pointer,
)
from teamwire.validator.model import Call, DeliveredEnvelope, Facts, Link, Output
from teamwire.validator.registry import Rule
from teamwire.validator.session_checks import SessionChecks, hand_out, session_checks
from teamwire.validator.session_index import SessionIndex
from teamwire.validator.tooling import ASK_TOOLS, answered_id, ask_other_form, named_target

_SENDS = frozenset({"ask_master", "ask_other_agent", "ask_sub_agent", "create_sub_agent",
                    "send_message_to_sub_agent"})
_ANSWER_TOOLS = frozenset({"answer_sub_agent_question", "answer_other_agent"})
# Tuples of types rather than sets: a tuple tests members by identity first, while a set
# hashes enum members, which is slow.
_ASK_OR_MESSAGE = (MessageType.ASK, MessageType.MESSAGE)
_ASK_ONLY = (MessageType.ASK,)
_MESSAGE_ONLY = (MessageType.MESSAGE,)
_TASK_ONLY = (MessageType.TASK,)
_ACCEPTANCE_HEADING = "验收标准："
_MESSAGE_OR_TASK = (MessageType.MESSAGE, MessageType.TASK)
Types = tuple[MessageType, ...]
_CALL_ORDER = attrgetter("call.index", "call.position")
"""A send's place in its conversation: (message index, position of its call)."""
_UNSEEN = ""
"""What the cache of targets gives for a call not seen yet (a target with an empty name, if
any, is only looked up again, with the same answer)."""
_SAID_AT = itemgetter(0)
"""The index of a natural output's message (``Facts.texts``)."""


class _Inbox:
    """The deliveries of one conversation, indexed (lazily) so that matching a send is cheap."""

    def __init__(self, deliveries: list[DeliveredEnvelope]) -> None:
        self.deliveries = deliveries
        self._by_id: dict[tuple[str, str], list[DeliveredEnvelope]] | None = None
        self._by_content: dict[tuple[str, str], list[DeliveredEnvelope]] | None = None
        self._by_plain_id: dict[str, list[DeliveredEnvelope]] | None = None

    def by_id(self) -> dict[tuple[str, str], list[DeliveredEnvelope]]:
        """The deliveries by (sender, id)."""
        if self._by_id is None:
            self._by_id = {}
            for d in self.deliveries:
                self._by_id.setdefault((d.sender, d.id), []).append(d)
        return self._by_id

    def by_plain_id(self) -> dict[str, list[DeliveredEnvelope]]:
        """The deliveries by id alone."""
        if self._by_plain_id is None:
            self._by_plain_id = {}
            for d in self.deliveries:
                self._by_plain_id.setdefault(d.id, []).append(d)
        return self._by_plain_id

    def by_content(self) -> dict[tuple[str, str], list[DeliveredEnvelope]]:
        """The deliveries by (sender, content)."""
        if self._by_content is None:
            self._by_content = {}
            for d in self.deliveries:
                self._by_content.setdefault((d.sender, d.content), []).append(d)
        return self._by_content

    # The two takes below test the index built and search it inline: they run once per send.

    def take_id(self, sender: str, message_id: str,
                types: Types) -> DeliveredEnvelope | None:
        """The first unmatched delivery from ``sender`` with this id, marked matched."""
        by_id = self._by_id if self._by_id is not None else self.by_id()
        for d in by_id.get((sender, message_id), ()):
            if not d.consumed and d.mtype in types:
                d.consumed = True
                return d
        return None

    def take_content(self, sender: str, content: str,
                     types: Types) -> DeliveredEnvelope | None:
        """The first unmatched delivery from ``sender`` carrying ``content``, marked matched."""
        by_content = self._by_content if self._by_content is not None else self.by_content()
        for d in by_content.get((sender, content), ()):
            if not d.consumed and d.mtype in types:
                d.consumed = True
                return d
        return None


class SessionChecker:
    """Runs the flow checks over the facts of every conversation of a bundle."""

    def __init__(self, facts: Iterable[Facts], index: SessionIndex, emitter: Emitter, *,
                 profile: Profile, links: list[Link] | None = None,
                 checks: SessionChecks | None = None) -> None:
        self.facts = {f.agent.name: f for f in facts if f.agent.name is not None}
        self.checks = checks if checks is not None else session_checks(
            emitter.policy.enabled)
        """The checks of the enabled rules for each kind of fact (``session_checks``)."""
        self.links = links
        """Receives every send matched to its delivery, when given (``teamwire view``)."""
        self.index = index
        self.emitter = emitter
        self.strict = profile is Profile.STRICT
        self._asked: dict[tuple[str, str, str], SendOutcome] = {}
        """(asker, target, id of the delivered ask) → the ask that produced it."""
        # An inbox and an emit for every conversation at once: cheaper than a lookup that
        # makes them on first use, once per send, answer and fact.
        self._inboxes = {name: _Inbox(f.deliveries) for name, f in self.facts.items()}
        self._emits: dict[str | None, Emit] = {
            name: _emit_in(emitter, f) for name, f in self.facts.items()}
        self._targets: dict[tuple[int, str | None, str | None], str | None] = {}
        self._terminations: dict[str, tuple[int, int]] | None = None
        """Sub-agent name → (message index, position) of the leader's call terminating it."""

    def run(self) -> None:
        """Make every cross-conversation finding."""
        self._ids()
        sends = self._match_sends()
        self._channels(sends)
        self._answers()  # before _unexpected: an answer may claim a late Answer delivery
        self._unexpected()
        self._outputs()
        self._run_results()

    # -- helpers -----------------------------------------------------------------------------

    def _emit(self, facts: Facts) -> Emit:
        """How the checks report a fact about ``facts``' conversation: at the message the
        fact names."""
        return self._emits[facts.agent.name]

    def _target(self, arguments: dict[str, Any], key: str, caller: str | None) -> str | None:
        """The one sub-agent a targeting argument names; the caller is never its own target
        (TW-TOOL-027), so an agent_id shared with the caller's own number is not ambiguous.
        An astrion call may name it by display name instead (TW-PROF-026)."""
        named = None if self.strict else named_target(arguments, key, False)
        if named is not None:
            agent = self.index.by_name(named)
            return None if agent is None or agent.name == caller else agent.name
        agent_id = arguments.get(key)
        if type(agent_id) is not int:
            return None
        role_id = arguments.get("role_id")
        found = (agent_id, role_id if type(role_id) is str else None, caller)
        target = self._targets.get(found, _UNSEEN)
        if target is _UNSEEN:
            matches = [a for a in self.index.subs_with(agent_id, found[1]) if a.name != caller]
            target = self._targets[found] = matches[0].name if len(matches) == 1 else None
        return target

    def _terminated_after(self, target: str, send: SendOutcome) -> bool:
        """Whether ``send``'s message may have been discarded with its target (TW-ROUTE-020):
        the Team Leader terminated ``target`` by a call that succeeded after the send (for a
        sub-agent's send, at any point: two conversations give no order), and nothing from
        the sender that the send could have become arrived unmatched."""
        if self._terminations is None:
            self._terminations = {}
            leader = self.facts.get(LEADER_NAME)
            for other in leader.calls if leader is not None else ():
                if other.name == "terminate_sub_agent" and other.arguments is not None \
                        and (other.result is None or not other.result.rejected):
                    name = self._target(other.arguments, "agent_id", LEADER_NAME)
                    if name is not None:
                        self._terminations.setdefault(name, (other.index, other.position))
        at = self._terminations.get(target)
        if at is None:
            return False
        sender = send.sender
        if sender == LEADER_NAME and (send.call.index, send.call.position) > at:
            return False
        facts = self.facts.get(target)
        return facts is None or not any(
            not d.consumed and d.sender == sender and d.mtype in send.types
            for d in facts.deliveries)

    # -- ids across conversations ---------------------------------------------------------------

    def _ids(self) -> None:
        every = [facts.ids for facts in self.facts.values()]
        # Ids are nearly always new to the session: when none is in two conversations, as
        # counting them all at once tells, no delivery's id is shared.
        if len(set().union(*every)) == sum(map(len, every)):
            return
        owners: dict[str, Facts] = {}
        shared: list[tuple[IdShared, Emit]] = []
        for facts in self.facts.values():
            ids = facts.ids
            # Within a conversation the pass already reported repeats; here only the first
            # occurrence of each id in each conversation takes part. Ids new to the session,
            # nearly all of them, are recorded at once.
            if owners.keys().isdisjoint(ids):
                owners.update(dict.fromkeys(ids, facts))
                continue
            for message_id, entry in ids.items():
                owner = owners.get(message_id)
                if owner is None:
                    owners[message_id] = facts
                    continue
                first = owner.ids[message_id]
                shared.append((IdShared(entry[0], message_id, owner.agent.name, first[0],
                                        first[1:] == entry[1:]), self._emit(facts)))
        hand_out(shared, self.checks.id_shared)

    # -- sends and their deliveries -------------------------------------------------------------

    def _expected(self, facts: Facts, call: Call) -> SendOutcome | None:
        arguments = call.arguments or {}
        name = call.name
        caller = facts.agent.name or ""
        if name == "ask_master":
            return SendOutcome(call, caller, LEADER_NAME, _ASK_ONLY,
                               _text(arguments, "question_id"), _text(arguments, "question"))
        if name == "ask_sub_agent":
            target = self._target(arguments, "agent_id", caller)
            return None if target is None else SendOutcome(
                call, caller, target, _ASK_ONLY, _text(arguments, "question_id"),
                _text(arguments, "question"))
        if name == "ask_other_agent":
            target = self._target(arguments, "target_agent_id", caller)
            if target is None:
                return None
            chosen, said, notice = ask_other_form(arguments, self.strict)
            return SendOutcome(call, caller, target, _MESSAGE_ONLY if notice else _ASK_ONLY,
                               chosen if type(chosen) is str else None,
                               said if type(said) is str else None)
        if name == "send_message_to_sub_agent":
            target = self._target(arguments, "agent_id", caller)
            return None if target is None else SendOutcome(
                call, caller, target, _MESSAGE_OR_TASK, None, _text(arguments, "message"))
        if name == "create_sub_agent":
            role_id = _text(arguments, "role_id")
            agent_id = arguments.get("agent_id")
            if role_id is None:
                return None
            if type(agent_id) is not int:
                agent = self._numbered(facts, call, role_id)
            else:
                agent = self.index.by_key(role_id, agent_id)
            if agent is None or agent.name is None:
                if type(agent_id) is int:
                    hand_out([(MissingConversation(call.index, call_pointer(call.position),
                                                   role_id, agent_id), self._emit(facts))],
                             self.checks.missing_conversation)
                return None
            return SendOutcome(call, caller, agent.name, _TASK_ONLY, None,
                               _task_content(arguments))
        return None

    def _numbered(self, facts: Facts, call: Call, role_id: str) -> Any:
        # Profile astrion numbers a sub-agent created without agent_id one more than the
        # highest number its role has had (TW-PROF-015), as the leader's own pass does.
        highest = max((a.agent_id or 0 for a in self.index.preexisting() if a.role_id == role_id),
                      default=0)
        for other in facts.calls:
            arguments = other.arguments
            if other.name != "create_sub_agent" or not other.accepted or not arguments \
                    or arguments.get("role_id") != role_id:
                continue
            number = arguments.get("agent_id")
            if type(number) is not int:
                number = highest + 1
            if other is call:
                return self.index.by_key(role_id, number)
            highest = max(highest, number)
        return None

    def _match_sends(self) -> list[SendOutcome]:
        sends: list[SendOutcome] = []
        for facts in self.facts.values():
            for call in facts.calls:
                if call.name not in _SENDS or call.arguments is None:
                    continue
                result = call.result
                if result is not None and result.rejected and call.sent is False:
                    continue  # (an accepted call was sent: the property's first test, inline)
                send = self._expected(facts, call)
                if send is None or send.target not in self.facts:
                    continue
                self._deliver(send)
                sends.append(send)
                if self.links is not None and send.delivery is not None:
                    self.links.append(Link(facts.agent.name or "", call.index, call.position,
                                           send.target, send.delivery.index,
                                           send.delivery.mtype))
        return sends

    def _deliver(self, send: SendOutcome) -> None:
        sender = send.sender
        inbox = self._inboxes[send.target]
        found: DeliveredEnvelope | None = None
        if send.message_id is not None:
            found = inbox.take_id(sender, send.message_id, send.types)
            if found is not None and send.content is not None and found.content != send.content:
                send.content_differs = True
        if found is None and send.content is not None:
            found = inbox.take_content(sender, send.content, send.types)
            if found is not None and send.message_id is not None:
                send.id_differs = True
        if found is not None:
            send.delivery = found
            if send.call.name in ASK_TOOLS:
                self._asked[(sender, send.target, found.id)] = send

    def _channels(self, sends: list[SendOutcome]) -> None:
        if not self.checks.send_outcome:
            return  # what became of each send is told to nothing else
        channels: dict[tuple[str, str], list[SendOutcome]] = {}
        for send in sends:
            channels.setdefault((send.sender, send.target), []).append(send)
        outcomes: list[tuple[SendOutcome, Emit]] = []
        for (sender, target), group in channels.items():
            group.sort(key=_CALL_ORDER)
            emit = self._emits[sender]
            latest = -1
            for i, send in enumerate(group):
                send.latest = latest
                delivery = send.delivery
                if delivery is not None:
                    latest = max(latest, delivery.index)
                elif send.call.sent is not None:
                    # a later message of the channel arrived: queues drain first in, first
                    # out, so this one had left the queue (TW-ROUTE-005)
                    result = send.call.result
                    send.overtaken = any(later.delivery is not None for later in group[i + 1:])
                    send.answered = result is not None and result.answer is not None
                    send.discarded = not send.overtaken and not send.answered \
                        and self._terminated_after(target, send)
                outcomes.append((send, emit))
        hand_out(outcomes, self.checks.send_outcome)

    def _unexpected(self) -> None:
        checks = self.checks.unmatched_delivery
        if not checks:
            return
        unmatched: list[tuple[UnmatchedDelivery, Emit]] = []
        for facts in self.facts.values():
            emit: Emit | None = None
            for d in facts.deliveries:
                if not d.consumed and d.sender in self.facts:
                    if emit is None:
                        emit = self._emit(facts)
                    unmatched.append((UnmatchedDelivery(d.index, d, self.strict), emit))
        hand_out(unmatched, checks)

    # -- answers --------------------------------------------------------------------------------

    def _answers(self) -> None:
        answered: set[tuple[str, str, str]] = set()
        # Answers are matched whether or not a check takes them: matching one links it and
        # claims the late Answer delivery it gave.
        given: list[tuple[AnswerGiven, Emit]] | None = [] if self.checks.answer_given else None
        for facts in self.facts.values():
            for call in facts.calls:
                if call.name not in _ANSWER_TOOLS or call.arguments is None \
                        or (call.result is not None and call.result.rejected) \
                        or call.maybe_unrun:  # not accepted, or perhaps never run
                    continue
                self._answer(facts, call, call.arguments, answered, given)
        if given:
            hand_out(given, self.checks.answer_given)

    def _answer(self, facts: Facts, call: Call, arguments: dict[str, Any],
                answered: set[tuple[str, str, str]],
                given: list[tuple[AnswerGiven, Emit]] | None) -> None:
        me = facts.agent.name or ""
        leader_side = call.name == "answer_sub_agent_question"
        question_id = answered_id(arguments, call.name, self.strict)
        if type(question_id) is not str:
            return
        key = "agent_id" if leader_side else "source_agent_id"
        if key in arguments:
            asker = self._target(arguments, key, me)
        else:
            asker = next((d.sender for d in self._inboxes[me].by_plain_id().get(question_id, ())
                          if d.mtype in _ASK_OR_MESSAGE), None)
        asked = False
        if asker is not None:
            for d in self._inboxes[me].by_id().get((asker, question_id), ()):
                if d.mtype in _ASK_OR_MESSAGE and d.index < call.index:
                    asked = True
                    break
        again = asked and (asker, me, question_id) in answered
        returned: bool | None = None
        send = None
        if asker is not None and asked and not again:
            answered.add((asker, me, question_id))
            send = self._asked.get((asker, me, question_id))
            if send is not None:
                returned = self._returned(send, call, arguments, asker, me, question_id)
        if given is not None:
            given.append((AnswerGiven(call, question_id, me, asker, asked, again, returned, send),
                          self._emits[me]))

    def _returned(self, send: SendOutcome, call: Call, arguments: dict[str, Any], asker: str,
                  me: str, question_id: str) -> bool | None:
        """Whether the answer ``call`` gave came back as the result of ``send``, the ask it
        answers (linked when it did); None when that cannot be told."""
        result = send.call.result
        if result is None and asker in self.index.terminated:
            return None  # the asker's ask ended with it; two conversations cannot tell which was first
        answer = result.answer if result is not None else None
        given = arguments.get("answer")
        if answer is None and not self.strict:
            late = self._late_answer(asker, me, question_id, given)
            if late is not None:
                if self.links is not None:
                    self.links.append(Link(me, call.index, call.position, asker, late,
                                           MessageType.ANSWER))
                return None
        if answer is not None and answer.text_form:
            # astrion's text carries the answer stripped, and no id when astrion chose it
            if answer.question_id is None:
                answer.question_id = question_id
            if type(given) is str:
                given = given.strip()
        if answer is None or answer.question_id != question_id or answer.sender != me \
                or (type(given) is str and answer.content != given):
            return False
        if self.links is not None and result is not None:
            self.links.append(Link(me, call.index, call.position, asker, result.index,
                                   MessageType.ANSWER, tool_result=True))
        return True

    def _late_answer(self, asker: str, me: str, question_id: str, given: Any) -> int | None:
        """The index of the user message in which an Answer from ``me`` to ``question_id``
        reached ``asker``, which profile astrion accepts once the ask is no longer waiting
        (TW-PROF-013), marking that delivery as matched; None if there is none."""
        facts = self.facts.get(asker)
        for delivery in facts.deliveries if facts is not None else ():
            if delivery.mtype is MessageType.ANSWER and not delivery.consumed \
                    and delivery.sender == me and delivery.question_id == question_id \
                    and (type(given) is not str or delivery.content == given):
                delivery.consumed = True
                return delivery.index
        return None

    # -- natural output -------------------------------------------------------------------------

    def _outputs(self) -> None:
        leader = self.facts.get(LEADER_NAME)
        checks = self.checks
        if leader is None or (self.links is None and not checks.paired_outputs
                              and not checks.output_unsaid and not checks.output_missing):
            return  # nothing would take what pairing the outputs finds
        to_leader = self._emit(leader)
        # Each kind is built only when a check takes it, and handed out once at the end; the
        # paired Outputs of a sender make one fact.
        paired_facts: list[tuple[PairedOutputs, Emit]] | None = \
            [] if checks.paired_outputs else None
        unsaid: list[tuple[OutputUnsaid, Emit]] | None = [] if checks.output_unsaid else None
        missing: list[tuple[OutputMissing, Emit]] | None = \
            [] if checks.output_missing else None
        answers: set[tuple[str, str]] | None = None
        answering = self._answering_texts()
        for name, facts in self.facts.items():
            if name == LEADER_NAME:
                continue
            texts, outputs = facts.texts, leader.outputs.get(name, [])
            answered: set[str] = set()
            if name in answering:  # an output taken as an Answer is no report
                taken_as_answer = answering[name]
                answered = {t[1] for t in texts if t[0] in taken_as_answer}
                texts = [t for t in texts if t[0] not in taken_as_answer]
            # Outputs mostly arrive in the order they were said: pair them off in step while
            # that holds, and let _paired search for the rest.
            matched = 0
            for (said_at, text, _has_calls), output in zip(texts, outputs, strict=False):
                if output[3] != text:
                    break
                if self.links is not None:
                    self.links.append(Link(name, said_at, None, LEADER_NAME, output[0], output[2]))
                matched += 1
            pairs: list[tuple[Output, bool, int]] = []
            if paired_facts is not None:
                paired_facts.append((PairedOutputs(name, texts, outputs, matched, pairs),
                                     to_leader))
            if matched == len(texts):
                if unsaid is not None:
                    self._unsaid(name, outputs[matched:], answered, unsaid, to_leader)
                continue
            # Reports reach the leader in the order they were said (TW-DEL-003, TW-DEL-005).
            latest = outputs[matched - 1][0] if matched else -1
            taken: set[int] = set()
            for (index, text, has_calls), paired in _paired(texts[matched:], outputs[matched:]):
                if paired is not None:
                    taken.add(paired[0])
                    if self.links is not None:
                        self.links.append(Link(name, index, None, LEADER_NAME, paired[0],
                                               paired[2]))
                    pairs.append((paired, has_calls, latest))
                    latest = max(latest, paired[0])
                    continue
                if missing is None:
                    continue
                if answers is None:
                    answers = self._answer_texts()
                missing.append((OutputMissing(index, name, text, (name, text) in answers),
                                self._emit(facts)))
            if unsaid is not None:
                self._unsaid(name, [o for o in outputs[matched:] if o[0] not in taken],
                             answered, unsaid, to_leader)
        if paired_facts:
            hand_out(paired_facts, checks.paired_outputs)
        if unsaid:
            hand_out(unsaid, checks.output_unsaid)
        if missing:
            hand_out(missing, checks.output_missing)

    @staticmethod
    def _unsaid(name: str, outputs: list[Output], answered: set[str],
                unsaid: list[tuple[OutputUnsaid, Emit]], to_leader: Emit) -> None:
        """Add to ``unsaid`` the Outputs from ``name`` that no natural output of it accounts
        for, each with whether the router gave its text as an Answer (``answered``)."""
        for output in outputs:
            unsaid.append((OutputUnsaid(*output, name, output[3] in answered), to_leader))

    def _run_results(self) -> None:
        """Hand the checks each completion whose run result a conversation check found
        wrong, with whether its sender said that text itself."""
        checks = self.checks.relayed_result
        if not checks:
            return
        relayed: list[tuple[RelayedResult, Emit]] = []
        for facts in self.facts.values():
            for sender, content, finding in facts.run_results:
                said = self.facts.get(sender)
                relayed.append((RelayedResult(
                    said is not None and any(text == content for _, text, _ in said.texts),
                    finding), self._emit(facts)))
        hand_out(relayed, checks)

    def _answering_texts(self) -> dict[str, set[int]]:
        """Index of each sub-agent text that answered the leader's ask_sub_agent, or another
        sub-agent's notification (an ask_other_agent delivered as a MESSAGE): the first text
        after the Ask or Message reached it, when it is the Answer's content (TW-TOOL-013;
        Routing, answer matching)."""
        found: dict[str, set[int]] = {}
        for (asker, target, _id), send in self._asked.items():
            result = send.call.result
            answer = result.answer if result is not None else None
            facts = self.facts.get(target)
            if answer is None or send.delivery is None or facts is None or not (
                    send.call.name == "ask_sub_agent" or (
                        send.call.name == "ask_other_agent"
                        and send.delivery.mtype is MessageType.MESSAGE)):
                continue
            # texts are in message order: the first one after the delivery, found by halving
            texts = facts.texts
            at = bisect_right(texts, send.delivery.index, key=_SAID_AT)
            first = texts[at] if at < len(texts) else None
            if first is not None and first[1] == answer.content:
                found.setdefault(target, set()).add(first[0])
                if self.links is not None and result is not None:
                    self.links.append(Link(target, first[0], None, asker, result.index,
                                           MessageType.ANSWER, tool_result=True))
        return found

    def _answer_texts(self) -> set[tuple[str, str]]:
        """(sender, content) of every Answer an ask tool returned in the session. An answer
        in astrion's text form is left out: it is the answer of an Ask, which natural output
        does not give (astrion's taking it so is the breach TW512 reports)."""
        answers: set[tuple[str, str]] = set()
        for facts in self.facts.values():
            for call in facts.calls:
                answer = call.result.answer if call.result is not None else None
                if answer is not None and not answer.text_form:
                    answers.add((answer.sender, answer.content))
        return answers


_SEARCHES = 32
"""Texts looked for one by one among a sender's outputs before they are indexed by content."""


def _paired(texts: list[tuple[int, str, bool]],
            outputs: list[Output]) -> Iterator[tuple[tuple[int, str, bool], Output | None]]:
    """Each text with the first output not yet paired that carries it, or None.

    Outputs mostly arrive in the order they were said, so the next output is tried first,
    then (a few times) the rest of the list in order; past that, an index by content.
    """
    taken: set[int] = set()
    contents: list[str] | None = None
    pool: dict[str, list[Output]] | None = None
    searches = 0
    at = 0
    count = len(outputs)
    for entry in texts:
        text = entry[1]
        if pool is not None:
            found = pool.get(text)
            yield entry, found.pop(0) if found else None
            continue
        while at in taken:
            at += 1
        if at < count and outputs[at][3] == text:
            yield entry, outputs[at]
            at += 1
            continue
        if searches == _SEARCHES:
            pool = {}
            for k in range(at, count):
                if k not in taken:
                    pool.setdefault(outputs[k][3], []).append(outputs[k])
            found = pool.get(text)
            yield entry, found.pop(0) if found else None
            continue
        searches += 1
        if contents is None:
            contents = [output[3] for output in outputs]
        k = at
        while True:
            try:
                k = contents.index(text, k + 1)
            except ValueError:
                k = -1
                break
            if k not in taken:
                break
        if k < 0:
            yield entry, None
        else:
            taken.add(k)
            yield entry, outputs[k]


def _emit_in(emitter: Emitter, facts: Facts) -> Emit:
    """How the checks report about the conversation of ``facts``: at the message a fact
    names, ``tail`` below it."""
    agent, pointer = facts.agent.name, facts.pointer

    def emit(rule: Rule, message: str, index: int | None, tail: str, text: str | None,
             offset: int | None) -> None:
        emitter.emit(rule, message, agent=agent, index=index, pointer=f"{pointer}/{index}{tail}")
    return emit


def _text(arguments: dict[str, Any], key: str) -> str | None:
    value = arguments.get(key)
    return value if type(value) is str else None


def _task_content(arguments: dict[str, Any]) -> str | None:
    """The content of the TASK a create_sub_agent call sends: its task text verbatim, followed
    by the acceptance section when acceptance criteria are given (TW-TYPE-015, TW-MSG-012)."""
    task = _text(arguments, "task")
    acceptance = arguments.get("acceptance")
    if task is None or type(acceptance) is not list or not acceptance \
            or any(type(c) is not str for c in acceptance):
        return task
    return "\n".join([task, "", _ACCEPTANCE_HEADING, *(f"- {c}" for c in acceptance)])

