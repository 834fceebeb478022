"""Agent records as a store gives them back: every member, and the defaults of older records.

TW-DUR-004: on restart the router restores every agent's state and every pending ask with its
deadline, from durable storage. A store must therefore give back each record it was given,
member for member: the ask's call id, target, question id, kind, timeout, delivery, correlation
id, round and deadline; the agent's rounds, turns and task. A record written before a member
existed (an SQLite file of an older router) loads with that member's default: no deadline (the
restart gives the whole timeout), correlation id "", round 1 (the first round, TW-MSG-009), no
turns, no task, no rounds.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from teamwire.router import PersistAgent, Restarted, RoutingCore, StartTimer
from teamwire.router.records import AgentRecord, AskKind, OpenAsk
from teamwire.router.states import AgentState
from teamwire.router.store import MemoryStore, SQLiteStore, Store
from tests.router.helpers import LEADER, UIO

LEADER_RECORD = AgentRecord(LEADER, "team-leader", AgentState.RUNNING, turns=1)

WAITING = AgentRecord(
    UIO, "ui-operator", AgentState.WAITING,
    OpenAsk("call-7", LEADER, "ask_uio_003", AskKind.ASK_MASTER, 30.0, delivered=True,
            correlation_id="task_tl_001", round=3, deadline=42.5),
    rounds=((LEADER, "task_tl_001", 3), ("Full-Stack Engineer_1", "task_tl_001", 2)),
    turns=4, task_id="task_tl_001")


@pytest.fixture(params=["memory", "sqlite"])
def reopen(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """The store to write to, then (called again) the same store as a restart finds it."""
    if request.param == "memory":
        memory = MemoryStore()
        return lambda: memory
    return lambda: SQLiteStore(tmp_path / "router.db")


@pytest.mark.parametrize("record", [
    WAITING,
    AgentRecord(UIO, "ui-operator", AgentState.WAITING,
                OpenAsk("call-8", "Full-Stack Engineer_1", "msg_uio_002", AskKind.ASK_OTHER_AGENT,
                        None, delivered=False, correlation_id="task_tl_001", round=8)),
    AgentRecord(UIO, "ui-operator", AgentState.COMPLETED, turns=2, task_id="task_tl_001"),
], ids=["ask-with-deadline", "ask-without-timeout", "no-ask"])
def test_a_store_gives_back_every_member_of_a_record(reopen: Callable[[], Store],
                                                     record: AgentRecord) -> None:
    store = reopen()
    store.apply([PersistAgent(LEADER_RECORD), PersistAgent(record)])
    store.close()
    assert reopen().load().agents == (LEADER_RECORD, record)


def _old_file(path: Path, *records: dict[str, Any]) -> None:
    """An SQLite store file whose agent rows hold ``records`` as an older router wrote them."""
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO agents (name, record) VALUES (?, ?)",
                       [(r["name"], orjson.dumps(r)) for r in records])
    db.close()


def test_a_record_written_before_asks_had_rounds_and_deadlines_loads_with_defaults(
        tmp_path: Path) -> None:
    old_ask = {"call_id": "call-7", "target": LEADER, "question_id": "ask_uio_003",
               "kind": "ask_master", "timeout": 30.0, "delivered": True}
    _old_file(tmp_path / "router.db",
              {"name": LEADER, "role_id": "team-leader", "state": "running"},
              {"name": UIO, "role_id": "ui-operator", "state": "waiting", "ask": old_ask})
    store = SQLiteStore(tmp_path / "router.db")
    leader, operator = store.load().agents
    assert leader == AgentRecord(LEADER, "team-leader", AgentState.RUNNING)
    assert (leader.turns, leader.task_id, leader.rounds) == (0, None, ())
    assert operator == AgentRecord(UIO, "ui-operator", AgentState.WAITING,
                                   OpenAsk("call-7", LEADER, "ask_uio_003", AskKind.ASK_MASTER,
                                           30.0, delivered=True))
    assert operator.ask is not None
    assert (operator.ask.correlation_id, operator.ask.round, operator.ask.deadline) == ("", 1, None)
    # without a deadline, the restarted ask gets its whole timeout, whatever the time
    actions = RoutingCore().handle(Restarted(store.load(), now=1000.0))
    assert [a for a in actions if isinstance(a, StartTimer)] == [StartTimer(UIO, "call-7", 30.0)]
    store.close()
