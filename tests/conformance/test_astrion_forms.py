"""A scenario of profile strict in astrion's forms (TW-CERT-028, TW-CERT-034 to TW-CERT-036):
the calls the harness sends a router of profile astrion, the results it expects, and the
scenarios it cannot send one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from teamwire.conformance.astrion_forms import NotApplicable, for_profile_astrion
from teamwire.conformance.capabilities import Capabilities
from teamwire.conformance.scenario import Scenario, load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "conformance" / "scenarios"


def calls(scenario: Scenario) -> dict[str, tuple[str, dict[str, Any]]]:
    return {str(call_id): (name, json.loads(arguments))
            for script in scenario.scripts.values() for reply in script
            for call_id, name, arguments in reply.tool_calls}


def expected(scenario: Scenario, call_id: str) -> Any:
    return next(m["content"] for e in scenario.expectations for m in e.appended
                if m.get("tool_call_id") == call_id)


def test_calls_between_sub_agents_name_them_by_display_name() -> None:
    strict = load_scenario(SCENARIOS / "ask-between-sub-agents-and-round-limit.json")
    astrion = for_profile_astrion(strict)
    assert astrion.profile == "astrion" and astrion.level == strict.level
    assert "TW-CERT-028" in astrion.requirements
    sent = calls(astrion)
    assert sent["call_tl_1"] == ("create_sub_agent", {
        "role_id": "ui-operator", "task": "Design the sign-up form. [tw:uio1]"})
    assert sent["call_uio_1"] == ("ask_other_agent", {
        "target_display_name": "Full-Stack Engineer_1",
        "question": "Which port does the API listen on?", "question_id": "ask_uio_001"})
    assert sent["call_fse_1"] == ("answer_other_agent", {
        "question_id": "ask_uio_001", "answer": "8080."})
    assert expected(astrion, "call_fse_1") == "回复已发送。"
    assert expected(astrion, "call_uio_1") == "子智能体的回答：\n8080."
    assert astrion.notes[("Full-Stack Engineer_1", 3)].startswith(
        "answer_other_agent result call_fse_1: astrion's text says only that the call "
        "succeeded")
    # the strict scenario itself is unchanged
    assert calls(strict)["call_fse_1"][1]["source_agent_id"] == 1


def test_a_status_is_asked_by_display_names_and_expected_as_results() -> None:
    astrion = for_profile_astrion(load_scenario(SCENARIOS / "sub-agent-status.json"))
    statuses = [(call_id, args) for call_id, (name, args) in calls(astrion).items()
                if name == "get_sub_agent_status"]
    assert statuses
    for call_id, args in statuses:
        assert set(args) == {"display_names"} and len(args["display_names"]) == 1
        result = json.loads(expected(astrion, call_id))
        [item] = result["results"]
        assert result["success"] is True and item["found"] is True
        assert item["display_name"] == args["display_names"][0]


def test_a_number_no_sub_agent_has_names_nobody() -> None:
    """unknown-agent: a number without role_id that no sub-agent of the script has is sent
    as a display name no sub-agent has."""
    astrion = for_profile_astrion(load_scenario(SCENARIOS / "unknown-agent.json"))
    names = [args.get("display_name") for name, args in calls(astrion).values()
             if name == "send_message_to_sub_agent"]
    assert names and all(n == "UI Operator_7" for n in names)


@pytest.mark.parametrize(("scenario", "why"), [
    ("leader-asks-a-sub-agent", "ask_sub_agent call call_tl_2 asks a sub-agent"),
    ("ambiguous-agent-id", "without role_id, which 2 sub-agents of the script have"),
    ("message-between-sub-agents", "sends the Message msg_uio_001"),
    ("turn-timeout", "gives timeout_seconds"),
    ("refused-calls", "expects the error invalid-arguments"),
    ("custom-roles-and-creation-errors", "chooses agent_id 1"),
    ("terminated-sub-agent-not-listed", "the terminated too (TW-PROF-024, TW-PROF-034)"),
])
def test_a_scenario_that_cannot_be_put_in_astrions_forms_is_skipped_with_the_reason(
        scenario: str, why: str) -> None:
    strict = load_scenario(SCENARIOS / f"{scenario}.json")
    with pytest.raises(NotApplicable, match="TW-CERT-035") as raised:
        for_profile_astrion(strict)
    assert why in str(raised.value)
    reason = Capabilities(profile="astrion").skip_reason(strict)
    assert reason is not None and why in reason


def test_a_router_of_profile_strict_runs_strict_scenarios_as_they_are() -> None:
    strict = load_scenario(SCENARIOS / "task-to-idle-sub-agent.json")
    assert Capabilities().scenario_for(strict) is strict
    assert Capabilities(profile="astrion").scenario_for(strict).profile == "astrion"
