"""create_custom_agent and the catalog list_agents shows the Team Leader's model.

TW-TOOL-018 (``role-exists`` for a repeated role id or a repeated role name, each on its own;
otherwise the role is added and the result is ``{"success": true, "role_id", "name"}``),
TW-TOOL-019 (list_agents, with the optional ``model`` and ``thinking_mode`` of
``spec/schemas/tool-results.schema.json``), TW-TOOL-026 (a failed call changes nothing),
TW-TOOL-032 (an error result's message is a non-empty text), TW-TOOL-036.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire import schemas
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import LEADER, run_to_idle

CODER = {"role_id": "coder", "name": "Coder", "description": "Writes the code.",
         "prompt": "You are a Coder.", "model": "big-model-7b", "thinking_mode": "thinking"}
TESTER = {"role_id": "tester", "name": "Tester", "description": "Tests the code.",
          "prompt": "You are a Tester."}


def _run(leader: list[Step]) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent([], clock, tag=role_id[:3])

    return run_to_idle(Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers,
                               clock=clock), "a sign-up page")


def _results(session: Session) -> list[dict[str, Any]]:
    """The leader's tool results in order, parsed; each valid against the schema."""
    found = [json.loads(m["content"]) for m in session.conversations[LEADER] if m["role"] == "tool"]
    for data in found:
        assert schemas.is_valid("tool-results", data), data
    return found


def _roles(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    assert result["success"] is True
    return {r["role_id"]: r for r in result["roles"]}


def test_a_custom_role_keeps_its_model_and_thinking_mode() -> None:
    """TW-TOOL-018, TW-TOOL-019: the added role is listed with everything the leader gave it;
    a role given neither model nor thinking mode is listed without them."""
    session = _run([Step(None, (("create_custom_agent", CODER), ("create_custom_agent", TESTER),
                                ("list_agents", {})))])
    created, second, listed = _results(session)
    assert created == {"success": True, "role_id": "coder", "name": "Coder"}
    assert second == {"success": True, "role_id": "tester", "name": "Tester"}
    roles = _roles(listed)
    assert roles["coder"] == {"role_id": "coder", "name": "Coder",
                              "description": "Writes the code.", "model": "big-model-7b",
                              "thinking_mode": "thinking"}
    assert roles["tester"] == {"role_id": "tester", "name": "Tester",
                               "description": "Tests the code."}
    assert session.roles["coder"].prompt == "You are a Coder."


def test_fast_thinking_mode_without_a_model() -> None:
    """TW-TOOL-019: thinking_mode alone is kept, and no model is invented for it."""
    session = _run([Step(None, (("create_custom_agent", {**TESTER, "thinking_mode": "fast"}),
                                ("list_agents", {})))])
    roles = _roles(_results(session)[1])
    assert roles["tester"] == {"role_id": "tester", "name": "Tester",
                               "description": "Tests the code.", "thinking_mode": "fast"}


def test_a_model_without_a_thinking_mode() -> None:
    """TW-TOOL-019: model alone is kept, and no thinking mode is invented for it."""
    session = _run([Step(None, (("create_custom_agent", {**TESTER, "model": "small"}),
                                ("list_agents", {})))])
    roles = _roles(_results(session)[1])
    assert roles["tester"] == {"role_id": "tester", "name": "Tester",
                               "description": "Tests the code.", "model": "small"}


def test_a_repeated_role_id_or_role_name_is_role_exists() -> None:
    """TW-TOOL-018, TW-TOOL-026, TW-TOOL-032: a role id that exists, under a new name; a new
    role id under a name that exists (a default role's, or a role created in the session);
    each is role-exists with a message, and the catalog keeps the roles it had."""
    session = _run([Step(None, (
        ("create_custom_agent", CODER),
        ("create_custom_agent", {**TESTER, "role_id": "ui-operator"}),       # id of a default role
        ("create_custom_agent", {**TESTER, "name": "UI Operator"}),          # its name
        ("create_custom_agent", {**TESTER, "role_id": "coder"}),             # id made just now
        ("create_custom_agent", {**TESTER, "name": "Coder"}),                # its name
        ("create_custom_agent", {**CODER, "description": "Again."}),         # both repeated
        ("list_agents", {}),
    ))])
    results = _results(session)
    for refused in results[1:6]:
        assert refused["success"] is False
        assert refused["error"]["code"] == "role-exists"
        assert isinstance(refused["error"]["message"], str) and refused["error"]["message"]
    roles = _roles(results[6])
    assert sorted(roles) == ["coder", "full-stack-engineer", "ui-operator"]
    assert roles["ui-operator"]["name"] == "UI Operator"
    assert roles["coder"]["description"] == "Writes the code."
    assert session.roles["ui-operator"].prompt.startswith("You are a UI Operator.")
