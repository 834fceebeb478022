"""The asyncio runtime: a session that hosts agents around the routing core.

The session owns the conversations, executes the protocol tools, enforces ask
and turn timeouts on its clock, commits every event's store actions before it
acts on them, and records a session bundle and an event log.

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
import contextlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamwire.envelope import LEADER_NAME, LEADER_ROLE_ID, parse_display_name
from teamwire.router.actions import (
    Action,
    AppendConversation,
    AppendInline,
    CancelTimer,
    FailToolCall,
    PersistSetting,
    ResolveToolCall,
    StartTimer,
    StartTurn,
)
from teamwire.router.core import DEFAULT_MAX_ASK_ROUNDS, Checkpoint, RoutingCore
from teamwire.router.errors import TURN_ENDED, StoreFailure
from teamwire.router.events import (
    AgentCreated,
    AgentTerminated,
    Event,
    ModelCallStarted,
    OutputEmitted,
    Restarted,
    TimerFired,
    ToolCallReturned,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from teamwire.router.runtime.clock import Clock, RealClock, Timer
from teamwire.router.runtime.driver import AgentDriver, DriverError, Reply, ToolCall
from teamwire.router.runtime.roles import DEFAULT_ROLES, LEADER_PROMPT, RoleInfo, role_problem
from teamwire.router.serialize import log_entry
from teamwire.router.states import AgentState
from teamwire.router.store.base import Store
from teamwire.router.store.memory import MemoryStore

if TYPE_CHECKING:
    from teamwire.router.runtime.tools import ToolResult

DriverFactory = Callable[[str, str], AgentDriver]
"""Makes the driver of a new sub-agent from its display name and role id."""

Listener = Callable[[str, dict[str, Any]], None]
"""Told about deliveries (``"deliver"``), failed tool calls (``"tool-error"``) and turns
ended by a model error or the turn timeout (``"turn-failed"``: ``agent``, ``state``,
``problem``). A failed turn of the Team Leader reaches no agent, only this (TW-ROUTE-026)."""

DEFAULT_ASK_TIMEOUT = 600.0
DEFAULT_TURN_TIMEOUT = 600.0

_ACTIVE = (AgentState.RUNNING, AgentState.CLOSING, AgentState.WAITING)


@dataclass(frozen=True)
class _Mark:
    """What a session looked like right after its last successful commit."""

    core: Checkpoint
    events: int
    conversations: dict[str, int]
    rows: list[Action]
    roles: dict[str, RoleInfo]
    custom_roles: list[RoleInfo]
    drivers: dict[str, AgentDriver]
    turn_timeouts: dict[str, float]
    turn_deadlines: dict[str, float]
    last_output: dict[str, str]


def error_result(code: str, message: str,
                 candidates: Iterable[tuple[int, str, str]] = ()) -> str:
    """The common error result as tool-message text."""
    error: dict[str, Any] = {"code": code, "message": message}
    found = [{"agent_id": a, "role_id": r, "display_name": n} for a, r, n in candidates]
    if found:
        error["candidates"] = found
    return json.dumps({"success": False, "error": error}, ensure_ascii=False)


class Session:
    """One multi-agent session: the Team Leader and its sub-agents, routed by a RoutingCore.

    ``leader`` drives the Team Leader; ``drivers`` makes a driver for each
    sub-agent the leader creates. With a ``VirtualClock`` nothing ever
    sleeps: ``run_until_idle`` jumps time forward whenever every agent waits.
    Every role of ``roles`` must have a valid role id and role name
    (``ValueError`` otherwise, TW-SEC-006); ``max_ask_rounds`` is an integer of
    at least 1 (TW-MSG-011).
    """

    def __init__(self, *, leader: AgentDriver, drivers: DriverFactory,
                 store: Store | None = None, clock: Clock | None = None,
                 roles: Iterable[RoleInfo] = DEFAULT_ROLES,
                 ask_timeout: float = DEFAULT_ASK_TIMEOUT,
                 max_ask_rounds: int = DEFAULT_MAX_ASK_ROUNDS,
                 session_id: str | None = None, listener: Listener | None = None) -> None:
        self.core = RoutingCore(max_ask_rounds=max_ask_rounds)
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
        self.conversations: dict[str, list[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.turn_timeouts: dict[str, float] = {}
        self.last_output: dict[str, str] = {}
        self._custom_roles: list[RoleInfo] = []
        self._drivers: dict[str, AgentDriver] = {LEADER_NAME: leader}
        self._factory = drivers
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._waiters: dict[tuple[str, str], asyncio.Future[str]] = {}
        self._blocked: set[str] = set()
        self._timers: dict[tuple[str, str], Timer] = {}
        self._turn_timers: dict[str, Timer] = {}
        self._turn_deadlines: dict[str, float] = {}
        self._staged: list[list[Action]] = []
        self._rows: list[Action] = []
        """Host store actions (conversation entries, settings) for the next commit."""
        self._deferred: list[Callable[[], None]] = []
        """Effects of staged events that only the commit may perform (stopping a turn)."""
        self.failure: StoreFailure | None = None
        """Why the session stopped, if a commit failed where no tool call could report it."""
        from teamwire.router.runtime.tools import ToolRunner  # circular at import time

        self.tools = ToolRunner(self)
        self._mark = self._take_mark()

    # ----------------------------------------------------------------- public

    async def start(self, request: str) -> None:
        """Create the Team Leader (once) and start its turn with the user's ``request``."""
        if self.core.state(LEADER_NAME) is AgentState.ABSENT:
            self.stage(AgentCreated(LEADER_NAME, LEADER_ROLE_ID))
            self.conversations[LEADER_NAME] = []
            self._append(LEADER_NAME, {"role": "system", "content": LEADER_PROMPT})
            if self.session_id is not None:
                self.set_setting("session", self.session_id)
        self._append(LEADER_NAME, {"role": "user", "content": request})
        self.stage(TurnStarted(LEADER_NAME))
        self.commit()
        self._spawn(LEADER_NAME)

    @classmethod
    async def resume(cls, store: Store, *, leader: AgentDriver, drivers: DriverFactory,
                     clock: Clock | None = None, roles: Iterable[RoleInfo] = DEFAULT_ROLES,
                     ask_timeout: float = DEFAULT_ASK_TIMEOUT,
                     max_ask_rounds: int = DEFAULT_MAX_ASK_ROUNDS,
                     listener: Listener | None = None) -> Session:
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
        settings = store.settings()
        snapshot = store.load()
        if not snapshot.agents:
            raise ValueError("the store holds no session to resume")
        custom = [RoleInfo.from_record(r) for r in settings.get("roles", [])]
        session = cls(leader=leader, drivers=drivers, store=store, clock=clock,
                      roles=[*roles, *custom], ask_timeout=ask_timeout,
                      max_ask_rounds=max_ask_rounds, session_id=settings.get("session"),
                      listener=listener)
        session._custom_roles = custom
        session.clock.skip_to(float(settings.get("time", 0.0)))
        session.turn_timeouts = {k: float(v) for k, v in settings.get("turn_timeouts", {}).items()}
        deadlines = {k: float(v) for k, v in settings.get("turn_deadlines", {}).items()}
        session.conversations = store.conversations()
        for name, conversation in session.conversations.items():
            for message in conversation:
                text = message.get("content")
                if message.get("role") == "assistant" and isinstance(text, str) and text.strip():
                    session.last_output[name] = text
        for record in snapshot.agents:
            session.conversations.setdefault(record.name, [])
            if not record.is_leader:
                session._drivers[record.name] = drivers(record.name, record.role_id)
            ask = record.ask
            if record.state is AgentState.WAITING and ask is not None:
                session.register_ask(record.name, ask.call_id)  # before anything can answer
        session._mark = session._take_mark()
        session.stage(Restarted(snapshot, now=session.clock.now()))
        started = {a.agent for a in session._staged[-1] if isinstance(a, StartTurn)}
        session.commit()
        now = session.clock.now()
        for record in session.core.records():
            if record.state in _ACTIVE and record.name not in started:
                left = deadlines.get(record.name)
                session._spawn(record.name, resume=True,
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
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for timer in [*self._timers.values(), *self._turn_timers.values()]:
            timer.cancel()
        self._timers.clear()
        self._turn_timers.clear()
        self._staged.clear()
        self._rows.clear()
        self._deferred.clear()

    def add_sub_agent(self, name: str, role_id: str) -> None:
        """Register a sub-agent (create_sub_agent does this before sending its TASK)."""
        self.stage(AgentCreated(name, role_id))
        role = self.roles[role_id]
        self.conversations[name] = []
        self._append(name, {"role": "system", "content": role.prompt})
        self._drivers[name] = self._factory(name, role_id)

    def add_role(self, role: RoleInfo) -> None:
        """Add a role to the catalog (create_custom_agent); kept with the next commit."""
        self.roles[role.role_id] = role
        self._custom_roles.append(role)
        self.set_setting("roles", [r.to_record() for r in self._custom_roles])

    def set_turn_timeout(self, name: str, seconds: float) -> None:
        """The turn timeout of sub-agent ``name`` (create_sub_agent's timeout_seconds)."""
        self.turn_timeouts[name] = seconds
        self.set_setting("turn_timeouts", dict(self.turn_timeouts))

    def set_setting(self, key: str, value: Any) -> None:
        """Keep a setting of this session with the next commit."""
        self._rows.append(PersistSetting(key, value))

    def terminate(self, name: str) -> list[Action]:
        """Terminate a sub-agent: route the termination (staged); its turn stops on commit."""
        actions = self.stage(AgentTerminated(name))
        self._deferred.append(lambda: self._abandon(name))
        return actions

    def _abandon(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        if task is not None and not task.done():
            task.cancel()
        self._cancel_turn_timer(name)

    def bundle(self) -> dict[str, Any]:
        """The session bundle: every agent's conversation in chat-completions form."""
        agents: dict[str, Any] = {}
        for record in self.core.records():
            entry: dict[str, Any] = {"role_id": record.role_id}
            parsed = parse_display_name(record.name)
            if parsed.agent_id is not None:
                entry["agent_id"] = parsed.agent_id
            entry["messages"] = self.conversations.get(record.name, [])
            agents[record.name] = entry
        bundle: dict[str, Any] = {"teamwire": "1.0"}
        if self.session_id is not None:
            bundle["session"] = self.session_id
        bundle["agents"] = agents
        return bundle

    def write(self, directory: str | Path) -> tuple[Path, Path]:
        """Write ``bundle.json`` and ``events.jsonl`` into ``directory``; return their paths."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        bundle_path = target / "bundle.json"
        bundle_path.write_text(json.dumps(self.bundle(), ensure_ascii=False, indent=2) + "\n",
                               encoding="utf-8")
        events_path = target / "events.jsonl"
        events_path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n"
                                       for e in self.events), encoding="utf-8")
        return bundle_path, events_path

    # ---------------------------------------------------------------- routing

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
        actions = self.core.handle(event)
        self.events.append(log_entry(len(self.events) + 1, self.clock.now(), event, actions))
        for action in actions:
            kind = type(action)
            if kind is StartTurn or kind is AppendInline:
                for message in action.messages:  # type: ignore[union-attr]
                    self._append(action.agent, {"role": "user",  # type: ignore[union-attr]
                                                "content": message.text})
            elif kind is ResolveToolCall or kind is FailToolCall:
                text = self._call_outcome(action)
                if text is not None:
                    self._append(action.agent, {"role": "tool",  # type: ignore[union-attr]
                                                "tool_call_id": action.call_id,  # type: ignore[union-attr]
                                                "content": text})
        self._staged.append(actions)
        return actions

    def commit(self) -> None:
        """Commit what was staged in one transaction, then perform its effects.

        If the store raises, everything since the last commit is undone and
        ``StoreFailure`` is raised (TW-DUR-007).
        """
        staged, self._staged = self._staged, []
        rows, self._rows = self._rows, []
        rows.append(PersistSetting("time", self.clock.now()))
        try:
            self.store.apply_batch([*staged, rows])
        except Exception as exc:  # any backend's error: nothing of the batch may stand
            self._roll_back()
            raise StoreFailure(f"the store could not commit: {exc}") from exc
        deferred, self._deferred = self._deferred, []
        for actions in staged:
            self._perform(actions)
        for effect in deferred:
            effect()
        self._mark = self._take_mark()

    def _take_mark(self) -> _Mark:
        return _Mark(self.core.checkpoint(), len(self.events),
                     {name: len(c) for name, c in self.conversations.items()},
                     list(self._rows), dict(self.roles), list(self._custom_roles),
                     dict(self._drivers), dict(self.turn_timeouts),
                     dict(self._turn_deadlines), dict(self.last_output))

    def _roll_back(self) -> None:
        """Return to the mark of the last commit (the store still holds exactly that)."""
        mark = self._mark
        self.core.rollback(mark.core)
        del self.events[mark.events:]
        for name in list(self.conversations):
            if name in mark.conversations:
                del self.conversations[name][mark.conversations[name]:]
            else:
                del self.conversations[name]
        self._staged, self._rows, self._deferred = [], list(mark.rows), []
        self.roles, self._custom_roles = dict(mark.roles), list(mark.custom_roles)
        self._drivers = dict(mark.drivers)
        self.turn_timeouts = dict(mark.turn_timeouts)
        self._turn_deadlines = dict(mark.turn_deadlines)
        self.last_output = dict(mark.last_output)

    def _fail(self, failure: StoreFailure) -> None:
        """Stop the session after a commit that no tool call could report (see the module)."""
        if self.failure is None:
            self.failure = failure
        current = asyncio.current_task()
        for task in list(self._tasks.values()):
            if task is not current:
                task.cancel()
        self._tasks.clear()
        for timer in [*self._timers.values(), *self._turn_timers.values()]:
            timer.cancel()
        self._timers.clear()
        self._turn_timers.clear()

    def _call_outcome(self, action: Action) -> str | None:
        """The tool-message text that resolves a blocked ask, or None if no ask waits on it."""
        if isinstance(action, ResolveToolCall):
            if (action.agent, action.call_id) in self._waiters:
                return action.text
        elif isinstance(action, FailToolCall) and action.call_id is not None \
                and (action.agent, action.call_id) in self._waiters:
            return error_result(action.code, action.message, action.candidates)
        return None

    def _perform(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, (StartTurn, AppendInline)):
                for message in action.messages:
                    self._notify("deliver", {"receiver": action.agent, "message": message,
                                             "placement": "user"})
                if isinstance(action, StartTurn):
                    self._spawn(action.agent)
            elif isinstance(action, (ResolveToolCall, FailToolCall)):
                text = self._call_outcome(action)
                if text is not None:
                    if isinstance(action, ResolveToolCall):
                        self._notify("deliver", {"receiver": action.agent,
                                                 "message": action.message,
                                                 "placement": "tool"})
                    assert action.call_id is not None
                    self._settle_call(action.agent, action.call_id, text)
            elif isinstance(action, StartTimer):
                key = (action.agent, action.call_id)
                self._timers[key] = self.clock.call_later(
                    action.seconds, _bind(self._fire, action.agent, action.call_id))
            elif isinstance(action, CancelTimer):
                timer = self._timers.pop((action.agent, action.call_id), None)
                if timer is not None:
                    timer.cancel()

    def _append(self, agent: str, message: dict[str, Any]) -> None:
        conversation = self.conversations.setdefault(agent, [])
        self._rows.append(AppendConversation(agent, len(conversation), message))
        conversation.append(message)

    def _fire(self, agent: str, call_id: str) -> None:
        self._timers.pop((agent, call_id), None)
        try:
            self.feed(TimerFired(agent, call_id))
        except StoreFailure as exc:
            self._fail(exc)

    def _notify(self, kind: str, data: dict[str, Any]) -> None:
        if self.listener is not None:
            self.listener(kind, data)

    def _settle_call(self, agent: str, call_id: str, text: str) -> None:
        future = self._waiters.get((agent, call_id))
        if future is None or future.done():
            return
        if agent in self._blocked:
            self._blocked.discard(agent)
            self.clock.activity.start()
        future.set_result(text)

    async def wait_for_answer(self, agent: str, call_id: str) -> str:
        """Block ``agent`` until its ask ``call_id`` is resolved; return the tool result text."""
        future = self._waiters[(agent, call_id)]
        try:
            if not future.done():
                self._blocked.add(agent)
                self.clock.activity.stop()
                try:
                    return await future
                except asyncio.CancelledError:
                    if agent in self._blocked:
                        self._blocked.discard(agent)
                        self.clock.activity.start()
                    raise
            done: str = future.result()
            return done
        finally:
            self._waiters.pop((agent, call_id), None)

    def register_ask(self, agent: str, call_id: str) -> None:
        """Prepare to receive the result of the ask ``call_id`` (before it is fed)."""
        if (agent, call_id) not in self._waiters:
            self._waiters[(agent, call_id)] = asyncio.get_running_loop().create_future()

    def forget_ask(self, agent: str, call_id: str) -> None:
        """Drop a registered ask that was never accepted (its commit failed)."""
        self._waiters.pop((agent, call_id), None)

    # ------------------------------------------------------------------ turns

    def _spawn(self, agent: str, *, resume: bool = False, limit: float | None = None) -> None:
        self.clock.activity.start()
        task = asyncio.get_running_loop().create_task(self._turn(agent, resume))
        # a callback, not a finally: a task cancelled before it ever ran has no finally
        task.add_done_callback(self._turn_done)
        self._tasks[agent] = task
        if agent != LEADER_NAME:
            self._cancel_turn_timer(agent)
            # the run result names the turn's whole limit; a resumed turn waits only what is left
            timeout = self.turn_timeouts.get(agent, DEFAULT_TURN_TIMEOUT)
            left = timeout if limit is None else limit
            self._turn_deadlines[agent] = self.clock.now() + left
            self.set_setting("turn_deadlines", dict(self._turn_deadlines))
            self._turn_timers[agent] = self.clock.call_later(
                left, lambda: self._turn_timed_out(agent, timeout))

    def _cancel_turn_timer(self, agent: str) -> None:
        timer = self._turn_timers.pop(agent, None)
        if timer is not None:
            timer.cancel()

    def _turn_timed_out(self, agent: str, limit: float) -> None:
        self._turn_timers.pop(agent, None)
        task = self._tasks.pop(agent, None)
        if task is not None and not task.done():
            task.cancel()
        if self.core.state(agent) in _ACTIVE:
            try:
                problem = f"turn stopped after {limit:g} seconds"
                self.stage(TurnFailed(agent, "timeout", problem))
                self._close_calls(agent, TURN_ENDED,
                                  "the turn was stopped before this call ran; it did nothing")
                self.commit()  # the turn's end and the calls' results together, or neither
            except StoreFailure as exc:
                self._fail(exc)
                return
            self._notify("turn-failed", {"agent": agent, "state": "timeout", "problem": problem})

    def _close_calls(self, agent: str, code: str, message: str) -> None:
        """Give every tool call of the agent's last reply that has no result the error result
        ``code`` (TW-ROUTE-018), staged: each call gets exactly one result, and the
        conversation stays one a model endpoint accepts when the agent's next turn starts."""
        for call in self._unfinished_calls(agent):
            error = {"code": code, "message": message}
            self._append(agent, {"role": "tool", "tool_call_id": call.id, "content": json.dumps(
                {"success": False, "error": error}, ensure_ascii=False)})

    async def _turn(self, agent: str, resume: bool) -> None:
        # cancelled: terminated, timed out or stopped; the router has already been told
        with contextlib.suppress(asyncio.CancelledError):
            try:
                await self._turn_body(agent, resume)
            except StoreFailure as exc:
                self._fail(exc)

    def _turn_done(self, task: asyncio.Task[None]) -> None:
        self.clock.activity.stop()

    async def _turn_body(self, agent: str, resume: bool) -> None:
        if resume and not await self._resume_turn(agent):
            return
        driver = self._drivers[agent]
        tools = self.tools.definitions(agent)
        while True:
            self.feed(ModelCallStarted(agent))
            answer: object = None
            problem: str | None = None
            try:
                answer = await driver.complete(agent, list(self.conversations[agent]), tools)
            except DriverError as exc:
                problem = str(exc) or type(exc).__name__
            except Exception as exc:  # a driver's own bug is a failed model call too
                problem = f"the driver failed: {type(exc).__name__}: {exc}"[:500]
            if self.core.state(agent) is AgentState.TERMINATED:
                # The turn was cancelled by the termination, but the driver swallowed the
                # cancellation and answered anyway: nothing more goes into the conversation
                # of a terminated agent (TW-ROUTE-024).
                return
            if problem is None:
                reply, problem = _checked_reply(answer)
                if reply is not None:
                    if await self._take_reply(agent, reply):
                        return
                    continue
            self._end_turn(agent)
            problem = _SURROGATE.sub("\ufffd", problem)
            self.feed(TurnFailed(agent, "error", problem))
            self._notify("turn-failed", {"agent": agent, "state": "error", "problem": problem})
            return

    async def _take_reply(self, agent: str, reply: Reply) -> bool:
        """Record ``reply``, route its text, run its tool calls; True if the turn ended."""
        reply = self._unique_call_ids(agent, _valid_unicode(reply))
        final = not reply.tool_calls
        text = reply.content or ""
        if final:
            # an empty reply is recorded too: it is the turn's silent end (TW-TYPE-017)
            self._append(agent, {"role": "assistant", "content": text})
        else:
            self._append(agent, reply.to_message())
        if text.strip():
            self.last_output[agent] = text
        if text.strip() or final:
            self.stage(OutputEmitted(agent, text, final=final))
        if final:
            self._end_turn(agent)
            self.stage(TurnEnded(agent))
            self.commit()
            return True
        self.commit()
        await self._run_calls(agent, reply.tool_calls)
        return False

    def _unique_call_ids(self, agent: str, reply: Reply) -> Reply:
        """``reply`` with a fresh id for every tool call whose id is empty or already used.

        A tool call id is the key of the call's stored result (TW-DUR-003): a
        reused one would make the core return the earlier call's result and
        drop the new call's message. Some endpoints number every reply's calls
        from zero, or give no id at all; the conversation records the new ids,
        so the model still sees each result next to its call.
        """
        if not reply.tool_calls:
            return reply
        used: set[str] = set()
        for message in self.conversations.get(agent, ()):
            for call in message.get("tool_calls") or ():
                used.add(call["id"])
        renamed: list[ToolCall] = []
        for call in reply.tool_calls:
            call_id = call.id
            if not call_id or call_id in used:
                base = call_id[:64] or "call"
                n = 2
                while f"{base}_{n}" in used:
                    n += 1
                call_id = f"{base}_{n}"
            used.add(call_id)
            renamed.append(call if call_id == call.id else ToolCall(call_id, call.name,
                                                                    call.arguments))
        if all(a is b for a, b in zip(renamed, reply.tool_calls, strict=True)):
            return reply
        return Reply(reply.content, tuple(renamed))

    async def _run_calls(self, agent: str, calls: Iterable[ToolCall]) -> None:
        """Execute tool calls one after another; each result commits with the call's events.

        A call whose commit fails did nothing (rolled back) and returns the
        ``store-failed`` error result instead (TW-DUR-007); if that cannot be
        committed either, ``StoreFailure`` stops the turn.
        """
        for call in calls:
            try:
                result = await self.tools.run(agent, call)
            except StoreFailure as exc:  # an ask that could not be stored: rolled back
                result = self.tools.store_failed(exc)
            try:
                self._finish_call(agent, call, result)
            except StoreFailure as exc:
                if result.recorded or result.stored_nothing:
                    raise  # an ask's result stands; or the store failed twice in a row
                result = self.tools.store_failed(exc)
                self._finish_call(agent, call, result)
            if result.error is not None:
                self._notify("tool-error", {"agent": agent, "tool": call.name,
                                            "error": result.error})

    def _finish_call(self, agent: str, call: ToolCall, result: ToolResult) -> None:
        """Record the tool message of ``call`` and commit it with the call's events."""
        if not result.recorded:
            self._append(agent, {"role": "tool", "tool_call_id": call.id,
                                 "content": result.text})
        if not result.counted and self.core.state(agent) is AgentState.RUNNING:
            self.stage(ToolCallReturned(agent, call.id))
        self.commit()

    async def _resume_turn(self, agent: str) -> bool:
        """Pick up a turn that a restart interrupted; False if that ended it."""
        state = self.core.state(agent)
        if state is AgentState.CLOSING:  # its last reply ended the turn
            self._end_turn(agent)
            self.feed(TurnEnded(agent))
            return False
        calls = self._unfinished_calls(agent)
        record = self.core.record(agent)
        if state is AgentState.WAITING and record.ask is not None:
            call_id = record.ask.call_id
            self.register_ask(agent, call_id)
            await self.wait_for_answer(agent, call_id)  # its tool message is appended on resolve
            ids = [c.id for c in calls]
            calls = calls[ids.index(call_id) + 1:] if call_id in ids else calls
        await self._run_calls(agent, calls)
        return True

    def _unfinished_calls(self, agent: str) -> list[ToolCall]:
        """The tool calls of the agent's last reply that have no tool result yet."""
        conversation = self.conversations.get(agent, [])
        for index in range(len(conversation) - 1, -1, -1):
            message = conversation[index]
            if message.get("role") != "assistant":
                continue
            answered = {m.get("tool_call_id") for m in conversation[index + 1:]
                        if m.get("role") == "tool"}
            return [ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                    for c in message.get("tool_calls") or () if c["id"] not in answered]
        return []

    def _end_turn(self, agent: str) -> None:
        if self._tasks.get(agent) is asyncio.current_task():
            del self._tasks[agent]
        self._cancel_turn_timer(agent)
        if self._turn_deadlines.pop(agent, None) is not None:
            self.set_setting("turn_deadlines", dict(self._turn_deadlines))


def _checked_reply(answer: object) -> tuple[Reply | None, str]:
    """(the driver's answer as a Reply, "") or (None, why it is not one)."""
    if not isinstance(answer, Reply):
        return None, f"the driver returned {type(answer).__name__}, not a Reply"
    if answer.content is not None and not isinstance(answer.content, str):
        return None, "the driver returned a reply whose content is not text"
    calls = answer.tool_calls
    if not isinstance(calls, (tuple, list)) or not all(
            isinstance(c, ToolCall) and isinstance(c.id, str) and isinstance(c.name, str)
            and isinstance(c.arguments, str) for c in calls):
        return None, "the driver returned tool calls that are not ToolCalls of text fields"
    return (answer if isinstance(calls, tuple) else Reply(answer.content, tuple(calls))), ""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_unicode(reply: Reply) -> Reply:
    """``reply`` with every lone surrogate (a model's ``"\\ud800"``, which no store or file can
    hold) replaced by U+FFFD; the same object when there is none, which is the usual case."""
    texts = [reply.content or ""]
    for call in reply.tool_calls:
        texts.extend((call.id, call.name, call.arguments))
    if not any(_SURROGATE.search(text) for text in texts):
        return reply

    def clean(text: str) -> str:
        return _SURROGATE.sub("\ufffd", text)

    return Reply(None if reply.content is None else clean(reply.content),
                 tuple(ToolCall(clean(c.id), clean(c.name), clean(c.arguments))
                       for c in reply.tool_calls))


def _bind(function: Callable[[str, str], None], agent: str, call_id: str) -> Callable[[], None]:
    return lambda: function(agent, call_id)


__all__ = ["DriverFactory", "Listener", "Reply", "Session", "error_result"]
