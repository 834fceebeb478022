"""The reference router (``teamwire run``) with one durability mistake made on purpose.

This is a derivation, not a second implementation: it runs the reference router unchanged
but for what its SQLite store hands back when the router restarts, so that the certification
tests can check that level durable catches a router that comes back wrong. ``ROUTER_FAULT``
chooses the mistake:

- ``lose-queue``: messages that were waiting in a queue when the router crashed are gone;
- ``redeliver``: messages that had been delivered before the crash are delivered again;
- ``lose-deadline``: an ask open when the router crashed comes back without its deadline, so
  it never times out;
- ``wall-clock``: the clock resumes at its stored reading plus the wall time since the last
  commit (noted beside the store), as a router whose deadlines are wall-clock times does: the time it was
  down counts against every deadline (TW-DUR-010 broken; 1.0 did not say).

Without ``ROUTER_FAULT`` it is the reference router.
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Any

from teamwire.router.records import Snapshot
from teamwire.router.store import sqlite
from teamwire.router.store.base import MessageStatus, message_from_columns

FAULT = os.environ.get("ROUTER_FAULT", "")
_load = sqlite.SQLiteStore.load


def _faulty_load(self: sqlite.SQLiteStore) -> Snapshot:
    snapshot = _load(self)
    if FAULT == "lose-queue":
        return dataclasses.replace(snapshot, pending=())
    if FAULT == "lose-deadline":
        agents = tuple(dataclasses.replace(a, ask=dataclasses.replace(a.ask, deadline=None,
                                                                       timeout=None))
                       if a.ask is not None else a for a in snapshot.agents)
        return dataclasses.replace(snapshot, agents=agents)
    if FAULT == "redeliver":
        rows = self._db.execute(f"SELECT {sqlite._COLUMNS} FROM messages WHERE status = ? "
                                "ORDER BY seq", (MessageStatus.DELIVERED,))
        delivered = tuple(message_from_columns(row) for row in rows)
        return dataclasses.replace(snapshot, pending=delivered + snapshot.pending)
    return snapshot


_settings = sqlite.SQLiteStore.settings
_apply_batch = sqlite.SQLiteStore.apply_batch


def _wall_file(store: sqlite.SQLiteStore) -> Path:
    return store.path.with_name(store.path.name + ".wall")


def _faulty_apply_batch(self: sqlite.SQLiteStore, *args: Any, **kwargs: Any) -> Any:
    """wall-clock: each commit also notes the wall time it was made at."""
    result = _apply_batch(self, *args, **kwargs)
    if FAULT == "wall-clock":
        _wall_file(self).write_text(repr(time.time()), encoding="utf-8")
    return result


def _faulty_settings(self: sqlite.SQLiteStore) -> dict[str, Any]:
    settings = _settings(self)
    wall = _wall_file(self)
    if FAULT == "wall-clock" and "time" in settings and wall.exists():
        settings["time"] = float(settings["time"]) + time.time() - float(wall.read_text("utf-8"))
    return settings


sqlite.SQLiteStore.load = _faulty_load  # type: ignore[method-assign]
sqlite.SQLiteStore.settings = _faulty_settings  # type: ignore[method-assign]
sqlite.SQLiteStore.apply_batch = _faulty_apply_batch  # type: ignore[method-assign]

if __name__ == "__main__":
    from teamwire.cli import main

    main(args=["run", "-q"], prog_name="teamwire")
