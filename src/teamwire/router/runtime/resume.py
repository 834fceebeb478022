"""What a store keeps of a session beyond the core's snapshot, read back for a restart."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from teamwire.router.records import Snapshot
from teamwire.router.runtime.roles import RoleInfo
from teamwire.router.store.base import Store


@dataclass(frozen=True)
class SavedSession:
    """A session as its store holds it (TW-DUR-004)."""

    snapshot: Snapshot
    session_id: str | None = None
    custom_roles: list[RoleInfo] = field(default_factory=list)
    time: float = 0.0
    turn_timeouts: dict[str, float] = field(default_factory=dict)
    turn_deadlines: dict[str, float] = field(default_factory=dict)
    conversations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def last_output(self) -> dict[str, str]:
        """Each agent's latest natural output (the text of its last non-blank reply)."""
        found: dict[str, str] = {}
        for name, conversation in self.conversations.items():
            for message in conversation:
                text = message.get("content")
                if message.get("role") == "assistant" and isinstance(text, str) and text.strip():
                    found[name] = text
        return found


def load_session(store: Store) -> SavedSession:
    """Read the session kept in ``store``; ValueError if it holds none."""
    settings = store.settings()
    snapshot = store.load()
    if not snapshot.agents:
        raise ValueError("the store holds no session to resume")
    return SavedSession(
        snapshot,
        session_id=settings.get("session"),
        custom_roles=[RoleInfo.from_record(r) for r in settings.get("roles", [])],
        time=float(settings.get("time", 0.0)),
        turn_timeouts={k: float(v) for k, v in settings.get("turn_timeouts", {}).items()},
        turn_deadlines={k: float(v) for k, v in settings.get("turn_deadlines", {}).items()},
        conversations=store.conversations())
