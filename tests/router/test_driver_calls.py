"""What a session hands its drivers at each model call (TW-TOOL-001, TW-TOOL-002).

A driver may serve several agents (one endpoint client for a whole team): each call
names the agent it is for, with that agent's conversation and that agent's tool set, the
leader's nine tools for the Team Leader and the sub-agent tools for a sub-agent.
"""

from __future__ import annotations

from typing import Any

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.clock import Clock
from teamwire.router.runtime.driver import AgentDriver, Reply
from tests.router.helpers import LEADER, UIO, run_to_idle

LEADER_TOOLS = ["create_sub_agent", "terminate_sub_agent", "send_message_to_sub_agent",
                "ask_sub_agent", "answer_sub_agent_question", "list_active_sub_agents",
                "get_sub_agent_status", "create_custom_agent", "list_agents"]
SUB_AGENT_TOOLS = ["ask_master", "ask_other_agent", "answer_other_agent",
                   "list_active_sub_agents"]


class Recording(ScriptedAgent):
    """A scripted agent that notes, per call, the agent named, the start of its system
    prompt and the names of the tools offered."""

    def __init__(self, steps: list[Step], clock: Clock, tag: str,
                 calls: list[tuple[str, str, list[str]]]) -> None:
        super().__init__(steps, clock, tag=tag)
        self.calls = calls

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        self.calls.append((agent, messages[0]["content"][:12],
                           [t["function"]["name"] for t in tools]))
        return await super().complete(agent, messages, tools)


def test_each_model_call_names_its_agent_with_its_tools() -> None:
    clock = VirtualClock()
    calls: list[tuple[str, str, list[str]]] = []

    def drivers(name: str, role_id: str) -> AgentDriver:
        return Recording([Step("designed", delay=2.0)], clock, "uio", calls)

    leader = Recording([Step(None, (("create_sub_agent", {"agent_id": 1,
                                                          "role_id": "ui-operator",
                                                          "task": "design"}),)),
                        Step("waiting", delay=5.0)], clock, "tl", calls)
    run_to_idle(Session(leader=leader, drivers=drivers, clock=clock))
    assert calls[:3] == [
        (LEADER, "You are the ", LEADER_TOOLS),  # the reply that creates UI Operator_1
        (LEADER, "You are the ", LEADER_TOOLS),  # "waiting", while UI Operator_1 works
        (UIO, "You are a UI", SUB_AGENT_TOOLS),
    ]
    assert all(agent == LEADER for agent, _, _ in calls[3:])
