"""The asyncio runtime: sessions, drivers, clocks and the protocol tools."""

from __future__ import annotations

from teamwire.router.runtime.clock import Clock, RealClock, VirtualClock
from teamwire.router.runtime.driver import AgentDriver, DriverError, Reply, ToolCall
from teamwire.router.runtime.roles import DEFAULT_ROLES, RoleInfo
from teamwire.router.runtime.scripted import ScriptedAgent, Step
from teamwire.router.runtime.session import Session, error_result

__all__ = [
    "DEFAULT_ROLES",
    "AgentDriver",
    "Clock",
    "DriverError",
    "RealClock",
    "Reply",
    "RoleInfo",
    "ScriptedAgent",
    "Session",
    "Step",
    "ToolCall",
    "VirtualClock",
    "error_result",
]
