"""The turn runner: one asyncio task per running agent, its model calls, its tool calls and
its turn timeout.

A turn asks the agent's driver for a reply, records it, routes its text and
runs its tool calls one after another, until a reply calls no tool (the turn
ends), the model call fails, or the turn timeout stops it. Every step commits
through the session's journal before the next one starts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any, Protocol

from teamwire.envelope import LEADER_NAME
from teamwire.router.core import RoutingCore
from teamwire.router.errors import TURN_ENDED, StoreFailure
from teamwire.router.events import (
    ModelCallStarted,
    OutputEmitted,
    ToolCallReturned,
    TurnEnded,
    TurnFailed,
)
from teamwire.router.runtime.asks import Asks
from teamwire.router.runtime.clock import Clock, Timer
from teamwire.router.runtime.driver import AgentDriver, DriverError, Reply, ToolCall
from teamwire.router.runtime.journal import Journal
from teamwire.router.runtime.replies import (
    checked_reply,
    unfinished_calls,
    unique_call_ids,
    valid_unicode,
    without_surrogates,
)
from teamwire.router.runtime.tool_results import ToolResult, error_result, store_failed
from teamwire.router.runtime.tools import ToolRunner
from teamwire.router.states import AgentState

DEFAULT_TURN_TIMEOUT = 600.0

ACTIVE = (AgentState.RUNNING, AgentState.CLOSING, AgentState.WAITING)
"""States of an agent in a turn."""


class TurnHost(Protocol):
    """What the turn runner needs of its session."""

    core: RoutingCore
    journal: Journal
    asks: Asks
    tools: ToolRunner
    clock: Clock
    turn_timeouts: dict[str, float]
    default_turn_timeout: float
    last_output: dict[str, str]

    def driver(self, agent: str) -> AgentDriver:
        """The driver of ``agent``."""
        ...

    def notify(self, kind: str, data: dict[str, Any]) -> None:
        """Tell the session's listener, if it has one."""
        ...

    def fail(self, failure: StoreFailure) -> None:
        """Stop the session after a commit that no tool call could report."""
        ...


class TurnRunner:
    """Runs the turns of a session's agents."""

    def __init__(self, host: TurnHost) -> None:
        self.host = host
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.deadlines: dict[str, float] = {}
        """Agent → the clock time its turn timeout fires (kept across a restart)."""
        self._timers: dict[str, Timer] = {}

    def spawn(self, agent: str, *, resume: bool = False, limit: float | None = None) -> None:
        """Start a turn of ``agent`` (or, with ``resume``, pick up one a restart interrupted;
        ``limit`` is the time its turn timeout still leaves)."""
        host = self.host
        host.clock.activity.start()
        task = asyncio.get_running_loop().create_task(self._turn(agent, resume))
        # a callback, not a finally: a task cancelled before it ever ran has no finally
        task.add_done_callback(self._turn_done)
        self.tasks[agent] = task
        if agent != LEADER_NAME:
            self._cancel_timer(agent)
            # the run result names the turn's whole limit; a resumed turn waits only what is left
            timeout = host.turn_timeouts.get(agent, host.default_turn_timeout)
            left = timeout if limit is None else limit
            self.deadlines[agent] = host.clock.now() + left
            host.journal.set_setting("turn_deadlines", dict(self.deadlines))
            self._timers[agent] = host.clock.call_later(
                left, lambda: self._timed_out(agent, timeout))

    def abandon(self, agent: str) -> None:
        """Stop the turn of ``agent`` where it is (it was terminated)."""
        task = self.tasks.pop(agent, None)
        if task is not None and not task.done():
            task.cancel()
        self._cancel_timer(agent)

    async def stop(self) -> None:
        """Cancel every turn and wait until they are gone."""
        tasks = list(self.tasks.values())
        self.tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def cancel_others(self) -> None:
        """Cancel every turn but the one that calls this."""
        current = asyncio.current_task()
        for task in list(self.tasks.values()):
            if task is not current:
                task.cancel()
        self.tasks.clear()

    def cancel_timers(self) -> None:
        """Cancel every turn timeout."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    # ---------------------------------------------------------------- a turn

    def _cancel_timer(self, agent: str) -> None:
        timer = self._timers.pop(agent, None)
        if timer is not None:
            timer.cancel()

    def _timed_out(self, agent: str, limit: float) -> None:
        host = self.host
        self._timers.pop(agent, None)
        task = self.tasks.pop(agent, None)
        if task is not None and not task.done():
            task.cancel()
        if host.core.state(agent) in ACTIVE:
            try:
                problem = f"turn stopped after {limit:g} seconds"
                host.journal.stage(TurnFailed(agent, "timeout", problem))
                self._close_calls(agent, TURN_ENDED,
                                  "the turn was stopped before this call ran; it did nothing")
                host.journal.commit()  # the turn's end and the calls' results together, or neither
            except StoreFailure as exc:
                host.fail(exc)
                return
            host.notify("turn-failed", {"agent": agent, "state": "timeout", "problem": problem})

    def _close_calls(self, agent: str, code: str, message: str) -> None:
        """Give every tool call of the agent's last reply that has no result the error result
        ``code`` (TW-ROUTE-018), staged: each call gets exactly one result, and the
        conversation stays one a model endpoint accepts when the agent's next turn starts."""
        journal = self.host.journal
        for call in unfinished_calls(journal.conversations.get(agent, [])):
            journal.append(agent, {"role": "tool", "tool_call_id": call.id,
                                   "content": error_result(code, message)})

    async def _turn(self, agent: str, resume: bool) -> None:
        # cancelled: terminated, timed out or stopped; the router has already been told
        with contextlib.suppress(asyncio.CancelledError):
            try:
                await self._turn_body(agent, resume)
            except StoreFailure as exc:
                self.host.fail(exc)

    def _turn_done(self, task: asyncio.Task[None]) -> None:
        self.host.clock.activity.stop()

    async def _turn_body(self, agent: str, resume: bool) -> None:
        if resume and not await self._resume_turn(agent):
            return
        host = self.host
        driver = host.driver(agent)
        tools = host.tools.definitions(agent)
        while True:
            self._feed(ModelCallStarted(agent))
            answer: object = None
            problem: str | None = None
            try:
                answer = await driver.complete(agent, list(host.journal.conversations[agent]),
                                               tools)
            except DriverError as exc:
                problem = str(exc) or type(exc).__name__
            except Exception as exc:  # a driver's own bug is a failed model call too
                problem = f"the driver failed: {type(exc).__name__}: {exc}"[:500]
            if host.core.state(agent) is AgentState.TERMINATED:
                # The turn was cancelled by the termination, but the driver swallowed the
                # cancellation and answered anyway: nothing more goes into the conversation
                # of a terminated agent (TW-ROUTE-024).
                return
            if problem is None:
                reply, problem = checked_reply(answer)
                if reply is not None:
                    if await self._take_reply(agent, reply):
                        return
                    continue
            self.end(agent)
            problem = without_surrogates(problem)
            self._feed(TurnFailed(agent, "error", problem))
            host.notify("turn-failed", {"agent": agent, "state": "error", "problem": problem})
            return

    def _feed(self, event: ModelCallStarted | TurnEnded | TurnFailed) -> None:
        self.host.journal.stage(event)
        self.host.journal.commit()

    async def _take_reply(self, agent: str, reply: Reply) -> bool:
        """Record ``reply``, route its text, run its tool calls; True if the turn ended."""
        host = self.host
        journal = host.journal
        reply = unique_call_ids(valid_unicode(reply), journal.conversations.get(agent, ()))
        final = not reply.tool_calls
        text = reply.content or ""
        if final:
            # an empty reply is recorded too: it is the turn's silent end (TW-TYPE-017)
            journal.append(agent, {"role": "assistant", "content": text})
        else:
            journal.append(agent, reply.to_message())
        if text.strip():
            host.last_output[agent] = text
        if text.strip() or final:
            journal.stage(OutputEmitted(agent, text, final=final))
        if final:
            self.end(agent)
            journal.stage(TurnEnded(agent))
            journal.commit()
            return True
        journal.commit()
        await self.run_calls(agent, reply.tool_calls)
        return False

    async def run_calls(self, agent: str, calls: Iterable[ToolCall]) -> None:
        """Execute tool calls one after another; each result commits with the call's events.

        A call whose commit fails did nothing (rolled back) and returns the
        ``store-failed`` error result instead (TW-DUR-007); if that cannot be
        committed either, ``StoreFailure`` stops the turn.
        """
        host = self.host
        for call in calls:
            try:
                result = await host.tools.run(agent, call)
            except StoreFailure as exc:  # an ask that could not be stored: rolled back
                result = store_failed(exc)
            try:
                self._finish_call(agent, call, result)
            except StoreFailure as exc:
                if result.recorded or result.stored_nothing:
                    raise  # an ask's result stands; or the store failed twice in a row
                result = store_failed(exc)
                self._finish_call(agent, call, result)
            if result.error is not None:
                host.notify("tool-error", {"agent": agent, "tool": call.name,
                                           "error": result.error})

    def _finish_call(self, agent: str, call: ToolCall, result: ToolResult) -> None:
        """Record the tool message of ``call`` and commit it with the call's events."""
        journal = self.host.journal
        if not result.recorded:
            journal.append(agent, {"role": "tool", "tool_call_id": call.id,
                                   "content": result.text})
        if not result.counted and self.host.core.state(agent) is AgentState.RUNNING:
            journal.stage(ToolCallReturned(agent, call.id))
        journal.commit()

    async def _resume_turn(self, agent: str) -> bool:
        """Pick up a turn that a restart interrupted; False if that ended it."""
        host = self.host
        state = host.core.state(agent)
        if state is AgentState.CLOSING:  # its last reply ended the turn
            self.end(agent)
            self._feed(TurnEnded(agent))
            return False
        calls = unfinished_calls(host.journal.conversations.get(agent, []))
        record = host.core.record(agent)
        if state is AgentState.WAITING and record.ask is not None:
            call_id = record.ask.call_id
            host.asks.register(agent, call_id)
            await host.asks.wait(agent, call_id)  # its tool message is appended on resolve
            ids = [c.id for c in calls]
            calls = calls[ids.index(call_id) + 1:] if call_id in ids else calls
        await self.run_calls(agent, calls)
        return True

    def end(self, agent: str) -> None:
        """The turn of ``agent`` is over: forget its task and its turn timeout."""
        if self.tasks.get(agent) is asyncio.current_task():
            del self.tasks[agent]
        self._cancel_timer(agent)
        if self.deadlines.pop(agent, None) is not None:
            self.host.journal.set_setting("turn_deadlines", dict(self.deadlines))
