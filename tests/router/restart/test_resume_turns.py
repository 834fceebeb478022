"""How a turn that a restart interrupted goes on (TW-DUR-005).

"A running agent finishes the tool calls of its last reply that have no result yet ... and an
agent whose last reply ended its turn ends it": a call that came after an ask in the same reply
still runs once the ask is answered, and each call of the reply gets exactly one result, in
order (TW-ROUTE-018's invariant: the conversation stays one a model endpoint accepts); an agent
stored in the middle of ending its turn ends it without another model call.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterable, Sequence
from typing import Any

from teamwire.envelope import MessageType
from teamwire.router import (
    AgentCreated,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    RoutingCore,
    TurnStarted,
)
from teamwire.router.actions import Action, AppendConversation
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver, Reply, ToolCall
from teamwire.router.store import MemoryStore
from tests.router.helpers import LEADER, UIO


class Answering:
    """The resumed leader: answers the operator's question in its first model call."""

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        self.calls += 1
        if self.calls > 1:
            return Reply()
        return Reply(None, (ToolCall("r1", "answer_sub_agent_question", json.dumps(
            {"agent_id": 1, "question_id": "ask_uio_001", "answer": "blue"})),))


def _operator(clock: VirtualClock) -> Any:
    steps = [Step(None, (("ask_master", {"question": "Brand colour?",
                                         "question_id": "ask_uio_001"}),
                         ("list_active_sub_agents", {}))),
             Step("Colours chosen.")]
    return lambda name, role_id: ScriptedAgent(steps, clock, tag="uio")


def test_the_calls_after_an_ask_run_once_it_is_answered_after_a_restart() -> None:
    store = MemoryStore()

    async def first_life() -> None:
        clock = VirtualClock()
        # the leader is still in a model call when the ask comes, so the ask waits in its
        # queue: a turn that had received it and ended would fail it (TW-ROUTE-030)
        leader = ScriptedAgent([Step(None, (("create_sub_agent", {
            "agent_id": 1, "role_id": "ui-operator", "task": "colours"}),)),
            Step("reading", delay=1000)], clock, tag="tl")
        session = Session(leader=leader, drivers=_operator(clock), store=store, clock=clock)
        await session.start("a sign-up page")
        while True:  # until the operator waits for its answer
            await clock.activity.wait_idle()
            if session.core.state(UIO).value == "waiting" or not clock.advance():
                break
            await asyncio.sleep(0)
        assert session.core.state(UIO).value == "waiting"
        await session.stop()

    async def second_life() -> Session:
        clock = VirtualClock()
        session = await Session.resume(store, leader=Answering(), drivers=_operator(clock),
                                       clock=clock)
        await session.run_until_idle()  # the leader's interrupted model call is made again
        return session

    asyncio.run(first_life())
    session = asyncio.run(second_life())
    conversation = session.conversations[UIO]
    tools = [m for m in conversation if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_uio_1", "call_uio_2"]
    assert tools[0]["content"].startswith("来自 Team Leader 的回答")
    listed = json.loads(tools[1]["content"])
    assert listed["success"] is True and [a["display_name"] for a in listed["agents"]] == [UIO]
    assert conversation[-1] == {"role": "assistant", "content": "Colours chosen."}
    assert session.core.state(UIO).value == "completed"


class Recording(MemoryStore):
    def apply_actions(self, actions: Sequence[Action]) -> None:
        self.apply_batch([actions])


class Never:
    """A driver that must not be called."""

    def __init__(self) -> None:
        self.called = 0

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        self.called += 1
        return Reply("should not be here")


def test_an_agent_stored_while_ending_its_turn_ends_it_on_resume() -> None:
    """A host that drives the core itself stored the operator's final reply (its state is
    closing) and crashed before the turn's end: the resumed session ends the turn, the
    operator is completed, and its driver is never asked for another reply."""
    store = Recording()
    core = RoutingCore()
    for event in (AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
                  AgentCreated(UIO, "ui-operator"),
                  MessageSent(LEADER, UIO, MessageType.TASK, "colours", call_id="t1"),
                  ModelCallStarted(UIO), OutputEmitted(UIO, "Colours chosen.", final=True)):
        store.apply_actions(core.handle(event))
    clock = VirtualClock()
    operator = Never()
    made: dict[str, AgentDriver] = {}

    def drivers(name: str, role_id: str) -> AgentDriver:
        made[name] = operator
        return operator

    errors: list[dict[str, Any]] = []

    async def go() -> Session:
        # a turn task that dies of an exception nobody handles is reported here
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: errors.append(
            context))
        session = await Session.resume(store, leader=ScriptedAgent([], clock), drivers=drivers,
                                       clock=clock)
        await session.run_until_idle()
        gc.collect()
        await asyncio.sleep(0)
        return session

    session = asyncio.run(go())
    assert errors == []
    assert made == {UIO: operator}
    assert session.failure is None
    assert session.core.state(UIO).value == "completed"
    assert operator.called == 0
    assert [e["event"] for e in session.events if e["data"].get("agent") == UIO] == ["TurnEnded"]


class AnswerWatching(MemoryStore):
    """Records, for each commit that stores an ANSWER, the conversation entries it stores."""

    def __init__(self) -> None:
        super().__init__()
        self.with_answer: list[list[tuple[str, str]]] = []

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        actions = [a for b in batches for a in b]
        if any(isinstance(a, PersistMessage) and a.message.kind is MessageType.ANSWER
               for a in actions):
            self.with_answer.append([(a.agent, a.message["role"]) for a in actions
                                     if isinstance(a, AppendConversation)])
        super().apply_batch([actions])


def test_an_answer_given_right_after_a_restart_commits_with_the_askers_result() -> None:
    """The session module: "an ask's result commits with the answer that resolves it", also
    when the answer comes before the waiting asker's turn has run again after the restart
    (the leader, running at the crash with the ask queued for it, answers at once). The ask
    is then not executed a second time."""
    store = AnswerWatching()
    steps = [Step(None, (("ask_master", {"question": "Brand colour?",
                                         "question_id": "ask_uio_001"}),)),
             Step("Colours chosen.")]

    async def first_life() -> None:
        clock = VirtualClock()
        leader = ScriptedAgent([Step(None, (("create_sub_agent", {
            "agent_id": 1, "role_id": "ui-operator", "task": "colours"}),)),
            Step("later", delay=10.0)], clock, tag="tl")
        session = Session(leader=leader, store=store, clock=clock,
                          drivers=lambda name, role: ScriptedAgent(steps, clock, tag="uio"))
        await session.start("a sign-up page")
        while True:  # until the operator waits; the leader is still in its model call
            await clock.activity.wait_idle()
            if session.core.state(UIO).value == "waiting" or not clock.advance():
                break
            await asyncio.sleep(0)
        assert session.core.state(LEADER).value == "running"
        await session.stop()

    async def second_life() -> Session:
        clock = VirtualClock()
        session = await Session.resume(
            store, leader=Answering(), clock=clock,
            drivers=lambda name, role: ScriptedAgent(steps, clock, tag="uio"))
        await session.run_until_idle()
        return session

    asyncio.run(first_life())
    session = asyncio.run(second_life())
    [answered] = store.with_answer  # one answer, committed once
    assert (UIO, "tool") in answered and (LEADER, "tool") in answered
    restarted = [e["event"] for e in session.events].index("Restarted")
    assert [e for e in session.events[restarted:]
            if e["event"] == "ToolCallBlocked"] == []
    assert session.conversations[UIO][-1] == {"role": "assistant", "content": "Colours chosen."}
