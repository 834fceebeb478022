"""The store keeps the deadline of a turn only while the turn lasts (TW-DUR-004,
TW-ROUTE-018).

A sub-agent's turn deadline is stored so that a session resumed after a restart gives a
running turn only the time it has left. Once the turn has ended the deadline means
nothing: the stored deadlines must not name the agent any more, or the store describes a
turn that is no longer running.
"""

from __future__ import annotations

from typing import Any

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver, Reply
from teamwire.router.store import MemoryStore
from tests.router.helpers import UIO, run_to_idle


def test_an_ended_turn_leaves_no_stored_deadline() -> None:
    clock = VirtualClock()
    store = MemoryStore()
    seen: list[dict[str, float]] = []

    class Watching(ScriptedAgent):
        async def complete(self, agent: str, messages: list[dict[str, Any]],
                           tools: list[dict[str, Any]]) -> Reply:
            seen.append(store.settings().get("turn_deadlines", {}))
            return await super().complete(agent, messages, tools)

    def drivers(name: str, role_id: str) -> AgentDriver:
        return Watching([Step("the page is designed", delay=3.0)], clock, tag="uio")

    leader = ScriptedAgent([Step(None, (("create_sub_agent", {"agent_id": 1,
                                                              "role_id": "ui-operator",
                                                              "task": "design",
                                                              "timeout_seconds": 30}),)),
                            Step("waiting for the report")], clock, tag="tl")
    run_to_idle(Session(leader=leader, drivers=drivers, clock=clock, store=store))
    assert seen == [{UIO: 31.0}]  # created at 1.0 with 30 seconds to go
    settings = store.settings()
    assert settings["turn_timeouts"] == {UIO: 30.0}
    assert settings["turn_deadlines"] == {}
