"""Session.resume: what a session resumed from its store knows, and what it was given anew.

TW-DUR-004 (a restart restores every agent, conversation, open ask with its deadline, the roles
created during the session and the turn timeouts), TW-DUR-005 (what each agent does next),
TW-ROUTE-017 and TW-ROUTE-018 (an ask or a turn whose deadline passed while the router was down
ends at the restart, not a moment later), TW-MSG-010/011 (the round limit given to the resumed
session), TW-TOOL-016/017 (get_sub_agent_status's ``recent_output`` is the latest text the
instance produced), TW-DUR-007 (a refused commit raises StoreFailure). The router is down from
t=2 to t=100; time is virtual, nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from teamwire.envelope import MessageType
from teamwire.router import AgentCreated, MessageSent, RoutingCore, TurnStarted
from teamwire.router.actions import Action
from teamwire.router.errors import StoreFailure
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver, Reply, ToolCall
from teamwire.router.store import MemoryStore
from tests.router.helpers import FSE, LEADER, UIO

CRASH_AT = 2.0
RESTART_AT = 100.0
CODER = {"role_id": "coder", "name": "Coder", "description": "Writes the code.",
         "prompt": "You are a Coder.", "model": "m-1"}
ASK_FSE = {"target_agent_id": 1, "role_id": "full-stack-engineer", "content": "Which port?"}


def _subs(clock: VirtualClock, asked: list[str]) -> Any:
    scripts = {
        # t=2: asks the leader, who never answers (deadline t=12, passed at the restart);
        # then asks the engineer twice: round 1, and round 2 beyond the limit of 1
        UIO: [Step("Which brand colour?", (("ask_master", {"question": "Brand colour?",
                                                           "question_id": "ask_uio_001"}),)),
              Step(None, (("ask_other_agent", {**ASK_FSE, "message_id": "ask_uio_002"}),)),
              Step(None, (("ask_other_agent", {**ASK_FSE, "message_id": "ask_uio_003"}),)),
              Step("Colours chosen.")],
        # a model call far longer than its 30 s turn (started t=1, so its deadline is t=31)
        FSE: [Step("API ready.", delay=1000.0)],
    }

    def drivers(name: str, role_id: str) -> AgentDriver:
        asked.append(name)
        return ScriptedAgent(scripts[name], clock, tag=role_id[:3])

    return drivers


def _first_life(store: MemoryStore) -> None:
    clock = VirtualClock()
    leader = ScriptedAgent([Step(None, (
        ("create_custom_agent", CODER),
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "colours"}),
        ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer", "task": "api",
                              "timeout_seconds": 30}))),
        Step("Waiting for the team."),
        # the turn that reads the operator's question is still in its model call at the crash,
        # so the question stays pending (a turn that ended would fail it, TW-ROUTE-030)
        Step("Reading the question.", delay=1000.0)], clock, tag="tl")
    session = Session(leader=leader, drivers=_subs(clock, []), store=store, clock=clock,
                      ask_timeout=10, session_id="s-1")

    async def go() -> None:
        await session.start("a sign-up page")
        while True:  # until the operator waits for its answer (t=2)
            await clock.activity.wait_idle()
            if session.core.state(UIO).value == "waiting" or not clock.advance():
                break
            await asyncio.sleep(0)
        assert clock.now() == CRASH_AT
        assert session.core.state(UIO).value == "waiting"
        assert session.core.state(FSE).value == "running"
        await session.stop()  # the crash

    asyncio.run(go())


class Asking:
    """The resumed leader: its first model call asks for the catalog and two statuses; its
    second thinks for long, so that its turn does not end while the asks on it are open."""

    def __init__(self, clock: VirtualClock) -> None:
        self.calls = 0
        self.clock = clock

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        self.calls += 1
        if self.calls == 2:
            await self.clock.sleep(2000.0)
        if self.calls > 1:
            return Reply()
        return Reply(None, (
            ToolCall("r1", "list_agents", "{}"),
            ToolCall("r2", "get_sub_agent_status", '{"agent_id": 1, "role_id": "ui-operator"}'),
            ToolCall("r3", "get_sub_agent_status",
                     '{"agent_id": 1, "role_id": "full-stack-engineer"}')))


@pytest.fixture  # per test: see docs/contributing.md, "Fixtures and mutants"
def resumed() -> tuple[Session, list[tuple[str, dict[str, Any]]], list[str]]:
    store = MemoryStore()
    _first_life(store)
    heard: list[tuple[str, dict[str, Any]]] = []
    asked: list[str] = []
    clock = VirtualClock()
    clock.skip_to(RESTART_AT)  # the router was down for 95 seconds

    async def go() -> Session:
        session = await Session.resume(store, leader=Asking(clock), drivers=_subs(clock, asked),
                                       clock=clock, ask_timeout=10, max_ask_rounds=1,
                                       listener=lambda kind, data: heard.append((kind, data)))
        await session.run_until_idle()
        return session

    return asyncio.run(go()), heard, asked


def _tool_results(session: Session, agent: str) -> dict[str, dict[str, Any]]:
    return {m["tool_call_id"]: json.loads(m["content"]) for m in session.conversations[agent]
            if m["role"] == "tool"}


def _times(session: Session, event: str, agent: str) -> list[float]:
    return [e["time"] for e in session.events
            if e["event"] == event and e["data"].get("agent") == agent]


def test_an_ask_whose_deadline_passed_while_down_fails_at_the_restart(resumed: Any) -> None:
    """TW-DUR-004, TW-ROUTE-017: the asker gets its timeout result at t=100 and goes on."""
    session, _, _ = resumed
    results = _tool_results(session, UIO)
    assert results["call_ui-_1"]["error"]["code"] == "timeout"
    [fired] = [e["time"] for e in session.events if e["event"] == "TimerFired"
               and e["data"]["call_id"] == "call_ui-_1"]
    assert fired == RESTART_AT
    assert session.conversations[UIO][-1] == {"role": "assistant", "content": "Colours chosen."}


def test_a_turn_whose_deadline_passed_while_down_ends_at_the_restart(resumed: Any) -> None:
    """TW-ROUTE-018: the engineer's 30 s turn (deadline t=31) is stopped at t=100, and the host
    hears of it through the listener the resumed session was given."""
    session, heard, _ = resumed
    assert _times(session, "TurnFailed", FSE)[0] == RESTART_AT
    failed = [data for kind, data in heard if kind == "turn-failed" and data["agent"] == FSE]
    assert failed and failed[0]["state"] == "timeout"


def test_the_resumed_session_uses_the_ask_timeout_and_round_limit_it_was_given(
        resumed: Any) -> None:
    """TW-MSG-010/011: round 1 to the engineer times out after the 10 s given to resume; round
    2 is beyond the limit of 1 given to resume."""
    session, _, _ = resumed
    results = _tool_results(session, UIO)
    assert results["call_ui-_2"]["error"]["code"] == "timeout"
    assert results["call_ui-_3"]["error"]["code"] == "round-limit"
    [asked] = [e["time"] for e in session.events if e["event"] == "ToolCallBlocked"
               and e["data"]["agent"] == UIO and e["data"]["call_id"] == "call_ui-_2"]
    [fired] = [e["time"] for e in session.events if e["event"] == "TimerFired"
               and e["data"]["agent"] == UIO and e["data"]["call_id"] == "call_ui-_2"]
    assert fired - asked == 10.0


def test_the_resumed_session_keeps_its_id_roles_and_drivers(resumed: Any) -> None:
    """TW-DUR-004: the session id, the role created during the session (with its model), and
    a driver asked again for every sub-agent by its display name."""
    session, _, asked = resumed
    assert session.bundle()["session"] == "s-1"
    roles = {r["role_id"]: r for r in _tool_results(session, LEADER)["r1"]["roles"]}
    assert roles["coder"] == {"role_id": "coder", "name": "Coder",
                              "description": "Writes the code.", "model": "m-1"}
    assert sorted(asked) == sorted([UIO, FSE])


def test_recent_output_is_the_latest_text_an_agent_produced_before_the_restart(
        resumed: Any) -> None:
    """TW-TOOL-017: the operator's last words were its question; the engineer never produced
    any text (its task is not its output)."""
    session, _, _ = resumed
    results = _tool_results(session, LEADER)
    assert results["r2"]["recent_output"] == "Which brand colour?"
    assert "recent_output" not in results["r3"]


# -- resuming what a bare core stored, or nothing ------------------------------------------------

class Collecting(MemoryStore):
    """A store filled by a host that drives the core itself, with no Session."""

    def apply_actions(self, actions: Sequence[Action]) -> None:
        self.apply_batch([actions])


def test_a_store_a_bare_core_wrote_resumes_at_time_zero_with_empty_conversations() -> None:
    """A store holds no session time or conversation when its host used the core alone: the
    resumed session starts its clock at 0 and gives every agent an empty conversation."""
    store = Collecting()
    core = RoutingCore()
    for event in (AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
                  AgentCreated(UIO, "ui-operator")):
        store.apply_actions(core.handle(event))
    store.apply_actions(core.handle(MessageSent(LEADER, UIO, MessageType.TASK, "colours",
                                                call_id="t1")))
    clock = VirtualClock()

    async def go() -> Session:
        session = await Session.resume(
            store, leader=ScriptedAgent([], clock), clock=clock,
            drivers=lambda name, role: ScriptedAgent([], clock))
        assert clock.now() == 0.0
        await session.stop()
        return session

    session = asyncio.run(go())
    assert [e["time"] for e in session.events] == [0.0]
    assert session.bundle()["agents"][LEADER]["messages"] == []


def test_an_empty_store_holds_no_session_to_resume() -> None:
    clock = VirtualClock()
    with pytest.raises(ValueError, match=r"^the store holds no session to resume$"):
        asyncio.run(Session.resume(MemoryStore(), leader=ScriptedAgent([], clock), clock=clock,
                                   drivers=lambda name, role: ScriptedAgent([], clock)))


class RefusingStore(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.refuse = False

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        if self.refuse:
            raise OSError("disk full")
        super().apply_batch(batches)


def test_a_restart_whose_commit_is_refused_raises_store_failure() -> None:
    """TW-DUR-007: the restart's own commit refused is a StoreFailure, as any commit's is."""
    store = RefusingStore()
    _first_life(store)
    store.refuse = True
    clock = VirtualClock()
    with pytest.raises(StoreFailure, match="disk full"):
        asyncio.run(Session.resume(store, leader=Asking(clock), drivers=_subs(clock, []),
                                   clock=clock))
