"""A store that keeps everything in memory (tests, benchmarks, throwaway sessions)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from teamwire.router.actions import Action
from teamwire.router.records import AgentRecord, RoutedMessage, Snapshot
from teamwire.router.store.base import Changes, HistoryEntry, MessageStatus, Store


class MemoryStore(Store):
    """The store interface over dictionaries; nothing survives the process."""

    def __init__(self) -> None:
        self._agents: dict[str, AgentRecord] = {}
        self._messages: dict[str, RoutedMessage] = {}
        self._status: dict[str, MessageStatus] = {}
        self._log: list[HistoryEntry] = []

    def apply_batch(self, batches: Iterable[Sequence[Action]]) -> None:
        changes = Changes.collect(batches)
        for message in changes.messages:
            self._messages[message.id] = message
            self._status[message.id] = MessageStatus.PENDING
        for ids, status in ((changes.consumed, MessageStatus.DELIVERED),
                            (changes.discarded, MessageStatus.DISCARDED)):
            for message_id in ids:
                self._status[message_id] = status
                m = self._messages[message_id]
                self._log.append(HistoryEntry(m.id, m.kind, m.sender, m.receiver, m.seq, status,
                                              len(self._log) + 1))
        self._agents.update(changes.agents)

    def load(self) -> Snapshot:
        pending = tuple(sorted((m for m in self._messages.values()
                                if self._status[m.id] is MessageStatus.PENDING),
                               key=lambda m: m.seq))
        next_seq = max((m.seq for m in self._messages.values()), default=0) + 1
        return Snapshot(tuple(self._agents.values()), pending, frozenset(self._messages),
                        next_seq)

    def history(self) -> list[HistoryEntry]:
        return list(self._log)
