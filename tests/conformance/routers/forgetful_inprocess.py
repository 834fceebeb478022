"""The reference router, in process, keeping nothing across a restart: each start throws the
state directory's store away and begins again from the request, the way a router with
in-memory queues does (TW-DUR-001, TW-DUR-004 broken).

``teamwire certify --in-process tests/conformance/routers/forgetful_inprocess.py:forgets``
"""

from __future__ import annotations

from teamwire.conformance.inprocess import STORE_FILE, InProcessSetup, reference_router


async def forgets(setup: InProcessSetup) -> object:
    """Start the reference router on an empty store, whatever the last run left there."""
    for path in setup.state_dir.glob(f"{STORE_FILE}*"):  # the database and its journals
        path.unlink()
    return await reference_router(setup)
