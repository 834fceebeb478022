"""The routing core, both stores and crashes, against an independent model (hypothesis stateful).

Hypothesis plays a session: the leader and up to three sub-agents are created with their TASK,
the leader sends messages, agents call their models, talk, ask each other (with and without an
ask timeout, within and beyond the round limit), answer (rightly and wrongly), end or fail
their turns, get terminated, timers fire on a virtual clock (stale ones too) and tool calls are
executed again. Every action batch is committed to a MemoryStore and to a SQLite file, and at
random points the router crashes: the core is dropped, the SQLite file reopened, and a fresh
core restarted from one store's snapshot with ``Restarted(snapshot, now=clock)``; the
session goes on from there.

The oracle is the model that ``RestartModel`` keeps beside the core: plain dicts, lists and
the dataclasses ``Agent`` and ``Ask``, updated by this test from the rules of
spec/07-routing.md, spec/08-delivery-durability.md, spec/05-structured-message.md and the
error order of spec/06-tools.md, never by calling router code. It predicts every step's effects
(deliveries and their order, discards, tool results and error codes, timers started and
cancelled, the correlation id and round of every message) and the state after it; only the
ids the core allocates are learnt from its actions. After every step:

- the core agrees with the model: states, pending queues, open asks with their deadlines,
  round counts per (asker, target, task), turns, tasks;
- the timers the host holds are the model's, with their absolute due times: a restart
  re-arms each for the time it has left, not its whole timeout;
- the snapshots of both stores and ``core.snapshot()`` agree (see ``_comparable`` for the
  differences of order that are allowed), and so do both stores' histories;
- over the whole history, across restarts, no accepted message is lost, none is delivered
  twice, none is delivered or discarded that was never accepted, only messages of terminated
  agents are discarded (Jepsen-style lost / duplicated / unexpected);
- every ``handle()`` result lists its store actions before its effects.

Two bugs this test found have tests of their own: the order of agents after a restart from
SQLite (``test_a_restart_keeps_the_creation_order`` below) and an output that answered an ask
its sender had not received yet (test_rules.py
``test_output_answers_only_an_ask_its_sender_has_received``).

TW-ROUTE-002 to TW-ROUTE-024, TW-MSG-008 to TW-MSG-011, TW-DEL-001 to TW-DEL-004,
TW-DUR-002 to TW-DUR-006, TW-TOOL-012, TW-TOOL-037.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from teamwire.envelope import MessageType
from teamwire.router import (
    AcknowledgeSend,
    Action,
    AgentCreated,
    AgentState,
    AgentTerminated,
    AnswerGiven,
    AppendInline,
    CancelTimer,
    ConsumeMessages,
    DiscardMessages,
    Event,
    FailToolCall,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistAgent,
    PersistMessage,
    ResolveToolCall,
    Restarted,
    RoutedMessage,
    RoutingCore,
    Snapshot,
    StartTimer,
    StartTurn,
    TargetError,
    TimerFired,
    ToolCallBlocked,
    ToolCallReturned,
    TurnEnded,
    TurnStarted,
)
from teamwire.router.actions import STORE_ACTION_TYPES, PersistAskFailure
from teamwire.router.core import UNANSWERED_ASKS
from teamwire.router.events import TurnFailed
from teamwire.router.store import MemoryStore, MessageStatus, SQLiteStore, Store
from tests.router.helpers import FSE, LEADER, UIO, UIO2

ROLES = {UIO: "ui-operator", FSE: "full-stack-engineer", UIO2: "ui-operator"}
SUBS = tuple(ROLES)
TEXTS = ("", "  ", "working on it", "done")
ASK_TIMEOUTS = (None, 10, 50, 200)
TICKS = (1, 5, 20, 100)
DOWNTIMES = (0, 3, 30)

TASK, MESSAGE, ASK = MessageType.TASK, MessageType.MESSAGE, MessageType.ASK
ANSWER, PROGRESS, COMPLETION = MessageType.ANSWER, MessageType.PROGRESS, MessageType.COMPLETION

# The core's states by the model's names ("closing" is the core's running agent whose last reply
# called no tool; the spec reports it as running).
STATES = {"idle": AgentState.IDLE, "running": AgentState.RUNNING, "closing": AgentState.CLOSING,
          "waiting": AgentState.WAITING, "completed": AgentState.COMPLETED,
          "terminated": AgentState.TERMINATED}
# TW-TOOL-012: the delivery a send reports, by the receiver's state at enqueue time
DELIVERY = {"idle": "new_turn", "completed": "new_turn", "running": "inline",
            "closing": "inline", "waiting": "queued"}
OWN_ID = "<its own id>"
"""Expected correlation id of a TASK (TW-MSG-008): the id the core gives it."""


@dataclass
class Ask:
    """An open ask, as the model keeps it."""

    call_id: str
    target: str
    question_id: str
    by_output: bool
    """Resolved by the target's first natural output after delivery (answer matching table)."""
    timeout: int | None
    deadline: int | None
    round: int
    correlation: str
    delivered: bool = False


@dataclass
class Agent:
    """One agent, as the model keeps it."""

    role_id: str
    state: str = "idle"
    queue: list[str] = field(default_factory=list)
    ask: Ask | None = None
    task: str | None = None
    """The id of its TASK (each sub-agent gets exactly one, TW-TYPE-014)."""
    turns: int = 0
    in_model_call: bool = False


@dataclass
class Expected:
    """The effects the model predicts for one step (compared as multisets)."""

    deliveries: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    consumed: list[str] = field(default_factory=list)
    discarded: dict[str, tuple[str, ...]] = field(default_factory=dict)
    failed: list[tuple[str, str | None, str]] = field(default_factory=list)
    ask_failures: list[tuple[str, str, str, str]] = field(default_factory=list)
    acks: list[tuple[str, str | None, str, str, str | None, bool]] = field(default_factory=list)
    resolved: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    started: list[tuple[str, str, float]] = field(default_factory=list)
    cancelled: list[tuple[str, str]] = field(default_factory=list)


def coin(data: st.DataObject) -> bool:
    """A drawn boolean (a function of its own, so that the type checker does not read the draw
    in the context of the operand before ``and``)."""
    return data.draw(st.booleans())


def _observed(actions: list[Action]) -> Expected:
    """The same summary, read from the core's actions."""
    seen = Expected()
    for a in actions:
        if isinstance(a, (StartTurn, AppendInline)):
            assert a.agent not in seen.deliveries, f"two deliveries to {a.agent} in one step"
            how = "turn" if isinstance(a, StartTurn) else "inline"
            seen.deliveries[a.agent] = (how, tuple(m.id for m in a.messages))
        elif isinstance(a, ConsumeMessages):
            seen.consumed.extend(a.message_ids)
        elif isinstance(a, DiscardMessages):
            assert a.agent not in seen.discarded
            seen.discarded[a.agent] = a.message_ids
        elif isinstance(a, FailToolCall):
            seen.failed.append((a.agent, a.call_id, a.code))
        elif isinstance(a, PersistAskFailure):
            seen.ask_failures.append((a.agent, a.call_id, a.question_id, a.code))
        elif isinstance(a, AcknowledgeSend):
            seen.acks.append((a.agent, a.call_id, a.message_id, a.receiver, a.delivery,
                              a.duplicate))
        elif isinstance(a, ResolveToolCall):
            m = a.message
            seen.resolved.append((a.agent, a.call_id, m.sender, m.question_id or "", m.id))
        elif isinstance(a, StartTimer):
            seen.started.append((a.agent, a.call_id, a.seconds))
        elif isinstance(a, CancelTimer):
            seen.cancelled.append((a.agent, a.call_id))
    return seen


def _sorted(expected: Expected) -> dict[str, Any]:
    return {"deliveries": expected.deliveries, "consumed": sorted(expected.consumed),
            "discarded": expected.discarded, "failed": sorted(expected.failed, key=repr),
            "ask_failures": sorted(expected.ask_failures), "acks": sorted(expected.acks, key=repr),
            "resolved": sorted(expected.resolved), "started": sorted(expected.started),
            "cancelled": sorted(expected.cancelled)}


def _comparable(snapshot: Snapshot) -> tuple[Any, ...]:
    """The parts of a snapshot that every source must agree on.

    Allowed differences, all of order only: the core lists its results per agent and its
    questions in the order it accepted them, the stores both by message seq; SQLite lists
    agents in the order of their last write (INSERT OR REPLACE gives the row a new rowid),
    which is harmless in a snapshot but not in the core restarted from it (a known bug, see
    ``test_a_restart_keeps_the_creation_order``).
    """
    return ({r.name: r for r in snapshot.agents}, snapshot.pending, snapshot.ids,
            snapshot.next_seq, frozenset(snapshot.results), frozenset(snapshot.questions))


def _check_order(actions: list[Action]) -> None:
    """RoutingCore.handle's contract: every store action before the first effect."""
    kinds = ["store" if isinstance(a, STORE_ACTION_TYPES) else "effect" for a in actions]
    assert kinds == sorted(kinds, key=lambda k: k != "store"), \
        f"an effect before a store action: {[type(a).__name__ for a in actions]}"


class RestartModel(RuleBasedStateMachine):
    """A session on virtual time, committed to two stores, crashed and restarted at random."""

    def __init__(self) -> None:
        super().__init__()
        self.ready = False
        self.directory = Path(tempfile.mkdtemp(prefix="teamwire-restart-"))
        self.memory = MemoryStore()
        self.sqlite = SQLiteStore(self.directory / "router.db", synchronous="normal")
        self.limit = 8
        self.unanswered_asks = UNANSWERED_ASKS[0]
        self.core = RoutingCore()
        self.now = 0
        self.timers: dict[tuple[str, str], float] = {}
        """The host's armed timers: (agent, call_id) → absolute due time."""
        self.calls = 0
        self.questions_made = 0
        # -- the model
        self.agents: dict[str, Agent] = {}
        self.messages: dict[str, tuple[MessageType, str, str]] = {}
        """Every accepted message: id → (kind, sender, receiver)."""
        self.status: dict[str, str] = {}
        self.log: list[tuple[str, str]] = []
        """(message id, "delivered" or "discarded"), in the order they left their queues."""
        self.questions: dict[str, tuple[str, str]] = {}
        """Every accepted ask's id → (asker, answerer)."""
        self.received: set[str] = set()
        """Ids of accepted asks whose message reached the answerer's conversation."""
        self.rounds: Counter[tuple[str, str, str]] = Counter()
        """(sender, receiver, correlation id) → messages of accepted ask tool calls (TW-MSG-009)."""
        self.acked: dict[str, tuple[str, str | None]] = {}
        """Acknowledged message id → (receiver, delivery of its first acknowledgment)."""
        self.stale: list[tuple[str, str]] = []
        """(agent, call_id) of closed asks that had a timer: a late firing must change nothing."""
        self.ask_events: dict[tuple[str, str], ToolCallBlocked] = {}
        self.results: dict[tuple[str, str], tuple[Event, Action]] = {}
        """(agent, call_id) → the tool call and its result, to execute it again (TW-DUR-003)."""
        # -- what the host saw, across restarts (for lost / duplicated / unexpected)
        self.seen_delivered: list[tuple[str, str]] = []
        self.seen_discarded: list[tuple[str, str]] = []
        # -- per step
        self.expect = Expected()
        self.unbound: list[RoutedMessage] = []

    def teardown(self) -> None:
        self.sqlite.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    # ------------------------------------------------------------------ plumbing

    def _call_id(self) -> str:
        self.calls += 1
        return f"call_{self.calls}"

    def _question_id(self, notification: bool) -> str:
        self.questions_made += 1
        return f"{'msg' if notification else 'ask'}_q{self.questions_made:03d}"

    def _commit(self, actions: list[Action], *, replay: bool = False) -> None:
        """What a host does with a batch: check its order, commit it to both stores, act.

        The stored result of a tool call executed again (``replay``) stands for the result
        the call lost; a host records it once, so it is no second delivery."""
        _check_order(actions)
        self.memory.apply(actions)
        self.sqlite.apply(actions)
        for a in actions:
            if isinstance(a, StartTimer):
                assert (a.agent, a.call_id) not in self.timers, f"timer armed twice: {a}"
                self.timers[(a.agent, a.call_id)] = self.now + a.seconds
            elif isinstance(a, CancelTimer):
                self.timers.pop((a.agent, a.call_id), None)
            elif isinstance(a, (StartTurn, AppendInline)):
                self.seen_delivered.extend((a.agent, m.id) for m in a.messages)
            elif isinstance(a, ResolveToolCall) and not replay:
                self.seen_delivered.append((a.agent, a.message.id))
            elif isinstance(a, DiscardMessages):
                self.seen_discarded.extend((a.agent, m) for m in a.message_ids)
            if isinstance(a, (ResolveToolCall, FailToolCall)) and a.call_id is not None:
                key = (a.agent, a.call_id)
                if key in self.ask_events and key not in self.results:
                    self.results[key] = (self.ask_events[key], a)

    def run(self, step: Event, update: Callable[[], None], *,
            replay: bool = False) -> list[Action]:
        """Feed ``step``, commit its actions, let the model predict, compare."""
        actions = self.core.handle(step)
        self._commit(actions, replay=replay)
        self.unbound = [a.message for a in actions if isinstance(a, PersistMessage)]
        self.expect = Expected()
        update()
        assert self.unbound == [], f"messages the model did not expect: {self.unbound}"
        assert _sorted(_observed(actions)) == _sorted(self.expect), type(step).__name__
        for code in sorted({code for _, _, code in self.expect.failed}):
            hypothesis.event(f"error result {code}")
        if self.expect.discarded:
            hypothesis.event("a termination discarded a queue")
        if len(self.expect.resolved) > 1:
            hypothesis.event("one output answered several asks")
        return actions

    # ------------------------------------------------------------------ the model

    def can_call(self, name: str) -> bool:
        """A running agent between model calls: it may run tools."""
        agent = self.agents.get(name)
        return agent is not None and agent.state == "running" and not agent.in_model_call

    def bind(self, kind: MessageType, sender: str, receiver: str,
             content: str | Callable[[str], bool], correlation: str | None, round_: int, *,
             question_id: str | None = None,
             call_id: str | None = None) -> str:
        """The core must have persisted this message in this step: take it, check it, return
        its id (ids are the core's to choose, so the model learns them here)."""
        for index, message in enumerate(self.unbound):  # noqa: B007 - used after the loop
            if (message.kind, message.sender, message.receiver) == (kind, sender, receiver):
                break
        else:
            raise AssertionError(f"expected a {kind.name} from {sender} to {receiver}, "
                                 f"the core persisted {self.unbound}")
        message = self.unbound.pop(index)
        assert message.id not in self.messages, f"id {message.id} used twice (TW-DUR-006)"
        if correlation == OWN_ID:
            correlation = message.id
        if callable(content):
            assert content(message.content), message.content
        else:
            assert message.content == content
        assert (message.correlation_id, message.round) == (correlation, round_), \
            f"{kind.name} {message.id}: correlation/round (TW-MSG-008, TW-MSG-009)"
        assert (message.question_id, message.call_id) == (question_id, call_id)
        self.messages[message.id] = (kind, sender, receiver)
        self.status[message.id] = "pending"
        return message.id

    def enqueue(self, kind: MessageType, sender: str, receiver: str,
                content: str | Callable[[str], bool], correlation: str | None, round_: int,
                call_id: str | None = None) -> str:
        """TW-ROUTE-005: an accepted message joins its receiver's queue."""
        message_id = self.bind(kind, sender, receiver, content, correlation, round_,
                               call_id=call_id)
        self.agents[receiver].queue.append(message_id)
        return message_id

    def delivered(self, message_id: str) -> None:
        assert self.status[message_id] == "pending"
        self.status[message_id] = "delivered"
        self.log.append((message_id, "delivered"))
        self.expect.consumed.append(message_id)
        if message_id in self.questions:  # the answerer has now received the question
            self.received.add(message_id)
            asker = self.agents[self.questions[message_id][0]]
            if asker.ask is not None and asker.ask.question_id == message_id:
                asker.ask.delivered = True

    def drain(self, name: str, how: str) -> None:
        """TW-ROUTE-008, TW-ROUTE-009: the whole queue, in order, in one delivery."""
        agent = self.agents[name]
        ids = tuple(agent.queue)
        agent.queue.clear()
        for message_id in ids:
            self.delivered(message_id)
        self.expect.deliveries[name] = (how, ids)

    def settle(self) -> None:
        """TW-ROUTE-009, TW-ROUTE-011: an idle or completed agent with a queue starts a turn."""
        for name, agent in self.agents.items():
            if agent.state in ("idle", "completed") and agent.queue:
                agent.state = "running"
                agent.turns += 1
                agent.in_model_call = False
                self.drain(name, "turn")

    def close_ask(self, name: str, code: str | None, *, by_timer: bool = False) -> Ask:
        """The ask of ``name`` is over; its caller runs again (failed with ``code``, if any)."""
        agent = self.agents[name]
        ask = agent.ask
        assert ask is not None and agent.state == "waiting"
        agent.ask = None
        agent.state = "running"
        if code is not None:
            self.expect.failed.append((name, ask.call_id, code))
            self.expect.ask_failures.append((name, ask.call_id, ask.question_id, code))
        if ask.timeout is not None:
            self.stale.append((name, ask.call_id))
            if not by_timer:  # a timer that fired is gone already
                self.expect.cancelled.append((name, ask.call_id))
        return ask

    def give_answer(self, asker: str, answerer: str, content: str,
                    call_id: str | None = None) -> str:
        """TW-ROUTE-012, TW-ROUTE-010: an ANSWER becomes the tool result of the ask at once."""
        ask = self.agents[asker].ask
        assert ask is not None
        message_id = self.bind(ANSWER, answerer, asker, content, ask.correlation, ask.round,
                               question_id=ask.question_id, call_id=call_id)
        self.delivered(message_id)
        self.expect.resolved.append((asker, ask.call_id, answerer, ask.question_id, message_id))
        self.close_ask(asker, None)
        return message_id

    def reaches(self, start: str, goal: str) -> bool:
        """TW-ROUTE-016: can ``start`` reach ``goal`` through the wait-for edges?"""
        node: str | None = start
        seen: set[str] = set()
        while node is not None and node not in seen:
            if node == goal:
                return True
            seen.add(node)
            ask = self.agents[node].ask
            node = ask.target if ask is not None else None
        return False

    def correlation(self, asker: str, target: str) -> str:
        """TW-MSG-008: a sub-agent's TASK id; for the leader's ask, the target's TASK id."""
        task = self.agents[target if asker == LEADER else asker].task
        assert task is not None
        return task

    def ask_problem(self, asker: str, target: str, question_id: str) -> str | None:
        """The error code of an ask tool call, in the order of TW-TOOL-037, or None."""
        found = self.agents.get(target)
        if found is None:
            return "unknown-agent"
        if target == asker:
            return "invalid-arguments"  # TW-TOOL-030
        if found.state == "terminated":
            return "agent-terminated"
        if self.reaches(target, asker):
            return "wait-cycle"
        if question_id in self.messages:
            return "duplicate-id"  # TW-ID-014
        round_ = self.rounds[(asker, target, self.correlation(asker, target))] + 1
        if LEADER not in (asker, target) and round_ > self.limit:
            return "round-limit"  # TW-MSG-010: ask_other_agent only
        return None

    # ------------------------------------------------------------------ rules

    @initialize(limit=st.sampled_from([1, 2, 3]), unanswered=st.sampled_from(UNANSWERED_ASKS))
    def start(self, limit: int, unanswered: str) -> None:
        self.limit = limit
        self.unanswered_asks = unanswered
        self.core = RoutingCore(max_ask_rounds=limit, unanswered_asks=unanswered)

        def created() -> None:
            self.agents[LEADER] = Agent("team-leader")

        self.run(AgentCreated(LEADER, "team-leader"), created)
        self.run(TurnStarted(LEADER), lambda: self.begin_turn(LEADER))
        for name in SUBS[:2]:  # the third sub-agent comes later, if at all
            self.create(name)
        self.ready = True

    def begin_turn(self, name: str) -> None:
        agent = self.agents[name]
        agent.state = "running"
        agent.turns += 1
        agent.in_model_call = False

    @precondition(lambda self: self.can_call(LEADER) and len(self.agents) <= len(SUBS))
    @rule(data=st.data())
    def create_sub_agent(self, data: st.DataObject) -> None:
        self.create(data.draw(st.sampled_from([s for s in SUBS if s not in self.agents])))

    def create(self, name: str) -> None:
        """create_sub_agent: the agent (idle, TW-ROUTE-002), then its one TASK (TW-TYPE-014)."""

        def created() -> None:
            self.agents[name] = Agent(ROLES[name])

        actions = self.run(AgentCreated(name, ROLES[name]), created)
        assert all(isinstance(a, PersistAgent) for a in actions)
        call = self._call_id()
        event = MessageSent(LEADER, name, TASK, f"the task of {name}", call_id=call)

        def tasked() -> None:
            task = self.enqueue(TASK, LEADER, name, event.content, OWN_ID, 0, call)
            self.agents[name].task = task
            self.expect.acks.append((LEADER, call, task, name, "new_turn", False))
            self.acked[task] = (name, "new_turn")
            self.settle()

        self.remember_ack(event, self.run(event, tasked))

    def remember_ack(self, event: Event, actions: list[Action]) -> None:
        for a in actions:
            if isinstance(a, AcknowledgeSend) and not a.duplicate and a.call_id is not None:
                self.results[(a.agent, a.call_id)] = (event, a)

    def target(self, data: st.DataObject, caller: str, names: tuple[str, ...]) -> str:
        """Mostly an agent of ``names`` that exists and is not ``caller``; now and then any
        of them, for the error results of a wrong target."""
        fine = [n for n in names if n in self.agents and n != caller
                and self.agents[n].state != "terminated"]
        if not fine or data.draw(st.integers(0, 7)) == 0:
            return data.draw(st.sampled_from(names))
        return data.draw(st.sampled_from(fine))

    @precondition(lambda self: self.can_call(LEADER))
    @rule(data=st.data(), text=st.sampled_from(["use the blue palette", "go"]))
    def send_message(self, data: st.DataObject, text: str) -> None:
        """send_message_to_sub_agent: TW-ROUTE-007, TW-TOOL-011, TW-TOOL-012."""
        again = sorted(m for m, (receiver, _) in self.acked.items()
                       if receiver != LEADER and self.agents[receiver].state != "terminated")
        if again and data.draw(st.integers(0, 4)) == 0:
            self.send_again(data.draw(st.sampled_from(again)))
            return
        receiver = self.target(data, LEADER, SUBS)
        call = self._call_id()
        event = MessageSent(LEADER, receiver, MESSAGE, text, call_id=call)

        def update() -> None:
            agent = self.agents.get(receiver)
            if agent is None:
                self.expect.failed.append((LEADER, call, "unknown-agent"))
            elif agent.state == "terminated":
                self.expect.failed.append((LEADER, call, "agent-terminated"))
            else:
                delivery = DELIVERY[agent.state]
                sent = self.enqueue(MESSAGE, LEADER, receiver, text, agent.task, 0, call)
                self.expect.acks.append((LEADER, call, sent, receiver, delivery, False))
                self.acked[sent] = (receiver, delivery)
                self.settle()

        self.remember_ack(event, self.run(event, update))

    def send_again(self, message_id: str) -> None:
        """TW-DEL-004: the same message id enqueued again (a new call) changes nothing and is
        acknowledged as a duplicate with the first acknowledgment's delivery."""
        receiver, delivery = self.acked[message_id]
        call = self._call_id()
        event = MessageSent(LEADER, receiver, MESSAGE, "again", message_id=message_id,
                            call_id=call)
        self.run(event, lambda: self.expect.acks.append(
            (LEADER, call, message_id, receiver, delivery, True)))

    @precondition(lambda self: any(self.can_call(name) for name in self.agents))
    @rule(data=st.data())
    def ask(self, data: st.DataObject) -> None:
        asker = data.draw(st.sampled_from([n for n in self.agents if self.can_call(n)]))
        self.make_ask(data, asker, self.target(data, asker, (LEADER, *SUBS)))

    def asked_before(self) -> list[tuple[str, str]]:
        """(asker, target) sub-agents that may ask again where they asked before."""
        return sorted({(asker, target) for asker, target, _ in self.rounds
                       if asker != LEADER and target != LEADER and self.can_call(asker)
                       and self.agents[target].state != "terminated"})

    @precondition(lambda self: bool(self.asked_before()))
    @rule(data=st.data())
    def ask_again(self, data: st.DataObject) -> None:
        """Another round between the same two sub-agents, towards the round limit."""
        self.make_ask(data, *data.draw(st.sampled_from(self.asked_before())))

    def talking(self) -> list[tuple[str, str]]:
        """(asker, target) sub-agents that can ask and answer each other at once."""
        return [(a, b) for a in self.alive() for b in self.alive()
                if a != b and self.can_call(a) and self.agents[b].state != "waiting"]

    @precondition(lambda self: bool(self.talking()))
    @rule(data=st.data())
    def talk(self, data: st.DataObject) -> None:
        """One sub-agent asks another again and again, each question read and answered (by
        the answer tool, or a notification by the next output), until the round limit or
        something else stops it: TW-MSG-009, TW-MSG-010."""
        asker, target = data.draw(st.sampled_from(self.talking()))
        for _ in range(self.limit + 1):
            if not self.can_call(asker) or not self.make_ask(data, asker, target):
                return
            if not self.can_call(target):
                return
            self.read(target)
            ask = self.agents[asker].ask
            self.reply(target, "noted" if ask is not None and ask.by_output else "", False)
            ask = self.agents[asker].ask
            if ask is not None:
                self.give(target, asker, ask.question_id)

    def make_ask(self, data: st.DataObject, asker: str, target: str) -> bool:
        """ask_master, ask_sub_agent, ask_other_agent: TW-ROUTE-016, TW-MSG-009, TW-MSG-010,
        TW-TOOL-037; an accepted ask makes its caller wait. True if it was accepted."""
        notification = asker != LEADER and target != LEADER and data.draw(st.booleans())
        question_id = self._question_id(notification)
        if self.messages and data.draw(st.integers(0, 9)) == 0:
            question_id = data.draw(st.sampled_from(sorted(self.messages)))  # a used id
        timeout = data.draw(st.sampled_from(ASK_TIMEOUTS))
        call = self._call_id()
        event = ToolCallBlocked(asker, call, target, question_id, "a question?", timeout,
                                float(self.now))

        def update() -> None:
            problem = self.ask_problem(asker, target, question_id)
            if problem is not None:
                self.expect.failed.append((asker, call, problem))
                return
            correlation = self.correlation(asker, target)
            round_ = self.rounds[(asker, target, correlation)] + 1
            kind = MESSAGE if notification and question_id.startswith("msg_") else ASK
            message_id = self.bind(kind, asker, target, event.content, correlation, round_,
                                   call_id=call)
            assert message_id == question_id
            self.agents[target].queue.append(question_id)
            self.rounds[(asker, target, correlation)] += 1
            self.questions[question_id] = (asker, target)
            agent = self.agents[asker]
            agent.state = "waiting"
            agent.ask = Ask(call, target, question_id, asker == LEADER or kind is MESSAGE,
                            timeout, None if timeout is None else self.now + timeout, round_,
                            correlation)
            self.ask_events[(asker, call)] = event
            if timeout is not None:
                self.expect.started.append((asker, call, float(timeout)))
            self.settle()

        self.run(event, update)
        return self.agents[asker].ask is not None

    def open_asks(self, by_output: bool) -> list[tuple[str, str, str]]:
        """(answerer, asker, question id) of the open asks whose answerer can act now: those
        an answer tool resolves, or those the answerer's next output resolves."""
        return sorted((a.ask.target, name, a.ask.question_id) for name, a in self.agents.items()
                      if a.ask is not None and self.can_call(a.ask.target)
                      and (a.ask.by_output if by_output else name != LEADER))

    def read(self, name: str) -> None:
        """A model call of ``name``: what is queued, the question too, reaches it."""
        def update() -> None:
            self.agents[name].in_model_call = True
            if self.agents[name].queue:
                self.drain(name, "inline")

        self.run(ModelCallStarted(name), update)

    @precondition(lambda self: any(self.can_call(n) for n in self.agents)
                  and len(self.agents) > 1)
    @rule(data=st.data())
    def answer(self, data: st.DataObject) -> None:
        """An answer tool call: mostly for an open ask (the answerer reads the question first,
        if it has not yet); else for any question the caller was asked, or any other at all,
        mostly wrong (not-waiting, unknown-question, agent-terminated)."""
        pending = self.open_asks(by_output=False)
        if pending and data.draw(st.integers(0, 3)) > 0:
            answerer, asker, question_id = data.draw(st.sampled_from(pending))
            if question_id not in self.received:
                self.read(answerer)
                self.reply(answerer, "let me answer that", final=False)
            self.give(answerer, asker, question_id)
            return
        sender = data.draw(st.sampled_from([n for n in self.agents if self.can_call(n)]))
        proper = sorted((asker, q) for q, (asker, answerer) in self.questions.items()
                        if answerer == sender and asker != LEADER)
        askers = [s for s in SUBS if s in self.agents and s != sender]
        if proper and (not askers or data.draw(st.booleans())):
            receiver, question_id = data.draw(st.sampled_from(proper))
        elif askers:
            receiver = data.draw(st.sampled_from(askers))
            question_id = data.draw(st.sampled_from(sorted(self.questions) or ["ask_none"]))
        else:
            return
        self.give(sender, receiver, question_id)

    def give(self, sender: str, receiver: str, question_id: str) -> None:
        """answer_sub_agent_question, answer_other_agent: TW-ROUTE-012, TW-ROUTE-013,
        TW-ROUTE-015, TW-TOOL-031. The asker is a sub-agent: no answer tool names the leader."""
        call = self._call_id()
        event = AnswerGiven(sender, receiver, question_id, "the answer", call)

        def update() -> None:
            asker = self.agents[receiver]
            if asker.state == "terminated":
                self.expect.failed.append((sender, call, "agent-terminated"))
            elif self.questions.get(question_id) != (receiver, sender) \
                    or question_id not in self.received:
                self.expect.failed.append((sender, call, "unknown-question"))
            elif asker.ask is None or asker.ask.question_id != question_id:
                self.expect.failed.append((sender, call, "not-waiting"))
            else:
                answer = self.give_answer(receiver, sender, event.content, call)
                self.expect.acks.append((sender, call, answer, receiver, "tool_result", False))
                self.acked[answer] = (receiver, "tool_result")
                self.settle()

        self.remember_ack(event, self.run(event, update))

    @precondition(lambda self: any(self.can_call(n) for n in self.agents))
    @rule(data=st.data(), reply=st.booleans())
    def model_call(self, data: st.DataObject, reply: bool) -> None:
        """TW-ROUTE-008: before a model call, the queue in order, as user messages. The reply
        comes at once, or later (other agents act while the model thinks)."""
        asked = sorted({answerer for answerer, _, _ in self.open_asks(by_output=True)})
        if asked and coin(data):  # an agent whose next output is an answer
            name = data.draw(st.sampled_from(asked))
        else:
            name = data.draw(st.sampled_from([n for n in self.agents if self.can_call(n)]))
        self.read(name)
        if reply:
            final = data.draw(st.booleans())
            self.reply(name, data.draw(st.sampled_from(TEXTS)), final)
            if not final:  # a tool that routes nothing (read_file, list_agents): no action
                assert self.run(ToolCallReturned(name, self._call_id()), lambda: None) == []

    @precondition(lambda self: any(a.in_model_call for a in self.agents.values()))
    @rule(data=st.data(), text=st.sampled_from(TEXTS), final=st.booleans())
    def output(self, data: st.DataObject, text: str, final: bool) -> None:
        name = data.draw(st.sampled_from([n for n, a in self.agents.items() if a.in_model_call]))
        self.reply(name, text, final)

    def reply(self, name: str, text: str, final: bool) -> None:
        """TW-TYPE-016 to TW-TYPE-018, TW-TYPE-021, TW-ROUTE-014."""

        def update() -> None:
            agent = self.agents[name]
            agent.in_model_call = False
            if final:
                agent.state = "closing"
            if name == LEADER:
                return  # the leader's output is not routed
            if not text.strip():
                if final:
                    self.enqueue(COMPLETION, name, LEADER, "", agent.task, 1)
            else:
                askers = [n for n, a in self.agents.items() if a.ask is not None
                          and a.ask.target == name and a.ask.by_output and a.ask.delivered]
                for asker in askers:
                    self.give_answer(asker, name, text)
                if not askers:
                    self.enqueue(COMPLETION if final else PROGRESS, name, LEADER, text,
                                 agent.task, 1)
            self.settle()

        self.run(OutputEmitted(name, text, final), update)

    @precondition(lambda self: any(a.state in ("idle", "completed")
                                   for a in self.agents.values()))
    @rule(data=st.data())
    def outside_input(self, data: st.DataObject) -> None:
        """Input from outside the protocol (the user) starts a turn."""
        name = data.draw(st.sampled_from([n for n, a in self.agents.items()
                                          if a.state in ("idle", "completed")]))
        self.run(TurnStarted(name), lambda: self.begin_turn(name))

    @precondition(lambda self: any(a.state == "closing" for a in self.agents.values()))
    @rule(data=st.data())
    def end_turn(self, data: st.DataObject) -> None:
        """The turn ends; TW-ROUTE-011: with a queue, the next one starts at once."""
        name = data.draw(st.sampled_from([n for n, a in self.agents.items()
                                          if a.state == "closing"]))

        def update() -> None:
            self.agents[name].state = "completed"
            self.unanswered(name)
            self.settle()

        self.run(TurnEnded(name), update)

    def unanswered(self, name: str) -> None:
        """TW-ROUTE-030: with unanswered_asks fail, the asks ``name`` had received and not
        answered end with its turn; with wait (spec 1.0) they stay open."""
        if self.unanswered_asks != "fail":
            return
        for asker, agent in self.agents.items():
            if agent.ask is not None and agent.ask.target == name and agent.ask.delivered:
                self.close_ask(asker, "unanswered")

    def in_turn(self) -> list[str]:
        return [n for n, a in self.agents.items() if a.state in ("running", "closing", "waiting")]

    def alive(self) -> list[str]:
        return [n for n in SUBS if n in self.agents and self.agents[n].state != "terminated"]

    # one rule for both: they end what other rules build up, so they come less often; one
    # sub-agent always stays, as a session whose sub-agents are all gone tests little
    @precondition(lambda self: bool(self.in_turn()) or len(self.alive()) > 1)
    @rule(data=st.data(), reason=st.sampled_from(["timeout", "error", "terminate"]))
    def trouble(self, data: st.DataObject, reason: str) -> None:
        """A turn fails (model error, turn timeout), or a sub-agent is terminated."""
        if reason == "terminate" and len(self.alive()) > 1:
            queued = [n for n in self.alive() if self.agents[n].queue]
            if queued and coin(data):  # one whose queue is then discarded
                self.terminate(data.draw(st.sampled_from(queued)))
            else:
                self.terminate(data.draw(st.sampled_from(self.alive())))
        elif self.in_turn():
            self.fail_turn(data.draw(st.sampled_from(self.in_turn())),
                           "error" if reason == "error" else "timeout")

    def fail_turn(self, name: str, reason: str) -> None:
        """TW-ROUTE-018, TW-ROUTE-019, TW-ROUTE-025."""

        def update() -> None:
            agent = self.agents[name]
            agent.in_model_call = False
            if agent.ask is not None:
                self.close_ask(name, "timeout")
            agent.state = "completed"
            if name != LEADER:  # a run result with state timeout or error (TW-RES)
                head = f'<result agent="{name}" state="{reason}">'
                self.enqueue(COMPLETION, name, LEADER, lambda text: text.startswith(head),
                             agent.task, 1)
            self.unanswered(name)
            self.settle()

        self.run(TurnFailed(name, reason, "the model failed"), update)

    def terminate(self, name: str) -> None:
        """TW-ROUTE-020, TW-ROUTE-021, TW-ROUTE-024."""

        def update() -> None:
            agent = self.agents[name]
            if agent.queue:
                ids = tuple(agent.queue)
                agent.queue.clear()
                for message_id in ids:
                    self.status[message_id] = "discarded"
                    self.log.append((message_id, "discarded"))
                self.expect.discarded[name] = ids
            if agent.ask is not None:  # cancelled: no result, its message is still delivered
                ask = agent.ask
                agent.ask = None
                if ask.timeout is not None:
                    self.expect.cancelled.append((name, ask.call_id))
                    self.stale.append((name, ask.call_id))
            agent.state = "terminated"
            agent.in_model_call = False
            for other, waiting in self.agents.items():
                if waiting.ask is not None and waiting.ask.target == name:
                    self.close_ask(other, "agent-terminated")
            self.settle()

        self.run(AgentTerminated(name), update)

    @rule(seconds=st.sampled_from(TICKS))
    def time_passes(self, seconds: int) -> None:
        """The clock moves on; a timer due by then fires (the earliest first, at its time)."""
        self._until_next_timer(seconds)
        due = [key for key, when in self.timers.items() if when == self.now]
        if due:
            self.fire_timer(min(due))

    def fire_timer(self, key: tuple[str, str]) -> None:
        """TW-ROUTE-017: a timer fires at its due time and fails its ask with timeout."""
        name, call = key
        del self.timers[key]  # the host's timer ran

        def update() -> None:
            self.close_ask(name, "timeout", by_timer=True)
            self.settle()

        self.run(TimerFired(name, call), update)

    @precondition(lambda self: bool(self.stale))
    @rule(data=st.data())
    def fire_stale_timer(self, data: st.DataObject) -> None:
        """A timer of an ask that is over (answered, failed, cancelled) fires late: nothing."""
        name, call = data.draw(st.sampled_from(self.stale))
        if self.agents[name].ask is not None:
            hypothesis.event("a stale timer fired while a newer ask was open")
        assert self.run(TimerFired(name, call), lambda: None) == []

    def _until_next_timer(self, seconds: int) -> None:
        """Move the clock, but not past a due timer: the host fires timers when due."""
        due = min(self.timers.values(), default=float("inf"))
        self.now = int(min(self.now + seconds, due))

    @precondition(lambda self: any(self.can_call(agent) for agent, _ in self.results))
    @rule(data=st.data())
    def execute_again(self, data: st.DataObject) -> None:
        """TW-DUR-003: a tool call executed again returns its stored result, changes nothing."""
        key = data.draw(st.sampled_from(sorted(k for k in self.results if self.can_call(k[0]))))
        event, result = self.results[key]

        def update() -> None:
            self.expect = _observed([result])

        assert self.run(event, update, replay=True) == [result]

    @rule(source=st.sampled_from(["memory", "sqlite"]), downtime=st.sampled_from(DOWNTIMES))
    def crash(self, source: str, downtime: int) -> None:
        """The router dies; the SQLite file is reopened; a new core restarts from one store.

        TW-DUR-004, TW-DUR-005: states, queues, open asks (timers re-armed for the time they
        have left), questions, results and ids come back; nothing is started or persisted.
        """
        self._until_next_timer(downtime)
        self.sqlite.close()
        self.sqlite = SQLiteStore(self.directory / "router.db", synchronous="normal")
        snapshots = {"memory": self.memory.load(), "sqlite": self.sqlite.load()}
        self.timers.clear()  # the process and its timers are gone
        self.core = RoutingCore(max_ask_rounds=self.limit, unanswered_asks=self.unanswered_asks)
        actions = self.core.handle(Restarted(snapshots[source], now=float(self.now)))
        self._commit(actions)
        twin = RoutingCore(max_ask_rounds=self.limit, unanswered_asks=self.unanswered_asks)
        other = snapshots["sqlite" if source == "memory" else "memory"]
        twin_actions = twin.handle(Restarted(other, now=float(self.now)))
        assert Counter(map(repr, twin_actions)) == Counter(map(repr, actions))
        assert _comparable(twin.snapshot()) == _comparable(self.core.snapshot())
        for a in self.agents.values():
            if a.ask is not None and a.ask.deadline is not None:
                passed = a.ask.deadline - self.now < (a.ask.timeout or 0)
                hypothesis.event("restart re-armed an ask with time left" if passed
                                 else "restart re-armed an ask, no time passed")
        expected = sorted((name, a.ask.call_id, float(a.ask.deadline - self.now))
                          for name, a in self.agents.items()
                          if a.ask is not None and a.ask.deadline is not None)
        assert sorted((a.agent, a.call_id, a.seconds) for a in actions
                      if isinstance(a, StartTimer)) == expected
        # nothing else but records written again as they were (the core re-checks, and so
        # rewrites, every agent with a queue)
        stored = {r.name: r for r in snapshots[source].agents}
        for action in actions:
            if not isinstance(action, StartTimer):
                assert isinstance(action, PersistAgent), action
                assert action.record == stored[action.record.name], action
        for agent in self.agents.values():
            agent.in_model_call = False  # the model call in progress is repeated (TW-DUR-005)

    # ------------------------------------------------------------------ invariants

    @invariant()
    def core_agrees_with_the_model(self) -> None:
        if not self.ready:
            return
        assert [r.name for r in self.core.records()] == list(self.agents)  # creation order
        for name, agent in self.agents.items():
            record = self.core.record(name)
            assert record.state is STATES[agent.state], name
            assert [m.id for m in self.core.pending(name)] == agent.queue, name
            assert record.turns == agent.turns and record.task_id == agent.task, name
            ask = record.ask
            if agent.ask is None:
                assert ask is None, name
            else:
                assert ask is not None, name
                mine = agent.ask
                assert (ask.call_id, ask.target, ask.question_id, ask.timeout, ask.deadline,
                        ask.delivered, ask.round, ask.correlation_id) == \
                    (mine.call_id, mine.target, mine.question_id, mine.timeout,
                     None if mine.deadline is None else float(mine.deadline), mine.delivered,
                     mine.round, mine.correlation), name
                assert ask.answered_by_output == mine.by_output
            # round counts per (asker, target, task): the core keeps the current task's
            rounds = {(target, correlation, count) for (asker, target, correlation), count
                      in self.rounds.items() if asker == name}
            assert set(record.rounds) == rounds, name
            if agent.state in ("idle", "completed"):
                assert agent.queue == [], f"{name} rests with a queue (TW-ROUTE-009)"

    @invariant()
    def timers_are_due_when_their_asks_time_out(self) -> None:
        if not self.ready:
            return
        asks = {(name, a.ask.call_id): float(a.ask.deadline) for name, a in self.agents.items()
                if a.ask is not None and a.ask.deadline is not None}
        assert self.timers == asks

    @invariant()
    def stores_and_core_agree(self) -> None:
        if not self.ready:
            return
        memory, sqlite = self.memory.load(), self.sqlite.load()
        assert _comparable(memory) == _comparable(sqlite)
        assert _comparable(self.core.snapshot()) == _comparable(memory)
        memory_history = [(h.message_id, h.status) for h in self.memory.history()]
        sqlite_history = [(h.message_id, h.status) for h in self.sqlite.history()]
        assert memory_history == sqlite_history
        names = {"delivered": MessageStatus.DELIVERED, "discarded": MessageStatus.DISCARDED}
        model = [(m, names[status]) for m, status in self.log]
        assert Counter(sqlite_history) == Counter(model)
        for receiver in self.agents:  # each receiver's messages left in the model's order
            mine = [entry for entry in model if self.messages[entry[0]][2] == receiver]
            theirs = [entry for entry in sqlite_history if self.messages[entry[0]][2] == receiver]
            assert mine == theirs, receiver

    @invariant()
    def nothing_lost_duplicated_or_unexpected(self) -> None:
        if not self.ready:
            return
        delivered = Counter(m for _, m in self.seen_delivered)
        discarded = Counter(m for _, m in self.seen_discarded)
        pending = Counter(m.id for name in self.agents for m in self.core.pending(name))
        accepted = set(self.messages)
        unexpected = (set(delivered) | set(discarded) | set(pending)) - accepted
        duplicated = {m for m in accepted if delivered[m] + discarded[m] + pending[m] > 1}
        lost = {m for m in accepted if delivered[m] + discarded[m] + pending[m] == 0}
        assert (unexpected, duplicated, lost) == (set(), set(), set())
        for receiver, message_id in [*self.seen_delivered, *self.seen_discarded]:
            assert self.messages[message_id][2] == receiver, message_id
        for receiver, _ in self.seen_discarded:
            assert self.agents[receiver].state == "terminated"  # TW-DEL-001


RestartModel.TestCase.settings = settings(stateful_step_count=30)
TestRestartModel = RestartModel.TestCase


# -- two restarts the model above found worth a test of their own ---------------------------


def _both_stores(tmp_path: Path) -> dict[str, Store]:
    return {"memory": MemoryStore(),
            "sqlite": SQLiteStore(tmp_path / "router.db", synchronous="normal")}


def test_a_discarded_queue_stays_discarded_after_a_restart(tmp_path: Path) -> None:
    """TW-ROUTE-020, TW-DEL-001, TW-DUR-004: the messages queued for a terminated sub-agent are
    recorded as dropped by both stores alike, and a restart from either store does not give
    them back to it."""
    stores = _both_stores(tmp_path)
    core = RoutingCore()
    events: list[Event] = [
        AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
        AgentCreated(UIO, "ui-operator"), AgentCreated(FSE, "full-stack-engineer"),
        MessageSent(LEADER, UIO, TASK, "design", call_id="c1"),
        MessageSent(LEADER, FSE, TASK, "api", call_id="c2"),
        ToolCallBlocked(UIO, "u1", LEADER, "ask_uio_001", "colours?"),  # UI Operator_1 waits
        MessageSent(LEADER, UIO, MESSAGE, "queued one", call_id="c3"),
        ToolCallBlocked(FSE, "f1", UIO, "ask_fse_001", "fields?"),
        AgentTerminated(UIO)]
    for step in events:
        actions = core.handle(step)
        for store in stores.values():
            store.apply(actions)
    dropped = [("msg_tl_001", MessageStatus.DISCARDED), ("ask_fse_001", MessageStatus.DISCARDED)]
    for name, store in stores.items():
        history = [(h.message_id, h.status) for h in store.history()]
        assert history[-2:] == dropped, name
        restarted = RoutingCore()
        restarted.handle(Restarted(store.load()))
        assert restarted.pending(UIO) == (), name
        assert restarted.state(UIO) is AgentState.TERMINATED, name
        assert _comparable(restarted.snapshot()) == _comparable(core.snapshot()), name
    stores["sqlite"].close()


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_restart_keeps_the_creation_order(kind: str, tmp_path: Path) -> None:
    """TW-TOOL-015, TW-TOOL-029 after a restart (TW-DUR-004): agents stay in creation order,
    whatever order their records were last written in."""
    store = _both_stores(tmp_path)[kind]
    core = RoutingCore()
    for step in (AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
                 AgentCreated(UIO, "ui-operator"), AgentCreated(FSE, "full-stack-engineer"),
                 MessageSent(LEADER, FSE, TASK, "api", call_id="c1"),
                 MessageSent(LEADER, UIO, TASK, "design", call_id="c2")):
        store.apply(core.handle(step))
    restarted = RoutingCore()
    restarted.handle(Restarted(store.load()))
    store.close()
    assert [r.name for r in restarted.records()] == [LEADER, UIO, FSE]
    with pytest.raises(TargetError) as ambiguous:
        restarted.resolve_target(1)
    assert [c[2] for c in ambiguous.value.candidates] == [UIO, FSE]
