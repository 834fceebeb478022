"""The sub-agent a tool call targets (spec/06-tools.md, spec/07-routing.md).

TW-TOOL-031 and TW-ROUTE-004 (TW409: a terminated target, the call must fail), TW-TOOL-027 and
TW-TOOL-029 (TW410: an agent_id shared by sub-agents of several roles, without role_id), TW-TOOL-030 (TW415:
a sub-agent targeting itself) and TW-MSG-009..011 (TW510: more ask_other_agent calls to one peer
than the round limit, 8 by default). Each finding is at the call, and names the target.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.sources.transcripts.blocks import message_after_termination
from conformance.sources.transcripts.builders import SessionBuilder

from teamwire.validator import LintOptions, lint_value

TL, UIO, FSE = "Team Leader", "UI Operator_1", "Full-Stack Engineer_1"


def found(report: Any, rule: str) -> list[tuple[str | None, int | None, str | None, str]]:
    return [(f.agent, f.index, f.pointer, f.message) for f in report.findings if f.rule == rule]


def team() -> SessionBuilder:
    b = SessionBuilder()
    b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    return b


def test_a_terminated_target() -> None:
    bundle, at = message_after_termination()
    assert found(lint_value(bundle), "TW409") == [
        (TL, at, f"/agents/{TL}/messages/{at}/tool_calls/0",
         "send_message_to_sub_agent targets ui-operator #1, which was terminated, and did not fail")]


def test_an_agent_id_of_several_roles_without_role_id() -> None:
    b = team()
    call_id = b.call(b.leader, "send_message_to_sub_agent", {"agent_id": 1, "message": "Hi"})
    at = len(b.leader.messages) - 1
    b.result(b.leader, call_id, {"success": True, "display_name": UIO, "message_id": "msg_tl_001"})
    assert found(lint_value(b.bundle()), "TW410") == [
        (TL, at, f"/agents/{TL}/messages/{at}/tool_calls/0",
         "send_message_to_sub_agent: agent_id 1 matches agents of roles full-stack-engineer, "
         "ui-operator; the call must fail or name a role_id")]


def test_a_sub_agent_asking_itself() -> None:
    b = team()
    ui = b.agents[UIO]
    b.call(ui, "ask_other_agent", {"target_agent_id": 1, "role_id": "ui-operator",
                                   "content": "Ready?", "message_id": "ask_uio_001"},
           "Asking myself.")
    at = len(ui.messages) - 1
    assert found(lint_value(b.bundle()), "TW415") == [
        (UIO, at, f"/agents/{UIO}/messages/{at}/tool_calls/0",
         "ask_other_agent targets its own caller and did not fail")]


def peer_asks(count: int) -> list[dict[str, Any]]:
    """UI Operator_1's conversation: its Task, then ``count`` answered asks to Full-Stack Engineer_1."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": (
        "来自 Team Leader 的任务发布\nid: task_001\n\n<Team Leader>\n<Task>\nDesign.\n</Task>\n"
        "</Team Leader>")}]
    for n in range(1, count + 1):
        arguments = {"target_agent_id": 1, "role_id": "full-stack-engineer", "content": f"Q{n}?",
                     "message_id": f"ask_uio_{n:03d}"}
        messages.append({"role": "assistant", "content": f"Asking ({n}).", "tool_calls": [
            {"id": f"c{n}", "type": "function",
             "function": {"name": "ask_other_agent", "arguments": json.dumps(arguments)}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": (
            f"来自 {FSE} 的回答\nid: ans_fse_{n:03d}\n\n<{FSE}>\n"
            f'<Answer question_id="ask_uio_{n:03d}">\nYes.\n</Answer>\n</{FSE}>')})
    return messages


def test_asks_over_the_round_limit() -> None:
    at = 1 + 2 * 8  # the ninth ask
    assert found(lint_value(peer_asks(9), "case.json", LintOptions(agent=UIO)), "TW510") == [
        (UIO, at, f"/{at}/tool_calls/0",
         "ask_other_agent to agent_id 1: 9 asks, over the round limit of 8")]
    assert found(lint_value(peer_asks(8), "case.json", LintOptions(agent=UIO)), "TW510") == []
