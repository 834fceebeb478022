"""Repeated member names: the scan, the router and lint agree on every document.

TW-TOOL-038, lint TW418.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from teamwire.cli import main
from teamwire.json_members import (
    ARGUMENTS_DEPTH_LIMIT,
    RepeatedMemberError,
    depth,
    has_repeats,
    repeated_member,
    repeats,
    unique_members,
)
from teamwire.router.runtime.arguments import argument_problem
from teamwire.validator import LintOptions, lint_bytes, lint_value

NAMES = st.sampled_from(["a", "k", "agent_id", "message", "é"])
SPACES = st.sampled_from(["", " ", "\n  "])
SCALARS = st.sampled_from(["1", "null", "true", '"x"', '"a:b"', '"\\"k\\": 1"', '"{\\"a\\": 1}"',
                           "[]", "{}"])


def _name(name: str, escaped: bool) -> str:
    return json.dumps(name, ensure_ascii=False) if not escaped else \
        '"' + "".join(f"\\u{ord(c):04x}" for c in name) + '"'


def _object(members: list[tuple[str, bool, str, str]]) -> str:
    return "{" + ", ".join(f"{_name(n, e)}{space}:{space}{v}" for n, e, space, v in members) + "}"


VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    st.lists(st.tuples(NAMES, st.booleans(), SPACES, inner), max_size=3).map(_object),
), max_leaves=12)
ARGUMENTS = st.lists(st.tuples(NAMES, st.booleans(), SPACES, VALUES), max_size=4).map(
    lambda extra: _object([("agent_id", False, "", "1"), ("message", False, "", '"m"'), *extra]))


LEADER = LintOptions(agent="Team Leader")


def _strictly(text: str) -> bool:
    try:
        json.loads(text, object_pairs_hook=unique_members)
    except RepeatedMemberError:
        return False
    return True


class Pairs(list[tuple[str, Any]]):
    """An object as the members it names, in order, repeats kept."""


TREES = st.recursive(
    st.sampled_from([1, None, "x", "a:b", '{"k": 1}']),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.lists(st.tuples(NAMES, inner), max_size=3).map(Pairs)),
    max_leaves=12)


def _render(tree: Any) -> str:
    if isinstance(tree, Pairs):
        return "{" + ", ".join(f"{json.dumps(k)}: {_render(v)}" for k, v in tree) + "}"
    if isinstance(tree, list):
        return "[" + ", ".join(_render(v) for v in tree) + "]"
    return json.dumps(tree)


def _expected(tree: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str, tuple[Any, ...]]]:
    if isinstance(tree, Pairs):
        seen: set[str] = set()
        for name, value in tree:
            if name in seen:
                yield name, path
            seen.add(name)
            yield from _expected(value, (*path, name))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from _expected(value, (*path, index))


@given(TREES)
def test_every_repeat_is_found_in_document_order_with_the_path_to_its_object(tree: Any) -> None:
    text = _render(tree)
    found = list(repeats(text))
    assert [(name, path) for name, _offset, path in found] == list(_expected(tree))
    assert all(text.startswith(json.dumps(name), offset) for name, offset, _ in found)


def _leader_call(arguments: str, tool: str = "create_sub_agent") -> list[dict[str, object]]:
    """A Team Leader's conversation: one call of ``tool`` that failed with invalid-arguments."""
    return [
        {"role": "system", "content": "You are the Team Leader."},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": tool, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": '{"success": false, "error": {"code": "invalid-arguments", "message": "x"}}'},
    ]


@given(VALUES)
def test_the_scan_finds_a_repeat_exactly_when_the_strict_decode_refuses(text: str) -> None:
    found = repeated_member(text)
    assert (found is None) == _strictly(text) == (not has_repeats(text))
    if found is not None:
        name, offset = found
        token = json.JSONDecoder().raw_decode(text, offset)[0]
        assert token == name  # the offset is where the repeated name is written


@given(ARGUMENTS)
def test_router_and_lint_agree_on_repeated_arguments(text: str) -> None:
    repeated = repeated_member(text) is not None
    _arguments, problem = argument_problem("send_message_to_sub_agent", text)
    assert (problem is not None and "twice" in problem) == repeated
    conversation = _leader_call(text, "send_message_to_sub_agent")
    rules = [f.rule for f in lint_value(conversation, options=LEADER).findings]
    assert ("TW418" in rules) == repeated


def test_a_repeat_is_found_at_any_depth_and_only_within_one_object() -> None:
    assert repeated_member('{"a": [{"b": 1}, {"b": 2}], "b": {"b": 3}}') is None
    nested = '[{"x": 1, "y": {"z": [1, {"q": 1, "q": 2}]}}]'
    assert repeated_member(nested) == ("q", nested.rindex('"q"'))
    escaped = '{"k": "\\"k\\": 1", "\\u006b": 2}'
    assert repeated_member(escaped) == ("k", escaped.index('"\\u006b"'))


def test_a_repeat_is_all_lint_says_of_those_arguments() -> None:
    # Which value a repeated name has is undefined, so no other argument check reads one.
    text = '{"role_id": "ui-operator", "agent_id": 1, "task": "t", "task": ""}'
    rules = [f.rule for f in lint_value(_leader_call(text), options=LEADER).findings]
    assert rules == ["TW418"]


def test_arguments_nested_as_deep_as_the_decoder_allows_give_findings_not_tracebacks() -> None:
    depth = 1020  # orjson decodes up to 1024 levels; Python recurses 1000 deep by default
    deep = "[" * depth + "]" * depth
    for text in (f'{{"role_id": "ui-operator", "agent_id": 1, "task": {deep}}}',
                 f'{{"role_id": "ui-operator", "agent_id": 1, "task": "a:b", "x": {deep}}}',
                 f'{{"role_id": "ui-operator", "agent_id": 1, "task": "t", "x": {deep}}}'):
        report = lint_value(_leader_call(text), options=LEADER)
        assert [f.rule for f in report.findings] == ["TW402"]  # deeper than TW-TOOL-039 allows
        # The router refuses it on every Python: past the bound where its decoder reads that
        # deep (3.13), as not JSON to it where the decoder stops first (3.11).
        arguments, problem = argument_problem("create_sub_agent", text)
        assert arguments is None and problem is not None


def test_the_router_calls_text_that_goes_wrong_after_a_repeat_invalid_json() -> None:
    _arguments, problem = argument_problem(
        "send_message_to_sub_agent", '{"agent_id": 1, "message": "m", "message": "n"} x')
    assert problem is not None and problem.startswith("arguments are not valid JSON")


def test_a_repeat_deeper_than_the_decoder_goes_is_still_found() -> None:
    depth = 1020
    text = "[" * depth + '{"a": 1, "a": 2}' + "]" * depth
    assert has_repeats(text)
    assert [(name, len(path)) for name, _offset, path in repeats(text)] == [("a", depth)]
    options = LintOptions(agent="Team Leader", enabled=LEADER.enabled | {"TW011"})
    conversation = '[{"role": "system", "content": "x", "meta": ' + text + "}]"
    report = lint_bytes(conversation.encode(), "deep.json", options)
    assert [(f.rule, f.index) for f in report.findings] == [("TW011", 0)]


def test_one_finding_per_object_and_name_placed_in_the_file() -> None:
    text = ('{"teamwire": "1.0", "agents": {"Team Leader": {"role_id": "team-leader",\r\n'
            ' "messages": [{"role": "user", "content": "a", "content": "b", "content": "c",\r\n'
            ' "x": 1, "x": 2}]}}}\r\n')
    options = LintOptions(enabled=LEADER.enabled | {"TW011"})
    found = lint_bytes(text.encode(), "crlf.json", options).findings
    assert [(f.rule, f.agent, f.index, f.pointer) for f in found] == [
        ("TW011", "Team Leader", 0, "/agents/Team Leader/messages/0")] * 2
    content, x = found
    assert "3 times" in content.message and "twice" in x.message
    second_line, third_line = text.index("\n") + 1, text.index("\n", text.index("\n") + 1) + 1
    assert (content.file_line, content.file_column) \
        == (2, text.index('"content": "b"') - second_line + 1)
    assert (x.file_line, x.file_column) == (3, text.index('"x": 2') - third_line + 1)
    assert content.line is None and content.snippet is not None and "␍" not in content.snippet




def test_the_snippet_of_a_one_line_file_is_a_window_around_the_repeat() -> None:
    # A minified file is one long line with no line break after the repeat: the snippet is
    # the 40 characters either side of it, the caret under its first character.
    before = '[{"role": "system", "content": "' + "s" * 50 + '"}, '
    repeat = '{"role": "user", "content": "a", '
    after = '"content": "' + "b" * 60 + '"}]'
    text = before + repeat + after
    options = LintOptions(agent="UI Operator_1", enabled=LEADER.enabled | {"TW011"})
    [found] = lint_bytes(text.encode(), "minified.json", options).findings
    offset = len(before + repeat)
    assert (found.rule, found.index, found.file_line, found.file_column) \
        == ("TW011", 1, 1, offset + 1)
    assert found.snippet is not None
    shown, caret = found.snippet.split("\n")
    assert shown == ('sss"}, {"role": "user", "content": "a", '
                     '"content": "bbbbbbbbbbbbbbbbbbbbbbbbbbbb')
    assert caret == " " * 40 + "^"


def test_the_text_format_shows_where_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "repeat.json"
    path.write_text('[{"role": "system", "content": "x"},\n'
                    ' {"role": "user", "content": "a", "content": "b"}]\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", "--extend-select", "TW011", "--agent",
                                       "UI Operator_1", str(path)])
    assert result.exit_code == 1
    shown = result.stdout.splitlines()
    assert shown[0].startswith(f"{path}:2:35: UI Operator_1 #1: TW011 [error]")
    assert shown[2] == ' 2 |  {"role": "user", "content": "a", "content": "b"}]'
    assert shown[3] == "   |" + " " * 35 + "^"


@pytest.mark.parametrize("levels", [1, 2, 63, 64, 65, 66])
@pytest.mark.parametrize("opener", ["[", '{"a": '])
def test_router_and_lint_bound_the_depth_of_arguments_alike(levels: int, opener: str) -> None:
    """TW-TOOL-039: the arguments object is level 1; 64 levels pass, 65 do not."""
    closer = "]" if opener == "[" else "}"
    inner = "1" if opener != "[" else ""
    deep = opener * (levels - 1) + inner + closer * (levels - 1)
    text = '{"agent_id": 1, "message": "m"' + (f', "x": {deep}' if levels > 1 else "") + "}"
    assert depth(json.loads(text)) == levels
    refused = argument_problem("send_message_to_sub_agent", text)[1] is not None
    assert refused is (levels > ARGUMENTS_DEPTH_LIMIT)
    rules = [f.rule for f in lint_value(_leader_call(text, "send_message_to_sub_agent"),
                                        options=LEADER).findings]
    assert ("TW402" in rules) is refused
