"""The asyncio runtime: a session that hosts agents around the routing core.

The session owns the conversations, executes the protocol tools, enforces ask
and turn timeouts on its clock, commits every event's store actions before it
acts on them, and records a session bundle and an event log.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from teamwire.envelope import LEADER_NAME, LEADER_ROLE_ID, parse_display_name
from teamwire.router.actions import (
    Action,
    AppendInline,
    CancelTimer,
    FailToolCall,
    ResolveToolCall,
    StartTimer,
    StartTurn,
)
from teamwire.router.core import DEFAULT_MAX_ASK_ROUNDS, RoutingCore
from teamwire.router.events import (
    AgentCreated,
    Event,
    ModelCallStarted,
    OutputEmitted,
    TimerFired,
    ToolCallReturned,
    TurnEnded,
    TurnFailed,
    TurnStarted,
)
from teamwire.router.records import RoutedMessage
from teamwire.router.runtime.clock import Clock, RealClock, Timer
from teamwire.router.runtime.driver import AgentDriver, DriverError, Reply, ToolCall
from teamwire.router.runtime.roles import DEFAULT_ROLES, LEADER_PROMPT, RoleInfo
from teamwire.router.serialize import log_entry
from teamwire.router.states import AgentState
from teamwire.router.store.base import Store
from teamwire.router.store.memory import MemoryStore

DriverFactory = Callable[[str, str], AgentDriver]
"""Makes the driver of a new sub-agent from its display name and role id."""

Listener = Callable[[str, dict[str, Any]], None]
"""Told about deliveries (``"deliver"``) and failed tool calls (``"tool-error"``)."""

DEFAULT_ASK_TIMEOUT = 600.0
DEFAULT_TURN_TIMEOUT = 600.0


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
    """

    def __init__(self, *, leader: AgentDriver, drivers: DriverFactory,
                 store: Store | None = None, clock: Clock | None = None,
                 roles: Iterable[RoleInfo] = DEFAULT_ROLES,
                 ask_timeout: float = DEFAULT_ASK_TIMEOUT,
                 max_ask_rounds: int = DEFAULT_MAX_ASK_ROUNDS,
                 session_id: str | None = None, listener: Listener | None = None) -> None:
        self.core = RoutingCore(max_ask_rounds=max_ask_rounds)
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
        self._drivers: dict[str, AgentDriver] = {LEADER_NAME: leader}
        self._factory = drivers
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._waiters: dict[tuple[str, str], asyncio.Future[str]] = {}
        self._blocked: set[str] = set()
        self._timers: dict[tuple[str, str], Timer] = {}
        self._turn_timers: dict[str, Timer] = {}
        from teamwire.router.runtime.tools import ToolRunner  # circular at import time

        self.tools = ToolRunner(self)

    # ----------------------------------------------------------------- public

    async def start(self, request: str) -> None:
        """Create the Team Leader (once) and start its turn with the user's ``request``."""
        if self.core.state(LEADER_NAME) is AgentState.ABSENT:
            self.feed(AgentCreated(LEADER_NAME, LEADER_ROLE_ID))
            self.conversations[LEADER_NAME] = [{"role": "system", "content": LEADER_PROMPT}]
        self.conversations[LEADER_NAME].append({"role": "user", "content": request})
        self.feed(TurnStarted(LEADER_NAME))
        self._spawn(LEADER_NAME)

    async def run_until_idle(self) -> None:
        """Run until every agent is idle, completed or waits with no timer left to fire."""
        while True:
            await self.clock.activity.wait_idle()
            if not self.clock.advance():
                return
            await asyncio.sleep(0)

    def add_sub_agent(self, name: str, role_id: str) -> None:
        """Register a sub-agent (create_sub_agent does this before sending its TASK)."""
        self.feed(AgentCreated(name, role_id))
        role = self.roles[role_id]
        self.conversations[name] = [{"role": "system", "content": role.prompt}]
        self._drivers[name] = self._factory(name, role_id)

    def terminate(self, name: str) -> list[Action]:
        """Terminate a sub-agent: route the termination, abandon its turn."""
        from teamwire.router.events import AgentTerminated

        actions = self.feed(AgentTerminated(name))
        task = self._tasks.pop(name, None)
        if task is not None and not task.done():
            task.cancel()
        self._cancel_turn_timer(name)
        return actions

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
        """Hand ``event`` to the core, commit its store actions, then perform the rest."""
        actions = self.core.handle(event)
        self.store.apply(actions)
        self.events.append(log_entry(len(self.events) + 1, self.clock.now(), event, actions))
        for action in actions:
            if isinstance(action, (StartTurn, AppendInline)):
                self._deliver(action.agent, action.messages)
                if isinstance(action, StartTurn):
                    self._spawn(action.agent)
            elif isinstance(action, ResolveToolCall):
                self._notify("deliver", {"receiver": action.agent, "message": action.message,
                                         "placement": "tool"})
                self._settle_call(action.agent, action.call_id, action.text)
            elif isinstance(action, FailToolCall) and action.call_id is not None:
                if (action.agent, action.call_id) in self._waiters:
                    self._settle_call(action.agent, action.call_id,
                                      error_result(action.code, action.message,
                                                   action.candidates))
            elif isinstance(action, StartTimer):
                key = (action.agent, action.call_id)
                self._timers[key] = self.clock.call_later(
                    action.seconds, _bind(self._fire, action.agent, action.call_id))
            elif isinstance(action, CancelTimer):
                timer = self._timers.pop((action.agent, action.call_id), None)
                if timer is not None:
                    timer.cancel()
        return actions

    def _fire(self, agent: str, call_id: str) -> None:
        self._timers.pop((agent, call_id), None)
        self.feed(TimerFired(agent, call_id))

    def _deliver(self, agent: str, messages: tuple[RoutedMessage, ...]) -> None:
        conversation = self.conversations.setdefault(agent, [])
        for message in messages:
            conversation.append({"role": "user", "content": message.text})
            self._notify("deliver", {"receiver": agent, "message": message,
                                     "placement": "user"})

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
        self._waiters[(agent, call_id)] = asyncio.get_running_loop().create_future()

    # ------------------------------------------------------------------ turns

    def _spawn(self, agent: str) -> None:
        self.clock.activity.start()
        self._tasks[agent] = asyncio.get_running_loop().create_task(self._turn(agent))
        if agent != LEADER_NAME:
            self._cancel_turn_timer(agent)
            limit = self.turn_timeouts.get(agent, DEFAULT_TURN_TIMEOUT)
            self._turn_timers[agent] = self.clock.call_later(
                limit, lambda: self._turn_timed_out(agent, limit))

    def _cancel_turn_timer(self, agent: str) -> None:
        timer = self._turn_timers.pop(agent, None)
        if timer is not None:
            timer.cancel()

    def _turn_timed_out(self, agent: str, limit: float) -> None:
        self._turn_timers.pop(agent, None)
        task = self._tasks.pop(agent, None)
        if task is not None and not task.done():
            task.cancel()
        if self.core.state(agent) in (AgentState.RUNNING, AgentState.CLOSING,
                                      AgentState.WAITING):
            self.feed(TurnFailed(agent, "timeout", f"turn stopped after {limit:g} seconds"))

    async def _turn(self, agent: str) -> None:
        try:
            await self._turn_body(agent)
        except asyncio.CancelledError:
            pass  # terminated or timed out: the router has already been told
        finally:
            self.clock.activity.stop()

    async def _turn_body(self, agent: str) -> None:
        driver = self._drivers[agent]
        conversation = self.conversations[agent]
        tools = self.tools.definitions(agent)
        while True:
            self.feed(ModelCallStarted(agent))
            try:
                reply = await driver.complete(agent, list(conversation), tools)
            except DriverError as exc:
                self._end_turn(agent)
                self.feed(TurnFailed(agent, "error", str(exc) or type(exc).__name__))
                return
            if reply.content is not None or reply.tool_calls:
                conversation.append(reply.to_message())
            final = not reply.tool_calls
            if reply.content is not None and reply.content.strip():
                self.last_output[agent] = reply.content
                self.feed(OutputEmitted(agent, reply.content, final=final))
            if final:
                self._end_turn(agent)
                self.feed(TurnEnded(agent))
                return
            for call in reply.tool_calls:
                result = await self._call_tool(agent, call)
                conversation.append({"role": "tool", "tool_call_id": call.id, "content": result})

    def _end_turn(self, agent: str) -> None:
        if self._tasks.get(agent) is asyncio.current_task():
            del self._tasks[agent]
        self._cancel_turn_timer(agent)

    async def _call_tool(self, agent: str, call: ToolCall) -> str:
        result = await self.tools.run(agent, call)
        if not result.blocking and self.core.state(agent) is AgentState.RUNNING:
            self.feed(ToolCallReturned(agent, call.id))
        if result.error is not None:
            self._notify("tool-error", {"agent": agent, "tool": call.name,
                                        "error": result.error})
        return result.text


def _bind(function: Callable[[str, str], None], agent: str, call_id: str) -> Callable[[], None]:
    return lambda: function(agent, call_id)


__all__ = ["DriverFactory", "Listener", "Reply", "Session", "error_result"]
