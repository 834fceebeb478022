"""The runtime's real clock (`teamwire run`): the event loop's time, seen from the session's
start, shifted by skips; timers that count as activity until they fire or are cancelled.

Time is the loop's, replaced here by a hand-moved value: nothing waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from teamwire.router.runtime.clock import RealClock


class _Time:
    """A loop clock the test moves by hand."""

    def __init__(self, start: float) -> None:
        self.value = start

    def __call__(self) -> float:
        return self.value


def _on_loop(check: Callable[[asyncio.AbstractEventLoop, _Time], None]) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        time = _Time(1000.0)
        loop.time = time  # type: ignore[method-assign]
        check(loop, time)

    asyncio.run(main())


def test_now_counts_from_the_first_reading_and_follows_the_loop() -> None:
    def check(loop: asyncio.AbstractEventLoop, time: _Time) -> None:
        clock = RealClock()
        time.value = 1500.0
        assert clock.now() == 0.0
        time.value = 1512.5
        assert clock.now() == 12.5
        assert RealClock().now() == 0.0  # each clock starts at its own first reading

    _on_loop(check)


def test_skip_to_moves_now_forward_never_back() -> None:
    def check(loop: asyncio.AbstractEventLoop, time: _Time) -> None:
        clock = RealClock()
        assert clock.now() == 0.0
        time.value += 5.0
        clock.skip_to(61.0)  # a resumed session continues from its stored time
        assert clock.now() == 61.0
        time.value += 2.0
        assert clock.now() == 63.0
        clock.skip_to(10.0)
        assert clock.now() == 63.0

    _on_loop(check)


def test_a_pending_timer_is_activity_until_it_runs_or_is_cancelled() -> None:
    def check(loop: asyncio.AbstractEventLoop, time: _Time) -> None:
        clock = RealClock()
        fired: list[str] = []
        first = clock.call_later(30.0, lambda: fired.append("first"))
        clock.call_later(45.0, lambda: fired.append("second"))
        assert clock.activity.busy == 2
        scheduled = sorted(loop._scheduled, key=lambda h: h.when())  # type: ignore[attr-defined]
        assert [h.when() for h in scheduled] == [1030.0, 1045.0]
        first.cancel()
        assert clock.activity.busy == 1
        first.cancel()  # a second cancel changes nothing
        assert clock.activity.busy == 1
        scheduled[1]._run()  # the loop runs the second timer
        assert fired == ["second"]
        assert clock.activity.busy == 0
        assert clock.advance() is False  # real time cannot be advanced by hand

    _on_loop(check)


def test_sleep_waits_on_the_loop() -> None:
    async def main() -> float:
        clock = RealClock()
        await clock.sleep(0)
        return clock.now()

    assert asyncio.run(main()) >= 0.0
