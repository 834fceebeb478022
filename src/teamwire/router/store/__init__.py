"""Durable homes for the router's queues: the interface, in memory, SQLite."""

from __future__ import annotations

from teamwire.router.store.base import HistoryEntry, MessageStatus, Store
from teamwire.router.store.memory import MemoryStore
from teamwire.router.store.sqlite import SQLiteStore

__all__ = ["HistoryEntry", "MemoryStore", "MessageStatus", "SQLiteStore", "Store"]
