"""Stores: apply, load, restart; the same answers from memory and SQLite (TW-DUR-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamwire.envelope import MessageType
from teamwire.router import (
    AcknowledgeSend,
    AgentState,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistAgent,
    PersistMessage,
    Restarted,
    RoutingCore,
    StartTimer,
    StartTurn,
    ToolCallBlocked,
    TurnEnded,
)
from teamwire.router.store import MemoryStore, MessageStatus, SQLiteStore, Store
from tests.router.helpers import FSE, LEADER, UIO, of_type, team


@pytest.fixture(params=["memory", "sqlite-full", "sqlite-normal"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "memory":
        return MemoryStore()
    return SQLiteStore(tmp_path / "router.db", synchronous=request.param.split("-")[1])


def _run(core: RoutingCore, store: Store, *events: object) -> None:
    for event in events:
        store.apply(core.handle(event))  # type: ignore[arg-type]


def test_restart_restores_agents_states_asks_and_queues(store: Store) -> None:
    """TW-DUR-004, TW-DUR-005, TW-DUR-006."""
    boot = team()
    # replay the team's creation through the store
    store.apply([*(PersistAgent(r) for r in boot.records())])
    for message in boot.snapshot().pending:
        store.apply([PersistMessage(message)])
    core = boot
    _run(core, store,
         ToolCallBlocked(FSE, "f-1", LEADER, "ask_fse_001", "?", timeout=12),
         MessageSent(LEADER, UIO, MessageType.MESSAGE, "inline me"),
         OutputEmitted(UIO, "done", final=True), TurnEnded(UIO),
         ModelCallStarted(LEADER))
    restored = RoutingCore()
    actions = restored.handle(Restarted(store.load()))
    assert restored.records() == core.records()
    assert [m.id for m in restored.pending(UIO)] == [m.id for m in core.pending(UIO)]
    assert of_type(actions, StartTimer)[0].seconds == 12
    assert restored.state(FSE) is AgentState.WAITING
    # counters continue: no id is allocated twice
    nxt = restored.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "after restart",
                                      call_id="c9"))
    ids = {m.id for m in store.load().pending} | {h.message_id for h in store.history()}
    new = next(a for a in nxt if isinstance(a, AcknowledgeSend))
    assert new.message_id not in ids


def test_restart_starts_a_turn_for_idle_agents_with_pending(store: Store, tmp_path: Path) -> None:
    """TW-DUR-005: a completed agent with a restored queue starts a turn at once."""
    core = team()
    for record in core.records():
        store.apply([PersistAgent(record)])
    _run(core, store, OutputEmitted(UIO, "x", final=True), TurnEnded(UIO))
    # the message is persisted but the process dies before the turn is recorded
    store.apply([a for a in core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "m"))
                 if type(a).__name__ == "PersistMessage"])
    restored = RoutingCore()
    [turn] = of_type(restored.handle(Restarted(store.load())), StartTurn)
    assert turn.agent == UIO and [m.content for m in turn.messages] == ["m"]


def test_history_records_deliveries_in_order(store: Store) -> None:
    """TW-DEL-002, TW-DEL-003: each id once, per-sender order kept."""
    core = team()
    for m in core.snapshot().pending:
        store.apply([PersistMessage(m)])
    _run(core, store, *[MessageSent(LEADER, UIO, MessageType.MESSAGE, f"m{i}") for i in range(5)],
         ModelCallStarted(UIO))
    delivered = [h.message_id for h in store.history() if h.status is MessageStatus.DELIVERED]
    assert delivered == [f"msg_tl_{i:03d}" for i in range(1, 6)]


def test_sqlite_survives_reopen(tmp_path: Path) -> None:
    """TW-DUR-001: what was committed is there after the connection is gone."""
    path = tmp_path / "r.db"
    store = SQLiteStore(path)
    core = team()
    for record in core.records():
        store.apply([PersistAgent(record)])
    store.apply(core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "kept")))
    store.close()
    again = SQLiteStore(path)
    assert [m.content for m in again.load().pending] == ["kept"]
    again.close()
    with pytest.raises(ValueError):
        SQLiteStore(path, synchronous="off")


def test_sent_and_delivered_in_one_transaction(store: Store) -> None:
    """TW-DUR-002: sends and the drain that delivers them, committed together, with earlier
    messages in the same drain: every message once, in delivery order, nothing pending."""
    core = team()
    for m in core.snapshot().pending:
        store.apply([PersistMessage(m)])
    _run(core, store, MessageSent(LEADER, UIO, MessageType.MESSAGE, "early"))
    batch = [core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, f"m{i}", call_id=f"c{i}"))
             for i in range(3)]
    batch.append(core.handle(ModelCallStarted(UIO)))
    store.apply_batch(batch)
    delivered = [h.message_id for h in store.history() if h.status is MessageStatus.DELIVERED]
    assert delivered[-4:] == ["msg_tl_001", "msg_tl_002", "msg_tl_003", "msg_tl_004"]
    assert [h.order for h in store.history()] == sorted(h.order for h in store.history())
    snapshot = store.load()
    assert [m.id for m in snapshot.pending if m.receiver == UIO] == []
    assert {r.call_id for r in snapshot.results} >= {"c0", "c1", "c2"}
