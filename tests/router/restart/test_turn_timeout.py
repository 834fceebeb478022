"""A sub-agent's turn timeout (create_sub_agent's ``timeout_seconds``) outlives a restart.

TW-DUR-004 (a resumed session restores the turn timeouts), TW-ROUTE-018 (a turn that runs
past its timeout is stopped and the leader gets a run result of state ``timeout``): a turn
that starts only after the restart is bound by the timeout the leader gave at creation, not
by the default of 600 seconds. For the memory and the SQLite store; time is virtual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from teamwire.envelope import parse
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver, Reply, ToolCall
from teamwire.router.store import MemoryStore, SQLiteStore, Store
from tests.router.helpers import LEADER, UIO

StoreMaker = Callable[[], Store]


@pytest.fixture(params=["memory", "sqlite"])
def reopen(request: pytest.FixtureRequest, tmp_path: Path) -> StoreMaker:
    """The store of the first life, and (called again) the same store after the restart."""
    if request.param == "memory":
        memory = MemoryStore()
        return lambda: memory
    return lambda: SQLiteStore(tmp_path / "router.db")


class OneCall:
    """A leader that makes one tool call in its first model call, then ends every turn."""

    def __init__(self, call: ToolCall) -> None:
        self.call: ToolCall | None = call

    async def complete(self, agent: str, messages: list[dict[str, object]],
                       tools: list[dict[str, object]]) -> Reply:
        call, self.call = self.call, None
        return Reply(None, (call,)) if call is not None else Reply()


def _operator(clock: VirtualClock) -> Callable[[str, str], AgentDriver]:
    # a quick first turn; the second turn's model call takes 100 s
    return lambda name, role_id: ScriptedAgent(
        [Step("first part done"), Step("second part done", delay=100.0)], clock, tag="uio")


def test_a_turn_after_the_restart_keeps_the_timeout_given_at_creation(
        reopen: StoreMaker) -> None:
    async def first_life() -> None:
        clock = VirtualClock()
        leader = OneCall(ToolCall("call_1", "create_sub_agent",
                                  '{"agent_id": 1, "role_id": "ui-operator", "task": "design",'
                                  ' "timeout_seconds": 30}'))
        session = Session(leader=leader, drivers=_operator(clock), store=reopen(), clock=clock)
        await session.start("a sign-up page")
        await session.run_until_idle()
        assert session.core.state(UIO).value == "completed"
        await session.stop()

    async def second_life() -> Session:
        clock = VirtualClock()
        leader = OneCall(ToolCall("call_2", "send_message_to_sub_agent",
                                  '{"agent_id": 1, "message": "now the second part"}'))
        session = await Session.resume(reopen(), leader=leader, drivers=_operator(clock),
                                       clock=clock)
        await session.start("and the second part")
        await session.run_until_idle()
        return session

    asyncio.run(first_life())
    session = asyncio.run(second_life())
    completions = [parse(m["content"]) for m in session.conversations[LEADER]
                   if m["role"] == "user" and m["content"].startswith("来自 UI Operator_1")]
    assert len(completions) == 2
    assert 'state="timeout"' in completions[-1].content
    assert "30 seconds" in completions[-1].content
    assert all(m.get("content") != "second part done" for m in session.conversations[UIO])
