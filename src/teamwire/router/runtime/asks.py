"""Asks in flight: the futures their callers wait on, and the timers that end them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from teamwire.router.actions import Action, FailToolCall, ResolveToolCall
from teamwire.router.runtime.clock import Clock, Timer
from teamwire.router.runtime.tool_results import error_result


class Asks:
    """The blocked ask calls of one session, keyed by (agent, call id).

    A caller registers its ask before the ask is routed, so that a result
    routed in the same commit finds it; while it waits, the clock counts its
    agent as inactive (virtual time may jump past a waiting agent).
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.waiters: dict[tuple[str, str], asyncio.Future[str]] = {}
        self._blocked: set[str] = set()
        self._timers: dict[tuple[str, str], Timer] = {}

    def register(self, agent: str, call_id: str) -> None:
        """Prepare to receive the result of the ask ``call_id`` (before it is fed)."""
        if (agent, call_id) not in self.waiters:
            self.waiters[(agent, call_id)] = asyncio.get_running_loop().create_future()

    def forget(self, agent: str, call_id: str) -> None:
        """Drop a registered ask that was never accepted (its commit failed)."""
        self.waiters.pop((agent, call_id), None)

    def result_text(self, action: Action) -> str | None:
        """The tool-message text that ``action`` gives a blocked ask, or None if no ask waits
        on it."""
        if isinstance(action, ResolveToolCall):
            if (action.agent, action.call_id) in self.waiters:
                return action.text
        elif isinstance(action, FailToolCall) and action.call_id is not None \
                and (action.agent, action.call_id) in self.waiters:
            return error_result(action.code, action.message, action.candidates)
        return None

    def settle(self, agent: str, call_id: str, text: str) -> None:
        """Wake the caller of the ask ``call_id`` with its result ``text``."""
        future = self.waiters.get((agent, call_id))
        if future is None or future.done():
            return
        if agent in self._blocked:
            self._blocked.discard(agent)
            self.clock.activity.start()
        future.set_result(text)

    async def wait(self, agent: str, call_id: str) -> str:
        """Block ``agent`` until its ask ``call_id`` is resolved; return the tool result text."""
        future = self.waiters[(agent, call_id)]
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
            self.waiters.pop((agent, call_id), None)

    def start_timer(self, agent: str, call_id: str, seconds: float,
                    fire: Callable[[str, str], None]) -> None:
        """Call ``fire(agent, call_id)`` after ``seconds`` unless the timer is cancelled."""
        self._timers[(agent, call_id)] = self.clock.call_later(
            seconds, lambda: self._fire(agent, call_id, fire))

    def cancel_timer(self, agent: str, call_id: str) -> None:
        """Cancel the timer of the ask ``call_id`` of ``agent``, if it runs."""
        timer = self._timers.pop((agent, call_id), None)
        if timer is not None:
            timer.cancel()

    def cancel_timers(self) -> None:
        """Cancel every ask timer (the session stops)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _fire(self, agent: str, call_id: str, fire: Callable[[str, str], None]) -> None:
        self._timers.pop((agent, call_id), None)
        fire(agent, call_id)
