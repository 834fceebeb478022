"""What a bundle says about its agents (validator/session_index.py), as the flow checks use it.

Sub-agents are found by display name or by (role_id, agent_id) (TW-TOOL-027..029: an agent_id
alone may match sub-agents of several roles); those the Team Leader's conversation never creates
existed before it; a termination names a sub-agent only when its target is one sub-agent
(TW-ROUTE-020), and astrion stops are counted per sub-agent (TW-PROF-025).
"""

from __future__ import annotations

from teamwire.validator.model import Agent, AgentKind
from teamwire.validator.session_index import SessionIndex

LEADER = Agent("Team Leader", AgentKind.LEADER, "team-leader")
UIO1 = Agent("UI Operator_1", AgentKind.SUB_AGENT, "ui-operator", 1)
UIO2 = Agent("UI Operator_2", AgentKind.SUB_AGENT, "ui-operator", 2)
FSE1 = Agent("Full-Stack Engineer_1", AgentKind.SUB_AGENT, "full-stack-engineer", 1)
NAMELESS = Agent(None, AgentKind.SUB_AGENT, "tester", 3)
NUMBERLESS = Agent("Tester_x", AgentKind.SUB_AGENT, "tester", None)
NO_ROLE = Agent("Reviewer_4", AgentKind.SUB_AGENT, None, 4)
ALL = [LEADER, UIO1, UIO2, FSE1, NAMELESS, NUMBERLESS, NO_ROLE]


def test_lookups() -> None:
    index = SessionIndex(ALL)
    assert index.role_id("UI Operator_2") == "ui-operator"
    assert index.role_id("Team Leader") == "team-leader"
    assert index.role_id("Nobody_1") is None
    # A sub-agent the bundle gives no role id has the role "", which no role id (never empty)
    # names.
    assert index.sub_roles() == {1: {"ui-operator", "full-stack-engineer"}, 2: {"ui-operator"},
                                 4: {""}}
    assert index.subs_with(1) == [UIO1, FSE1]
    assert index.subs_with(1, "full-stack-engineer") == [FSE1]
    assert index.subs_with(3) == []  # a sub-agent without a name is no target
    assert index.by_key("ui-operator", 2) is UIO2
    assert index.by_key("ui-operator", 3) is None
    assert index.by_key("full-stack-engineer", 2) is None


def test_preexisting_are_those_the_leader_never_creates() -> None:
    index = SessionIndex(ALL, leader_creates=[("ui-operator", 1), ("full-stack-engineer", 1)])
    assert index.preexisting() == [UIO2, NO_ROLE]
    assert SessionIndex(ALL).preexisting() == [UIO1, UIO2, FSE1, NO_ROLE]


def test_a_termination_names_one_sub_agent_or_none() -> None:
    index = SessionIndex(ALL, leader_terminates=[(2, None), (1, None), (1, "full-stack-engineer"),
                                                 (7, None)])
    # agent_id 1 alone is ambiguous: it terminates nobody the index can name.
    assert index.terminated == frozenset({"UI Operator_2", "Full-Stack Engineer_1"})


def test_stops_are_counted_per_sub_agent() -> None:
    index = SessionIndex(ALL, leader_stops=[(2, None), (2, "ui-operator"), (1, None),
                                            (1, "ui-operator"), (9, None)])
    assert index.stopped == {"UI Operator_2": 2, "UI Operator_1": 1}


def test_leader_calls_pass_over_calls_and_results_of_any_odd_shape() -> None:
    # The leader's calls are read before its conversation is linted: a call, function, name
    # or result id of any JSON type is passed over, and the well-formed calls still count.
    from teamwire.envelope import Profile
    from teamwire.validator.engine import _leader_calls

    def create(call_id: object, agent_id: int) -> dict[str, object]:
        return {"id": call_id, "type": "function", "function": {
            "name": "create_sub_agent",
            "arguments": f'{{"role_id": "ui-operator", "agent_id": {agent_id}, "task": "x"}}'}}
    odd_calls: list[object] = ["create_sub_agent", ["function"], None, 7, {"function": None},
                               {"function": ["name"]}, {"function": "create_sub_agent"},
                               {"function": {"name": ["create_sub_agent"]}},
                               {"function": {"name": {"create_sub_agent": 1}}},
                               {"function": {"name": 3}}, {"function": {}}]
    messages: list[object] = [
        {"role": "assistant", "tool_calls": [*odd_calls, create("c1", 1), create("c2", 2)]},
        {"role": "tool", "tool_call_id": ["c1"], "content": '{"success": false}'},
        {"role": "tool", "tool_call_id": {"c1": 1}, "content": '{"success": false}'},
        {"role": "tool", "tool_call_id": "c1", "content": '{"success": true}'},
        {"role": "tool", "tool_call_id": "c2", "content": '{"success": false, "error": "x"}'},
    ]
    assert _leader_calls(messages, Profile.STRICT, ALL).creates == [("ui-operator", 1)]
    # one message that is no object: every message is looked at one by one, with the same result
    assert _leader_calls([*messages, "text"], Profile.STRICT, ALL).creates == [("ui-operator", 1)]


def test_a_leader_call_failed_only_when_its_result_says_success_false() -> None:
    from teamwire.validator.engine import _failed

    assert _failed('{"success": false, "error": {"code": "x"}}')
    assert _failed('{ "error": "x",\n  "success" :false}')
    assert not _failed('{"success": true, "note": "false alarm"}')
    assert not _failed('{"success": true}')
    assert not _failed('"success": false')  # not JSON
    assert not _failed("false")
    assert not _failed('[{"success": false}]')
    assert not _failed(None)
    assert not _failed(b'{"success": false}')
