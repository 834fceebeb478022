"""What the harness reads in an expectation beyond plain values: roles listed in any order
(TW-TOOL-019), a base tool's result taken as the router's own where it offered the tool
(TW-TOOL-041), a member compared only when the router sends it (TW-RES-013), and the ids a
router gives tool calls whose id was empty, missing or repeated (TW-DUR-009), written from
the specification's own examples."""

from __future__ import annotations

import json
from typing import Any

import pytest

from teamwire.conformance.checks import Status, assigned_id, check_run
from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.matching import ANY_ORDER, FURTHER_MEMBERS, IF_PRESENT, UNLESS_OFFERED
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import Expectation, Reply, Scenario

REQUEST = "Go. [tw:leader]"
LEADER = "Team Leader"


def _verdicts(name: str, arguments: str, result: Any, expected: dict[str, Any],
              offered: tuple[str, ...] = (), reply_id: str | None = "c1",
              recorded_id: str = "c1") -> dict[str, Any]:
    """The checks of a run in which the leader makes one call and gets ``result``."""
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": REQUEST}]
    recorded = {"id": recorded_id, "type": "function",
                "function": {"name": name, "arguments": arguments}}
    second: list[dict[str, Any]] = [*first, {"role": "assistant", "content": None, "tool_calls": [recorded]},
              {"role": "tool", "tool_call_id": recorded_id,
               "content": result if isinstance(result, str) else json.dumps(result)}]
    reply = Reply(None, ((reply_id, name, arguments),))
    scenario = Scenario(
        name="s", title="t", requirements=("TW-TOOL-019",), level="core", profile="strict",
        request=REQUEST, tokens={"[tw:leader]": LEADER},
        scripts={LEADER: (reply, Reply("ok"))}, schedule=(),
        expectations=(Expectation(LEADER, 2, (
            {"role": "tool", "tool_call_id": recorded_id, "content": json.dumps(expected)},)),))
    tools = [{"type": "function", "function": {"name": n}} for n in offered]
    calls = [ModelCall(LEADER, 1, first, tools, False, 0.0, reply=reply),
             ModelCall(LEADER, 2, second, tools, False, 0.0, reply=Reply("ok"))]
    return {v.check: v for v in check_run(Run(scenario, calls, [], []))}


ROLE_A = {"role_id": "a", "name": "A", "description": "First."}
ROLE_B = {"role_id": "b", "name": "B", "description": "Second."}
LISTED = {"success": True, "roles": {ANY_ORDER: [{**ROLE_A, FURTHER_MEMBERS: True},
                                                 {**ROLE_B, FURTHER_MEMBERS: True}]}}


@pytest.mark.parametrize(("roles", "passes"), [
    ([ROLE_A, ROLE_B], True),
    ([ROLE_B, ROLE_A], True),
    ([ROLE_B, {**ROLE_A, "model": "m"}], True),
    ([ROLE_A, ROLE_A], False),
    ([ROLE_A], False),
    ([ROLE_A, ROLE_B, {"role_id": "c", "name": "C", "description": "Third."}], False),
    ([ROLE_A, {**ROLE_B, "description": "Other."}], False),
], ids=["in-order", "reversed", "further-member", "one-twice", "one-missing", "one-more",
        "wrong-description"])
def test_roles_match_in_any_order_and_each_is_compared(roles: list[dict[str, Any]],
                                                       passes: bool) -> None:
    verdict = _verdicts("list_agents", "{}", {"success": True, "roles": roles},
                        LISTED)["Team Leader call 2"]
    assert (verdict.status is Status.PASS) is passes
    if not passes:
        assert ANY_ORDER not in json.dumps(verdict.expected)


STATUS = {"success": True, "status": "completed",
          "result": {IF_PRESENT: {"agent": "A_1", "state": "timeout", FURTHER_MEMBERS: True}}}


@pytest.mark.parametrize(("further", "result", "passes"), [
    (False, {"success": True, "status": "completed"}, True),
    (False, {"success": True, "status": "completed",
             "result": {"agent": "A_1", "state": "timeout", "error": "Too slow."}}, True),
    (False, {"success": True, "status": "completed",
             "result": {"agent": "A_1", "state": "completed", "output": "Done."}}, False),
    (False, {"success": True, "status": "completed", "result": None}, False),
    (False, {"success": True}, False),
    (False, {"success": True, "status": "completed", "summary": "s"}, False),
    (True, {"success": True, "status": "completed", "summary": "s"}, True),
    (True, {"success": True, "status": "completed", "summary": "s",
            "result": {"agent": "A_1", "state": "running", "output": "Busy."}}, False),
], ids=["left-out", "sent-and-right", "sent-with-another-state", "sent-as-null",
        "a-required-member-missing", "a-further-member-unallowed", "a-further-member-allowed",
        "sent-wrong-beside-further-members"])
def test_a_member_if_present_may_be_left_out_and_is_compared_when_sent(
        further: bool, result: dict[str, Any], passes: bool) -> None:
    expected = {**STATUS, FURTHER_MEMBERS: True} if further else STATUS
    verdict = _verdicts("get_sub_agent_status", '{"agent_id": 1}', result,
                        expected)["Team Leader call 2"]
    assert (verdict.status is Status.PASS) is passes
    if not passes:
        assert IF_PRESENT not in json.dumps(verdict.expected)


FORBIDDEN = {"success": False, "error": {"code": "forbidden-tool",
                                         "message": "<any non-empty text>"},
             UNLESS_OFFERED: "read_file"}


@pytest.mark.parametrize(("offered", "result", "passes"), [
    ((), {"success": False, "error": {"code": "forbidden-tool", "message": "No."}}, True),
    ((), "the file's text", False),
    ((), {"success": False, "error": {"code": "invalid-arguments", "message": "No."}}, False),
    (("read_file",), "the file's text", True),
    (("run_command",), "the file's text", False),
], ids=["not-offered-forbidden", "not-offered-but-ran", "not-offered-other-error",
        "offered-and-ran", "another-tool-offered"])
def test_a_base_tool_result_is_forbidden_tool_unless_the_call_offered_it(
        offered: tuple[str, ...], result: Any, passes: bool) -> None:
    verdict = _verdicts("read_file", '{"path": "a"}', result, FORBIDDEN,
                        offered)["Team Leader call 2"]
    assert (verdict.status is Status.PASS) is passes


def test_the_examples_of_tw_dur_009() -> None:
    # A model that numbers every reply's calls from call_0: the second reply's first call.
    assert assigned_id("call_0", {"call_0"}) == "call_0_2"
    # Two calls without an id in one reply: call_2, then call_3.
    used: set[str] = set()
    first = assigned_id(None, used)
    used.add(first)
    assert (first, assigned_id("", used)) == ("call_2", "call_3")
    # A new, non-empty id is kept; the base of a long one is its first 64 characters.
    assert assigned_id("x", {"call_2"}) == "x"
    long_id = "y" * 70
    assert assigned_id(long_id, {long_id, "y" * 64 + "_2"}) == "y" * 64 + "_3"


@pytest.mark.parametrize(("recorded", "passes"), [("call_2", True), ("", False),
                                                  ("call_1", False)])
def test_append_only_takes_the_id_the_router_must_give_a_call_without_one(
        recorded: str, passes: bool) -> None:
    verdicts = _verdicts("list_agents", "{}", {"success": True, "roles": []},
                         {"success": True, "roles": []}, reply_id=None, recorded_id=recorded)
    assert (verdicts["append-only"].status is Status.PASS) is passes


@pytest.mark.parametrize(("status", "passes"), [
    pytest.param(None, True, id="left-out"), pytest.param("running", True, id="running"),
    pytest.param("idle", False, id="a-wrong-state")])
def test_create_sub_agent_may_leave_status_out_and_says_running_when_it_sends_it(
        monkeypatch: pytest.MonkeyPatch, status: str | None, passes: bool) -> None:
    """TW-TOOL-047 on the shipped vector: a router written from TW-TOOL-007 alone, which
    sends no ``status``, passes; one that sends it must say ``running``."""
    from dataclasses import replace
    from pathlib import Path

    from teamwire.conformance.inprocess import InProcessRouter, reference_router
    from teamwire.conformance.runner import play
    from teamwire.conformance.scenario import load_scenario
    from teamwire.router.runtime.tools import ToolRunner

    original = ToolRunner._create_sub_agent

    async def create(self: ToolRunner, agent: str, call_id: str,
                     args: dict[str, Any]) -> Any:
        result = await original(self, agent, call_id, args)
        value = json.loads(result.text)
        value.pop("status")
        if status is not None:
            value["status"] = status
        return replace(result, text=json.dumps(value))

    monkeypatch.setattr(ToolRunner, "_create_sub_agent", create)
    path = Path(__file__).resolve().parents[2] / "conformance" / "scenarios" \
        / "task-to-idle-sub-agent.json"
    scenario = load_scenario(path)
    run = play(scenario, InProcessRouter(scenario, reference_router))
    failed = {v.check for v in check_run(run) if v.status is Status.FAIL}
    assert failed == (set() if passes else {"Team Leader call 2"})


@pytest.mark.parametrize(("expected", "received", "found"), [
    pytest.param({"a": 1, "b": {"c": [1, 2]}}, {"a": 1, "b": {"c": [1, 3]}},
                 "/b/c/1: expected 2, received 3", id="a-nested-item"),
    pytest.param({"a": 1, "b": 2}, {"a": 1}, "/b: expected 2, received nothing",
                 id="a-missing-member"),
    pytest.param({"a": 1}, {"a": 1, "z": True}, "/z: expected nothing, received true",
                 id="a-member-too-many"),
    pytest.param({"a": 1, FURTHER_MEMBERS: True}, {"a": 2, "z": True},
                 "/a: expected 1, received 2", id="further-members-allowed"),
    pytest.param({"s": {IF_PRESENT: "running"}}, {"s": "idle"},
                 '/s: expected "running", received "idle"', id="a-member-if-present"),
    pytest.param([1, 2], [1, 2, 3], "/: expected 2 items, received 3", id="one-item-more"),
    pytest.param({"a/b": 1, "m~": 0}, {"a/b": 2, "m~": 0}, "/a~1b: expected 1, received 2",
                 id="pointer-escapes"),
    pytest.param({"a": True}, {"a": 1}, "/a: expected true, received 1", id="true-is-not-1"),
    pytest.param({"m~": 1}, {"m~": 2}, "/m~0: expected 1, received 2", id="a-tilde-escaped"),
    pytest.param("x", "y" * 118, f'/: expected "x", received "{"y" * 118}"',
                 id="a-value-of-120-characters-is-shown-whole"),
    pytest.param("x", "y" * 119, f'/: expected "x", received "{"y" * 116}...',
                 id="a-longer-value-is-cut-to-120"),
])
def test_a_failed_expectation_names_its_first_difference(expected: Any, received: Any,
                                                        found: str) -> None:
    from teamwire.conformance.matching import first_difference

    assert first_difference(expected, received) == found
    assert first_difference(expected, expected if not isinstance(expected, dict) or
                            IF_PRESENT not in str(expected) else {"s": "running"}) is None
