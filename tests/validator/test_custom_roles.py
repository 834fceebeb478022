"""create_custom_agent defines a role new to the catalog (TW-TOOL-018, rule TW417 role-exists).

In profile strict, a role id or a role name the catalog already has makes the call fail with
role-exists: a role defined by an earlier create_custom_agent, or the role of a sub-agent created
before (`teamwire rule TW417`). A call that succeeds anyway is flagged at that call; the message
names which key repeats and, for a role defined in the conversation, where it was defined.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire.envelope import Profile
from teamwire.validator import Finding, LintOptions, lint_value

TL = "Team Leader"
ROLE = {"role_id": "api-designer", "name": "API Designer", "description": "Designs HTTP APIs.",
        "prompt": "Use REST."}


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def calls(*tool_calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": list(tool_calls)}


def result(call_id: str, content: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(content)}


def added(arguments: dict[str, Any]) -> dict[str, Any]:
    return {"success": True, "role_id": arguments["role_id"], "name": arguments["name"]}


def define(arguments: dict[str, Any], call_id: str) -> list[dict[str, Any]]:
    """A create_custom_agent call alone in its message, and its successful result."""
    return [calls(call("create_custom_agent", arguments, call_id)),
            result(call_id, added(arguments) if type(arguments.get("name")) is str
                   else {"success": True, "role_id": arguments["role_id"]})]


def tw417(messages: list[dict[str, Any]]) -> list[Finding]:
    report = lint_value(messages, "case.json", LintOptions(profile=Profile.STRICT, agent=TL))
    return [f for f in report.findings if f.rule == "TW417"]


def summary(findings: list[Finding]) -> list[tuple[int | None, str | None, str]]:
    return [(f.index, f.pointer, f.message) for f in findings]


def test_role_id_defined_at_the_first_message() -> None:
    # The first definition is message 0: "defined at message 0" still names it.
    messages = define(ROLE, "c1") + define(dict(ROLE, name="API Designer Two"), "c2")
    assert summary(tw417(messages)) == [
        (2, "/2/tool_calls/0", "create_custom_agent defines the role id 'api-designer', which the "
         "catalog already has, defined at message 0; the call must fail with role-exists")]


def test_name_defined_before_under_another_role_id() -> None:
    messages = define(ROLE, "c1") + define(dict(ROLE, role_id="api-designer-2"), "c2")
    assert summary(tw417(messages)) == [
        (2, "/2/tool_calls/0", "create_custom_agent defines the name 'API Designer', which the "
         "catalog already has, defined at message 0; the call must fail with role-exists")]


def test_role_of_a_sub_agent_created_before() -> None:
    create = {"agent_id": 1, "role_id": "ui-operator", "task": "Design the palette."}
    messages = [calls(call("create_sub_agent", create, "c0")), result("c0", {"success": True}),
                *define(dict(ROLE, role_id="ui-operator", name="UI Designer"), "c1")]
    assert summary(tw417(messages)) == [
        (2, "/2/tool_calls/0", "create_custom_agent defines the role id 'ui-operator', which the "
         "catalog already has; the call must fail with role-exists")]


def test_custom_role_redefined_after_a_sub_agent_of_it_was_created() -> None:
    # Defined at message 2, then used: the definition is the place to name.
    create = {"agent_id": 1, "role_id": "api-designer", "task": "Design the API."}
    messages = [{"role": "user", "content": "Build the registration page."},
                {"role": "assistant", "content": "On it."},
                *define(ROLE, "c1"),
                calls(call("create_sub_agent", create, "c2")), result("c2", {"success": True}),
                *define(dict(ROLE, name="API Designer Two"), "c3")]
    assert summary(tw417(messages)) == [
        (6, "/6/tool_calls/0", "create_custom_agent defines the role id 'api-designer', which the "
         "catalog already has, defined at message 2; the call must fail with role-exists")]


def test_the_pointer_names_the_repeating_call_among_several() -> None:
    again = dict(ROLE, name="API Designer Two")
    messages = [*define(ROLE, "c1"),
                calls(call("create_custom_agent", dict(ROLE, role_id="qa", name="QA Lead"), "c2"),
                      call("create_custom_agent", again, "c3")),
                result("c2", added(dict(ROLE, role_id="qa", name="QA Lead"))),
                result("c3", added(again))]
    assert [(f.index, f.pointer) for f in tw417(messages)] == [(2, "/2/tool_calls/1")]


def test_names_that_are_not_strings_do_not_collide() -> None:
    # Such calls are wrong in other ways; they do not define the same role name.
    first = {"role_id": "api-designer", "name": 5, "description": "d", "prompt": "p"}
    second = {"role_id": "db-designer", "name": 5, "description": "d", "prompt": "p"}
    assert tw417(define(first, "c1") + define(second, "c2")) == []
    third = {"role_id": "qa-designer", "description": "d", "prompt": "p"}
    fourth = {"role_id": "ux-designer", "description": "d", "prompt": "p"}
    assert tw417(define(third, "c3") + define(fourth, "c4")) == []
