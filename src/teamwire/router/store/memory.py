"""A store that keeps everything in memory (tests, benchmarks, throwaway sessions)."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

from teamwire.router.actions import Action
from teamwire.router.records import AgentRecord, Snapshot
from teamwire.router.store.base import (
    Changes,
    HistoryEntry,
    MessageStatus,
    Store,
    StoredMessage,
    stored_questions,
    stored_results,
)


class MemoryStore(Store):
    """The store interface over dictionaries; nothing survives the process."""

    def __init__(self) -> None:
        self._agents: dict[str, AgentRecord] = {}
        self._messages: dict[str, StoredMessage] = {}
        self._status: dict[str, MessageStatus] = {}
        self._log: list[HistoryEntry] = []
        self._conversations: dict[str, dict[int, dict[str, Any]]] = {}
        self._settings: dict[str, Any] = {}

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        changes = Changes.collect(batches)
        for persist in changes.messages:
            message = persist.message
            self._messages[message.id] = StoredMessage(message, persist.ack)
            self._status[message.id] = MessageStatus.PENDING
        for failure in changes.failures:
            stored = self._messages[failure.question_id]
            self._messages[failure.question_id] = StoredMessage(
                stored.message, stored.ack, (failure.code, failure.message))
        for ids, status in ((changes.consumed, MessageStatus.DELIVERED),
                            (changes.discarded, MessageStatus.DISCARDED)):
            for message_id in ids:
                self._status[message_id] = status
                m = self._messages[message_id].message
                self._log.append(HistoryEntry(m.id, m.kind, m.sender, m.receiver, m.seq, status,
                                              len(self._log) + 1))
        self._agents.update(changes.agents)
        for entry in changes.conversation:
            self._conversations.setdefault(entry.agent, {})[entry.index] = \
                copy.deepcopy(entry.message)
        self._settings.update(copy.deepcopy(changes.settings))

    def load(self) -> Snapshot:
        pending = tuple(sorted((s.message for s in self._messages.values()
                                if self._status[s.message.id] is MessageStatus.PENDING),
                               key=lambda m: m.seq))
        next_seq = max((s.message.seq for s in self._messages.values()), default=0) + 1
        delivered = self._status
        return Snapshot(tuple(self._agents.values()), pending, frozenset(self._messages),
                        next_seq, stored_results(self._messages.values()),
                        stored_questions(self._messages.values(),
                                         lambda i: delivered[i] is MessageStatus.DELIVERED))

    def conversations(self) -> dict[str, list[dict[str, Any]]]:
        return {agent: [copy.deepcopy(entries[i]) for i in sorted(entries)]
                for agent, entries in self._conversations.items()}

    def settings(self) -> dict[str, Any]:
        return copy.deepcopy(self._settings)

    def history(self) -> list[HistoryEntry]:
        return list(self._log)
