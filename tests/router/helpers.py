"""Shared builders for the router tests."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from teamwire.envelope import MessageType
from teamwire.router import (
    Action,
    AgentCreated,
    Event,
    MessageSent,
    RoutingCore,
    TurnStarted,
)
from teamwire.router.demo import LEADER_STEPS, SCRIPTS
from teamwire.router.runtime import ScriptedAgent, Session, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import Store

LEADER = "Team Leader"
UIO = "UI Operator_1"
FSE = "Full-Stack Engineer_1"
UIO2 = "UI Operator_2"


def team(*, start_leader: bool = True, tasks: bool = True, **kwargs: int) -> RoutingCore:
    """A core with the leader (running) and UI Operator_1 / Full-Stack Engineer_1 (tasked)."""
    core = RoutingCore(**kwargs)
    core.handle(AgentCreated(LEADER, "team-leader"))
    if start_leader:
        core.handle(TurnStarted(LEADER))
    core.handle(AgentCreated(UIO, "ui-operator"))
    core.handle(AgentCreated(FSE, "full-stack-engineer"))
    if tasks:
        core.handle(MessageSent(LEADER, UIO, MessageType.TASK, "design the colours", call_id="t1"))
        core.handle(MessageSent(LEADER, FSE, MessageType.TASK, "build the API", call_id="t2"))
    return core


def of_type(actions: Iterable[Action], kind: type) -> list:  # type: ignore[type-arg]
    """The actions of one class, in order."""
    return [a for a in actions if isinstance(a, kind)]


def feed(core: RoutingCore, *events: Event) -> list[Action]:
    """Handle ``events`` in order and return all actions."""
    return core.handle_all(events)


def fingerprint(core: RoutingCore) -> tuple[object, ...]:
    """Everything the core holds, in comparable form (its private state, on purpose)."""
    agents = tuple((a.name, a.role_id, a.role_name, a.agent_id, a.state, a.ask,
                    tuple(a.rounds.items()), a.turns, a.tool_calls, a.task_id, tuple(a.queue),
                    tuple(a.results.items()))
                   for a in core._agents.values())
    counters = {k: v for k, v in vars(core._alloc)["_counters"].items() if v}
    return (agents, tuple(core._role_names.items()), tuple(core._ids), core._seq,
            tuple(core._asks_by_question.items()),
            tuple((k, tuple(v)) for k, v in core._awaiting_output.items() if v),
            tuple(core._questions.items()), tuple(core._received), counters)


async def resume_demo(store: Store) -> Session:
    """The demo's session resumed from ``store`` with its scripted agents, run until idle."""
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(SCRIPTS.get(name, []), clock, tag=role_id.split("-")[0])

    session = await Session.resume(store, leader=ScriptedAgent(LEADER_STEPS, clock, tag="tl"),
                                   drivers=drivers, clock=clock)
    await session.run_until_idle()
    return session


def run_to_idle(session: Session, request: str = "do the thing") -> Session:
    """Start ``session`` with a user request and run it until every agent waits."""
    async def go() -> None:
        await session.start(request)
        await session.run_until_idle()

    asyncio.run(go())
    return session
