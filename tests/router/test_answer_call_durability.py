"""A Team Leader's answer_sub_agent_question call, run by the runtime, keeps its result
across a restart (TW-DUR-003).

The stored Answer carries the id of the tool call that gave it, so a router restarted from
its store knows that call's acknowledgment, which a call run again after a crash gets back
instead of answering twice or failing because the ask is already answered.
"""

from __future__ import annotations

import asyncio
import json

from teamwire.envelope import MessageType
from teamwire.router import AcknowledgeSend, Restarted, RoutingCore
from teamwire.router.runtime import ScriptedAgent, Session, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import MemoryStore
from tests.router.helpers import ANSWERING_LEADER, LEADER, UIO, asking_operator

LEADER_STEPS = ANSWERING_LEADER
UIO_STEPS = asking_operator("the palette is done")


def test_the_answer_call_is_acknowledged_again_after_a_restart() -> None:
    clock = VirtualClock()
    store = MemoryStore()
    uio = ScriptedAgent(UIO_STEPS, clock, tag="uio")

    def drivers(name: str, role_id: str) -> AgentDriver:
        return uio

    session = Session(leader=ScriptedAgent(LEADER_STEPS, clock, tag="tl"), drivers=drivers,
                      store=store, clock=clock)

    async def go() -> None:
        await session.start("pick a palette")
        await asyncio.wait_for(session.run_until_idle(), timeout=20)  # a guard: virtual time

    asyncio.run(go())
    [call_id] = [call["id"] for message in session.conversations[LEADER]
                 for call in message.get("tool_calls") or ()
                 if call["function"]["name"] == "answer_sub_agent_question"]
    [result] = [m for m in session.conversations[LEADER]
                if m.get("role") == "tool" and m.get("tool_call_id") == call_id]
    assert json.loads(result["content"])["success"] is True
    [answer] = [h for h in store.history() if h.kind is MessageType.ANSWER]
    assert (answer.sender, answer.receiver) == (LEADER, UIO)

    restored = RoutingCore()
    restored.handle(Restarted(store.load()))
    acknowledged = restored.call_result(LEADER, call_id)
    assert isinstance(acknowledged, AcknowledgeSend)
    assert (acknowledged.message_id, acknowledged.receiver) == (answer.message_id, UIO)
    assert acknowledged == session.core.call_result(LEADER, call_id)
