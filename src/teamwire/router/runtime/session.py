"""The asyncio runtime: a session that hosts agents around the routing core.

The session owns the conversations, executes the protocol tools, enforces ask
and turn timeouts on its clock, commits every event's store actions before it
acts on them, and records a session bundle and an event log. Its parts, one
job each: ``journal`` (staging and the commit that makes it durable, or the
rollback), ``turns`` (the turn runner), ``asks`` (blocked ask calls and their
timers) and ``tools`` (the protocol tools, which see the session through
``ToolHost``).

Durability: every conversation entry is stored too (``AppendConversation``),
in the transaction of the routing it belongs to. A delivery's consumption
commits with the user messages it appends (TW-DUR-002); a tool call's events
commit with its tool result, so after a crash a tool call either has its
result and its effects or neither; an ask's result commits with the answer
that resolves it. ``Session.resume`` reopens a session from its store after a
restart (TW-DUR-004, TW-DUR-005).

A commit that the store refuses changes nothing: the core, the conversations,
the event log and the catalog go back to where the last commit left them, so
they never run ahead of the store (TW-DUR-007). A tool call whose commit
failed returns an error result instead (code ``store-failed``); any other
failed commit, or a second failure in a row, stops the session, and
``run_until_idle`` raises ``StoreFailure``. ``Session.resume`` continues from
the store.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from teamwire.envelope import LEADER_NAME, LEADER_ROLE_ID, MessageType
from teamwire.router.actions import (
    AcknowledgeSend,
    Action,
    AppendInline,
    CancelTimer,
    FailToolCall,
    ResolveToolCall,
    StartTimer,
    StartTurn,
)
from teamwire.router.core import DEFAULT_MAX_ASK_ROUNDS, UNANSWERED_ASKS, RoutingCore
from teamwire.router.errors import StoreFailure
from teamwire.router.events import (
    AgentCreated,
    AgentTerminated,
    AnswerGiven,
    Event,
    MessageSent,
    Restarted,
    TimerFired,
    ToolCallBlocked,
    TurnStarted,
)
from teamwire.router.runtime.asks import Asks
from teamwire.router.runtime.bundle import session_bundle, write_session
from teamwire.router.runtime.clock import Clock, RealClock
from teamwire.router.runtime.driver import AgentDriver, Reply
from teamwire.router.runtime.host import SendOutcome
from teamwire.router.runtime.journal import Journal, Restore
from teamwire.router.runtime.resume import load_session
from teamwire.router.runtime.roles import DEFAULT_ROLES, LEADER_PROMPT, RoleInfo, role_problem
from teamwire.router.runtime.tool_results import error_result
from teamwire.router.runtime.tools import ToolRunner
from teamwire.router.runtime.turns import ACTIVE, DEFAULT_TURN_TIMEOUT, TurnRunner
from teamwire.router.states import AgentState
from teamwire.router.store.base import Store
from teamwire.router.store.memory import MemoryStore

DriverFactory = Callable[[str, str], AgentDriver]
"""Makes the driver of a new sub-agent from its display name and role id."""

Listener = Callable[[str, dict[str, Any]], None]
"""Told about deliveries (``"deliver"``), failed tool calls (``"tool-error"``) and turns
ended by a model error or the turn timeout (``"turn-failed"``: ``agent``, ``state``,
``problem``). A failed turn of the Team Leader reaches no agent, only this (TW-ROUTE-026)."""

DEFAULT_ASK_TIMEOUT = 300.0
"""Seconds (the setting ``ask_timeout``, TW-ROUTE-017): half the default turn timeout, so that a
sub-agent that asks early in its turn gets the ``timeout`` result with time left to go on; equal
to the turn timeout, it could never fire for a sub-agent, whose turn started before its ask."""


class Session:
    """One multi-agent session: the Team Leader and its sub-agents, routed by a RoutingCore.

    ``leader`` drives the Team Leader; ``drivers`` makes a driver for each
    sub-agent the leader creates. With a ``VirtualClock`` nothing ever
    sleeps: ``run_until_idle`` jumps time forward whenever every agent waits.
    Every role of ``roles`` must have a valid role id and role name
    (``ValueError`` otherwise, TW-SEC-006); ``max_ask_rounds`` is an integer of
    at least 1 (TW-MSG-011); ``ask_timeout`` a positive finite number (TW-ROUTE-032);
    ``unanswered_asks`` is ``wait`` (spec 1.0's behaviour, the default) or ``fail`` (an ask
    its answerer's turn left unanswered fails, TW-ROUTE-030).
    """

    def __init__(self, *, leader: AgentDriver, drivers: DriverFactory,
                 store: Store | None = None, clock: Clock | None = None,
                 roles: Iterable[RoleInfo] = DEFAULT_ROLES,
                 ask_timeout: float = DEFAULT_ASK_TIMEOUT,
                 max_ask_rounds: int = DEFAULT_MAX_ASK_ROUNDS,
                 session_id: str | None = None, listener: Listener | None = None,
                 turn_timeout: float = DEFAULT_TURN_TIMEOUT,
                 unanswered_asks: str = UNANSWERED_ASKS[0]) -> None:
        if not 0 < ask_timeout < math.inf:
            raise ValueError(f"the ask timeout must be a positive finite number of seconds "
                             f"(TW-ROUTE-032), not {ask_timeout!r}")
        if not 0 < turn_timeout < math.inf:
            raise ValueError(f"the turn timeout must be a positive finite number of seconds "
                             f"(TW-ROUTE-032), not {turn_timeout!r}")
        self.core = RoutingCore(max_ask_rounds=max_ask_rounds, unanswered_asks=unanswered_asks)
        roles = tuple(roles)
        for role in roles:
            problem = role_problem(role.role_id, role.name)
            if problem is not None:
                raise ValueError(problem)
        self.store: Store = store if store is not None else MemoryStore()
        self.clock: Clock = clock if clock is not None else RealClock()
        self.roles: dict[str, RoleInfo] = {r.role_id: r for r in roles}
        self.ask_timeout = ask_timeout
        self.session_id = session_id
        self.listener = listener
        self.turn_timeouts: dict[str, float] = {}
        self.default_turn_timeout = turn_timeout
        """The turn timeout of a sub-agent created without timeout_seconds."""
        self.last_output: dict[str, str] = {}
        self.failure: StoreFailure | None = None
        """Why the session stopped, if a commit failed where no tool call could report it."""
        self._custom_roles: list[RoleInfo] = []
        self._drivers: dict[str, AgentDriver] = {LEADER_NAME: leader}
        self._factory = drivers
        self.asks = Asks(self.clock)
        self.journal = Journal(self.core, self.store, self.clock, place=self._place,
                               perform=self._perform, save=self._save)
        self.tools = ToolRunner(self)
        self.turns = TurnRunner(self)
        self.journal.remark()

    # ------------------------------------------------------------- lifecycle

    async def start(self, request: str) -> None:
        """Create the Team Leader (once) and start its turn with the user's ``request``."""
        journal = self.journal
        if self.core.state(LEADER_NAME) is AgentState.ABSENT:
            journal.stage(AgentCreated(LEADER_NAME, LEADER_ROLE_ID))
            journal.conversations[LEADER_NAME] = []
            journal.append(LEADER_NAME, {"role": "system", "content": LEADER_PROMPT})
            if self.session_id is not None:
                journal.set_setting("session", self.session_id)
        journal.append(LEADER_NAME, {"role": "user", "content": request})
        journal.stage(TurnStarted(LEADER_NAME))
        journal.commit()
        self.turns.spawn(LEADER_NAME)

    @classmethod
    async def resume(cls, store: Store, *, leader: AgentDriver, drivers: DriverFactory,
                     clock: Clock | None = None, roles: Iterable[RoleInfo] = DEFAULT_ROLES,
                     ask_timeout: float = DEFAULT_ASK_TIMEOUT,
                     max_ask_rounds: int = DEFAULT_MAX_ASK_ROUNDS,
                     listener: Listener | None = None,
                     turn_timeout: float = DEFAULT_TURN_TIMEOUT,
                     unanswered_asks: str = UNANSWERED_ASKS[0]) -> Session:
        """Reopen the session kept in ``store`` after a restart and set it running again.

        Restores every agent's state, conversation, queue and open ask (with the
        time its deadline leaves), the roles created during the session and the
        turn timeouts (TW-DUR-004); then, as TW-DUR-005 says, an idle or
        completed agent with pending messages starts a turn, a waiting agent
        keeps waiting, a running agent finishes the tool calls of its last
        reply that have no result yet and repeats its model call (after the
        batch drain), and an agent whose last reply ended its turn ends it.
        ``drivers`` is asked again for the driver of every sub-agent.
        """
        saved = load_session(store)
        session = cls(leader=leader, drivers=drivers, store=store, clock=clock,
                      roles=[*roles, *saved.custom_roles], ask_timeout=ask_timeout,
                      max_ask_rounds=max_ask_rounds, session_id=saved.session_id,
                      listener=listener, turn_timeout=turn_timeout,
                      unanswered_asks=unanswered_asks)
        session._custom_roles = list(saved.custom_roles)
        session.clock.skip_to(saved.time)
        session.turn_timeouts = dict(saved.turn_timeouts)
        session.journal.conversations = saved.conversations
        session.last_output = saved.last_output
        for record in saved.snapshot.agents:
            saved.conversations.setdefault(record.name, [])
            if not record.is_leader:
                session._drivers[record.name] = drivers(record.name, record.role_id)
            ask = record.ask
            if record.state is AgentState.WAITING and ask is not None:
                session.asks.register(record.name, ask.call_id)  # before anything can answer
        session.journal.remark()
        actions = session.journal.stage(Restarted(saved.snapshot, now=session.clock.now()))
        started = {a.agent for a in actions if isinstance(a, StartTurn)}
        session.journal.commit()
        now = session.clock.now()
        for record in session.core.records():
            if record.state in ACTIVE and record.name not in started:
                left = saved.turn_deadlines.get(record.name)
                session.turns.spawn(record.name, resume=True,
                                    limit=None if left is None else max(0.0, left - now))
        return session

    async def run_until_idle(self) -> None:
        """Run until every agent is idle, completed or waits with no timer left to fire."""
        while True:
            await self.clock.activity.wait_idle()
            if self.failure is not None:
                raise self.failure
            if not self.clock.advance():
                return
            await asyncio.sleep(0)

    async def stop(self) -> None:
        """Abandon every turn in progress (as a crash would; nothing more is committed)."""
        await self.turns.stop()
        self.asks.cancel_timers()
        self.turns.cancel_timers()
        self.journal.discard()

    # --------------------------------------------------------------- records

    @property
    def conversations(self) -> dict[str, list[dict[str, Any]]]:
        """Every agent's conversation in chat-completions form."""
        return self.journal.conversations

    @property
    def events(self) -> list[dict[str, Any]]:
        """The event log: every event handed to the core, with its actions."""
        return self.journal.events

    def bundle(self) -> dict[str, Any]:
        """The session bundle: every agent's conversation in chat-completions form."""
        return session_bundle(self.core.records(), self.conversations, self.session_id)

    def write(self, directory: str | Path) -> tuple[Path, Path]:
        """Write ``bundle.json`` and ``events.jsonl`` into ``directory``; return their paths."""
        return write_session(directory, self.bundle(), self.events)

    # --------------------------------------------------------------- routing

    def feed(self, event: Event) -> list[Action]:
        """Hand ``event`` to the core and commit at once (``stage`` + ``commit``)."""
        actions = self.stage(event)
        self.commit()
        return actions

    def stage(self, event: Event) -> list[Action]:
        """Hand ``event`` to the core; its deliveries join the conversations, uncommitted.

        Nothing is acted on until ``commit``: so the events of one tool call
        and its result are durable together or not at all.
        """
        return self.journal.stage(event)

    def commit(self) -> None:
        """Commit what was staged in one transaction, then perform its effects.

        If the store raises, everything since the last commit is undone and
        ``StoreFailure`` is raised (TW-DUR-007).
        """
        self.journal.commit()

    def set_setting(self, key: str, value: Any) -> None:
        """Keep a setting of this session with the next commit."""
        self.journal.set_setting(key, value)

    # ------------------------------------------------------ the tools' host

    def create_agent(self, name: str, role_id: str, turn_timeout: float | None) -> None:
        """Register a sub-agent (and its turn timeout, if given) before its TASK is sent."""
        self.add_sub_agent(name, role_id)
        if turn_timeout is not None:
            self.set_turn_timeout(name, turn_timeout)

    def add_sub_agent(self, name: str, role_id: str) -> None:
        """Register a sub-agent (create_sub_agent does this before sending its TASK)."""
        self.journal.stage(AgentCreated(name, role_id))
        role = self.roles[role_id]
        self.journal.conversations[name] = []
        self.journal.append(name, {"role": "system", "content": role.prompt})
        self._drivers[name] = self._factory(name, role_id)

    def add_role(self, role: RoleInfo) -> None:
        """Add a role to the catalog (create_custom_agent); kept with the next commit."""
        self.roles[role.role_id] = role
        self._custom_roles.append(role)
        self.journal.set_setting("roles", [r.to_record() for r in self._custom_roles])

    def set_turn_timeout(self, name: str, seconds: float) -> None:
        """The turn timeout of sub-agent ``name`` (create_sub_agent's timeout_seconds)."""
        self.turn_timeouts[name] = seconds
        self.journal.set_setting("turn_timeouts", dict(self.turn_timeouts))

    def send(self, sender: str, call_id: str, receiver: str, kind: MessageType,
             content: str) -> SendOutcome:
        """Route a Task or a Message of tool call ``call_id`` (staged)."""
        actions = self.stage(MessageSent(sender, receiver, kind, content, call_id=call_id))
        return _outcome(actions, sender, call_id)

    def answer(self, sender: str, call_id: str, asker: str, question_id: str,
               content: str) -> SendOutcome:
        """Route an answer to the ask ``question_id`` of ``asker`` (staged)."""
        actions = self.stage(AnswerGiven(sender, asker, question_id, content, call_id=call_id))
        return _outcome(actions, sender, call_id)

    async def ask(self, agent: str, call_id: str, target: str, question_id: str,
                  content: str) -> str:
        """Route an ask and wait for its result's tool-message text (see ``ToolHost.ask``)."""
        self.asks.register(agent, call_id)
        # committed before the caller blocks: the ask is acknowledged by waiting
        try:
            self.feed(ToolCallBlocked(agent, call_id, target, question_id, content,
                                      timeout=self.ask_timeout, now=self.clock.now()))
        except StoreFailure:
            self.asks.forget(agent, call_id)
            raise
        return await self.asks.wait(agent, call_id)

    def terminate(self, name: str) -> list[Action]:
        """Terminate a sub-agent: route the termination (staged); its turn stops on commit."""
        actions = self.stage(AgentTerminated(name))
        self.journal.defer(lambda: self.turns.abandon(name))
        return actions

    # ------------------------------------------------------ the turns' host

    def driver(self, agent: str) -> AgentDriver:
        """The driver of ``agent``."""
        return self._drivers[agent]

    def notify(self, kind: str, data: dict[str, Any]) -> None:
        """Tell the listener, if there is one."""
        if self.listener is not None:
            self.listener(kind, data)

    def fail(self, failure: StoreFailure) -> None:
        """Stop the session after a commit that no tool call could report (see the module)."""
        if self.failure is None:
            self.failure = failure
        self.turns.cancel_others()
        self.asks.cancel_timers()
        self.turns.cancel_timers()

    # --------------------------------------------- what the tests look into

    @property
    def _tasks(self) -> dict[str, asyncio.Task[None]]:
        return self.turns.tasks

    @property
    def _waiters(self) -> dict[tuple[str, str], asyncio.Future[str]]:
        return self.asks.waiters

    # ------------------------------------------------------------ internals

    def _place(self, actions: list[Action]) -> None:
        """Put what ``actions`` deliver into the conversations (staged with them)."""
        journal = self.journal
        for action in actions:
            kind = type(action)
            if kind is StartTurn or kind is AppendInline:
                for message in action.messages:  # type: ignore[union-attr]
                    journal.append(action.agent, {"role": "user",  # type: ignore[union-attr]
                                                  "content": message.text})
            elif kind is ResolveToolCall or kind is FailToolCall:
                text = self.asks.result_text(action)
                if text is not None:
                    journal.append(action.agent, {  # type: ignore[union-attr]
                        "role": "tool", "tool_call_id": action.call_id,  # type: ignore[union-attr]
                        "content": text})

    def _perform(self, actions: list[Action]) -> None:
        """Act on the committed ``actions``: start turns, wake askers, run timers."""
        for action in actions:
            if isinstance(action, (StartTurn, AppendInline)):
                for message in action.messages:
                    self.notify("deliver", {"receiver": action.agent, "message": message,
                                            "placement": "user"})
                if isinstance(action, StartTurn):
                    self.turns.spawn(action.agent)
            elif isinstance(action, (ResolveToolCall, FailToolCall)):
                text = self.asks.result_text(action)
                if text is not None:
                    if isinstance(action, ResolveToolCall):
                        self.notify("deliver", {"receiver": action.agent,
                                                "message": action.message,
                                                "placement": "tool"})
                    assert action.call_id is not None
                    self.asks.settle(action.agent, action.call_id, text)
            elif isinstance(action, StartTimer):
                self.asks.start_timer(action.agent, action.call_id, action.seconds,
                                      self._timer_fired)
            elif isinstance(action, CancelTimer):
                self.asks.cancel_timer(action.agent, action.call_id)

    def _timer_fired(self, agent: str, call_id: str) -> None:
        try:
            self.feed(TimerFired(agent, call_id))
        except StoreFailure as exc:
            self.fail(exc)

    def _save(self) -> Restore:
        """Remember what the session keeps beside the journal, to restore on a rollback."""
        roles, custom = dict(self.roles), list(self._custom_roles)
        drivers, timeouts = dict(self._drivers), dict(self.turn_timeouts)
        deadlines, outputs = dict(self.turns.deadlines), dict(self.last_output)

        def restore() -> None:
            self.roles, self._custom_roles = dict(roles), list(custom)
            self._drivers, self.turn_timeouts = dict(drivers), dict(timeouts)
            self.turns.deadlines = dict(deadlines)
            self.last_output = dict(outputs)

        return restore


def _outcome(actions: list[Action], agent: str, call_id: str) -> SendOutcome:
    """How the router took the send or answer of tool call ``call_id`` of ``agent``."""
    for action in actions:
        if isinstance(action, (AcknowledgeSend, FailToolCall)) and action.agent == agent \
                and action.call_id == call_id:
            return action
    raise AssertionError(f"the router gave tool call {call_id!r} of {agent} no result")


__all__ = ["DriverFactory", "Listener", "Reply", "Session", "error_result"]
