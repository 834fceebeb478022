"""Resuming a running agent whose store kept no conversation (TW-DUR-004, TW-DUR-005).

A store may hold an agent's routing state without any conversation entry: written by a
host that drives the routing core itself and keeps conversations elsewhere, or left so
by an operator's repair. ``Session.resume`` must still pick up the running agent's turn:
with no last reply there is no tool call to finish, so the agent repeats its model call
(on an empty conversation) and its turn goes on from there.
"""

from __future__ import annotations

import asyncio

from teamwire.router import AgentCreated, RoutingCore, TurnStarted
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.states import AgentState
from teamwire.router.store import MemoryStore
from tests.router.helpers import LEADER, run_stored


def _no_sub_agents(name: str, role_id: str) -> AgentDriver:
    raise AssertionError("no sub-agent is created")


def test_a_running_leader_without_a_stored_conversation_repeats_its_model_call() -> None:
    store = MemoryStore()
    run_stored(RoutingCore(), store, AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER))
    assert store.conversations() == {}
    clock = VirtualClock()
    leader = ScriptedAgent([Step("picking up where the restart left off")], clock, tag="tl")

    async def go() -> Session:
        session = await Session.resume(store, leader=leader, drivers=_no_sub_agents,
                                       clock=clock)
        await session.run_until_idle()
        return session

    session = asyncio.run(go())
    assert leader.seen == [[]]
    assert session.conversations[LEADER] == [
        {"role": "assistant", "content": "picking up where the restart left off"}]
    assert session.core.state(LEADER) is AgentState.COMPLETED
    assert store.conversations() == {LEADER: session.conversations[LEADER]}
