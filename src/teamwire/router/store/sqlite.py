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
from typing import Any

import orjson

from teamwire.envelope import MessageType
from teamwire.router.actions import Action
from teamwire.router.records import Snapshot
from teamwire.router.store.base import (
    Changes,
    HistoryEntry,
    MessageStatus,
    Store,
    StoredMessage,
    message_columns,
    message_from_columns,
    record_from_json,
    record_to_json,
    stored_results,
)

SYNCHRONOUS = ("full", "normal")

SCHEMA_VERSION = 2
"""``PRAGMA user_version`` of the tables below; a file of another version is refused."""

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
    correlation_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    call_id TEXT,
    ack TEXT,
    status INTEGER NOT NULL DEFAULT 0,
    done INTEGER,
    failure BLOB
);
CREATE TABLE IF NOT EXISTS conversations (
    agent TEXT NOT NULL,
    idx INTEGER NOT NULL,
    message BLOB NOT NULL,
    PRIMARY KEY (agent, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;
"""

_COLUMNS = ("id, seq, kind, sender, receiver, content, question_id, correlation_id, round, "
            "call_id")
_INSERT = f"INSERT INTO messages ({_COLUMNS}, ack) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"


class SQLiteStore(Store):
    """Queues, agent records, conversations and settings in one SQLite database.

    A message row is inserted when the message is sent and marked delivered
    (or discarded) in the same transaction as the delivery; delivered rows
    stay as the delivery log and as the memory of used ids and tool calls, so
    a repeated id or a re-executed tool call is recognised after a restart too.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "full") -> None:
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}")
        self.path = Path(path)
        self.synchronous = synchronous
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables and version != SCHEMA_VERSION:
                raise ValueError(f"{self.path} holds router tables of another version "
                                 f"({version}, expected {SCHEMA_VERSION})")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            self._db.close()
            raise
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
                db.executemany(_INSERT, [(*message_columns(p.message), p.ack)
                                         for p in changes.messages])
            if changes.failures:
                db.executemany("UPDATE messages SET failure = ? WHERE id = ?",
                               [(orjson.dumps([f.code, f.message]), f.question_id)
                                for f in changes.failures])
            for ids, status in ((changes.consumed, MessageStatus.DELIVERED),
                                (changes.discarded, MessageStatus.DISCARDED)):
                if ids:
                    start = self._done
                    db.executemany(f"UPDATE messages SET status = {int(status)}, done = ?"
                                   " WHERE id = ?", enumerate(ids, start + 1))
                    self._done = start + len(ids)
            if changes.agents:
                db.executemany(
                    "INSERT OR REPLACE INTO agents (name, record) VALUES (?, ?)",
                    [(name, orjson.dumps(record_to_json(record)))
                     for name, record in changes.agents.items()])
            if changes.conversation:
                db.executemany(
                    "INSERT OR REPLACE INTO conversations (agent, idx, message) VALUES (?, ?, ?)",
                    [(e.agent, e.index, orjson.dumps(e.message)) for e in changes.conversation])
            if changes.settings:
                db.executemany("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                               [(k, orjson.dumps(v)) for k, v in changes.settings.items()])
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
        stored = []
        pending = []
        for row in db.execute(f"SELECT {_COLUMNS}, ack, failure, status FROM messages"
                              " ORDER BY seq"):
            message = message_from_columns(row[:10])
            failure = tuple(orjson.loads(row[11])) if row[11] is not None else None
            stored.append(StoredMessage(message, row[10], failure))
            if row[12] == MessageStatus.PENDING:
                pending.append(message)
        ids = frozenset(s.message.id for s in stored)
        next_seq = (stored[-1].message.seq if stored else 0) + 1
        return Snapshot(agents, tuple(pending), ids, next_seq, stored_results(stored))

    def conversations(self) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for agent, blob in self._db.execute(
                "SELECT agent, message FROM conversations ORDER BY agent, idx"):
            found.setdefault(agent, []).append(orjson.loads(blob))
        return found

    def settings(self) -> dict[str, Any]:
        return {key: orjson.loads(blob)
                for key, blob in self._db.execute("SELECT key, value FROM settings")}

    def history(self) -> list[HistoryEntry]:
        return [HistoryEntry(id_, MessageType[kind], sender, receiver, seq, MessageStatus(status),
                             done)
                for id_, kind, sender, receiver, seq, status, done in self._db.execute(
                    "SELECT id, kind, sender, receiver, seq, status, done FROM messages"
                    " WHERE status != 0 ORDER BY done")]

    def close(self) -> None:
        self._db.close()
