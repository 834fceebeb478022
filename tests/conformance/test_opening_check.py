"""The run check of how each conversation opens (TW-TOOL-043, TW-TOOL-044): one system
message, then the request for the Team Leader or the Task envelope for a sub-agent."""

from __future__ import annotations

from typing import Any

import pytest

from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import Reply, Scenario

REQUEST = "Build it. [tw:leader]"
TASK = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign it. "
        "[tw:uio1]\n</Task>\n</Team Leader>")
SCENARIO = Scenario(name="s", title="t", requirements=("TW-ROUTE-009",), level="core",
                    profile="strict", request=REQUEST,
                    tokens={"[tw:leader]": "Team Leader", "[tw:uio1]": "UI Operator_1"},
                    scripts={"Team Leader": (Reply("ok"),), "UI Operator_1": (Reply("ok"),)},
                    schedule=(), expectations=())


def _opening(leader: list[dict[str, Any]], sub_agent: list[dict[str, Any]]) -> Any:
    calls = [ModelCall("Team Leader", 1, leader, [], False, 0.0, reply=Reply("ok")),
             ModelCall("UI Operator_1", 1, sub_agent, [], False, 0.0, reply=Reply("ok"))]
    run = Run(SCENARIO, calls, [], [])
    [verdict] = [v for v in check_run(run) if v.check == "conversation-opening"]
    return verdict


SYSTEM = {"role": "system", "content": "You lead."}


def test_one_system_message_then_the_request_or_the_task_passes() -> None:
    verdict = _opening([SYSTEM, {"role": "user", "content": REQUEST}],
                       [SYSTEM, {"role": "user", "content": TASK}])
    assert verdict.status is Status.PASS
    assert set(verdict.requirements) >= {"TW-TOOL-043", "TW-TOOL-044"}


@pytest.mark.parametrize(("leader", "sub_agent", "reason"), [
    ([{"role": "user", "content": REQUEST}], [SYSTEM, {"role": "user", "content": TASK}],
     "model call 1 of Team Leader begins with the roles ['user']"),
    ([SYSTEM, SYSTEM, {"role": "user", "content": REQUEST}],
     [SYSTEM, {"role": "user", "content": TASK}], "Team Leader begins with the roles"),
    ([SYSTEM, {"role": "user", "content": "Please: " + REQUEST}],
     [SYSTEM, {"role": "user", "content": TASK}], "is not the request, verbatim"),
    ([SYSTEM, {"role": "user", "content": REQUEST}],
     [SYSTEM, {"role": "user", "content": "Design it. [tw:uio1]"}],
     "is not the Team Leader's Task envelope"),
    ([SYSTEM, {"role": "user", "content": REQUEST}],
     [SYSTEM, {"role": "user", "content": TASK}, SYSTEM], "more than one system message"),
], ids=["no-system", "two-systems", "request-rewritten", "task-not-an-envelope",
        "system-later"])
def test_anything_else_fails_with_the_reason(leader: list[dict[str, Any]],
                                             sub_agent: list[dict[str, Any]],
                                             reason: str) -> None:
    verdict = _opening(leader, sub_agent)
    assert verdict.status is Status.FAIL
    assert reason in verdict.reason
