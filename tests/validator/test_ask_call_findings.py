"""Findings on ask calls and astrion status calls (TW-TOOL-021, TW-TOOL-034, TW-ID-012,
TW-PROF-019; rules TW304, TW408, TW504).

- an ``ask_other_agent`` whose chosen ``message_id`` has no valid shape, or the prefix of
  another type (``ans_``), is TW304 at its arguments, judged as the id of an Ask;
- the result of an ``ask_other_agent`` that names its target by ``target_agent_id`` and
  ``role_id`` must be an Answer from that target: one from the Team Leader is TW504, also
  when other roles have an instance with the same number;
- profile astrion's ``get_sub_agent_status(agent_ids: [...])`` checks each listed id:
  one that names no sub-agent is TW408.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.envelope import MessageType, Profile
from teamwire.validator import LintOptions, lint_value

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"
TASK = ("来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign.\n</Task>\n"
        "</Team Leader>")


def _call(name: str, arguments: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": text, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def _findings(messages: list[dict[str, Any]], agent: str,
              profile: Profile) -> list[tuple[str, str, str | None]]:
    report = lint_value(messages, "conversation.json", LintOptions(profile=profile, agent=agent))
    return [(f.rule, f.message, f.pointer) for f in report.findings]


def test_a_chosen_ask_id_of_no_valid_shape() -> None:
    timeout = {"success": False, "error": {"code": "timeout", "message": "no answer"}}
    messages = [{"role": "system", "content": "You design."}, {"role": "user", "content": TASK},
                _call("ask_other_agent", {"target_agent_id": 2, "content": "Which fields?",
                                          "message_id": "ask_uio_1"}, "Asking."),
                {"role": "tool", "tool_call_id": "c1", "content": json.dumps(timeout)},
                {"role": "assistant", "content": "Done."}]
    assert _findings(messages, UIO, Profile.STRICT) == [
        ("TW304", "ask_other_agent: id 'ask_uio_1' is not 'task_NNN' or '{prefix}_{abbr}_NNN' "
         "with a prefix out, ask, ans or msg", "/2/tool_calls/0/function/arguments")]


def test_a_chosen_ask_id_with_the_prefix_of_an_answer() -> None:
    timeout = {"success": False, "error": {"code": "timeout", "message": "no answer"}}
    messages = [{"role": "system", "content": "You design."}, {"role": "user", "content": TASK},
                _call("ask_other_agent", {"target_agent_id": 2, "content": "Which fields?",
                                          "message_id": "ans_uio_001"}, "Asking."),
                {"role": "tool", "tool_call_id": "c1", "content": json.dumps(timeout)},
                {"role": "assistant", "content": "Done."}]
    assert _findings(messages, UIO, Profile.STRICT) == [
        ("TW304", "ask_other_agent: id 'ans_uio_001' has prefix 'ans' but a 提问 takes 'ask_'",
         "/2/tool_calls/0/function/arguments")]


def test_an_ask_other_agent_answered_by_the_leader_instead_of_its_target() -> None:
    builder = SessionBuilder()
    uio = builder.create("ui-operator", "UI Operator", 1, "Design the page.")
    fse = builder.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    builder.create("designer", "Designer", 1, "Draw the mock-ups.")
    ask = builder.ask_other(uio, fse, "Which fields?", "Asking the engineer.")
    builder.result(uio, ask.call_id, builder._envelope(MessageType.ANSWER, builder.leader,
                                                       "name, email",
                                                       question_id=ask.question_id))
    report = lint_value(builder.bundle(), "bundle.json", LintOptions(profile=Profile.STRICT))
    assert [(f.rule, f.message, f.pointer) for f in report.findings] == [
        ("TW504", f"ask_other_agent result is an Answer from {TL}, not from {FSE}",
         f"/agents/{UIO}/messages/3/content")]


def test_each_listed_id_of_an_astrion_status_call_is_checked() -> None:
    messages = [{"role": "system", "content": "You lead."}, {"role": "user", "content": "go"},
                _call("get_sub_agent_status", {"agent_ids": [3]}),
                {"role": "tool", "tool_call_id": "c1",
                 "content": json.dumps({"success": True, "agents": []})},
                {"role": "assistant", "content": "Done."}]
    assert _findings(messages, TL, Profile.ASTRION) == [
        ("TW408", "get_sub_agent_status targets agent_id 3, which does not exist",
         "/2/tool_calls/0")]
