"""A commit that the store refuses leaves the router as it was (TW-DUR-007).

The core rolls back to a checkpoint (checked against the model of test_model and
field by field); a session rolls back its core, conversations and catalog, the
tool call whose effects were refused returns an error result, and a failure at any
commit of the demo leaves the session and its store in agreement.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import rule

from teamwire.envelope import MessageType, is_envelope, parse
from teamwire.router import (
    Action,
    AgentCreated,
    AgentTerminated,
    AnswerGiven,
    LocalProtocolError,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistAgent,
    PersistMessage,
    RoutingCore,
    TimerFired,
    ToolCallBlocked,
    TurnEnded,
    TurnStarted,
)
from teamwire.router.actions import PersistSetting
from teamwire.router.demo import REQUEST, make_session
from teamwire.router.errors import STORE_FAILED, StoreFailure
from teamwire.router.events import Event, TurnFailed
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import MemoryStore, Store
from tests.router.helpers import FSE, LEADER, UIO, fingerprint, resume_demo, run_to_idle
from tests.router.test_model import AGENTS, SUBS, RouterModel


class FlakyStore(MemoryStore):
    """A memory store that refuses some commits: by number, or those for which ``refuse``
    says so (each such commit once only, if ``once``)."""

    def __init__(self, fail_at: Iterable[int] = (),
                 refuse: Callable[[list[Action]], bool] | None = None, *,
                 once: bool = False) -> None:
        super().__init__()
        self.fail_at = set(fail_at)
        self.refuse = refuse
        self.once = once
        self.commits = 0
        self.refused = 0

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        actions = [a for b in batches for a in b]
        self.commits += 1
        refused = self.refuse is not None and self.refuse(actions) \
            and not (self.once and self.refused)
        if self.commits in self.fail_at or refused:
            self.refused += 1
            raise OSError("disk full")
        super().apply_batch([actions])


def poisoned(actions: list[Action]) -> bool:
    """A batch that stores a message whose content is ``poison``."""
    return any(isinstance(a, PersistMessage) and a.message.content == "poison" for a in actions)


def new_roles(actions: list[Action]) -> bool:
    """A batch that stores the catalog of custom roles."""
    return any(isinstance(a, PersistSetting) and a.key == "roles" for a in actions)


def assert_agree(core: RoutingCore, store: Store) -> None:
    """The core holds exactly what its store would restore."""
    stored, mine = store.load(), core.snapshot()
    assert sorted(stored.agents, key=lambda r: r.name) == sorted(mine.agents, key=lambda r: r.name)
    assert [m.id for m in stored.pending] == [m.id for m in mine.pending]
    assert stored.ids == mine.ids
    assert set(stored.questions) == set(mine.questions)
    assert {(r.agent, r.call_id): r for r in stored.results} \
        == {(r.agent, r.call_id): r for r in mine.results}


# -- the core ----------------------------------------------------------------------------------

ANY_AGENT = st.sampled_from([*AGENTS, "UI Operator_2"])
IDS = st.sampled_from(["ask_b_001", "msg_b_002", "ask_x_001", "task_001", "msg_tl_001"])
CALLS = st.sampled_from([None, "b1", "b2", "c1"])
BURST_EVENTS = st.one_of(
    st.builds(MessageSent, st.just(LEADER), ANY_AGENT,
              st.sampled_from([MessageType.TASK, MessageType.MESSAGE]), st.just("burst"),
              st.sampled_from([None, "msg_b_001", "task_001"]), CALLS),
    st.builds(ModelCallStarted, ANY_AGENT),
    st.builds(OutputEmitted, ANY_AGENT, st.sampled_from(["", "out"]), st.booleans()),
    st.builds(TurnStarted, ANY_AGENT),
    st.builds(TurnEnded, ANY_AGENT),
    st.builds(TurnFailed, ANY_AGENT, st.sampled_from(["error", "timeout"]), st.just("boom")),
    st.builds(ToolCallBlocked, ANY_AGENT, st.sampled_from(["b1", "b2"]), ANY_AGENT, IDS,
              st.just("?"), st.sampled_from([None, 5.0])),
    st.builds(AnswerGiven, ANY_AGENT, ANY_AGENT, IDS, st.just("a"), CALLS),
    st.builds(AgentTerminated, st.sampled_from([*SUBS, "UI Operator_2"])),
    st.builds(TimerFired, ANY_AGENT, st.sampled_from(["b1", "b2", "c1", "c2"])),
    st.just(AgentCreated("UI Operator_2", "ui-operator")),
)


class RollbackModel(RouterModel):
    """The routing model of test_model, with refused commits in between: a burst of events
    whose store actions fail is rolled back, and the core must go on exactly as the model
    says, as if the burst never happened."""

    @rule(burst=st.lists(BURST_EVENTS, min_size=1, max_size=8))
    def refused_commit(self, burst: list[Event]) -> None:
        before = fingerprint(self.core)
        checkpoint = self.core.checkpoint()
        for event in burst:
            with contextlib.suppress(LocalProtocolError):  # illegal there: changes nothing
                self.core.handle(event)
        self.core.rollback(checkpoint)
        assert fingerprint(self.core) == before


RollbackModel.TestCase.settings = settings(max_examples=40, stateful_step_count=30,
                                           deadline=None)
TestRollbackModel = RollbackModel.TestCase


def test_a_refused_send_leaves_the_core_as_it_was() -> None:
    """TW-DUR-007: the host commits each event; the store refuses the send's commit; after
    the rollback the message does not exist and its id is allocated again to the next one."""
    core, store = RoutingCore(), FlakyStore()
    for event in (AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
                  AgentCreated(UIO, "ui-operator"), AgentCreated(FSE, "full-stack-engineer"),
                  MessageSent(LEADER, UIO, MessageType.TASK, "design", call_id="t1"),
                  ModelCallStarted(UIO)):
        store.apply(core.handle(event))
    assert_agree(core, store)
    before = fingerprint(core)
    checkpoint = core.checkpoint()
    store.fail_at = {store.commits + 1}
    actions = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "lost", call_id="s1"))
    with pytest.raises(OSError):
        store.apply(actions)
    core.rollback(checkpoint)
    assert fingerprint(core) == before
    assert_agree(core, store)
    again = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "kept", call_id="s1"))
    store.apply(again)
    [message] = [a.message for a in again if isinstance(a, PersistMessage)]
    assert (message.id, message.content) == ("msg_tl_001", "kept")
    assert_agree(core, store)


# -- the session -------------------------------------------------------------------------------


def _session(leader: list[Step], subs: dict[str, list[Step]], store: Store) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers, clock=clock,
                   store=store, ask_timeout=100.0)


def _results(session: Session, agent: str) -> dict[str, Any]:
    return {m["tool_call_id"]: m["content"] for m in session.conversations[agent]
            if m["role"] == "tool"}


def _contents(session: Session, agent: str) -> list[str]:
    return [parse(m["content"]).content for m in session.conversations[agent]
            if m["role"] in ("user", "tool") and is_envelope(m["content"])]


def _code(text: str) -> str:
    code: str = json.loads(text)["error"]["code"]
    return code


CREATE_UIO = ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"})


def test_a_send_whose_commit_fails_returns_an_error_and_does_not_exist() -> None:
    """TW-DUR-007: the refused message is not acknowledged, never delivered and uses no id;
    the leader's turn goes on and its next send works."""
    store = FlakyStore(refuse=poisoned)
    session = run_to_idle(_session([Step(None, (
        CREATE_UIO,
        ("send_message_to_sub_agent", {"agent_id": 1, "message": "poison"}),
        ("send_message_to_sub_agent", {"agent_id": 1, "message": "fine"}),
    )), Step("done")], {UIO: [Step("working", delay=5.0)]}, store))
    results = _results(session, LEADER)
    assert _code(results["call_tl_2"]) == STORE_FAILED
    assert json.loads(results["call_tl_3"])["message_id"] == "msg_tl_001"
    assert "poison" not in _contents(session, UIO) and "fine" in _contents(session, UIO)
    assert "poison" not in {e["data"].get("content") for e in session.events}  # event log
    assert [e["seq"] for e in session.events] == list(range(1, len(session.events) + 1))
    assert store.refused == 1
    assert session.conversations == store.conversations()
    assert_agree(session.core, store)


def test_an_ask_whose_commit_fails_returns_an_error_and_the_caller_goes_on() -> None:
    """TW-DUR-007 for ask_master: the caller does not wait, the leader never sees the ASK."""
    store = FlakyStore(refuse=poisoned)
    session = run_to_idle(_session([Step(None, (CREATE_UIO,))], {UIO: [
        Step(None, (("ask_master", {"question": "poison", "question_id": "ask_uio_001"}),)),
        Step("carrying on")]}, store))
    refused = json.loads(_results(session, UIO)["call_ui-_1"])
    assert refused == {"success": False, "error": {
        "code": STORE_FAILED, "message": "the store could not commit: disk full; the call had "
                                         "no effect, it may be repeated"}}
    assert "poison" not in _contents(session, LEADER)
    assert "carrying on" in _contents(session, LEADER)
    assert session.conversations == store.conversations()
    assert_agree(session.core, store)


def test_an_answer_whose_commit_fails_leaves_the_asker_waiting() -> None:
    """TW-DUR-007 for answer_sub_agent_question: the refused answer resolves nothing; the
    asker keeps waiting and gets the next answer."""
    store = FlakyStore(refuse=poisoned)
    answer = {"agent_id": 1, "question_id": "ask_uio_001"}
    session = run_to_idle(_session([
        Step(None, (CREATE_UIO,)),
        Step(None, (("list_agents", {}),), delay=3.0),  # the next model call reads the ASK
        Step(None, (("answer_sub_agent_question", {**answer, "answer": "poison"}),)),
        Step(None, (("answer_sub_agent_question", {**answer, "answer": "blue"}),)),
        Step("done")],
        {UIO: [Step(None, (("ask_master", {"question": "colour?",
                                           "question_id": "ask_uio_001"}),)),
               Step("using it")]}, store))
    results = _results(session, LEADER)
    assert _code(results["call_tl_3"]) == STORE_FAILED
    assert json.loads(results["call_tl_4"])["success"] is True
    assert parse(_results(session, UIO)["call_ui-_1"]).content == "blue"
    assert session.conversations == store.conversations()
    assert_agree(session.core, store)


def test_a_sub_agent_whose_commit_fails_does_not_exist() -> None:
    """TW-DUR-007: create_sub_agent refused by the store leaves no agent, conversation or
    used agent_id behind; the same call with another task then succeeds."""
    store = FlakyStore(refuse=poisoned)
    session = run_to_idle(_session([Step(None, (
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "poison"}),
        ("list_active_sub_agents", {}),
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"}),
    ))], {}, store))
    results = _results(session, LEADER)
    assert _code(results["call_tl_1"]) == STORE_FAILED
    assert json.loads(results["call_tl_2"])["agents"] == []
    assert json.loads(results["call_tl_3"])["task_id"] == "task_001"
    assert [r.name for r in session.core.records()] == [LEADER, UIO]
    assert _contents(session, UIO) == ["design"]
    assert session.conversations == store.conversations()
    assert_agree(session.core, store)


def test_a_custom_role_whose_commit_fails_is_not_in_the_catalog() -> None:
    """TW-DUR-007: create_custom_agent refused by the store adds no role; creating it again
    then works."""
    store = FlakyStore(refuse=new_roles, once=True)
    coder = {"role_id": "coder", "name": "Coder", "description": "d", "prompt": "p"}
    session = run_to_idle(_session([Step(None, (
        ("create_custom_agent", coder),
        ("create_sub_agent", {"agent_id": 1, "role_id": "coder", "task": "x"}),
        ("create_custom_agent", coder),
        ("list_agents", {}),
    ))], {}, store))
    results = _results(session, LEADER)
    assert _code(results["call_tl_1"]) == STORE_FAILED
    assert _code(results["call_tl_2"]) == "unknown-role"
    assert json.loads(results["call_tl_3"])["success"] is True
    assert [r["role_id"] for r in json.loads(results["call_tl_4"])["roles"]].count("coder") == 1
    assert store.settings()["roles"] == [{**coder}]
    assert session.conversations == store.conversations()
    assert_agree(session.core, store)


def test_a_termination_whose_commit_fails_leaves_the_target_running() -> None:
    """TW-DUR-007: terminate_sub_agent refused by the store does not stop the target's turn
    (it stops only once the termination is stored); the target finishes and reports."""

    def terminating(actions: list[Action]) -> bool:
        return any(isinstance(a, PersistAgent) and a.record.state.value == "terminated"
                   for a in actions)

    store = FlakyStore(refuse=terminating)
    session = run_to_idle(_session([
        Step(None, (CREATE_UIO,)),
        Step(None, (("terminate_sub_agent", {"agent_id": 1}),), delay=2.0)],
        {UIO: [Step("finished the design", delay=10.0)]}, store))
    assert _code(_results(session, LEADER)["call_tl_2"]) == STORE_FAILED
    assert session.core.state(UIO).value == "completed"
    assert "finished the design" in _contents(session, LEADER)
    assert session.conversations == store.conversations()
    assert_agree(session.core, store)


async def _demo(store: Store) -> tuple[Session, StoreFailure | None]:
    session = make_session(store)
    try:
        await session.start(REQUEST)
        await session.run_until_idle()
    except StoreFailure as exc:
        return session, exc
    return session, None


def _every_call_has_one_result(session: Session) -> None:
    for name, conversation in session.conversations.items():
        calls = [c["id"] for m in conversation if m["role"] == "assistant"
                 for c in m.get("tool_calls") or ()]
        results = [m["tool_call_id"] for m in conversation if m["role"] == "tool"]
        assert sorted(calls) == sorted(results), name


def test_a_refused_commit_anywhere_in_the_demo_leaves_session_and_store_agreeing() -> None:
    """TW-DUR-007: the store refuses the k-th commit of the demo, for every k. Either a tool
    call reports store-failed and the session finishes, or the session stops with
    StoreFailure; either way its conversations and its core are what the store holds, and a
    stopped session resumes from the store and finishes."""
    probe = FlakyStore()
    asyncio.run(_demo(probe))
    outcomes = {"reported": 0, "stopped": 0}
    for k in range(1, probe.commits + 1):
        store = FlakyStore(fail_at={k})
        session, failure = asyncio.run(_demo(store))
        assert store.refused == 1
        if k == 1:  # start() itself failed and said so: nothing was ever stored
            assert failure is not None and not store.load().agents
            assert not session.conversations and not session.core.records()
            continue
        if failure is None:
            assert any(STORE_FAILED in str(r) for a in session.conversations
                       for r in _results(session, a).values()), k
        outcomes["reported" if failure is None else "stopped"] += 1
        assert session.conversations == store.conversations(), k
        assert_agree(session.core, store)
        if failure is not None:
            session = asyncio.run(resume_demo(store))
            assert session.conversations == store.conversations(), k
            assert_agree(session.core, store)
        _every_call_has_one_result(session)
        assert {r.state.value for r in session.core.records()} <= {"completed", "terminated",
                                                                     "idle"}, k
    assert outcomes["reported"] > 1 and outcomes["stopped"] > 1
