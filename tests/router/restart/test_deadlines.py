"""Deadlines survive a restart: a turn or an ask that was running when the router crashed
ends at the absolute time it would have ended without the crash, not a whole timeout after
the restart.

TW-ROUTE-017, TW-ROUTE-018 and TW-DUR-004 (every pending ask with its deadline; the runtime
keeps its turn deadlines beside it), for the memory and the SQLite store. Time is virtual:
nothing sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from teamwire.envelope import parse
from teamwire.router import (
    FailToolCall,
    PersistAgent,
    PersistMessage,
    Restarted,
    RoutingCore,
    StartTimer,
    TimerFired,
    ToolCallBlocked,
)
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import MemoryStore, SQLiteStore, Store
from tests.router.helpers import FSE, LEADER, UIO, of_type, run_stored, team

TURN_TIMEOUT = 100.0
CRASH_AT = 61.0

StoreMaker = Callable[[], Store]


@pytest.fixture(params=["memory", "sqlite"])
def reopen(request: pytest.FixtureRequest, tmp_path: Path) -> StoreMaker:
    """Gives the store of the first life, then (called again) the same store after a crash:
    the very MemoryStore object, or the SQLite file opened afresh."""
    if request.param == "memory":
        memory = MemoryStore()
        return lambda: memory
    return lambda: SQLiteStore(tmp_path / "router.db", synchronous="normal")


def _leader_steps(crash_at: float) -> list[Step]:
    # t=1: UI Operator_1 is created with a 100 s turn; t=crash_at: the leader's turn ends, a
    # commit that puts the session's time into the store
    return [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                              "task": "slow", "timeout_seconds": 100}),)),
            Step("waiting for the operator", delay=crash_at - 1.0)]


def _drivers(clock: VirtualClock, crash_at: float = CRASH_AT
             ) -> tuple[Callable[[str, str], AgentDriver], ScriptedAgent]:
    """The sub-agents' driver factory and the leader's driver."""
    def drivers(name: str, role_id: str) -> AgentDriver:
        # one model call that takes far longer than the turn may last
        return ScriptedAgent([Step("thinking very long", delay=10_000.0)], clock, tag="uio")

    return drivers, ScriptedAgent(_leader_steps(crash_at), clock, tag="tl")


async def _run_until(session: Session, time: float) -> None:
    """Run on virtual time until every agent waits and the clock has reached ``time``."""
    clock = session.clock
    while True:
        await clock.activity.wait_idle()
        if clock.now() >= time or not clock.advance():
            return
        await asyncio.sleep(0)


@pytest.mark.parametrize("crash_at", [CRASH_AT, 100.5])
def test_a_resumed_turn_ends_at_its_first_deadline(reopen: StoreMaker, crash_at: float) -> None:
    """TW-ROUTE-018 across a restart: a 100 s turn started at t=1 and interrupted by a crash
    at t=61 is stopped at t=101 after the restart (40 s left), not at t=161; interrupted at
    t=100.5, it is stopped half a second after the restart, not a whole second or more."""

    async def first_life() -> float:
        store = reopen()
        clock = VirtualClock()
        drivers, leader = _drivers(clock, crash_at)
        session = Session(leader=leader, drivers=drivers, store=store, clock=clock)
        await session.start("build it")
        await _run_until(session, crash_at)
        assert session.core.state(UIO).value == "running"  # in its long model call
        [started] = [e["time"] for e in session.events
                     if e["event"] == "ModelCallStarted" and e["data"]["agent"] == UIO]
        await session.stop()  # the crash: nothing more is committed
        return float(started)

    async def second_life() -> Session:
        store = reopen()
        clock = VirtualClock()
        drivers, leader = _drivers(clock, crash_at)
        session = await Session.resume(store, leader=leader, drivers=drivers, clock=clock)
        assert clock.now() == crash_at
        await session.run_until_idle()
        return session

    turn_started = asyncio.run(first_life())
    assert turn_started == 1.0
    session = asyncio.run(second_life())
    [failed] = [e for e in session.events
                if e["event"] == "TurnFailed" and e["data"]["agent"] == UIO]
    assert failed["data"]["reason"] == "timeout"
    assert failed["time"] == turn_started + TURN_TIMEOUT
    completions = [parse(m["content"]) for m in session.conversations[LEADER]
                   if m["role"] == "user" and m["content"].startswith("来自")]
    assert 'state="timeout"' in completions[-1].content
    # the run result names the turn's limit, not the part of it left at the restart
    assert f"turn stopped after {TURN_TIMEOUT:g} seconds" in completions[-1].content
    assert session.core.state(UIO).value == "completed"


# -- asks: the core restarted from a store's snapshot --------------------------------------


def _stored_team(store: Store) -> RoutingCore:
    core = team()
    snap = core.snapshot()
    store.apply([*(PersistMessage(m) for m in snap.pending),
                 *(PersistAgent(r) for r in snap.agents)])
    return core


def test_a_restarted_ask_keeps_its_deadline(reopen: StoreMaker) -> None:
    """TW-DUR-004, TW-ROUTE-017: an ask made at t=100 with a 60 s timeout is restored with its
    deadline (t=160) and re-armed at t=125 for the 35 s it has left; so are two asks at once,
    each for its own time; the restored timer then fails the ask."""
    store = reopen()
    core = _stored_team(store)
    run_stored(core, store,
         ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?", timeout=60, now=100.0),
         ToolCallBlocked(UIO, "u-1", LEADER, "ask_uio_001", "?", timeout=90, now=110.0))
    restored_store = reopen()
    snapshot = restored_store.load()
    deadlines = {r.name: r.ask.deadline for r in snapshot.agents if r.ask is not None}
    assert deadlines == {FSE: 160.0, UIO: 200.0}
    restored = RoutingCore()
    actions = restored.handle(Restarted(snapshot, now=125.0))
    restored_store.apply(actions)
    timers = {(t.agent, t.call_id): t.seconds for t in of_type(actions, StartTimer)}
    assert timers == {(FSE, "f-1"): 35.0, (UIO, "u-1"): 75.0}
    fired = restored.handle(TimerFired(FSE, "f-1"))
    assert [(f.agent, f.code) for f in of_type(fired, FailToolCall)] == [(FSE, "timeout")]


def test_an_ask_restored_after_its_deadline_fires_at_once(reopen: StoreMaker) -> None:
    """TW-ROUTE-017: the router was down past the deadline: the timer is armed for 0 s."""
    store = reopen()
    core = _stored_team(store)
    run_stored(core, store, ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?", timeout=60,
                                      now=100.0))
    actions = RoutingCore().handle(Restarted(reopen().load(), now=500.0))
    assert [(t.agent, t.seconds) for t in of_type(actions, StartTimer)] == [(FSE, 0.0)]
