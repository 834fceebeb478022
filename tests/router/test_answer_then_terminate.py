"""An asker answered and terminated in one leader reply (TW-TOOL-010, TW-TOOL-014,
TW-ROUTE-024).

The leader answers a sub-agent's question and terminates that sub-agent in the same
reply: the answer wakes the asker, the termination stops it before it runs again. The
asker's ask keeps its answer, nothing more enters its conversation, and the session still
comes to rest: ``run_until_idle`` returns once the leader's turn has ended (the stopped
asker must not count as an agent that can still make progress).
"""

from __future__ import annotations

import asyncio

from teamwire.envelope import parse
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.states import AgentState
from tests.router.helpers import LEADER, UIO

LEADER_STEPS = [
    Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                      "task": "design"}),)),
    Step(None, (("list_active_sub_agents", {}),), delay=5.0),  # the ask arrives meanwhile
    Step(None, (("answer_sub_agent_question", {"agent_id": 1, "question_id": "ask_uio_001",
                                               "answer": "blue"}),
                ("terminate_sub_agent", {"agent_id": 1}))),
    Step("the palette is blue"),
]
UIO_STEPS = [
    Step(None, (("ask_master", {"question": "which palette?", "question_id": "ask_uio_001"}),)),
    Step("this reply never comes"),
]


def test_the_session_comes_to_rest_after_answering_and_terminating_the_asker() -> None:
    clock = VirtualClock()
    uio = ScriptedAgent(UIO_STEPS, clock, tag="uio")

    def drivers(name: str, role_id: str) -> AgentDriver:
        return uio

    session = Session(leader=ScriptedAgent(LEADER_STEPS, clock, tag="tl"), drivers=drivers,
                      clock=clock)

    async def go() -> None:
        await session.start("pick a palette")
        # a guard only: the session must rest long before this (it runs on virtual time)
        await asyncio.wait_for(session.run_until_idle(), timeout=20)

    asyncio.run(go())
    assert session.core.state(UIO) is AgentState.TERMINATED
    assert session.core.state(LEADER) is AgentState.COMPLETED
    assert session.conversations[LEADER][-1] == {"role": "assistant",
                                                 "content": "the palette is blue"}
    assert len(uio.seen) == 1  # no model call after the termination
    *_, call, result = session.conversations[UIO]
    assert [c["id"] for c in call["tool_calls"]] == ["call_uio_1"]
    assert result["tool_call_id"] == "call_uio_1"
    answer = parse(result["content"])
    assert (answer.question_id, answer.content) == ("ask_uio_001", "blue")
    assert clock.now() == 8.0
