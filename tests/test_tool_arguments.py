"""One reading of tool-call arguments for router and linter (TW-TOOL-023, -024, -038, -039).

``teamwire.schemas.arguments`` is the one checker: the router refuses a call's arguments
(``invalid-arguments``) exactly when ``teamwire lint`` reports them (TW401, TW402, TW418).
The oracle here is written from the spec's words, not from the checker: an integer is a JSON
number written without fraction or exponent, a text parameter holds a character other than
white space, a required parameter is present.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamwire import schemas
from teamwire.router.runtime.arguments import argument_problem
from teamwire.schemas.arguments import ArgumentChecker, ProblemKind, read_arguments
from teamwire.validator import LintOptions, lint_value

LEADER = LintOptions(agent="Team Leader")
REFUSED = {"TW401", "TW402", "TW418"}

INTEGER_LITERALS = ["1", "2", "0", "-1", "12"]
NOT_INTEGER_LITERALS = ["1.0", "1e0", "1E0", "2.5", "1e2", "-0.0", "true", '"1"', "null"]
TEXTS = ['"Use the new palette."', '""', '" "', '"\\t\\n"', '"\\u3000"', '"ok"', "1"]

AGENT_IDS = st.sampled_from(INTEGER_LITERALS + NOT_INTEGER_LITERALS)
MESSAGES = st.sampled_from(TEXTS)


def _call(tool: str, arguments: str) -> list[dict[str, object]]:
    return [
        {"role": "system", "content": "You are the Team Leader."},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": tool, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": '{"success": false, "error": {"code": "invalid-arguments", "message": "x"}}'},
    ]


def _lint_refuses(tool: str, arguments: str) -> bool:
    findings = lint_value(_call(tool, arguments), options=LEADER).findings
    return any(f.rule in REFUSED and f.index == 1 for f in findings)


def _spec_refuses(agent_id: str | None, message: str | None) -> bool:
    """send_message_to_sub_agent, from TW-TOOL-023/024 alone: both parameters required,
    agent_id an integer >= 1 written without fraction or exponent, message a text with a
    character other than white space."""
    if agent_id is None or message is None:
        return True
    if not re.fullmatch(r"-?(0|[1-9][0-9]*)", agent_id) or int(agent_id) < 1:
        return True
    value = json.loads(message)
    return not isinstance(value, str) or not value.strip()


@given(st.one_of(st.none(), AGENT_IDS), st.one_of(st.none(), MESSAGES))
def test_router_and_lint_refuse_exactly_what_the_spec_refuses(agent_id: str | None,
                                                              message: str | None) -> None:
    members = [f'"agent_id": {agent_id}' if agent_id is not None else None,
               f'"message": {message}' if message is not None else None]
    text = "{" + ", ".join(m for m in members if m is not None) + "}"
    expected = _spec_refuses(agent_id, message)
    assert (argument_problem("send_message_to_sub_agent", text)[1] is not None) is expected
    assert _lint_refuses("send_message_to_sub_agent", text) is expected


@pytest.mark.parametrize("literal", ["1.0", "1e0"])
def test_an_integer_parameter_written_as_a_fraction_or_exponent_is_located(literal: str) -> None:
    checker = ArgumentChecker()
    arguments, problems = checker.check(
        "create_sub_agent", f'{{"agent_id": {literal}, "role_id": "ui-operator", "task": "t"}}')
    assert arguments is not None
    assert [(p.kind, p.pointer) for p in problems] == [(ProblemKind.NOT_INTEGER, "/agent_id")]
    assert problems[0].message.startswith("agent_id: 1.0 is not an integer")


def test_an_array_of_integers_is_checked_item_by_item_under_astrion() -> None:
    checker = ArgumentChecker(("astrion-10654c4", "strict"))
    assert checker.problems("get_sub_agent_status", {"agent_ids": [1, 2]}) == []
    problems = checker.problems("get_sub_agent_status", {"agent_ids": [1, 2.0]})
    assert [(p.kind, p.pointer) for p in problems] == [(ProblemKind.NOT_INTEGER, "/agent_ids")]


def test_problems_of_the_text_carry_where_in_the_text_they_were_found() -> None:
    text = '{"agent_id": 1, "message": "m", "message": "n"}'
    reading = read_arguments(text)
    assert reading.arguments is None and reading.problem is not None
    assert reading.problem.kind is ProblemKind.REPEATED_MEMBER
    assert reading.problem.offset == text.rindex('"message"')
    broken = '{"agent_id": 1, "message": NaN}'
    problem = read_arguments(broken).problem
    assert problem is not None and problem.kind is ProblemKind.NOT_JSON
    assert problem.detail == "NaN is not a JSON value"
    trailing = '{"agent_id": 1,}'
    problem = read_arguments(trailing).problem
    assert problem is not None and problem.offset == trailing.index(",")  # the comma too many


def test_i_json_bounds_integer_arguments() -> None:
    """TW-TOOL-040: beyond ±(2^53-1) an integer is no integer argument, however the reader
    holds it (this one reads past 2^64 as a double)."""
    checker = ArgumentChecker()
    _arguments, problems = checker.check(
        "create_sub_agent", '{"agent_id": 1, "role_id": "ui-operator", "task": "t", '
                            '"timeout_seconds": 100000000000000000000000000001}')
    assert [(p.kind, p.pointer) for p in problems] == [(ProblemKind.NOT_INTEGER,
                                                        "/timeout_seconds")]
    base = {"agent_id": 1, "role_id": "ui-operator", "task": "t"}
    assert checker.problems("create_sub_agent", {**base, "timeout_seconds": 2**53 - 1}) == []
    for beyond in (2**53, 10**29 + 1):
        [problem] = checker.problems("create_sub_agent", {**base, "timeout_seconds": beyond})
        assert (problem.kind, problem.pointer) == (ProblemKind.NOT_INTEGER, "/timeout_seconds")


def test_one_problem_per_text_an_empty_one_fails_its_schema_only() -> None:
    problems = ArgumentChecker().problems("create_sub_agent",
                                          {"agent_id": 1, "role_id": "ui-operator", "task": ""})
    assert [(p.kind, p.pointer) for p in problems] == [(ProblemKind.SCHEMA, "/task")]
    problems = ArgumentChecker().problems("create_sub_agent",
                                          {"agent_id": 1, "role_id": "ui-operator", "task": " "})
    assert [(p.kind, p.pointer) for p in problems] == [(ProblemKind.BLANK, "/task")]


def test_a_tool_without_a_schema_has_only_the_rules_of_the_text() -> None:
    checker = ArgumentChecker()
    assert not checker.has_schema("read_file")
    assert checker.check("read_file", '{"path": 1.0, "content": " "}') \
        == ({"path": 1.0, "content": " "}, [])
    assert checker.check("read_file", "[]")[1][0].kind is ProblemKind.NOT_OBJECT




_CHECKERS: dict[tuple[str, ...], ArgumentChecker] = {
    profiles: ArgumentChecker(profiles)
    for profiles in (("strict",), ("astrion", "astrion-10654c4", "strict"))}
_TOOLS = ["create_sub_agent", "send_message_to_sub_agent", "get_sub_agent_status", "ask_master",
          "ask_other_agent", "ask_sub_agent", "answer_sub_agent_question", "answer_other_agent",
          "terminate_sub_agent", "create_custom_agent", "read_file"]
_FILLERS = {"integer": 1, "string": "ask_uio_001", "boolean": True, "array": []}
_POOL: list[object] = [1, 2, 0, -1, 2**53 - 1, 2**53, -(2**53) + 1, -(2**53), 1.0, 2.5, True, None, "", " ",
         "\u3000", "ok", "ask_uio_001", [1, 2], [1, 1.0], [2**53], [], ["a"], {}]
"""Values of every JSON type, integers at I-JSON's bounds (TW-TOOL-023), blank texts."""


def _filled(checker: ArgumentChecker, tool: str) -> dict[str, object]:
    """Arguments with each required parameter of the first schema given a value of its type."""
    profile = checker.rules(tool).profiles[:1]
    if not profile:
        return {}
    schema = schemas.tool_arguments_schema(tool, profile[0])
    return {name: _FILLERS[schema["properties"][name]["type"]] for name in schema["required"]}


def _names(checker: ArgumentChecker, tool: str) -> list[str]:
    return sorted(set().union(*checker.rules(tool).parameters, {"extra"}))


@pytest.mark.parametrize("profiles", sorted(_CHECKERS))
@pytest.mark.parametrize("tool", _TOOLS)
def test_the_one_call_pass_test_agrees_with_passes_on_every_single_change(
        profiles: tuple[str, ...], tool: str) -> None:
    # ArgumentChecker.pass_test is what the linter asks of every call; passes, the reference.
    checker = _CHECKERS[profiles]
    base = _filled(checker, tool)
    test = checker.pass_test(tool)
    assert checker.passes(tool, base) and test(base)
    for value in _POOL:
        assert test(value) == checker.passes(tool, value), value
        for name in _names(checker, tool):
            changed = {**base, name: value}
            assert test(changed) == checker.passes(tool, changed), changed


@given(st.sampled_from(sorted(_CHECKERS)), st.sampled_from(_TOOLS), st.data())
def test_the_one_call_pass_test_agrees_with_passes_on_two_changes(
        profiles: tuple[str, ...], tool: str, data: st.DataObject) -> None:
    checker = _CHECKERS[profiles]
    changes = data.draw(st.dictionaries(st.sampled_from(_names(checker, tool)),
                                        st.sampled_from(_POOL), min_size=1, max_size=2))
    arguments = {**_filled(checker, tool), **changes}
    assert checker.pass_test(tool)(arguments) == checker.passes(tool, arguments)


def test_a_check_reports_at_most_the_problems_asked_for_schema_problems_first() -> None:
    text = '{"agent_id": 1.5, "role_id": 7, "task": 8, "timeout_seconds": "soon"}'
    every = [(ProblemKind.SCHEMA, "/agent_id"), (ProblemKind.SCHEMA, "/role_id"),
             (ProblemKind.SCHEMA, "/task"), (ProblemKind.SCHEMA, "/timeout_seconds"),
             (ProblemKind.NOT_INTEGER, "/agent_id"), (ProblemKind.NOT_INTEGER, "/timeout_seconds")]
    checker = ArgumentChecker()
    assert [(p.kind, p.pointer) for p in checker.check("create_sub_agent", text, limit=10)[1]] \
        == every
    assert [(p.kind, p.pointer) for p in checker.check("create_sub_agent", text)[1]] == every[:3]
    for limit in (1, 2, 5):
        arguments, problems = checker.check("create_sub_agent", text, limit=limit)
        assert arguments == json.loads(text)
        assert [(p.kind, p.pointer) for p in problems] == every[:limit]
