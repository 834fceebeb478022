"""The session tells its listener about every delivery, and where it was placed
(TW-ROUTE-007, TW-TOOL-020, TW-TOOL-034).

A host shows the session's traffic through the listener: each ``"deliver"`` names the
receiver, the routed message and its placement, ``user`` for a message that enters the
receiver's conversation as a user message (a Task, an Ask, a completion report) and
``tool`` for the Answer that becomes the result of the asker's ask call.
"""

from __future__ import annotations

from typing import Any

from teamwire.router.runtime import ScriptedAgent, Session, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import ANSWERING_LEADER, LEADER, UIO, asking_operator, run_to_idle

LEADER_STEPS = ANSWERING_LEADER
UIO_STEPS = asking_operator("using blue")


def test_each_delivery_is_told_with_its_message_and_placement() -> None:
    clock = VirtualClock()
    told: list[tuple[str, dict[str, Any]]] = []

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(UIO_STEPS, clock, tag="uio")

    run_to_idle(Session(leader=ScriptedAgent(LEADER_STEPS, clock, tag="tl"), drivers=drivers,
                        clock=clock, listener=lambda kind, data: told.append((kind, data))))
    deliveries = [(data["receiver"], data["message"].id, data["message"].sender,
                   data["message"].content, data["placement"])
                  for kind, data in told if kind == "deliver"]
    assert deliveries == [
        (UIO, "task_001", LEADER, "design", "user"),
        (LEADER, "ask_uio_001", UIO, "which palette?", "user"),
        (UIO, "ans_tl_001", LEADER, "blue", "tool"),
        (LEADER, "out_uio_001", UIO, "using blue", "user"),
    ]
    assert {kind for kind, _ in told} == {"deliver"}
