"""An expected tool result marked "<further members allowed>" (TW-TOOL-017): the members it
names are compared exactly, and members beyond them are accepted."""

from __future__ import annotations

import json
from typing import Any

import pytest

from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.matching import FURTHER_MEMBERS
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import Expectation, Reply, Scenario

REQUEST = "Status? [tw:leader]"
CALL = {"id": "c1", "type": "function",
        "function": {"name": "get_sub_agent_status", "arguments": '{"agent_id": 1}'}}
EXPECTED = {"success": True, "agent_id": 1, "status": "completed", FURTHER_MEMBERS: True}


def _verdict(result: dict[str, Any]) -> Any:
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": REQUEST}]
    second: list[dict[str, Any]] = [*first, {"role": "assistant", "content": None, "tool_calls": [CALL]},
              {"role": "tool", "tool_call_id": "c1", "content": json.dumps(result)}]
    reply = Reply(None, (("c1", "get_sub_agent_status", '{"agent_id": 1}'),))
    scenario = Scenario(
        name="s", title="t", requirements=("TW-TOOL-016",), level="core", profile="strict",
        request=REQUEST, tokens={"[tw:leader]": "Team Leader"},
        scripts={"Team Leader": (reply, Reply("ok"))}, schedule=(),
        expectations=(Expectation("Team Leader", 2, (
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(EXPECTED)},)),))
    calls = [ModelCall("Team Leader", 1, first, [], False, 0.0, reply=reply),
             ModelCall("Team Leader", 2, second, [], False, 0.0, reply=Reply("ok"))]
    [verdict] = [v for v in check_run(Run(scenario, calls, [], []))
                 if v.check == "Team Leader call 2"]
    return verdict


@pytest.mark.parametrize(("result", "passes"), [
    ({"success": True, "agent_id": 1, "status": "completed"}, True),
    ({"success": True, "agent_id": 1, "status": "completed", "summary": "Done."}, True),
    ({"success": True, "agent_id": 1, "status": "running", "summary": "Done."}, False),
    ({"success": True, "status": "completed", "summary": "Done."}, False),
], ids=["exact", "further-member", "wrong-value", "member-missing"])
def test_further_members_are_accepted_and_named_ones_compared(result: dict[str, Any],
                                                              passes: bool) -> None:
    verdict = _verdict(result)
    assert (verdict.status is Status.PASS) is passes
    if not passes:
        assert FURTHER_MEMBERS not in json.dumps(verdict.expected)
