"""The SQLite store is its file: what any connection to it commits, every other one sees.

TW-DUR-001, TW-DUR-002: a message written to the file is delivered by recording its delivery
and taking it out of the pending queue in one transaction, whichever store object on that file
wrote it, and whichever thread commits. The store says which durability it was opened with, and
refuses, listing the choices, a durability it does not offer.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from teamwire.envelope import MessageType
from teamwire.router import ConsumeMessages, PersistMessage, RoutedMessage
from teamwire.router.store import MessageStatus, SQLiteStore
from tests.router.helpers import LEADER, UIO

HELLO = RoutedMessage("msg_tl_001", MessageType.MESSAGE, LEADER, UIO, "hello", 1)
AGAIN = RoutedMessage("msg_tl_002", MessageType.MESSAGE, LEADER, UIO, "again", 2)


def test_a_message_another_connection_stored_is_delivered(tmp_path: Path) -> None:
    host = SQLiteStore(tmp_path / "router.db")  # opened before the message exists
    writer = SQLiteStore(tmp_path / "router.db")
    writer.apply([PersistMessage(HELLO, None), PersistMessage(AGAIN, None)])
    host.apply([ConsumeMessages(UIO, ("msg_tl_002",))])
    assert [(h.message_id, h.seq, h.status) for h in host.history()] == [
        ("msg_tl_002", 2, MessageStatus.DELIVERED)]
    assert [m.id for m in writer.load().pending] == ["msg_tl_001"]
    writer.close()
    host.close()


def test_a_store_commits_from_another_thread(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "router.db")
    failed: list[BaseException] = []

    def commit() -> None:
        try:
            store.apply([PersistMessage(HELLO, None)])
        except BaseException as exc:  # reported below
            failed.append(exc)

    worker = threading.Thread(target=commit)
    worker.start()
    worker.join()
    assert failed == []
    assert [m.id for m in store.load().pending] == ["msg_tl_001"]
    store.close()


@pytest.mark.parametrize("synchronous", ["full", "normal"])
def test_a_store_says_its_durability(tmp_path: Path, synchronous: str) -> None:
    store = SQLiteStore(tmp_path / "router.db", synchronous=synchronous)
    assert store.synchronous == synchronous
    store.close()


def test_a_durability_it_does_not_offer_is_refused_listing_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as refused:
        SQLiteStore(tmp_path / "router.db", synchronous="off")
    message = str(refused.value)
    assert "synchronous" in message
    assert re.search(r"\bfull\b", message) and re.search(r"\bnormal\b", message)
    assert not (tmp_path / "router.db").exists()
