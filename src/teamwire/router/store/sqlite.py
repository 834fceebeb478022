"""The embedded default store: one SQLite file in WAL mode (standard library only).

``synchronous="full"`` (the default) makes every committed transaction
survive a power loss; ``"normal"`` keeps every commit across a crash of the
process but may lose the last transactions on a power loss or OS crash, for
fewer fsyncs. Batching several events into one ``apply_batch`` call commits
them with one fsync.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import orjson

from teamwire.envelope import MessageType
from teamwire.router.actions import Action
from teamwire.router.records import RoutedMessage, Snapshot
from teamwire.router.store.base import (
    Changes,
    HistoryEntry,
    MessageStatus,
    Store,
    record_from_json,
    record_to_json,
)

SYNCHRONOUS = ("full", "normal")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS agents (
    name TEXT PRIMARY KEY,
    record BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    sender TEXT NOT NULL,
    receiver TEXT NOT NULL,
    content TEXT NOT NULL,
    question_id TEXT,
    status INTEGER NOT NULL DEFAULT 0,
    done INTEGER
);
"""


class SQLiteStore(Store):
    """Queues and agent records in one SQLite database.

    A message row is inserted when the message is sent and marked delivered
    (or discarded) in the same transaction as the delivery; delivered rows
    stay as the delivery log and as the memory of used ids, so a repeated id
    is recognised after a restart too.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "full") -> None:
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}")
        self.path = Path(path)
        self.synchronous = synchronous
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT COALESCE(MAX(done), 0) FROM messages").fetchone()
        self._done = int(row[0])

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        changes = Changes.collect(batches)
        if not changes:
            return
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if changes.messages:
                db.executemany(
                    "INSERT INTO messages (id, seq, kind, sender, receiver, content, question_id)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(m.id, m.seq, m.kind.name, m.sender, m.receiver, m.content, m.question_id)
                     for m in changes.messages])
            for ids, status in ((changes.consumed, MessageStatus.DELIVERED),
                                (changes.discarded, MessageStatus.DISCARDED)):
                if ids:
                    start = self._done
                    db.executemany("UPDATE messages SET status = ?, done = ? WHERE id = ?",
                                   [(int(status), start + i, message_id)
                                    for i, message_id in enumerate(ids, 1)])
                    self._done = start + len(ids)
            if changes.agents:
                db.executemany(
                    "INSERT OR REPLACE INTO agents (name, record) VALUES (?, ?)",
                    [(name, orjson.dumps(record_to_json(record)))
                     for name, record in changes.agents.items()])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            row = db.execute("SELECT COALESCE(MAX(done), 0) FROM messages").fetchone()
            self._done = int(row[0])
            raise

    def load(self) -> Snapshot:
        db = self._db
        agents = tuple(record_from_json(orjson.loads(blob))
                       for (blob,) in db.execute("SELECT record FROM agents ORDER BY rowid"))
        pending = tuple(
            RoutedMessage(id_, MessageType[kind], sender, receiver, content, seq, question_id)
            for id_, seq, kind, sender, receiver, content, question_id in db.execute(
                "SELECT id, seq, kind, sender, receiver, content, question_id FROM messages"
                " WHERE status = 0 ORDER BY seq"))
        ids = frozenset(id_ for (id_,) in db.execute("SELECT id FROM messages"))
        row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM messages").fetchone()
        return Snapshot(agents, pending, ids, int(row[0]) + 1)

    def history(self) -> list[HistoryEntry]:
        return [HistoryEntry(id_, MessageType[kind], sender, receiver, seq, MessageStatus(status),
                             done)
                for id_, kind, sender, receiver, seq, status, done in self._db.execute(
                    "SELECT id, kind, sender, receiver, seq, status, done FROM messages"
                    " WHERE status != 0 ORDER BY done")]

    def close(self) -> None:
        self._db.close()
