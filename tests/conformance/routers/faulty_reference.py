"""The reference router (``teamwire run``) with one durability mistake made on purpose.

This is a derivation, not a second implementation: it runs the reference router unchanged
but for what its SQLite store hands back when the router restarts, so that the certification
tests can check that level durable catches a router that comes back wrong. ``ROUTER_FAULT``
chooses the mistake:

- ``lose-queue``: messages that were waiting in a queue when the router crashed are gone;
- ``redeliver``: messages that had been delivered before the crash are delivered again;
- ``lose-deadline``: an ask open when the router crashed comes back without its deadline, so
  it never times out.

Without ``ROUTER_FAULT`` it is the reference router.
"""

from __future__ import annotations

import dataclasses
import os

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


sqlite.SQLiteStore.load = _faulty_load  # type: ignore[method-assign]

if __name__ == "__main__":
    from teamwire.cli import main

    main(args=["run", "-q"], prog_name="teamwire")
