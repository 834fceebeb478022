"""What a store does with a batch it cannot apply: both stores refuse a message id they never
stored, naming it, and keep nothing of that batch (one transaction, TW-DUR-007)."""

from __future__ import annotations

from pathlib import Path

import pytest

from teamwire.envelope import MessageType
from teamwire.router.actions import ConsumeMessages, DiscardMessages, PersistMessage, PersistSetting
from teamwire.router.records import RoutedMessage
from teamwire.router.store.base import MessageStatus, Store
from teamwire.router.store.memory import MemoryStore
from teamwire.router.store.sqlite import SQLiteStore

UIO = "UI Operator_1"
HELLO = RoutedMessage("msg_tl_001", MessageType.MESSAGE, "Team Leader", UIO, "hi", 1)


def _stores(tmp_path: Path) -> list[Store]:
    return [MemoryStore(), SQLiteStore(tmp_path / "router.db")]


@pytest.mark.parametrize("leave", [ConsumeMessages, DiscardMessages])
def test_an_unknown_message_is_refused_and_the_batch_kept_out(tmp_path: Path,
                                                              leave: type) -> None:
    for store in _stores(tmp_path):
        store.apply([PersistMessage(HELLO, None)])
        with pytest.raises(KeyError) as refused:
            store.apply([PersistSetting("time", 5.0), leave(UIO, ("msg_tl_009",))])
        assert "msg_tl_009" in str(refused.value), type(store).__name__
        assert store.settings() == {}, type(store).__name__
        assert [m.id for m in store.load().pending] == ["msg_tl_001"], type(store).__name__
        assert store.history() == [], type(store).__name__
        store.apply([leave(UIO, ("msg_tl_001",))])
        [entry] = store.history()
        wanted = MessageStatus.DELIVERED if leave is ConsumeMessages else MessageStatus.DISCARDED
        assert (entry.message_id, entry.status, entry.seq) == ("msg_tl_001", wanted, 1)
        store.close()
