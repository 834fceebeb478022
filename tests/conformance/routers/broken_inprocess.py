"""The reference router with one mistake made on purpose, for certification in process
(``teamwire certify --in-process tests/conformance/routers/broken_inprocess.py:drop_inline``).

- ``drop_inline``: a message that reaches a running agent is routed (the sender is told it
  went inline) but never put into the receiver's conversation (TW-ROUTE-008 broken);
- ``newest_first``: the messages of one delivery are put into the conversation newest first
  (TW-ROUTE-005, TW-ROUTE-008 broken);
- ``timers_first``: a model reply is handled only after every timer due at the instant it
  arrived, so that an answer observed at its ask's timer loses to the timer (TW-ROUTE-028
  broken);
- ``timers_reversed``: timers due at one instant run newest first (TW-ROUTE-028 broken).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from teamwire.conformance.inprocess import HarnessClock, InProcessSetup, reference_factory
from teamwire.router.actions import Action, AppendInline, StartTurn
from teamwire.router.runtime import Session
from teamwire.router.runtime.clock import Timer
from teamwire.router.runtime.driver import AgentDriver, Reply


class _DropsInline(Session):
    def _place(self, actions: list[Action]) -> None:
        super()._place([a for a in actions if not isinstance(a, AppendInline)])


class _NewestFirst(Session):
    def _place(self, actions: list[Action]) -> None:
        turned: list[Action] = []
        for action in actions:
            if isinstance(action, (AppendInline, StartTurn)) and len(action.messages) > 1:
                action = replace(action, messages=tuple(reversed(action.messages)))
            turned.append(action)
        super()._place(turned)


drop_inline = reference_factory(_DropsInline)
newest_first = reference_factory(_NewestFirst)


class _TimersFirst:
    """A model client that, once a reply has come, runs the timers already due before the
    router sees the reply: the mistake of a loop that polls its timers before its input."""

    def __init__(self, model: AgentDriver, clock: HarnessClock) -> None:
        self._model = model
        self._clock = clock

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        reply = await self._model.complete(agent, messages, tools)
        due = self._clock.next_timer()
        while due is not None and due <= self._clock.now():
            self._clock.advance()
            due = self._clock.next_timer()
        return reply


async def timers_first(setup: InProcessSetup) -> object:
    assert isinstance(setup.clock, HarnessClock)
    return await reference_factory()(
        replace(setup, model=_TimersFirst(setup.model, setup.clock)))


class _Cancelled:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class _NewestFirstClock:
    """The harness's clock, but the timers of one instant are kept in a stack: one timer of
    the harness's per instant runs them newest first."""

    def __init__(self, clock: HarnessClock) -> None:
        self._clock = clock
        self.activity = clock.activity
        self._stacks: dict[float, list[tuple[_Cancelled, Callable[[], None]]]] = {}

    def now(self) -> float:
        return self._clock.now()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        when = self._clock.now() + max(delay, 0.0)
        handle = _Cancelled()
        stack = self._stacks.get(when)
        if stack is None:
            stack = self._stacks[when] = []

            def run() -> None:
                for timer, due in reversed(self._stacks.pop(when)):
                    if not timer.cancelled:
                        due()

            self._clock.call_later(delay, run)
        stack.append((handle, callback))
        return handle

    async def sleep(self, delay: float) -> None:
        await self._clock.sleep(delay)

    def advance(self) -> bool:
        return self._clock.advance()

    def skip_to(self, time: float) -> None:
        self._clock.skip_to(time)


async def timers_reversed(setup: InProcessSetup) -> object:
    assert isinstance(setup.clock, HarnessClock)
    return await reference_factory()(
        replace(setup, clock=_NewestFirstClock(setup.clock)))  # type: ignore[arg-type]
