"""apply_batch takes any iterable of batches, a generator included (TW-DUR-002).

``Store.apply_batch`` is typed to take an ``Iterable`` of action sequences: a host may
hand it a generator over its staged events. Every store action of every batch must be
committed, whatever kind it is: the routed messages, the agent records, the conversation
entries and the settings, not only what a first pass over the batches happened to read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from teamwire.envelope import MessageType
from teamwire.router import Action, AgentCreated, MessageSent, RoutingCore, TurnStarted
from teamwire.router.actions import AppendConversation, PersistSetting
from teamwire.router.store import MemoryStore, SQLiteStore, Store
from tests.router.helpers import LEADER, UIO


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    found: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "r.db")
    yield found
    found.close()


def _batches() -> list[list[Action]]:
    core = RoutingCore()
    batches = [core.handle(event) for event in (
        AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
        AgentCreated(UIO, "ui-operator"),
        MessageSent(LEADER, UIO, MessageType.TASK, "design the page", call_id="c1"))]
    batches.append([AppendConversation(LEADER, 0, {"role": "user", "content": "build it"}),
                    PersistSetting("session", "s-1")])
    return batches


def test_a_generator_of_batches_commits_every_action(store: Store) -> None:
    batches = _batches()
    store.apply_batch(batch for batch in batches)
    snapshot = store.load()
    assert {(a.name, a.state.value) for a in snapshot.agents} == {(LEADER, "running"),
                                                                  (UIO, "running")}
    assert store.conversations() == {LEADER: [{"role": "user", "content": "build it"}]}
    assert store.settings() == {"session": "s-1"}
    listed = MemoryStore()
    listed.apply_batch(batches)
    assert snapshot == listed.load()
