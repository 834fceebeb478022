"""The commit journal: what a session stages, committed in one transaction or undone.

Events go to the routing core at once (``stage``); their store actions wait in
the journal with the host's own rows (conversation entries, settings) until
``commit`` writes them in one store transaction. Only then are the events'
effects performed. If the store refuses, the core, the conversations, the
event log and whatever else the host keeps go back to where the last commit
left them, so that none of it runs ahead of the store (TW-DUR-007).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from teamwire.router.actions import Action, AppendConversation, PersistSetting
from teamwire.router.checkpoint import Checkpoint
from teamwire.router.core import RoutingCore
from teamwire.router.errors import StoreFailure
from teamwire.router.events import Event
from teamwire.router.runtime.clock import Clock
from teamwire.router.serialize import log_entry
from teamwire.router.store.base import Store

Restore = Callable[[], None]
"""Puts some state back as it was when the ``Restore`` was made."""


@dataclass(frozen=True)
class _Mark:
    """What the journal looked like right after its last successful commit."""

    core: Checkpoint
    events: int
    conversations: dict[str, int]
    rows: list[Action]
    host: Restore


class Journal:
    """Stages events and rows for one session and commits them together.

    ``place(actions)`` records what an event's actions put into the
    conversations (called when the event is staged); ``perform(actions)``
    performs them (called for every staged event once its commit has
    succeeded); ``save()`` remembers the host's own uncommitted state and
    returns how to restore it. The host calls ``remark()`` once its own state
    is set up, before the first commit.
    """

    def __init__(self, core: RoutingCore, store: Store, clock: Clock, *,
                 place: Callable[[list[Action]], None],
                 perform: Callable[[list[Action]], None],
                 save: Callable[[], Restore]) -> None:
        self.core = core
        self.store = store
        self.clock = clock
        self.conversations: dict[str, list[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self._place = place
        self._perform = perform
        self._save = save
        self._staged: list[list[Action]] = []
        self._rows: list[Action] = []
        """Host store actions (conversation entries, settings) for the next commit."""
        self._deferred: list[Callable[[], None]] = []
        """Effects that only the commit may perform (stopping a turn)."""
        self._mark: _Mark | None = None

    def stage(self, event: Event) -> list[Action]:
        """Hand ``event`` to the core; its actions wait for ``commit``."""
        actions = self.core.handle(event)
        self.events.append(log_entry(len(self.events) + 1, self.clock.now(), event, actions))
        self._place(actions)
        self._staged.append(actions)
        return actions

    def append(self, agent: str, message: dict[str, Any]) -> None:
        """Add ``message`` to the conversation of ``agent``, stored with the next commit."""
        conversation = self.conversations.setdefault(agent, [])
        self._rows.append(AppendConversation(agent, len(conversation), message))
        conversation.append(message)

    def set_setting(self, key: str, value: Any) -> None:
        """Keep a setting of this session with the next commit."""
        self._rows.append(PersistSetting(key, value))

    def defer(self, effect: Callable[[], None]) -> None:
        """Perform ``effect`` after the next commit, if it succeeds."""
        self._deferred.append(effect)

    def commit(self) -> None:
        """Commit what was staged in one transaction, then perform its effects.

        If the store raises, everything since the last commit is undone and
        ``StoreFailure`` is raised (TW-DUR-007).
        """
        staged, self._staged = self._staged, []
        rows, self._rows = self._rows, []
        rows.append(PersistSetting("time", self.clock.now()))
        try:
            self.store.apply_batch([*staged, rows])
        except Exception as exc:  # any backend's error: nothing of the batch may stand
            self.roll_back()
            raise StoreFailure(f"the store could not commit: {exc}") from exc
        deferred, self._deferred = self._deferred, []
        for actions in staged:
            self._perform(actions)
        for effect in deferred:
            effect()
        self._mark = self.mark()

    def mark(self) -> _Mark:
        """Remember the present state as the one to roll back to."""
        return _Mark(self.core.checkpoint(), len(self.events),
                     {name: len(c) for name, c in self.conversations.items()},
                     list(self._rows), self._save())

    def remark(self) -> None:
        """Take the present state as committed (a session that was just restored)."""
        self._mark = self.mark()

    def roll_back(self) -> None:
        """Return to the mark of the last commit (the store still holds exactly that)."""
        mark = self._mark
        assert mark is not None, "remark() comes before the first commit"
        self.core.rollback(mark.core)
        del self.events[mark.events:]
        for name in list(self.conversations):
            if name in mark.conversations:
                del self.conversations[name][mark.conversations[name]:]
            else:
                del self.conversations[name]
        self._staged, self._rows, self._deferred = [], list(mark.rows), []
        mark.host()

    def discard(self) -> None:
        """Drop everything staged and not committed (the session is abandoned)."""
        self._staged.clear()
        self._rows.clear()
        self._deferred.clear()
