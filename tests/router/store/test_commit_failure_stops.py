"""A commit that no tool call can report stops the whole session (TW-DUR-007).

The session module: "any other failed commit, or a second failure in a row, stops the
session, and ``run_until_idle`` raises ``StoreFailure``. ``Session.resume`` continues from
the store." Stopped means stopped: no other agent's model call, reply or timer reaches the
store afterwards, however much time passes, or the store would hold a session that the
resumed one contradicts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence

import pytest

from teamwire.router.actions import Action, FailToolCall
from teamwire.router.errors import StoreFailure
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import MemoryStore
from tests.router.helpers import FSE, UIO


class TimeoutRefusingStore(MemoryStore):
    """Refuses every commit that times out an ask; counts the commits it took."""

    def __init__(self) -> None:
        super().__init__()
        self.commits = 0

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        actions = [a for b in batches for a in b]
        if any(isinstance(a, FailToolCall) and a.code == "timeout" for a in actions):
            raise OSError("disk full")
        super().apply_batch([actions])
        self.commits += 1


def test_a_refused_timer_commit_stops_every_agent() -> None:
    """UI Operator_1's ask times out at t=12 and that commit is refused, while Full-Stack
    Engineer_1's model call runs until t=102: run_until_idle raises StoreFailure, and the
    engineer's reply, its turn timer and everything else stay out of the store."""
    clock = VirtualClock()
    store = TimeoutRefusingStore()
    subs = {UIO: [Step(None, (("ask_master", {"question": "Brand colour?",
                                              "question_id": "ask_uio_001"}),))],
            FSE: [Step("The API is done.", delay=100.0)]}

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs[name], clock, tag=role_id[:3])

    leader = ScriptedAgent([Step(None, (
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"}),
        ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer", "task": "api"})),
    ), Step("reading", delay=500.0)], clock, tag="tl")  # busy: the ask waits in its queue
    session = Session(leader=leader, drivers=drivers, store=store, clock=clock, ask_timeout=10)

    async def go() -> None:
        await session.start("a sign-up page")
        with pytest.raises(StoreFailure, match="disk full"):
            await session.run_until_idle()
        assert isinstance(session.failure, StoreFailure)
        stored, now = store.commits, clock.now()
        assert now == pytest.approx(12.0)
        # time goes on (as it does on a real clock): nothing may run any more
        for _ in range(20):
            if not clock.advance():
                break
            for _ in range(5):
                await asyncio.sleep(0)
        assert clock.now() >= 101.0  # the engineer's model call would have returned
        assert store.commits == stored
        assert all(m.get("content") != "The API is done." for m in session.conversations[FSE])
        with pytest.raises(StoreFailure):
            await session.run_until_idle()  # still stopped
        await session.stop()

    asyncio.run(go())
    assert [m["role"] for m in store.conversations()[FSE]] == ["system", "user"]
    assert session.core.state(FSE).value == "running"
