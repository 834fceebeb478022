"""What a store gives back of the messages: the delivery log, and where numbering goes on.

TW-DEL-006: a store records every delivery and drop of a message, with its id, kind, sender and
receiver; ``history`` lists them in the order they left their queues, each with its position in that
log (1, 2, 3…), across transactions that deliver and drop together and across a reopened
file. TW-DUR-004, TW-DUR-006: ``load`` gives back what the router needs to go on; an
empty store gives the empty snapshot, and the snapshot of a store that committed every action
of a router numbers the next message as that router would. For the memory and the SQLite store.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from teamwire.envelope import MessageType
from teamwire.router import (
    AgentCreated,
    AgentTerminated,
    Event,
    MessageSent,
    ModelCallStarted,
    OutputEmitted,
    PersistMessage,
    Restarted,
    RoutedMessage,
    RoutingCore,
    Snapshot,
    TurnStarted,
)
from teamwire.router.store import MemoryStore, MessageStatus, SQLiteStore, Store
from tests.router.helpers import FSE, LEADER, UIO

DELIVERED, DISCARDED = MessageStatus.DELIVERED, MessageStatus.DISCARDED


@pytest.fixture(params=["memory", "sqlite"])
def reopen(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """The store, then (called again) the same store as a restart finds it."""
    if request.param == "memory":
        memory = MemoryStore()
        return lambda: memory
    return lambda: SQLiteStore(tmp_path / "router.db")


class _Host:
    """A core whose every action is committed to ``store``; remembers each accepted message."""

    def __init__(self, store: Store, core: RoutingCore | None = None) -> None:
        self.store = store
        self.core = core or RoutingCore()
        self.messages: list[RoutedMessage] = []

    def step(self, *events: Event) -> None:
        """Handle ``events`` and commit their actions in one transaction."""
        batches = [self.core.handle(event) for event in events]
        self.messages += [a.message for actions in batches for a in actions
                          if isinstance(a, PersistMessage)]
        self.store.apply_batch(batches)

    def sent(self, content: str) -> RoutedMessage:
        [message] = [m for m in self.messages if m.content == content]
        return message


def _session(store: Store) -> _Host:
    host = _Host(store)
    host.step(AgentCreated(LEADER, "team-leader"))
    host.step(TurnStarted(LEADER))
    host.step(AgentCreated(UIO, "ui-operator"))
    host.step(AgentCreated(FSE, "full-stack-engineer"))
    return host


def test_an_empty_store_gives_back_the_empty_snapshot(reopen: Callable[[], Store]) -> None:
    assert reopen().load() == Snapshot()


def test_a_store_numbers_on_as_the_router_that_wrote_it(reopen: Callable[[], Store]) -> None:
    host = _session(reopen())
    assert host.store.load() == host.core.snapshot()  # agents only: nothing numbered yet
    host.step(MessageSent(LEADER, UIO, MessageType.TASK, "design"))
    host.step(MessageSent(LEADER, UIO, MessageType.MESSAGE, "queued"))
    host.store.close()
    snapshot = reopen().load()
    assert snapshot.next_seq == host.core.snapshot().next_seq == 3
    restored = RoutingCore()
    restored.handle(Restarted(snapshot))
    after = MessageSent(LEADER, FSE, MessageType.TASK, "build")
    assert restored.handle(after) == host.core.handle(after)


def test_the_history_lists_every_message_that_left_its_queue_in_that_order(
        reopen: Callable[[], Store]) -> None:
    host = _session(reopen())
    # each TASK starts a turn at once: sent and delivered in one transaction
    host.step(MessageSent(LEADER, UIO, MessageType.TASK, "design"))
    host.step(MessageSent(LEADER, FSE, MessageType.TASK, "build"))
    host.step(MessageSent(LEADER, UIO, MessageType.MESSAGE, "m1"),
              MessageSent(LEADER, FSE, MessageType.MESSAGE, "m2"))
    # one transaction delivers m1 and drops m2 (its receiver is terminated)
    host.step(ModelCallStarted(UIO), AgentTerminated(FSE))
    host.step(OutputEmitted(UIO, "palette drafted"))
    host.step(ModelCallStarted(LEADER))
    host.store.close()
    host.store = reopen()  # the log goes on in a reopened file
    host.step(MessageSent(LEADER, UIO, MessageType.MESSAGE, "m3"))
    host.step(ModelCallStarted(UIO))
    history = host.store.history()
    expected = [(host.sent(content), status) for content, status in [
        ("design", DELIVERED), ("build", DELIVERED), ("m1", DELIVERED), ("m2", DISCARDED),
        ("palette drafted", DELIVERED), ("m3", DELIVERED)]]
    assert [(h.message_id, h.kind, h.sender, h.receiver, h.seq, h.status) for h in history] == [
        (m.id, m.kind, m.sender, m.receiver, m.seq, status) for m, status in expected]
    assert (history[4].kind, history[4].sender) == (MessageType.PROGRESS, UIO)
    orders = [h.order for h in history]
    # positions in the log, 1, 2, 3…: the same in either store, going on across a reopen
    assert orders == list(range(1, len(history) + 1))
