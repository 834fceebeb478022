"""What the tool-call rules tell the user, and where (spec/06-tools.md).

Arguments (TW-TOOL-023, TW-TOOL-024, TW-TOOL-039: TW401 the JSON text, TW402 schema, depth and
blank texts; TW-TOOL-038: TW418 a repeated member; TW-ID-012: TW304 an agent-chosen id), results
(TW-TYPE-009, TW-TOOL-034: TW504 the Answer an ask gets; TW-TOOL-032, TW-TOOL-033: TW416 the
result object; TW-TYPE-011: TW210 another envelope as a tool result; TW-SEC-008: TW206 an agent
answering itself) and targets (TW-TOOL-027, TW-TOOL-028: TW408).

Findings about arguments point at the arguments string of the call and, for a JSON syntax
problem or a repeated member, at the line and column inside it (`teamwire rule TW401`); findings
about a result point at its content; findings about a target point at the call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from teamwire.envelope import Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"
ARGS = "/0/tool_calls/0/function/arguments"


def envelope(sender: str, label: str, message_id: str, tag: str, content: str = "Hi",
             attributes: str = "") -> str:
    return (f"来自 {sender} 的{label}\nid: {message_id}\n\n<{sender}>\n<{tag}{attributes}>\n"
            f"{content}\n</{tag}>\n</{sender}>")


def ask(raw: Any, text: str = "Asking the leader.") -> dict[str, Any]:
    """An ask_master call whose arguments are ``raw`` as given (a string or not)."""
    return {"role": "assistant", "content": text, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "ask_master", "arguments": raw}}]}


def result(content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"role": "tool", "tool_call_id": "call_1", "content": text}


def answer(sender: str, question_id: str) -> str:
    abbr = {TL: "tl", UIO: "uio", FSE: "fse"}[sender]
    return envelope(sender, "回答", f"ans_{abbr}_001", "Answer", "Navy.",
                    f' question_id="{question_id}"')


QUESTION = json.dumps({"question": "Which blue?", "question_id": "ask_uio_001"})
TIMEOUT = {"success": False, "error": {"code": "timeout", "message": "No answer."}}
DEEP: Any = 1
for _ in range(70):
    DEEP = [DEEP]

# name: (messages, owner, rule, index, pointer, message, (line, column) or None)
Case = tuple[list[Any], str, str, int, str, str, "tuple[int, int] | None"]
CASES: dict[str, Case] = {
    "arguments that are no string": (
        [ask({"question": "Which blue?"}), result(TIMEOUT)], UIO, "TW401", 0, ARGS,
        "arguments of ask_master are object, not a JSON string", None),
    "arguments that are no object": (
        [ask("[1]"), result(TIMEOUT)], UIO, "TW401", 0, ARGS,
        "arguments of ask_master are a JSON array, not an object", None),
    "a member named twice": (
        [ask('{"question": "Q?", "question": "R?"}'), result(TIMEOUT)], UIO, "TW418", 0, ARGS,
        'arguments of ask_master name the member "question" twice in one object; JSON readers '
        "differ on which value wins", (1, len('{"question": "Q?", ') + 1)),
    "arguments nested too deep": (
        [ask(json.dumps({"question": "Q?", "question_id": "ask_uio_001", "x": DEEP})),
         result(TIMEOUT)], UIO, "TW402", 0, ARGS,
        "ask_master: arguments nest more than 64 levels deep", None),
    "a required parameter missing": (
        [ask(json.dumps({"question": "Q?"})), result(TIMEOUT)], UIO, "TW402", 0, ARGS,
        "ask_master: 'question_id' is a required property", None),
    "a blank text": (
        [ask(json.dumps({"question": "  ", "question_id": "ask_uio_001"})), result(TIMEOUT)], UIO,
        "TW402", 0, ARGS, "ask_master: question is blank", None),
    "a chosen id of another shape": (
        [ask(json.dumps({"question": "Q?", "question_id": "ask-1"})), result(TIMEOUT)], UIO,
        "TW304", 0, ARGS, "ask_master: id 'ask-1' is not 'task_NNN' or '{prefix}_{abbr}_NNN' "
        "with a prefix out, ask, ans or msg", None),
    "an Answer to another question": (
        [ask(QUESTION), result(answer(TL, "ask_uio_009"))], UIO, "TW504", 1, "/1/content",
        "ask_master asked 'ask_uio_001' but its result answers 'ask_uio_009'", None),
    "a peer's Answer to another question": (
        [{"role": "assistant", "content": "Asking the API's author.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {
                "name": "ask_other_agent",
                "arguments": json.dumps({"target_agent_id": 1, "role_id": "full-stack-engineer",
                                         "content": "Final?", "message_id": "ask_uio_001"})}}]},
         result(answer(FSE, "ask_uio_009"))], UIO, "TW504", 1, "/1/content",
        "ask_other_agent asked 'ask_uio_001' but its result answers 'ask_uio_009'", None),
    "an Answer from another agent": (
        [ask(QUESTION), result(answer(FSE, "ask_uio_001"))], UIO, "TW504", 1, "/1/content",
        "ask_master result is an Answer from Full-Stack Engineer_1, not from Team Leader", None),
    "an agent answering itself": (
        [ask(QUESTION), result(answer(UIO, "ask_uio_001"))], UIO, "TW206", 1, "/1/content",
        "UI Operator_1 answers itself", (1, len("来自 ") + 1)),
    "an error result without code": (
        [ask(QUESTION), result({"success": False, "error": {"code": "timeout"}})], UIO, "TW416",
        1, "/1/content", "error result of ask_master lacks error.code and error.message strings",
        None),
    "a result that is no result object": (
        [{"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "list_agents",
                                                               "arguments": "{}"}}]},
         result("ok")], TL, "TW416", 1, "/1/content",
        'result of list_agents is not a JSON object with "success": true or false', None),
    "a Message as a tool result": (
        [{"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "read_file",
                                                               "arguments": '{"path": "a"}'}}]},
         result(envelope(TL, "消息", "msg_tl_001", "Message"))], UIO, "TW210", 1, "/1/content",
        "a Message envelope is returned as a tool result; only Answers travel as tool results",
        (1, 1)),
    "a target that does not exist": (
        [{"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {
                "name": "send_message_to_sub_agent",
                "arguments": json.dumps({"agent_id": 3, "role_id": "ui-operator",
                                         "message": "Hi"})}}]},
         result({"success": True})], TL, "TW408", 0, "/0/tool_calls/0",
        "send_message_to_sub_agent targets ui-operator #3, which does not exist", None),
}


def lint(messages: list[Any], owner: str) -> list[Any]:
    return lint_value(messages, "case.json",
                      LintOptions(profile=Profile.STRICT, agent=owner)).findings


@pytest.mark.parametrize("name", list(CASES))
def test_finding_message_and_place(name: str) -> None:
    messages, owner, rule, index, pointer, message, place = CASES[name]
    found = [(f.index, f.pointer, f.message, None if f.line is None else (f.line, f.column))
             for f in lint(messages, owner) if f.rule == rule]
    assert found == [(index, pointer, message, place)]


def test_invalid_json_points_at_the_syntax_error() -> None:
    # The error is the trailing comma: the finding points at it.
    raw = '{"question": "Q?",}'
    [finding] = [f for f in lint([ask(raw), result(TIMEOUT)], UIO) if f.rule == "TW401"]
    assert finding.message.startswith("arguments of ask_master are not valid JSON: ")
    assert (finding.pointer, finding.line, finding.column) == (ARGS, 1, raw.index(",}") + 1)


def test_empty_arguments_read_as_no_arguments() -> None:
    # `teamwire rule TW401`: an empty string reads as {}; the missing parameters are TW402.
    found = [(f.rule, f.message) for f in lint([ask(""), result(TIMEOUT)], UIO)
             if f.rule in ("TW401", "TW402")]
    assert ("TW401", "arguments of ask_master are object, not a JSON string") not in found
    assert [rule for rule, _ in found] and {rule for rule, _ in found} == {"TW402"}


def test_an_empty_text_is_one_finding() -> None:
    # An empty text is already a schema problem (minLength): not also reported as blank.
    raw = json.dumps({"question": "", "question_id": "ask_uio_001"})
    found = [f.message for f in lint([ask(raw), result(TIMEOUT)], UIO) if f.rule == "TW402"]
    assert len(found) == 1 and found[0].startswith("ask_master: question: "), found
