"""Shared builders for the router tests."""

from __future__ import annotations

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
