"""A batch that holds one kind of store change is stored like any other (TW-DUR-001).

A store commits every store action of a batch; a backend may skip an empty batch, but a batch
whose only change is a discard (the receiver was terminated, TW-DEL-006) or an ask's failure
(TW-DUR-004: the failure is the call's stored result, TW-DUR-003) is not empty. For the memory
and the SQLite store.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from teamwire.envelope import MessageType
from teamwire.router import FailToolCall, MessageSent, PersistMessage, ToolCallBlocked
from teamwire.router.actions import DiscardMessages, PersistAskFailure
from teamwire.router.store import MemoryStore, SQLiteStore, Store
from teamwire.router.store.base import MessageStatus
from tests.router.helpers import LEADER, UIO, of_type, team


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    found: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "r.db")
    yield found
    found.close()


def _queued_message(store: Store) -> str:
    """A MESSAGE queued for UI Operator_1, which waits on its ask (every action stored)."""
    core = team()
    for event in (ToolCallBlocked(UIO, "c-9", LEADER, "ask_uio_001", "colour?", timeout=10.0,
                                  now=0.0),
                  MessageSent(LEADER, UIO, MessageType.MESSAGE, "dark mode too", call_id="m1")):
        actions = core.handle(event)
        store.apply(actions)
    [persisted] = of_type(actions, PersistMessage)
    return str(persisted.message.id)


def test_a_batch_that_only_discards_is_stored(store: Store) -> None:
    message_id = _queued_message(store)
    assert message_id in [m.id for m in store.load().pending]
    store.apply_batch([[DiscardMessages(UIO, (message_id,))]])
    assert message_id not in [m.id for m in store.load().pending]
    assert (message_id, MessageStatus.DISCARDED) in [(h.message_id, h.status)
                                                  for h in store.history()]


def test_a_batch_that_only_fails_an_ask_is_stored(store: Store) -> None:
    core = team()
    actions = core.handle(ToolCallBlocked(UIO, "c-9", LEADER, "ask_uio_001", "colour?",
                                          timeout=10.0, now=0.0))
    store.apply(actions)
    assert not [r for r in store.load().results if r.call_id == "c-9"]  # pending: no result
    store.apply_batch([[PersistAskFailure(UIO, "c-9", "ask_uio_001", "timeout", "no answer")]])
    [result] = [r for r in store.load().results if r.call_id == "c-9"]
    assert isinstance(result, FailToolCall)
    assert (result.code, result.message) == ("timeout", "no answer")
