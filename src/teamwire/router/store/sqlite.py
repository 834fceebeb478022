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
from itertools import count, repeat
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
    message_from_columns,
    record_from_json,
    record_to_json,
    stored_questions,
    stored_results,
)

SYNCHRONOUS = ("full", "normal")

SCHEMA_VERSION = 3
"""``PRAGMA user_version`` of the tables below; a file of another version is refused."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS agents (
    name TEXT PRIMARY KEY,
    record BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
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
    done INTEGER
);
CREATE TABLE IF NOT EXISTS failures (
    question_id TEXT PRIMARY KEY,
    code TEXT NOT NULL,
    message TEXT NOT NULL
) WITHOUT ROWID;
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
_INSERT = (f"INSERT INTO messages ({_COLUMNS}, ack, status, done)"
           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_PENDING = (MessageStatus.PENDING, None)
_LEAVE = "UPDATE messages SET status = ?, done = ? WHERE seq = ?"


class SQLiteStore(Store):
    """Queues, agent records, conversations and settings in one SQLite database.

    A message row is inserted when the message is sent and marked delivered
    (or discarded) in the same transaction as the delivery; delivered rows
    stay as the delivery log and as the memory of used ids and tool calls, so
    a repeated id or a re-executed tool call is recognised after a restart too.

    The row's key is the message's ``seq``, which only grows: every insert
    appends to the table, and a delivery updates its row by that key (the
    store remembers the ``seq`` of each pending id), so the table needs no
    second index however long the log grows.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "full") -> None:
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}")
        self.path = Path(path)
        self.synchronous = synchronous
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:  # a missing directory, a directory, no permission
            raise type(exc)(f"{self.path}: {exc}") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables and version == 0:  # another application's database: leave it alone
                raise ValueError(f"{self.path} is an SQLite database of something else, "
                                 "not of the router")
            if tables and version != SCHEMA_VERSION:
                raise ValueError(f"{self.path} holds router tables of another version "
                                 f"({version}, expected {SCHEMA_VERSION})")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.Error as exc:  # not a database, read-only, locked: say which file
            self._db.close()
            raise type(exc)(f"{self.path}: {exc}") from exc
        except BaseException:
            self._db.close()
            raise
        row = self._db.execute("SELECT COALESCE(MAX(done), 0) FROM messages").fetchone()
        self._done = int(row[0])
        self._pending: dict[str, int] = dict(
            self._db.execute("SELECT id, seq FROM messages WHERE status = 0"))
        """id → seq of every message not yet delivered or discarded."""

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        changes = Changes.collect(batches)
        if not changes:
            return
        db = self._db
        pending = self._pending
        db.execute("BEGIN IMMEDIATE")
        try:
            # id → (status, done) of every message that leaves its queue in this batch
            done = self._done
            left = dict(zip(changes.consumed,
                            zip(repeat(MessageStatus.DELIVERED), count(done + 1), strict=False),
                            strict=False))
            done += len(changes.consumed)
            if changes.discarded:
                left.update(zip(changes.discarded,
                                zip(repeat(MessageStatus.DISCARDED), count(done + 1),
                                    strict=False), strict=False))
                done += len(changes.discarded)
            if changes.messages:
                # a message sent and delivered in one transaction is written once, delivered
                gone = left.pop
                rows = [(m.id, m.seq, m.kind._name_, m.sender, m.receiver, m.content,
                         m.question_id, m.correlation_id, m.round, m.call_id, p.ack,
                         *gone(m.id, _PENDING))
                        for p in changes.messages for m in (p.message,)]
                db.executemany(_INSERT, rows)
                pending.update([(row[0], row[1]) for row in rows if row[11] == 0])
            if left:
                db.executemany(_LEAVE, [(status, n, pending.pop(message_id, None)
                                         or self._seq_of(message_id))
                                        for message_id, (status, n) in left.items()])
            if changes.failures:
                db.executemany("INSERT OR REPLACE INTO failures (question_id, code, message)"
                               " VALUES (?, ?, ?)",
                               [(f.question_id, f.code, f.message) for f in changes.failures])
            if changes.agents:
                db.executemany(
                    # an upsert keeps the row, so agents load in creation order (rowid)
                    "INSERT INTO agents (name, record) VALUES (?, ?)"
                    " ON CONFLICT (name) DO UPDATE SET record = excluded.record",
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
            # SQLite has already rolled back after some errors (a full disk, SQLITE_FULL);
            # a second ROLLBACK would raise and hide the error that matters
            if db.in_transaction:
                db.execute("ROLLBACK")
            self._pending = dict(db.execute("SELECT id, seq FROM messages WHERE status = 0"))
            raise
        self._done = done

    def _seq_of(self, message_id: str) -> int:
        """The key of a message that is not pending any more (a scan: never on the hot path)."""
        row = self._db.execute("SELECT seq FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(f"no stored message {message_id!r}")
        return int(row[0])

    def load(self) -> Snapshot:
        db = self._db
        agents = tuple(record_from_json(orjson.loads(blob))
                       for (blob,) in db.execute("SELECT record FROM agents ORDER BY rowid"))
        failures = {q: (code, text) for q, code, text in
                    db.execute("SELECT question_id, code, message FROM failures")}
        stored = []
        pending = []
        delivered = set()
        for row in db.execute(f"SELECT {_COLUMNS}, ack, status FROM messages ORDER BY seq"):
            message = message_from_columns(row[:10])
            stored.append(StoredMessage(message, row[10], failures.get(message.id)))
            if row[11] == MessageStatus.PENDING:
                pending.append(message)
            elif row[11] == MessageStatus.DELIVERED:
                delivered.add(message.id)
        ids = frozenset(s.message.id for s in stored)
        next_seq = (stored[-1].message.seq if stored else 0) + 1
        return Snapshot(agents, tuple(pending), ids, next_seq, stored_results(stored),
                        stored_questions(stored, delivered.__contains__))

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
