"""The role catalog: what list_agents shows of a role, what a store keeps of a role created
during a session (so that a resumed session knows it), and which roles may exist (TW-NAME-*)."""

from __future__ import annotations

import pytest

from teamwire.router.runtime.roles import RoleInfo, role_problem


def test_list_agents_entry_shows_optional_fields_only_when_set() -> None:
    assert RoleInfo("qa", "QA", "Tests.", "You test.").to_json() == {
        "role_id": "qa", "name": "QA", "description": "Tests."}
    assert RoleInfo("qa", "QA", "Tests.", "You test.", "m-1", "deep").to_json() == {
        "role_id": "qa", "name": "QA", "description": "Tests.", "model": "m-1",
        "thinking_mode": "deep"}


@pytest.mark.parametrize("role", [
    RoleInfo("qa", "QA", "Tests.", "You test."),
    RoleInfo("qa", "QA", "Tests.", "You test.", "m-1", None),
    RoleInfo("qa", "QA", "Tests.", "You test.", None, "deep"),
    RoleInfo("data-ops_2", "Data Ops", "Pipelines.", "You run pipelines.", "m-2", "fast"),
])
def test_a_stored_role_comes_back_whole(role: RoleInfo) -> None:
    record = role.to_record()
    assert record["prompt"] == role.prompt
    assert RoleInfo.from_record(record) == role


@pytest.mark.parametrize(("role_id", "name", "problem"), [
    ("qa", "QA", None),
    ("team-leader", "Lead", "role id 'team-leader' is not allowed"),
    ("QA", "QA", "role id 'QA' is not allowed"),
    ("-qa", "QA", "role id '-qa' is not allowed"),
    ("qa", "Team Leader", "role name 'Team Leader' is reserved for the leader"),
    ("qa", "Q<A", "role name 'Q<A' is not allowed: "),
])
def test_which_roles_may_exist(role_id: str, name: str, problem: str | None) -> None:
    found = role_problem(role_id, name)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem)
