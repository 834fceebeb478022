"""What an expectation leaves to the router: placeholders in an expected text (an id the
router chooses, the hex digits of an id it draws, words of its own) and objects marked
``<further members allowed>`` at any depth. Everything else is compared exactly, so a text
or a member off by one character still fails."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.matching import FURTHER_MEMBERS, PLACEHOLDERS
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import Expectation, Reply, Scenario

LEADER = "Team Leader"
REQUEST = "Build it. [tw:leader]"


def verdict(expected: dict[str, Any], received: dict[str, Any]) -> Status:
    """The verdict on the leader's second call when the router appended ``received`` where
    the scenario expects ``expected``."""
    call = {"id": "call_1", "type": "function",
            "function": {"name": "list_agents", "arguments": "{}"}}
    first = [{"role": "system", "content": "You lead."}, {"role": "user", "content": REQUEST}]
    reply = Reply(None, (("call_1", "list_agents", "{}"),), ())
    second: list[dict[str, Any]] = [
        *first, {"role": "assistant", "content": None, "tool_calls": [call]}, received]
    scenario = Scenario(name="shapes", title="shapes", requirements=("TW-CERT-007",),
                        level="core", profile="strict", request=REQUEST,
                        tokens={"[tw:leader]": LEADER}, scripts={LEADER: (reply, reply)},
                        schedule=(), expectations=(Expectation(LEADER, 2, (expected,)),))
    calls = [ModelCall(LEADER, 1, first, [], False, 0.0, reply=reply),
             ModelCall(LEADER, 2, second, [], False, 0.0, reply=reply)]
    [found] = [v for v in check_run(Run(scenario, calls, [], [])) if v.check.endswith("call 2")]
    return found.status


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def result(value: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(value)}


@pytest.mark.parametrize(("expected", "received", "status"), [
    ("id: ask_master_<10 hex digits>\n", "id: ask_master_0f3a9c11be\n", Status.PASS),
    ("id: ask_master_<10 hex digits>\n", "id: ask_master_0f3a9c11b\n", Status.FAIL),
    ("id: ask_master_<10 hex digits>\n", "id: ask_master_0F3A9C11BE\n", Status.FAIL),
    ("id: ask_master_<10 hex digits>\n", "id: ask_other_0f3a9c11be\n", Status.FAIL),
    ("id: <any id>\n<Task>", "id: msg_3f9a0c11be\n<Task>", Status.PASS),
    ("id: <any id>\n<Task>", "id: msg 3f9a\n<Task>", Status.FAIL),
    ("id: <any id>\n<Task>", "id: msg_3f9a0c11be\n<Ask>", Status.FAIL),
    ("当前会话活跃子智能体（共 <any text>", "当前会话活跃子智能体（共 2 个）：\n- a\n- b", Status.PASS),
    ("当前会话活跃子智能体（共 <any text>", "当前会话没有活跃子智能体。", Status.FAIL),
    ("<any id>", "", Status.FAIL),
], ids=["hex", "hex-short", "hex-upper", "hex-other-prefix", "any-id", "any-id-space",
        "any-id-rest-differs", "any-text", "any-text-start-differs", "any-id-empty"])
def test_a_placeholder_stands_for_its_shape_and_nothing_else(expected: str, received: str,
                                                             status: Status) -> None:
    assert verdict(user(expected), user(received)) is status


@given(st.text(max_size=30).filter(lambda text: not any(p in text for p in PLACEHOLDERS)))
def test_a_text_without_placeholders_is_compared_exactly(text: str) -> None:
    assert verdict(user(text), user(text)) is Status.PASS
    assert verdict(user(text), user(text + "x")) is Status.FAIL


@pytest.mark.parametrize(("expected", "received", "status"), [
    ({"success": True, "agents": [{"display_name": "A_1", FURTHER_MEMBERS: True}]},
     {"success": True, "agents": [{"display_name": "A_1", "task_id": "t"}]}, Status.PASS),
    ({"success": True, "agents": [{"display_name": "A_1", FURTHER_MEMBERS: True}]},
     {"success": True, "agents": [{"display_name": "A_1"}], "more": 1}, Status.FAIL),
    ({"success": True, "agents": [{"display_name": "A_1", FURTHER_MEMBERS: True}]},
     {"success": True, "agents": [{"display_name": "A_2", "task_id": "t"}]}, Status.FAIL),
    ({"success": True, "agents": [{"display_name": "A_1", FURTHER_MEMBERS: True}]},
     {"success": True, "agents": [{"display_name": "A_1"}, {"display_name": "A_2"}]},
     Status.FAIL),
    ({"success": True, "agents": [{"status": "terminated", FURTHER_MEMBERS: True}],
      FURTHER_MEMBERS: True},
     {"success": True, "agents": [{"status": "terminated", "x": 1}], "y": 2}, Status.PASS),
    ({"success": True, "agent_id": 1, FURTHER_MEMBERS: True},
     {"success": True, "agent_id": True}, Status.FAIL),
    ({"success": True, "agent_id": 1}, {"success": True, "agent_id": True}, Status.FAIL),
    ({"success": True, "agent_id": 1}, {"success": 1, "agent_id": 1}, Status.FAIL),
], ids=["nested-extra-member", "unmarked-top-extra-member", "nested-value-differs",
        "list-longer", "marked-at-both-depths", "bool-is-no-number",
        "bool-is-no-number-unmarked", "number-is-no-bool-unmarked"])
def test_further_members_are_allowed_only_where_an_object_is_marked(
        expected: dict[str, Any], received: dict[str, Any], status: Status) -> None:
    assert verdict(result(expected), result(received)) is status
