"""After a restart, one natural output that answers several asks answers them in the order
their questions reached the answerer (TW-ROUTE-014), as the router that stopped would have:
not in the order the askers were created.

UI Operator_1 receives, in one batch, a notification of Full-Stack Engineer_1 (an
``ask_other_agent`` with a ``msg_`` id) and then the leader's ``ask_sub_agent``; both are
answered by its next output. The leader was created first, so an order by creation would
answer it first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from teamwire.router import (
    ModelCallStarted,
    OutputEmitted,
    PersistAgent,
    PersistMessage,
    ResolveToolCall,
    Restarted,
    RoutingCore,
    ToolCallBlocked,
)
from teamwire.router.store import Store
from teamwire.router.store.memory import MemoryStore
from teamwire.router.store.sqlite import SQLiteStore
from tests.router.helpers import FSE, LEADER, UIO, of_type, run_stored, team


def _asked_in_reverse_creation_order(core: RoutingCore, store: Store | None = None) -> None:
    events = (ToolCallBlocked(FSE, "c-note", UIO, "msg_fse_001", "The API is up."),
              ToolCallBlocked(LEADER, "c-ask", UIO, "ask_tl_001", "Which colour?"),
              ModelCallStarted(UIO))
    if store is None:
        core.handle_all(events)
    else:
        run_stored(core, store, *events)


def _answers(core: RoutingCore) -> list[tuple[str, str, str]]:
    """(asker, answer id, question id) of every ask UI Operator_1's output resolves."""
    return [(r.agent, r.message.id, r.message.question_id)
            for r in of_type(core.handle(OutputEmitted(UIO, "Navy.")), ResolveToolCall)]


EXPECTED = [(FSE, "ans_uio_001", "msg_fse_001"), (LEADER, "ans_uio_002", "ask_tl_001")]
"""The notification reached UI Operator_1 first, so its asker is answered first and its
ANSWER id allocated first."""


def test_without_a_restart_the_askers_are_answered_in_delivery_order() -> None:
    core = team()
    _asked_in_reverse_creation_order(core)
    assert _answers(core) == EXPECTED


def test_a_restored_core_answers_in_delivery_order() -> None:
    core = team()
    _asked_in_reverse_creation_order(core)
    restored = RoutingCore()
    restored.handle(Restarted(core.snapshot()))
    assert _answers(restored) == EXPECTED


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_router_restarted_from_its_store_answers_in_delivery_order(
        kind: str, tmp_path: Path) -> None:
    """The order survives the store: what it loads restores the askers in delivery order."""
    store: Store = MemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "router.db")
    core = team()
    snap = core.snapshot()
    store.apply([*(PersistMessage(m) for m in snap.pending)])
    store.apply([PersistAgent(r) for r in snap.agents])
    _asked_in_reverse_creation_order(core, store)
    restored = RoutingCore()
    store.apply(restored.handle(Restarted(store.load())))
    assert _answers(restored) == EXPECTED
