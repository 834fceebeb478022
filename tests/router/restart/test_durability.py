"""Durability: re-executed tool calls (TW-DUR-003) and a runtime session resumed after a crash
at every commit of the demo (TW-DUR-002, TW-DUR-004, TW-DUR-005, TW-DEL-001, TW-DEL-002)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from teamwire.cli.demo_cmd import validate_bundle
from teamwire.envelope import MessageType, is_envelope, parse
from teamwire.router import (
    AcknowledgeSend,
    Action,
    AnswerGiven,
    FailToolCall,
    MessageSent,
    ModelCallStarted,
    PersistAgent,
    PersistMessage,
    ResolveToolCall,
    Restarted,
    RoutingCore,
    Snapshot,
    StartTimer,
    TimerFired,
    ToolCallBlocked,
)
from teamwire.router.demo import REQUEST, make_session
from teamwire.router.runtime import ScriptedAgent, Session, VirtualClock
from teamwire.router.store import MemoryStore, MessageStatus, SQLiteStore, Store
from tests.router.helpers import FSE, LEADER, UIO, of_type, resume_demo, run_stored, team


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "memory":
        return MemoryStore()
    return SQLiteStore(tmp_path / "router.db", synchronous="normal")


def _persisted(store: Store, core: RoutingCore) -> None:
    """Write what ``team()`` built into ``store`` (its events were not committed one by one)."""
    snap = core.snapshot()
    store.apply([*(PersistMessage(m) for m in snap.pending)])
    store.apply([PersistAgent(r) for r in snap.agents])


def _restart(store: Store) -> RoutingCore:
    core = RoutingCore()
    store.apply(core.handle(Restarted(store.load())))
    return core


def test_a_send_executed_again_after_a_restart_gets_its_stored_result(store: Store) -> None:
    """TW-DUR-003: same tool_call_id → the first acknowledgment, nothing enqueued."""
    core = team()
    _persisted(store, core)
    send = MessageSent(LEADER, UIO, MessageType.MESSAGE, "use the auth module", call_id="c-7")
    [first] = of_type(run_stored(core, store, send), AcknowledgeSend)
    restored = _restart(store)
    again = restored.handle(send)
    assert of_type(again, AcknowledgeSend) == [first]
    assert not of_type(again, PersistMessage)
    assert [m.id for m in restored.pending(UIO)] == [first.message_id]
    assert restored.call_result(LEADER, "c-7") == first


def test_an_ask_executed_again_gets_its_answer_or_its_failure(store: Store) -> None:
    """TW-DUR-003 for asks: a resolved ask returns the same Answer, a failed one the same
    error, and neither enqueues anything; an answer tool call returns its acknowledgment."""
    core = team()
    _persisted(store, core)
    ask = ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "which branch?", timeout=60)
    answer = AnswerGiven(LEADER, FSE, "ask_fse_001", "trunk", call_id="l-1")
    late = ToolCallBlocked(UIO, "u-1", LEADER, "ask_uio_001", "colours?", timeout=60)
    actions = run_stored(core, store, ask, ModelCallStarted(LEADER), answer, late,
                   TimerFired(UIO, "u-1"))
    [resolved] = of_type(actions, ResolveToolCall)
    [timed_out] = [a for a in of_type(actions, FailToolCall) if a.call_id == "u-1"]
    [answer_ack] = [a for a in of_type(actions, AcknowledgeSend) if a.call_id == "l-1"]
    restored = _restart(store)
    again = restored.handle_all([ask, late, answer])
    assert not of_type(again, PersistMessage)
    assert of_type(again, ResolveToolCall) == [resolved]
    assert of_type(again, FailToolCall) == [timed_out]
    assert of_type(again, AcknowledgeSend) == [answer_ack]
    assert timed_out.code == "timeout"


def test_finished_asks_are_remembered_across_a_restart(store: Store) -> None:
    """TW-ROUTE-015 after a restart: an answer to an ask that timed out after the leader read
    it fails with not-waiting; to one the leader never read, with unknown-question."""
    core = team()
    _persisted(store, core)
    run_stored(core, store,
         ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "read?", timeout=5),
         ModelCallStarted(LEADER), TimerFired(FSE, "f-1"),
         ToolCallBlocked(UIO, "u-1", LEADER, "ask_uio_001", "unread?", timeout=5),
         TimerFired(UIO, "u-1"))
    restored = _restart(store)
    late = restored.handle_all([AnswerGiven(LEADER, FSE, "ask_fse_001", "late"),
                                AnswerGiven(LEADER, UIO, "ask_uio_001", "late")])
    assert [a.code for a in of_type(late, FailToolCall)] == ["not-waiting", "unknown-question"]


def test_every_message_of_a_tool_call_is_stored_with_its_call_id(tmp_path: Path) -> None:
    """TW-DUR-003: the tool_call_id is a column of the stored message."""
    store = SQLiteStore(tmp_path / "r.db")
    core = team()
    _persisted(store, core)
    run_stored(core, store, MessageSent(LEADER, UIO, MessageType.MESSAGE, "m", call_id="c-1"),
         ToolCallBlocked(UIO, "u-1", LEADER, "ask_uio_001", "?"))
    store.close()
    rows = dict(sqlite3.connect(tmp_path / "r.db").execute("SELECT id, call_id FROM messages"))
    assert rows["msg_tl_001"] == "c-1" and rows["ask_uio_001"] == "u-1"


def test_restart_keeps_the_time_an_ask_has_left() -> None:
    """TW-DUR-004: a pending ask is restored with its deadline, not a fresh timeout."""
    core = team()
    store = MemoryStore()
    _persisted(store, core)
    run_stored(core, store, ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?", timeout=60,
                                      now=100.0))
    restored = RoutingCore()
    actions = restored.handle(Restarted(store.load(), now=125.0))
    [timer] = [a for a in actions if isinstance(a, StartTimer)]
    assert timer.seconds == 35.0


# -- the runtime, crashed at every commit of the demo and resumed ----------------------------


class _CutStore(SQLiteStore):
    """An SQLite store whose commits after the first ``keep`` are lost, as in a crash."""

    def __init__(self, path: Path, keep: int) -> None:
        super().__init__(path, synchronous="normal")
        self.keep = keep
        self.commits = 0

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        if self.commits < self.keep:
            super().apply_batch(batches)
        self.commits += 1


async def _full_run(store: Store) -> Session:
    session = make_session(store)
    await session.start(REQUEST)
    await session.run_until_idle()
    return session


def _envelope_ids(messages: list[dict[str, Any]]) -> list[str]:
    return [parse(m["content"]).id for m in messages
            if m["role"] in ("user", "tool") and isinstance(m.get("content"), str)
            and is_envelope(m["content"])]


def _check_finished(session: Session, store: SQLiteStore, before: Snapshot) -> None:
    """No loss, no duplicate, conversations and store agree, the bundle lints clean."""
    history = [h for h in store.history() if h.status is MessageStatus.DELIVERED]
    counts = Counter(h.message_id for h in history)
    assert [m for m, n in counts.items() if n > 1] == []            # no duplicate delivery
    assert store.load().pending == ()                                # nothing left behind
    assert {m.id for m in before.pending} <= set(counts)             # no loss across restart
    delivered_to: dict[str, list[str]] = {}
    for h in history:
        delivered_to.setdefault(h.receiver, []).append(h.message_id)
    for name, conversation in session.conversations.items():
        ids = _envelope_ids(conversation)
        assert len(ids) == len(set(ids)), name                       # each once in a conversation
        assert sorted(ids) == sorted(delivered_to.get(name, [])), name  # TW-DUR-002
        calls = [c["id"] for m in conversation if m["role"] == "assistant"
                 for c in m.get("tool_calls") or ()]
        results = [m["tool_call_id"] for m in conversation if m["role"] == "tool"]
        assert sorted(calls) == sorted(results), name                # every call one result
    assert {r.state.value for r in session.core.records()} == {"completed"}
    assert session.conversations == store.conversations()
    assert [p.text for p in validate_bundle(session.bundle()) if p.fatal] == []


def test_the_demo_resumes_from_a_crash_at_every_commit(tmp_path: Path) -> None:
    """TW-DUR-002, TW-DUR-004, TW-DUR-005, TW-DEL-001, TW-DEL-002: the session is stopped
    after each of its commits, reopened from the same SQLite file and run to the end."""
    probe = _CutStore(tmp_path / "probe.db", keep=10**9)
    asyncio.run(_full_run(probe))
    probe.close()
    restored_states: Counter[str] = Counter()
    for keep in range(1, probe.commits + 1):
        path = tmp_path / f"cut{keep}.db"
        cut = _CutStore(path, keep)
        asyncio.run(_full_run(cut))  # runs on in memory; only `keep` commits reached the file
        cut.close()
        store = SQLiteStore(path, synchronous="normal")
        before = store.load()
        restored_states.update(r.state.value for r in before.agents)
        session = asyncio.run(resume_demo(store))
        _check_finished(session, store, before)
        store.close()
    assert {"running", "waiting", "completed"} <= set(restored_states)


def test_resume_refuses_an_empty_store() -> None:
    clock = VirtualClock()
    with pytest.raises(ValueError):
        asyncio.run(Session.resume(MemoryStore(), leader=ScriptedAgent([], clock),
                                   drivers=lambda n, r: ScriptedAgent([], clock), clock=clock))


async def _run_until(session: Session, time: float) -> None:
    """Run on virtual time until every agent waits and the next timer is after ``time``."""
    clock = session.clock
    while True:
        await clock.activity.wait_idle()
        if clock.now() >= time or not clock.advance():
            return
        await asyncio.sleep(0)


@pytest.mark.parametrize("stop_at", [2.0, 4.5, 7.0, 9.5])
def test_a_stopped_session_reopens_from_its_file_and_finishes(tmp_path: Path,
                                                              stop_at: float) -> None:
    """TW-DUR-004, TW-DUR-005: the demo is stopped mid-scenario, its SQLite file reopened by a
    new Session, and the session finishes with nothing lost or delivered twice."""
    path = tmp_path / "router.db"

    async def first_life() -> None:
        store = SQLiteStore(path, synchronous="normal")
        session = make_session(store)
        await session.start(REQUEST)
        await _run_until(session, stop_at)
        await session.stop()
        store.close()

    asyncio.run(first_life())
    store = SQLiteStore(path, synchronous="normal")
    before = store.load()
    assert any(r.state.value != "completed" for r in before.agents)  # really mid-scenario
    session = asyncio.run(resume_demo(store))
    assert session.events[0]["event"] == "Restarted"
    _check_finished(session, store, before)
    store.close()
