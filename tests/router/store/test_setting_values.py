"""A store keeps the setting values it committed, not the caller's objects (TW-DUR-004).

A session persists settings such as its custom roles and turn timeouts, then goes on
changing its own dictionaries and lists. What the store holds must stay what was
committed: a resume after a restart must not see changes that were never committed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from teamwire.router.actions import PersistSetting
from teamwire.router.store import MemoryStore, SQLiteStore, Store


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    found: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "r.db")
    yield found
    found.close()


def test_changing_a_committed_value_afterwards_changes_nothing_stored(store: Store) -> None:
    roles = [{"role_id": "coder", "name": "Coder", "description": "d", "prompt": "p"}]
    timeouts = {"Coder_1": {"seconds": 30.0}}
    store.apply_batch([[PersistSetting("roles", roles),
                        PersistSetting("turn_timeouts", timeouts)]])
    roles[0]["name"] = "Changed"
    roles.append({"role_id": "intruder"})
    timeouts["Coder_1"]["seconds"] = 1.0
    timeouts["Coder_2"] = {"seconds": 5.0}
    assert store.settings() == {
        "roles": [{"role_id": "coder", "name": "Coder", "description": "d", "prompt": "p"}],
        "turn_timeouts": {"Coder_1": {"seconds": 30.0}}}
