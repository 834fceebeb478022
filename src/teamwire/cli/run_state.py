"""Where ``teamwire run`` keeps a session, and which session a state directory already holds."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from teamwire.envelope import LEADER_NAME
from teamwire.router.store import Store

STORE_FILE = "router.db"
STORE_FILES = (STORE_FILE, f"{STORE_FILE}-wal", f"{STORE_FILE}-shm", f"{STORE_FILE}-journal")
"""The files of the store (SQLite's own beside the database)."""
BUNDLE_FILE = "bundle.json"
DEFAULT_PREFIX = "teamwire-run-"


def new_state_dir(parent: Path, now: datetime | None = None) -> Path:
    """Create and return a new directory ``teamwire-run-<UTC time>`` in ``parent``; one that
    exists already is never reused (a suffix ``-2``, ``-3`` … tells them apart)."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    number = 1
    while True:
        path = parent / (DEFAULT_PREFIX + stamp + ("" if number == 1 else f"-{number}"))
        try:
            path.mkdir()
        except FileExistsError:
            number += 1
            continue
        return path


def kept_request(store: Store) -> str | None:
    """The request the session kept in ``store`` started with (the first user message of the
    Team Leader's conversation); None when the store holds no session."""
    if not store.load().agents:
        return None
    for entry in store.conversations().get(LEADER_NAME, []):
        if entry.get("role") == "user" and isinstance(entry.get("content"), str):
            return str(entry["content"])
    return ""  # a session whose request is not kept: any request is another one


def forget(directory: Path) -> None:
    """Remove the store files of ``directory`` (a session no model call of which succeeded is
    not worth resuming: the same command, corrected, starts it again)."""
    for name in STORE_FILES:
        (directory / name).unlink(missing_ok=True)
