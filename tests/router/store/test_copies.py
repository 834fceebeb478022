"""What a store returns is the caller's own copy (TW-DUR-004).

A session reads its settings and conversations back from the store on resume and keeps
working on them; a caller that changes what it was given (a list of roles, a dictionary of
turn timeouts, a message) must not change what the store holds, or the next resume would
see a session that was never committed. The memory store keeps objects, so it has to copy
them; the SQLite store decodes fresh ones. Both behave alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from teamwire.router.actions import AppendConversation, PersistSetting
from teamwire.router.store import MemoryStore, SQLiteStore, Store


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    found: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "r.db")
    yield found
    found.close()


ROLES = [{"role_id": "coder", "name": "Coder", "description": "d", "prompt": "p"}]
MESSAGE = {"role": "assistant", "content": None,
           "tool_calls": [{"id": "c1", "type": "function",
                           "function": {"name": "list_agents", "arguments": "{}"}}]}


def test_changing_the_settings_read_changes_no_stored_setting(store: Store) -> None:
    store.apply_batch([[PersistSetting("roles", ROLES),
                        PersistSetting("turn_timeouts", {"UI Operator_1": 30.0})]])
    read = store.settings()
    read["roles"].append({"role_id": "intruder"})
    read["roles"][0]["name"] = "Changed"
    read["turn_timeouts"]["UI Operator_1"] = 1.0
    del read["turn_timeouts"]
    assert store.settings() == {"roles": ROLES, "turn_timeouts": {"UI Operator_1": 30.0}}


def test_changing_a_conversation_read_changes_nothing_stored(store: Store) -> None:
    store.apply_batch([[AppendConversation("Team Leader", 0, {"role": "user", "content": "go"}),
                        AppendConversation("Team Leader", 1, MESSAGE)]])
    read = store.conversations()
    read["Team Leader"][1]["tool_calls"][0]["function"]["arguments"] = '{"x": 1}'
    read["Team Leader"].append({"role": "user", "content": "more"})
    assert store.conversations() == {"Team Leader": [{"role": "user", "content": "go"}, MESSAGE]}


def test_a_setting_written_again_replaces_the_old_value(store: Store) -> None:
    store.apply_batch([[PersistSetting("turn_timeouts", {"UI Operator_1": 30.0})]])
    store.apply_batch([[PersistSetting("turn_timeouts", {"UI Operator_2": 5.0})]])
    assert store.settings() == {"turn_timeouts": {"UI Operator_2": 5.0}}
