"""The routing core: feed it events, get back actions. No I/O, no clock, no threads.

    core = RoutingCore()
    actions = core.handle(AgentCreated("Team Leader", "team-leader"))

Every decision of the specification's routing chapter is taken here; the
host (the asyncio runtime, a test, an embedding application) performs the
actions: it commits the store actions first, then delivers.

The transition table (``teamwire.router.table``) is the mechanism: ``handle``
looks the subject's state and the event up in ``EVENT_TRIGGERED`` (no entry:
the event is illegal), runs the event's handler, which computes the actions
and reports an ``Outcome`` where the event's content decides, and the table's
entry gives the subject its next state. Handlers never assign a state; the
core moves other agents (an asker whose ask an answer resolves) by the same
table, and applies ``STATE_TRIGGERED`` after every event.

The per-message path (a send, a batch drain) is kept short on purpose: events
are dispatched through one precomputed table, message types are compared by
identity, and envelope text is rendered only when a host reads it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import replace
from operator import attrgetter
from typing import Any, NoReturn

from teamwire.envelope import (
    LEADER_NAME,
    LEADER_ROLE_ID,
    IdAllocator,
    InvalidNameError,
    MessageType,
    is_role_id,
    parse_display_name,
)
from teamwire.envelope.ids import MESSAGE_ID
from teamwire.envelope.run_result import render_run_result
from teamwire.router.actions import (
    AcknowledgeSend,
    Action,
    AppendInline,
    CancelTimer,
    ConsumeMessages,
    DiscardMessages,
    EffectAction,
    FailToolCall,
    PersistAgent,
    PersistAskFailure,
    PersistMessage,
    ResolveToolCall,
    StartTimer,
    StartTurn,
    StoreAction,
    ToolCallResult,
)
from teamwire.router.checkpoint import Checkpoint
from teamwire.router.errors import LocalProtocolError, TargetError
from teamwire.router.events import (
    AGENT_EVENT_TYPES,
    AgentCreated,
    AgentEvent,
    AgentTerminated,
    AnswerGiven,
    Event,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    Restarted,
    TimerFired,
    ToolCallBlocked,
    ToolCallReturned,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from teamwire.router.records import AgentRecord, AskKind, OpenAsk, RoutedMessage, Snapshot
from teamwire.router.states import AgentState, Delivery
from teamwire.router.table import DELIVERY, EVENT_TRIGGERED, STATE_TRIGGERED, EventKey, Outcome

DEFAULT_MAX_ASK_ROUNDS = 8
UNANSWERED_ASKS = ("wait", "fail")
"""The values of the setting ``unanswered_asks`` (TW-ROUTE-030), the default first: ``wait``
keeps an ask its answerer's turn left unanswered open, as spec 1.0 did; ``fail`` fails it
with ``unanswered`` when that turn ends."""

_TASK = MessageType.TASK
_MESSAGE = MessageType.MESSAGE
_ASK = MessageType.ASK
_ANSWER = MessageType.ANSWER
_PROGRESS = MessageType.PROGRESS
_COMPLETION = MessageType.COMPLETION
_ABSENT = AgentState.ABSENT
_WAITING = AgentState.WAITING
_FINAL = Outcome.FINAL
_ACCEPTED = Outcome.ACCEPTED
_ASK_RESOLVED = Outcome.ASK_RESOLVED
_REJECTED = Delivery.REJECTED
_NEW_TURN = Delivery.NEW_TURN

_SUBJECT: dict[type[Any], Callable[[Any], str]] = {
    event: attrgetter(event.SUBJECT_FIELD) for event in AGENT_EVENT_TYPES}
"""Event type → how to read its subject (the field ``subject`` reads, without the property's
call on the per-event path)."""


_ROUTES: dict[AgentState, tuple[str, AgentState | None, bool]] = {
    state: (delivery.value, after if after is not state and delivery is not _NEW_TURN else None,
            after is not state)
    for state, (delivery, after) in DELIVERY.items() if delivery is not _REJECTED}
"""``DELIVERY`` as ``_route`` reads it, per receiver state the table does not reject: (the
delivery an acknowledgment names, the state the receiver moves to at once or None, whether
the receiver is re-checked after the event: a ``NEW_TURN`` row starts its turn there)."""


def _rejects(receiver: _Agent) -> bool:
    """Whether the delivery table refuses every message to ``receiver`` in its state."""
    return receiver.state not in _ROUTES


def _column(event: type[AgentEvent]) -> dict[AgentState, AgentState]:
    """The transition table's entries for ``event`` alone: subject state → next state."""
    return {state: row[event] for state, row in EVENT_TRIGGERED.items() if event in row}


_Handler = Callable[[Any, Any], "Outcome | None"]
"""Computes an event's actions; returns the outcome its content decided, if any. Its second
argument is the subject: an ``_Agent``, or None where the table lets it be absent."""


class _Agent:
    """The core's mutable view of one agent."""

    __slots__ = ("agent_id", "ask", "name", "queue", "results", "role_id", "role_name",
                 "rounds", "state", "task_id", "tool_calls", "turns")

    def __init__(self, name: str, role_id: str, role_name: str, agent_id: int | None) -> None:
        self.name = name
        self.role_id = role_id
        self.role_name = role_name
        self.agent_id = agent_id
        self.state = _ABSENT  # until the table moves it (AgentCreated, Restarted)
        self.ask: OpenAsk | None = None
        self.rounds: dict[str, tuple[str, int]] = {}
        """target → (correlation id, messages of ask tool calls posed to it for that id)."""
        self.turns = 0
        self.tool_calls = 0
        self.task_id: str | None = None
        self.queue: deque[RoutedMessage] = deque()
        self.results: dict[str, ToolCallResult] = {}
        """call_id → result of each of its tool calls that produced a message (TW-DUR-003)."""

    def record(self) -> AgentRecord:
        """The persisted form of this agent."""
        return AgentRecord(self.name, self.role_id, self.state, self.ask,
                           tuple((t, c, n) for t, (c, n) in self.rounds.items()), self.turns,
                           self.task_id)


class RoutingCore:
    """The router's state machine for one session.

    ``handle(event)`` returns the actions the event calls for, store actions
    first. An event that is illegal in the current state raises
    ``LocalProtocolError`` and changes nothing. A model's bad request (an
    unknown target, a duplicate id, a wait-for cycle, ...) is not illegal: it
    yields a ``FailToolCall`` with the error code of the common error result.

    ``max_ask_rounds`` is the round limit, an integer of at least 1
    (``ValueError`` otherwise, TW-MSG-011): an ask_other_agent call whose
    message would get a round number above it fails with ``round-limit``, so
    two sub-agents cannot ask each other forever (TW-MSG-010).

    ``unanswered_asks`` is ``wait`` (the default, the behaviour of spec 1.0) or ``fail``
    (``ValueError`` otherwise): with ``fail``, the end of a turn fails every ask that turn
    received and did not answer with ``unanswered`` (TW-ROUTE-030); with ``wait``, such an ask
    stays open for a later answer, its timeout or a termination.

    ``checkpoint()`` and ``rollback()`` undo events whose store actions could
    not be committed, so that the core never runs ahead of its store
    (TW-DUR-007).

    Every message carries its correlation id (the TASK it belongs to) and its
    round number (TW-MSG-008, TW-MSG-009), and the tool call that produced it.
    A tool call fed again with the ``call_id`` of a call that produced a
    message gets that call's stored result and enqueues nothing (TW-DUR-003).
    """

    def __init__(self, *, max_ask_rounds: int = DEFAULT_MAX_ASK_ROUNDS,
                 unanswered_asks: str = UNANSWERED_ASKS[0]) -> None:
        if type(max_ask_rounds) is not int or max_ask_rounds < 1:
            raise ValueError(f"the round limit must be an integer of at least 1 (TW-MSG-011), "
                             f"not {max_ask_rounds!r}")
        if unanswered_asks not in UNANSWERED_ASKS:
            raise ValueError(f"unanswered_asks must be 'wait' or 'fail' (TW-ROUTE-030), "
                             f"not {unanswered_asks!r}")
        self.max_ask_rounds = max_ask_rounds
        self.fail_unanswered = unanswered_asks == "fail"
        self._agents: dict[str, _Agent] = {}
        self._role_names: dict[str, str] = {}
        self._ids: dict[str, None] = {}
        """Every id used in the session. A dict for its order: ``rollback`` drops the newest."""
        self._alloc = IdAllocator()
        self._seq = 1
        self._asks_by_question: dict[str, str] = {}
        self._awaiting_output: dict[str, deque[str]] = {}
        self._questions: dict[str, tuple[str, str]] = {}
        """Every accepted ask's id → (asker, answerer), for unknown-question vs not-waiting."""
        self._received: dict[str, None] = {}
        """Ids of accepted asks whose message has reached the answerer's conversation."""
        methods: dict[type[Any], _Handler] = {
            AgentCreated: self._agent_created,
            TurnStarted: self._turn_started,
            ModelCallStarted: self._model_call_started,
            OutputEmitted: self._output_emitted,
            ToolCallReturned: self._tool_call_returned,
            ToolCallBlocked: self._tool_call_blocked,
            MessageSent: self._message_sent,
            AnswerGiven: self._answer_given,
            TurnEnded: self._turn_ended,
            TurnFailed: self._turn_failed,
            AgentTerminated: self._agent_terminated,
            TimerFired: self._timer_fired,
        }
        # the table by event type (state → next state), so that one lookup decides legality
        self._dispatch = {event: (_SUBJECT[event], _column(event), method)
                          for event, method in methods.items()}
        # Per-event scratch: reset by handle().
        self._store: list[StoreAction] = []
        self._effects: list[EffectAction] = []
        self._touched: dict[str, None] = {}

    # ------------------------------------------------------------------ feeding

    def handle(self, event: Event) -> list[Action]:
        """Apply ``event``; return the actions it calls for (store actions first).

        The subject's state and the event's type select an entry of the
        transition table (none: ``LocalProtocolError``, nothing changes); the
        handler computes the actions, and the entry, refined by the outcome the
        handler reports, is the subject's next state.
        """
        kind: type[Any] = type(event)
        try:
            subject, column, method = self._dispatch[kind]
        except KeyError:
            return self._restart(event)
        name = subject(event)
        agents = self._agents
        agent = agents.get(name)
        state = agent.state if agent is not None else _ABSENT
        after = column.get(state)
        if after is None:
            raise LocalProtocolError(
                f"{kind.__name__} is illegal for {name!r} in state {state.value!r}")
        store: list[Action] = []
        self._store = store  # type: ignore[assignment]
        effects: list[EffectAction] = []
        self._effects = effects
        touched = self._touched
        if touched:
            touched.clear()
        outcome = method(event, agent)
        if outcome is not None:
            after = EVENT_TRIGGERED[state][(kind, outcome)]
        if after is not state:
            self._enter(agents[name], after)
        if touched:
            self._start_pending_turns()
            store += [PersistAgent(agents[name].record()) for name in touched]
        if effects:
            store += effects
        return store

    def _restart(self, event: Event) -> list[Action]:
        """``handle`` for ``Restarted``: legal only while no agent exists, so that every
        agent of the snapshot is absent and the table's absent row restores it."""
        if type(event) is not Restarted:
            raise LocalProtocolError(f"not an event: {event!r}")
        if self._agents:
            raise LocalProtocolError("Restarted is legal only on a core without agents")
        store: list[Action] = []
        self._store = store  # type: ignore[assignment]
        self._effects = []
        self._touched.clear()
        self._restarted(event)
        if self._touched:
            self._start_pending_turns()
            store.extend([PersistAgent(self._agents[name].record()) for name in self._touched])
        store.extend(self._effects)
        return store

    def handle_all(self, events: Iterable[Event]) -> list[Action]:
        """Apply several events in order; return all their actions concatenated."""
        actions: list[Action] = []
        for event in events:
            actions.extend(self.handle(event))
        return actions

    # ------------------------------------------------------------ rollback

    def checkpoint(self) -> Checkpoint:
        """Remember the core's state, to ``rollback`` to if a commit fails.

        Costs one copy of each agent's small fields and open queue; the
        collections that only grow (ids, tool-call results, asks) are
        remembered by their length.
        """
        return Checkpoint(self)

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Return to the state of ``checkpoint``, forgetting every event handled since.

        A host calls it when the store actions of those events failed to
        commit: the messages they accepted then never existed (TW-DUR-007).
        Valid for the latest checkpoint, or an earlier one taken since the
        last rollback to an older one.
        """
        checkpoint.restore(self)

    # ------------------------------------------------------------- inspection

    def state(self, agent: str) -> AgentState:
        """The state of ``agent`` (``ABSENT`` if there is no such agent)."""
        found = self._agents.get(agent)
        return found.state if found is not None else AgentState.ABSENT

    def record(self, agent: str) -> AgentRecord:
        """The persisted form of ``agent``; KeyError if there is no such agent."""
        return self._agents[agent].record()

    def records(self) -> list[AgentRecord]:
        """Every agent, in the order they were created."""
        return [agent.record() for agent in self._agents.values()]

    def pending(self, agent: str) -> tuple[RoutedMessage, ...]:
        """Messages queued for ``agent`` and not yet delivered, oldest first."""
        found = self._agents.get(agent)
        return tuple(found.queue) if found is not None else ()

    def tool_calls(self, agent: str) -> int:
        """Tool calls of ``agent`` reported so far (statistics)."""
        return self._agents[agent].tool_calls

    def call_result(self, agent: str, call_id: str) -> ToolCallResult | None:
        """The stored result of tool call ``call_id`` of ``agent``, if it produced a message
        and its result is known (an ask still pending has none yet)."""
        found = self._agents.get(agent)
        return found.results.get(call_id) if found is not None else None

    def snapshot(self) -> Snapshot:
        """Everything a store needs to restart this router (see ``Restarted``)."""
        pending = sorted((m for a in self._agents.values() for m in a.queue),
                         key=lambda m: m.seq)
        questions = tuple((q, asker, answerer, q in self._received)
                          for q, (asker, answerer) in self._questions.items())
        return Snapshot(tuple(self.records()), tuple(pending), frozenset(self._ids), self._seq,
                        tuple(r for a in self._agents.values() for r in a.results.values()),
                        questions)

    def resolve_target(self, agent_id: int, role_id: str | None = None, *,
                       exclude: str | None = None) -> str:
        """The display name of the sub-agent a targeting tool call means.

        ``agent_id`` is the instance number within a role; when it matches
        instances of several roles and ``role_id`` is not given, the call is
        ambiguous. Without ``role_id``, ``exclude`` (the caller) is never a
        candidate; terminated agents are. Raises ``TargetError`` with the error code to report.
        """
        matches = [a for a in self._agents.values()
                   if a.agent_id == agent_id
                   and (a.role_id == role_id if role_id is not None else a.name != exclude)]
        if not matches:
            role = f" of role {role_id!r}" if role_id is not None else ""
            raise TargetError("unknown-agent", f"no sub-agent with agent_id {agent_id}{role}")
        if len(matches) > 1:
            candidates = tuple((agent_id, a.role_id, a.name) for a in matches)
            names = ", ".join(a.name for a in matches)
            raise TargetError("ambiguous-agent-id",
                              f"agent_id {agent_id} matches {names}; pass role_id to choose",
                              candidates)
        return matches[0].name

    # ------------------------------------------------------------- handlers

    def _agent_created(self, event: AgentCreated, _: _Agent | None) -> Outcome | None:
        try:
            parsed = parse_display_name(event.agent)
        except InvalidNameError as exc:
            raise LocalProtocolError(str(exc)) from None
        if not is_role_id(event.role_id):
            raise LocalProtocolError(f"invalid role id {event.role_id!r}")
        if parsed.is_leader != (event.role_id == LEADER_ROLE_ID):
            raise LocalProtocolError(
                f"role id {LEADER_ROLE_ID!r} belongs to {LEADER_NAME!r} and only to it")
        if not parsed.is_leader and LEADER_NAME not in self._agents:
            raise LocalProtocolError("the Team Leader must be created before sub-agents")
        known = self._role_names.get(event.role_id)
        if known is not None and known != parsed.role_name:
            raise LocalProtocolError(
                f"role {event.role_id!r} is named {known!r}, not {parsed.role_name!r}")
        for role_id, role_name in self._role_names.items():
            if role_name == parsed.role_name and role_id != event.role_id:
                raise LocalProtocolError(
                    f"role name {role_name!r} already belongs to role {role_id!r}")
        self._role_names[event.role_id] = parsed.role_name
        self._agents[event.agent] = _Agent(event.agent, event.role_id, parsed.role_name,
                                           parsed.agent_id)
        return None

    def _turn_started(self, event: TurnStarted, agent: _Agent) -> Outcome | None:
        agent.turns += 1
        return None

    def _model_call_started(self, event: ModelCallStarted, agent: _Agent) -> Outcome | None:
        if agent.queue:
            messages = self._drain(agent)
            self._effects.append(AppendInline(agent.name, messages))
        return None

    def _output_emitted(self, event: OutputEmitted, agent: _Agent) -> Outcome | None:
        outcome = _FINAL if event.final else None
        if agent.name == LEADER_NAME:
            return outcome  # the leader's output is for the human, not routed (TW-TYPE-021)
        if not event.text.strip():
            if event.final:  # a silent turn end still reports, with empty content (TW-TYPE-017)
                self._enqueue(self._report(agent, _COMPLETION, ""))
            return outcome  # blank text beside tool calls is no report (TW-TYPE-016)
        askers = self._output_askers(agent.name)
        if askers:
            for asker in askers:
                self._answer(asker, agent.name, event.text)
            return outcome
        self._enqueue(self._report(agent, _COMPLETION if event.final else _PROGRESS, event.text))
        return outcome

    def _tool_call_returned(self, event: ToolCallReturned, agent: _Agent) -> Outcome | None:
        agent.tool_calls += 1
        return None

    def _tool_call_blocked(self, event: ToolCallBlocked, agent: _Agent) -> Outcome | None:
        stored = agent.results.get(event.call_id)
        if stored is not None:  # executed before: its outcome stands (TW-DUR-003)
            self._effects.append(stored)
            return None
        agent.tool_calls += 1
        accepted = self._ask_problem(agent, event)
        if isinstance(accepted, FailToolCall):
            self._effects.append(accepted)
            return None
        correlation, round_ = accepted
        target = self._agents[event.target]
        if agent.name == LEADER_NAME:
            kind = AskKind.ASK_SUB_AGENT
        elif target.name == LEADER_NAME:
            kind = AskKind.ASK_MASTER
        else:
            kind = AskKind.ASK_OTHER_AGENT
        deadline = (event.now + event.timeout
                    if event.now is not None and event.timeout is not None else None)
        ask = OpenAsk(event.call_id, target.name, event.question_id, kind, event.timeout,
                      correlation_id=correlation, round=round_, deadline=deadline)
        self._alloc.observe(event.question_id)
        agent.ask = ask
        agent.rounds[target.name] = (correlation, round_)
        self._asks_by_question[event.question_id] = agent.name
        self._questions[event.question_id] = (agent.name, target.name)
        if event.timeout is not None:
            self._effects.append(StartTimer(agent.name, event.call_id, event.timeout))
        mtype = _MESSAGE if ask.answered_by_output and kind is AskKind.ASK_OTHER_AGENT else _ASK
        self._enqueue(RoutedMessage(event.question_id, mtype, agent.name, target.name,
                                    event.content, self._next_seq(), None, correlation, round_,
                                    event.call_id))
        return _ACCEPTED

    def _ask_problem(self, agent: _Agent, event: ToolCallBlocked) -> FailToolCall | tuple[str, int]:
        """Why the ask fails, or the (correlation id, round) of its message if it does not."""
        target = self._agents.get(event.target)
        problem: tuple[str, str] | None = None
        if not MESSAGE_ID.fullmatch(event.question_id):
            problem = "invalid-arguments", f"id {event.question_id!r} is not a single token"
        elif target is None:
            problem = "unknown-agent", f"no agent named {event.target!r}"
        elif _rejects(target):
            problem = "agent-terminated", f"{target.name} is terminated and receives nothing"
        elif agent.name == target.name:
            problem = "invalid-arguments", "an ask cannot target its own caller"
        elif (cycle := self._wait_chain(target.name, agent.name)) is not None:
            chain = " → ".join([agent.name, *cycle])
            problem = "wait-cycle", f"the ask would wait in a cycle: {chain}"
        elif event.question_id in self._ids:
            problem = "duplicate-id", f"id {event.question_id!r} is already used in this session"
        if problem is not None or target is None:
            code, message = problem or ("unknown-agent", "")
            return FailToolCall(agent.name, event.call_id, code, message)
        owner = target if agent.name == LEADER_NAME else agent
        correlation = owner.task_id or event.question_id
        earlier = agent.rounds.get(target.name)
        round_ = earlier[1] + 1 if earlier is not None and earlier[0] == correlation else 1
        if LEADER_NAME not in (agent.name, target.name) and round_ > self.max_ask_rounds:
            return FailToolCall(agent.name, event.call_id, "round-limit",
                                f"{agent.name} already asked {target.name} "
                                f"{self.max_ask_rounds} times about its current task")
        return correlation, round_

    def _wait_chain(self, start: str, asker: str) -> list[str] | None:
        """The chain of waits from ``start`` back to ``asker``, or None if there is none."""
        chain = [start]
        current = self._agents[start]
        seen = {start}
        while True:
            if current.name == asker:
                return chain
            if current.state is not _WAITING or current.ask is None:
                return None
            nxt = current.ask.target
            if nxt in seen:
                return None
            seen.add(nxt)
            chain.append(nxt)
            current = self._agents[nxt]

    def _message_sent(self, event: MessageSent, sender: _Agent) -> Outcome | None:
        kind = event.kind
        if (kind is not _MESSAGE and kind is not _TASK) or sender.name != LEADER_NAME \
                or event.receiver == LEADER_NAME:
            _refuse_send(event, sender)
        call_id = event.call_id
        if call_id is not None and call_id in sender.results:
            # executed before: its outcome stands (TW-DUR-003)
            self._effects.append(sender.results[call_id])
            return None
        sender.tool_calls += 1
        message_id = event.message_id
        receiver = self._agents.get(event.receiver)
        # the usual send (a router id, a live receiver) passes one test; the rest is checked
        # in the error order of the specification
        if message_id is not None or receiver is None or receiver is sender \
                or _rejects(receiver):
            if not self._send_accepted(event, sender, receiver):
                return None
            assert receiver is not None and message_id is not None
            self._alloc.observe(message_id)
        else:
            message_id = self._allocate(kind, sender)
        if kind is _TASK:
            correlation = message_id
            if receiver.task_id is None:  # its first TASK (TW-TYPE-014)
                receiver.task_id = message_id
                self._touched[receiver.name] = None
        else:
            correlation = receiver.task_id or message_id
        message = RoutedMessage(message_id, kind, sender.name, receiver.name, event.content,
                                self._next_seq(), None, correlation, 0, call_id)
        if call_id is None:  # without a tool call there is nothing to answer
            self._route(message, receiver, False)
            return None
        delivery = self._route(message, receiver, True)
        ack = AcknowledgeSend(LEADER_NAME, call_id, message_id, receiver.name, delivery)
        sender.results[call_id] = ack
        self._effects.append(ack)
        return None

    def _send_accepted(self, event: MessageSent, sender: _Agent,
                       receiver: _Agent | None) -> bool:
        """Whether a send with a chosen id, or to an unusual receiver, goes ahead; if not, its
        error result, or the acknowledgment of a duplicate, is among the effects."""
        call_id, message_id = event.call_id, event.message_id
        if message_id is not None and not MESSAGE_ID.fullmatch(message_id):
            self._fail(sender.name, call_id, "invalid-arguments",
                       f"id {message_id!r} is not a single token")
        elif receiver is None:
            self._fail(sender.name, call_id, "unknown-agent",
                       f"no agent named {event.receiver!r}")
        elif receiver is sender:
            self._fail(sender.name, call_id, "invalid-arguments",
                       "a message cannot target its own sender")
        elif message_id is not None and message_id in self._ids:
            first = self._first_ack(message_id)
            self._effects.append(AcknowledgeSend(
                sender.name, call_id, message_id, receiver.name,
                first.delivery if first is not None else None, duplicate=True))
        elif _rejects(receiver):
            self._fail(sender.name, call_id, "agent-terminated",
                       f"{receiver.name} is terminated and receives nothing")
        else:
            return True
        return False

    def _first_ack(self, message_id: str) -> AcknowledgeSend | None:
        """The acknowledgment the message ``message_id`` got when it was accepted (rare path)."""
        for result in (r for a in self._agents.values() for r in a.results.values()):
            if type(result) is AcknowledgeSend and result.message_id == message_id \
                    and not result.duplicate:
                return result
        return None

    def _answer_given(self, event: AnswerGiven, sender: _Agent) -> Outcome | None:
        if event.call_id is not None:
            stored = sender.results.get(event.call_id)
            if stored is not None:  # executed before: its outcome stands (TW-DUR-003)
                self._effects.append(stored)
                return None
        sender.tool_calls += 1
        receiver = self._agents.get(event.receiver)
        if receiver is None:
            self._fail(sender.name, event.call_id, "unknown-agent",
                       f"no agent named {event.receiver!r}")
            return None
        if _rejects(receiver):
            self._fail(sender.name, event.call_id, "agent-terminated",
                       f"{receiver.name} is terminated and receives nothing")
            return None
        ask = receiver.ask
        if self._questions.get(event.question_id) != (receiver.name, sender.name) \
                or event.question_id not in self._received:
            # an answer needs a question the answerer has received (TW-ROUTE-015)
            self._fail(sender.name, event.call_id, "unknown-question",
                       f"{sender.name} has received no question {event.question_id!r} "
                       f"from {receiver.name}")
            return None
        if receiver.state is not _WAITING or ask is None \
                or ask.question_id != event.question_id:
            self._fail(sender.name, event.call_id, "not-waiting",
                       f"{receiver.name} no longer waits for an answer to "
                       f"{event.question_id!r}")
            return None
        answer = self._answer(receiver, sender.name, event.content, event.call_id)
        ack = AcknowledgeSend(sender.name, event.call_id, answer.id, receiver.name,
                              "tool_result")
        if event.call_id is not None:
            sender.results[event.call_id] = ack
        self._effects.append(ack)
        return None

    def _turn_ended(self, event: TurnEnded, agent: _Agent) -> Outcome | None:
        if self.fail_unanswered:
            self._fail_unanswered(agent, "ended")
        return None  # the table's entry (completed) is the rest of it

    def _turn_failed(self, event: TurnFailed, agent: _Agent) -> Outcome | None:
        if agent.ask is not None:
            self._fail_ask(agent, "timeout", f"the turn of {agent.name} ended: {event.detail}")
        if agent.name != LEADER_NAME:
            state = "timeout" if event.reason == "timeout" else "error"
            result = render_run_result(agent.name, state, event.detail)
            self._enqueue(self._report(agent, _COMPLETION, result))
        if self.fail_unanswered:
            self._fail_unanswered(agent, "failed" if event.reason == "error" else "timed out")
        return None

    def _fail_unanswered(self, answerer: _Agent, how: str) -> None:
        """The turn of ``answerer`` is over: every ask it has received and not answered fails
        with ``unanswered`` (TW-ROUTE-030). An ask still in its queue is not received: the
        turn that the queue starts next delivers it."""
        self._awaiting_output.pop(answerer.name, None)
        for other in self._agents.values():
            ask = other.ask
            if other.state is _WAITING and ask is not None and ask.target == answerer.name \
                    and ask.delivered:
                self._fail_ask(other, "unanswered", f"the turn of {answerer.name} {how} "
                               f"without an answer to {ask.question_id!r}")
                self._move(other, _ASK_RESOLVED)

    def _agent_terminated(self, event: AgentTerminated, agent: _Agent) -> Outcome | None:
        if agent.name == LEADER_NAME:
            raise LocalProtocolError("the Team Leader cannot be terminated")
        if agent.queue:
            ids = tuple(m.id for m in agent.queue)
            agent.queue.clear()
            self._store.append(DiscardMessages(agent.name, ids))
        if agent.ask is not None:
            self._asks_by_question.pop(agent.ask.question_id, None)
            if agent.ask.timeout is not None:
                self._effects.append(CancelTimer(agent.name, agent.ask.call_id))
            agent.ask = None
        for other in self._agents.values():
            if other.state is _WAITING and other.ask is not None \
                    and other.ask.target == agent.name:
                self._fail_ask(other, "agent-terminated",
                               f"{agent.name} was terminated before it answered")
                self._move(other, _ASK_RESOLVED)
        return None

    def _timer_fired(self, event: TimerFired, agent: _Agent) -> Outcome | None:
        ask = agent.ask
        if agent.state is _WAITING and ask is not None and ask.call_id == event.call_id:
            self._fail_ask(agent, "timeout", f"{ask.target} did not answer "
                           f"{ask.question_id!r} within the ask timeout", cancel_timer=False)
            return _ASK_RESOLVED
        return None  # stale: its ask is over

    def _restarted(self, event: Restarted) -> None:
        snap = event.snapshot
        names = {r.name for r in snap.agents}
        for record in snap.agents:
            try:
                parse_display_name(record.name)
            except InvalidNameError as exc:
                raise LocalProtocolError(str(exc)) from None
        for message in snap.pending:
            if message.receiver not in names:
                raise LocalProtocolError(f"pending message {message.id!r} "
                                         f"for unknown agent {message.receiver!r}")
        restore = EVENT_TRIGGERED[_ABSENT]
        for record in snap.agents:
            parsed = parse_display_name(record.name)
            agent = _Agent(record.name, record.role_id, parsed.role_name, parsed.agent_id)
            agent.state = restore[(Restarted, record.state)]
            agent.ask = record.ask if agent.state is _WAITING else None
            agent.rounds = {t: (c, n) for t, c, n in record.rounds}
            agent.turns = record.turns
            agent.task_id = record.task_id
            self._agents[record.name] = agent
            self._role_names[record.role_id] = parsed.role_name
            if agent.state is not record.state:
                self._touched[agent.name] = None
        for message in sorted(snap.pending, key=lambda m: m.seq):
            self._agents[message.receiver].queue.append(message)
            self._touched[message.receiver] = None  # re-checked by _start_pending_turns
        for message_id in snap.ids:
            self._ids[message_id] = None
            self._alloc.observe(message_id)
        for question_id, asker, answerer, received in snap.questions:
            self._questions[question_id] = (asker, answerer)
            if received:
                self._received[question_id] = None
        for result in snap.results:
            owner = self._agents.get(result.agent)
            if result.call_id is not None and owner is not None:
                owner.results[result.call_id] = result
        self._seq = max(snap.next_seq, max((m.seq for m in snap.pending), default=0) + 1)
        # The askers an output answers wait in the order their questions reached the answerer
        # (TW-ROUTE-014), which is the order the asks were accepted (queues are first in, first
        # out), the order of snap.questions; agents come in creation order.
        accepted = {question_id: n for n, (question_id, *_) in enumerate(snap.questions)}
        open_asks = sorted(((agent, agent.ask) for agent in self._agents.values()
                            if agent.ask is not None),
                           key=lambda pair: accepted.get(pair[1].question_id, len(accepted)))
        for agent, ask in open_asks:
            self._asks_by_question[ask.question_id] = agent.name
            self._questions[ask.question_id] = (agent.name, ask.target)
            if ask.delivered:
                self._received[ask.question_id] = None
            if ask.delivered and ask.answered_by_output:
                self._awaiting_output.setdefault(ask.target, deque()).append(agent.name)
            if ask.timeout is not None:
                seconds = ask.timeout
                if ask.deadline is not None and event.now is not None:
                    seconds = max(0.0, ask.deadline - event.now)
                self._effects.append(StartTimer(agent.name, ask.call_id, seconds))

    # ------------------------------------------------------------- mechanics

    def _enter(self, subject: _Agent, after: AgentState) -> None:
        """Move the event's subject to the state the table gave it; its record is persisted
        before those of the agents the event touched on the way."""
        subject.state = after
        touched = self._touched
        name = subject.name
        if touched and next(iter(touched)) != name:
            earlier = list(touched)
            touched.clear()
            touched[name] = None
            touched.update(dict.fromkeys(earlier))
        else:
            touched[name] = None

    def _move(self, agent: _Agent, key: EventKey) -> None:
        """Move an agent that is not the event's subject by the table's entry ``key``."""
        agent.state = EVENT_TRIGGERED[agent.state][key]
        self._touched[agent.name] = None

    def _start_pending_turns(self) -> None:
        """Apply the state-triggered transitions: an agent whose state has an entry in
        ``STATE_TRIGGERED`` and whose pending queue is not empty starts a turn with it."""
        agents = self._agents
        for name in list(self._touched):
            agent = agents[name]
            if agent.queue:
                after = STATE_TRIGGERED.get(agent.state)
                if after is not None:
                    agent.state = after
                    agent.turns += 1
                    self._effects.append(StartTurn(agent.name, self._drain(agent)))

    def _enqueue(self, message: RoutedMessage) -> None:
        """Route ``message`` to its receiver (``_route``), with no acknowledgment to give."""
        self._route(message, self._agents[message.receiver], False)

    def _route(self, message: RoutedMessage, receiver: _Agent, acknowledged: bool) -> str:
        """Persist ``message`` and queue it for ``receiver`` as the delivery table's row of
        the receiver's state says; the delivery an acknowledgment names. Every message goes
        through here; callers have refused messages to a receiver the table rejects.
        ``acknowledged``: the persisted message records its delivery (a send's result)."""
        # refused by the caller, with its error result, when the table rejects it (KeyError)
        delivery, move, touches = _ROUTES[receiver.state]
        self._ids[message.id] = None
        self._store.append(PersistMessage(message, delivery if acknowledged else None))
        receiver.queue.append(message)
        if touches:
            if move is not None:  # a NEW_TURN row's turn starts in _start_pending_turns
                receiver.state = move
            self._touched[receiver.name] = None
        return delivery

    def _drain(self, agent: _Agent) -> tuple[RoutedMessage, ...]:
        """Take every pending message of ``agent`` for delivery (batch drain)."""
        messages = tuple(agent.queue)
        agent.queue.clear()
        self._store.append(ConsumeMessages(agent.name, tuple([m.id for m in messages])))
        questions, asks = self._questions, self._asks_by_question
        for message in messages:
            kind = message.kind
            if kind is _TASK:
                if agent.task_id != message.id:  # a new task: a new thread of rounds
                    agent.task_id = message.id
                    agent.rounds.clear()
                    self._touched[agent.name] = None
            elif message.id in questions and (kind is _ASK or kind is _MESSAGE):
                self._received[message.id] = None
                if message.id in asks:
                    self._mark_delivered(message)
        return messages

    def _mark_delivered(self, message: RoutedMessage) -> None:
        asker_name = self._asks_by_question[message.id]
        asker = self._agents[asker_name]
        ask = asker.ask
        if ask is None or ask.question_id != message.id or ask.delivered:
            return
        asker.ask = replace(ask, delivered=True)
        self._touched[asker_name] = None
        if ask.answered_by_output:
            self._awaiting_output.setdefault(ask.target, deque()).append(asker_name)

    def _output_askers(self, target: str) -> list[_Agent]:
        """Every agent whose delivered ask the next natural output of ``target`` answers."""
        waiting = self._awaiting_output.pop(target, None)
        askers: list[_Agent] = []
        for name in waiting or ():
            asker = self._agents[name]
            # an asker whose ask ended otherwise may wait again, in a newer ask that has not
            # reached the target yet: only a delivered ask is answered (TW-ROUTE-012)
            if asker.state is _WAITING and asker.ask is not None \
                    and asker.ask.target == target and asker.ask.answered_by_output \
                    and asker.ask.delivered and asker not in askers:
                askers.append(asker)
        return askers

    def _answer(self, asker: _Agent, sender: str, content: str,
                call_id: str | None = None) -> RoutedMessage:
        """Resolve the open ask of ``asker`` with an Answer from ``sender``."""
        ask = asker.ask
        assert ask is not None
        answer = RoutedMessage(self._allocate(_ANSWER, self._agents[sender]), _ANSWER, sender,
                               asker.name, content, self._next_seq(), ask.question_id,
                               ask.correlation_id, ask.round, call_id)
        self._ids[answer.id] = None
        self._store.append(PersistMessage(answer, "tool_result" if call_id is not None else None))
        self._store.append(ConsumeMessages(asker.name, (answer.id,)))
        self._close_ask(asker)
        self._move(asker, _ASK_RESOLVED)
        resolved = ResolveToolCall(asker.name, ask.call_id, answer)
        asker.results[ask.call_id] = resolved
        self._effects.append(resolved)
        if ask.timeout is not None:
            self._effects.append(CancelTimer(asker.name, ask.call_id))
        return answer

    def _fail_ask(self, asker: _Agent, code: str, message: str, *,
                  cancel_timer: bool = True) -> None:
        ask = asker.ask
        assert ask is not None
        self._close_ask(asker)
        failed = FailToolCall(asker.name, ask.call_id, code, message)
        asker.results[ask.call_id] = failed
        self._store.append(PersistAskFailure(asker.name, ask.call_id, ask.question_id, code,
                                             message))
        self._effects.append(failed)
        if cancel_timer and ask.timeout is not None:
            self._effects.append(CancelTimer(asker.name, ask.call_id))

    def _close_ask(self, asker: _Agent) -> None:
        """Forget the open ask of ``asker``; the table, not this, gives it its next state."""
        assert asker.ask is not None
        self._asks_by_question.pop(asker.ask.question_id, None)
        asker.ask = None
        self._touched[asker.name] = None

    def _fail(self, agent: str, call_id: str | None, code: str, message: str) -> None:
        self._effects.append(FailToolCall(agent, call_id, code, message))

    def _report(self, sender: _Agent, kind: MessageType, content: str) -> RoutedMessage:
        """A PROGRESS or COMPLETION of ``sender`` for the leader (round 1, TW-MSG-009)."""
        message_id = self._allocate(kind, sender)
        return RoutedMessage(message_id, kind, sender.name, LEADER_NAME, content,
                             self._next_seq(), None, sender.task_id or message_id, 1)

    def _allocate(self, kind: MessageType, sender: _Agent) -> str:
        allocate, ids = self._alloc.allocate, self._ids
        message_id = allocate(kind, sender.name, sender.role_id)
        while message_id in ids:  # skip ids an agent chose
            message_id = allocate(kind, sender.name, sender.role_id)
        return message_id

    def _next_seq(self) -> int:
        seq = self._seq
        self._seq = seq + 1
        return seq


Router = RoutingCore
"""Alias: the routing core is the router's whole decision logic."""


def _refuse_send(event: MessageSent, sender: _Agent) -> NoReturn:
    """Raise for a MessageSent no host may feed: not a Task or Message, not the leader's, or
    to the leader."""
    kind = event.kind
    if kind is not _MESSAGE and kind is not _TASK:
        raise LocalProtocolError(f"MessageSent carries a Task or a Message, not a {kind.label}")
    if sender.name != LEADER_NAME:
        raise LocalProtocolError(
            f"{sender.name} may not send a {kind.label} (a sub-agent's Message comes "
            "from ask_other_agent: feed ToolCallBlocked)")
    raise LocalProtocolError(f"a {kind.label} goes to a sub-agent, not the leader")
