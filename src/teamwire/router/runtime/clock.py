"""Clocks for the runtime: a virtual one for tests and demos, the event loop's for real use.

Both track how many of the session's tasks can make progress (``busy``), so
that ``Session.run_until_idle`` knows when everything waits; the virtual clock
then jumps to its next timer instead of sleeping.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable
from typing import Protocol


class Activity:
    """Counts the session's tasks that can make progress."""

    def __init__(self) -> None:
        self.busy = 0
        self._idle: asyncio.Event | None = None

    def _event(self) -> asyncio.Event:
        if self._idle is None:
            self._idle = asyncio.Event()
            self._idle.set()
        return self._idle

    def start(self) -> None:
        """One more task can run (called by whoever makes it runnable)."""
        self.busy += 1
        self._event().clear()

    def stop(self) -> None:
        """One task blocks or finishes."""
        self.busy -= 1
        if self.busy <= 0:
            self.busy = 0
            self._event().set()

    async def wait_idle(self) -> None:
        """Return once no task can make progress."""
        while self.busy > 0:
            await self._event().wait()
            await asyncio.sleep(0)


class Timer(Protocol):
    """A scheduled callback."""

    def cancel(self) -> None:
        """Do not run the callback."""


class Clock(Protocol):
    """Time as the runtime sees it."""

    activity: Activity

    def now(self) -> float:
        """Seconds since the clock started."""

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` after ``delay`` seconds."""

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds (the caller counts as blocked meanwhile)."""

    def advance(self) -> bool:
        """Run the earliest timers at once if the clock is virtual; False if nothing ran."""

    def skip_to(self, time: float) -> None:
        """Make ``now()`` at least ``time`` (a session resumed at its stored time)."""


class _VirtualTimer:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualClock:
    """A clock that only moves when everything waits: it jumps to the next timer."""

    def __init__(self) -> None:
        self.activity = Activity()
        self._now = 0.0
        self._seq = 0
        self._heap: list[tuple[float, int, _VirtualTimer, Callable[[], None]]] = []

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _VirtualTimer()
        self._seq += 1
        heapq.heappush(self._heap, (self._now + max(delay, 0.0), self._seq, timer, callback))
        return timer

    async def sleep(self, delay: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                self.activity.start()
                future.set_result(None)

        self.call_later(delay, wake)
        self.activity.stop()
        try:
            await future
        except asyncio.CancelledError:
            if not future.done():
                self.activity.start()  # whoever cancelled us counts us as runnable again
            raise

    def skip_to(self, time: float) -> None:
        self._now = max(self._now, time)

    def advance(self) -> bool:
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        if not self._heap:
            return False
        when = self._heap[0][0]
        self._now = max(self._now, when)
        while self._heap and self._heap[0][0] == when:
            _, _, timer, callback = heapq.heappop(self._heap)
            if not timer.cancelled:
                callback()
        return True


class RealClock:
    """The event loop's clock."""

    def __init__(self) -> None:
        self.activity = Activity()
        self._start: float | None = None
        self._offset = 0.0

    def _loop(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._start is None:
            self._start = loop.time()
        return loop

    def now(self) -> float:
        loop = self._loop()
        assert self._start is not None
        return loop.time() - self._start + self._offset

    def skip_to(self, time: float) -> None:
        self._offset = max(self._offset, time - self.now() + self._offset)

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        def run() -> None:
            self.activity.stop()
            callback()

        self.activity.start()  # a pending timer keeps the session from being idle
        handle = self._loop().call_later(delay, run)
        activity = self.activity

        class _Handle:
            def cancel(self) -> None:
                if not handle.cancelled():
                    handle.cancel()
                    activity.stop()

        return _Handle()

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)

    def advance(self) -> bool:
        return False
