"""TW-ROUTE-024: nothing is appended to a terminated sub-agent's conversation, and the linter
takes the calls left without a result there as the spec says."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from teamwire.router.runtime import DriverError, Reply, ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.validator import lint_value
from tests.router.helpers import LEADER, UIO, run_to_idle


def _terminated_while_asking() -> Session:
    # UI Operator_1 asks the leader, with a second call behind the ask; the leader terminates
    # it instead of answering.
    clock = VirtualClock()
    subs = {UIO: [Step("asking", (("ask_master", {"question": "Which palette?",
                                                  "question_id": "ask_uio_001"}),
                                  ("list_active_sub_agents", {})), delay=1.0),
                  Step("never said")]}
    leader = [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                                "task": "design"}),)),
              Step(None, (("terminate_sub_agent", {"agent_id": 1}),), delay=10.0),
              Step("done")]

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return run_to_idle(Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers,
                               clock=clock))


def test_the_conversation_ends_with_the_reply_whose_calls_were_open() -> None:
    session = _terminated_while_asking()
    conversation = session.conversations[UIO]
    assert [m["role"] for m in conversation] == ["system", "user", "assistant"]
    assert [c["function"]["name"] for c in conversation[-1]["tool_calls"]] == [
        "ask_master", "list_active_sub_agents"]
    assert session.core.state(UIO).value == "terminated"
    # What the ask sent before the termination still arrived (TW-ROUTE-021).
    assert any(m["role"] == "user" and m["content"].startswith("来自 UI Operator_1 的提问")
               for m in session.conversations[LEADER])


def test_the_linter_reports_nothing_about_those_calls() -> None:
    assert lint_value(_terminated_while_asking().bundle()).findings == []


class _SwallowsCancellation:
    """A driver that turns the cancellation of its request into an answer or an error, as
    some HTTP clients do."""

    def __init__(self, clock: VirtualClock, fails: bool) -> None:
        self.clock, self.fails = clock, fails

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        try:
            await self.clock.sleep(10)
        except asyncio.CancelledError:
            if self.fails:
                raise DriverError("request aborted") from None
            return Reply("Late words.")
        return Reply("Done.")


@pytest.mark.parametrize("fails", [False, True])
def test_a_driver_that_swallows_the_cancellation_adds_nothing(fails: bool) -> None:
    clock = VirtualClock()
    leader = [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                                "task": "design"}),)),
              Step(None, (("terminate_sub_agent", {"agent_id": 1}),), delay=2.0),
              Step("done")]
    notes: list[str] = []
    session = run_to_idle(Session(
        leader=ScriptedAgent(leader, clock, tag="tl"),
        drivers=lambda name, role_id: _SwallowsCancellation(clock, fails), clock=clock,
        listener=lambda kind, data: notes.append(kind)))
    assert [m["role"] for m in session.conversations[UIO]] == ["system", "user"]
    assert "turn-failed" not in notes
    assert lint_value(session.bundle()).findings == []
