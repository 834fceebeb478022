"""Arguments a router refuses or ignores (TW-TOOL-023 to TW-TOOL-040), tools outside the
caller's set (TW-TOOL-041), the ids a router gives tool calls (TW-DUR-008, TW-DUR-009), the
status of one sub-agent (TW-TOOL-016) with the run result of its latest turn (TW-RES-013),
and the order of the calls of one reply (TW-ROUTE-021, TW-ROUTE-022)."""

from __future__ import annotations

import json
from typing import Any

from conformance.sources.scenarios.asks import failed
from conformance.sources.scenarios.blocks import (
    FSE,
    FSE_TASK,
    TL,
    UIO,
    UIO_TASK,
    agent,
    call,
    calls,
    create,
    created,
    envelope,
    expect,
    says,
    scenario,
    schedule,
    tool,
)
from conformance.sources.scenarios.routing import message, output

from teamwire.conformance.matching import FURTHER_MEMBERS, IF_PRESENT, UNLESS_OFFERED
from teamwire.envelope.run_result import render_run_result

TASK_UIO = envelope(TL, "任务发布", "task_001", "Task", UIO_TASK)


def nested(levels: int) -> Any:
    """A value that nests arrays ``levels`` deep."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def refused_arguments() -> dict[str, Any]:
    # 64 arrays inside the arguments object: 65 levels, one more than TW-TOOL-039 allows.
    deep = json.dumps({"agent_id": 1, "message": "Deep.", "extra": nested(64)})
    return scenario(
        "refused-arguments",
        "An argument the tool does not define is ignored; a blank message, arguments nested "
        "65 levels deep and a sub-agent's ask that names itself fail with invalid-arguments, "
        "which comes before unknown-agent, and nothing is sent",
        ["TW-TOOL-024", "TW-TOOL-025", "TW-TOOL-026", "TW-TOOL-030", "TW-TOOL-037",
         "TW-TOOL-039"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1, role_id="ui-operator",
                              task=UIO_TASK, priority="high"),
                         call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                              message=" \n\t"),
                         call("call_tl_3", "send_message_to_sub_agent", agent_id=9, message=" "),
                         {"id": "call_tl_4", "name": "send_message_to_sub_agent",
                          "arguments": deep}),
               says("Waiting."), says("Good.")),
         agent(UIO, calls(call("call_uio_1", "ask_other_agent", target_agent_id=1,
                               role_id="ui-operator", message_id="ask_uio_001",
                               content="Am I done?")),
               says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (UIO, 2), (TL, 3)),
        [expect(TL, 2, tool("call_tl_1", created(1, "ui-operator", UIO, "task_001")),
                tool("call_tl_2", failed("invalid-arguments")),
                tool("call_tl_3", failed("invalid-arguments")),
                tool("call_tl_4", failed("invalid-arguments")),
                requirements=("TW-TOOL-024", "TW-TOOL-025", "TW-TOOL-037", "TW-TOOL-039")),
         expect(UIO, 1, TASK_UIO, requirements=("TW-TOOL-025", "TW-TOOL-026")),
         expect(UIO, 2, tool("call_uio_1", failed("invalid-arguments")),
                requirements=("TW-TOOL-030", "TW-TOOL-037")),
         expect(TL, 3, output(UIO, "out_uio_001", "The form is designed."))])


def status(state: str) -> dict[str, Any]:
    """get_sub_agent_status's result for UI Operator_1: the members TW-TOOL-016 names, and
    whatever further members TW-TOOL-017 lets a router add."""
    return {"success": True, "agent_id": 1, "role_id": "ui-operator", "display_name": UIO,
            "status": state, FURTHER_MEMBERS: True}


def sub_agent_status() -> dict[str, Any]:
    return scenario(
        "sub-agent-status",
        "get_sub_agent_status gives a sub-agent's routing state, a terminated one's too; a "
        "message to the terminated sub-agent fails with agent-terminated",
        ["TW-TOOL-016", "TW-TOOL-017", "TW-TOOL-031", "TW-TOOL-010"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1, role_id="ui-operator",
                              task=UIO_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "get_sub_agent_status", agent_id=1),
                     call("call_tl_3", "terminate_sub_agent", agent_id=1),
                     call("call_tl_4", "get_sub_agent_status", agent_id=1,
                          role_id="ui-operator"),
                     call("call_tl_5", "send_message_to_sub_agent", agent_id=1,
                          message="Are you there?")),
               says("Done.")),
         agent(UIO, says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (TL, 4)),
        [expect(TL, 3, output(UIO, "out_uio_001", "The form is designed.")),
         expect(TL, 4, tool("call_tl_2", status("completed")),
                tool("call_tl_3", {"success": True, "agent_id": 1, "role_id": "ui-operator",
                                   "display_name": UIO, "status": "terminated"}),
                tool("call_tl_4", status("terminated")),
                tool("call_tl_5", failed("agent-terminated")))])


def latest_run(name: str, role_id: str, status: str, state: str,
               **body: str) -> dict[str, Any]:
    """get_sub_agent_status's result whose ``result``, if the router sends one, is the run
    result of the sub-agent's latest turn in that state; the words of a running note or of
    an error are the router's own."""
    run = {"agent": name, "state": state, **body, FURTHER_MEMBERS: True}
    return {"success": True, "agent_id": 1, "role_id": role_id, "display_name": name,
            "status": status, "result": {IF_PRESENT: run}, FURTHER_MEMBERS: True}


def sub_agent_status_results() -> dict[str, Any]:
    engineer = "full-stack-engineer"
    return scenario(
        "sub-agent-status-results",
        "get_sub_agent_status's result, when the router gives one, is the run result of the "
        "sub-agent's latest turn: running while its turn goes on, timeout once the turn "
        "timeout ended it, completed with its final output, terminated once terminated",
        ["TW-RES-013", "TW-TOOL-016", "TW-TOOL-017"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         call("call_tl_2", "create_sub_agent", agent_id=1, role_id=engineer,
                              task=FSE_TASK, timeout_seconds=1)),
               calls(call("call_tl_3", "get_sub_agent_status", agent_id=1,
                          role_id="ui-operator")),
               says("Waiting."),
               calls(call("call_tl_4", "get_sub_agent_status", agent_id=1, role_id=engineer)),
               says("Too slow."),
               calls(call("call_tl_5", "get_sub_agent_status", agent_id=1,
                          role_id="ui-operator"),
                     call("call_tl_6", "terminate_sub_agent", agent_id=1,
                          role_id="ui-operator"),
                     call("call_tl_7", "get_sub_agent_status", agent_id=1,
                          role_id="ui-operator")),
               says("Done.")),
         agent(UIO, says("The form is designed.")),
         agent(FSE, says("Too late."))],
        # The engineer's only model call is held until its turn timeout has ended the turn;
        # the operator's, until the Team Leader has asked for its status while it runs.
        schedule((TL, 1), (TL, 2), (TL, 3), (TL, 4), (TL, 5), (UIO, 1), (TL, 6), (TL, 7),
                 (FSE, 1)),
        [expect(TL, 3, tool("call_tl_3", latest_run(UIO, "ui-operator", "running",
                                                     "running"))),
         expect(TL, 4, output(FSE, "out_fse_001", render_run_result(
             FSE, "timeout", "the turn took longer than its timeout of 1 second"))),
         expect(TL, 5, tool("call_tl_4", latest_run(FSE, engineer, "completed", "timeout"))),
         expect(TL, 6, output(UIO, "out_uio_001", "The form is designed.")),
         expect(TL, 7, tool("call_tl_5", latest_run(UIO, "ui-operator", "completed",
                                                     "completed",
                                                     output="The form is designed.")),
                tool("call_tl_6", {"success": True, "agent_id": 1, "role_id": "ui-operator",
                                   "display_name": UIO, "status": "terminated"}),
                tool("call_tl_7", latest_run(UIO, "ui-operator", "terminated",
                                             "terminated")))])


def output_kept_after_termination() -> dict[str, Any]:
    port = "Which port does the API listen on?"
    progress = "The form is designed; asking the engineer for the port."
    return scenario(
        "output-kept-after-termination",
        "A sub-agent's progress report that waits in the running Team Leader's queue is still "
        "delivered after the Team Leader has terminated that sub-agent",
        ["TW-ROUTE-021", "TW-DEL-001", "TW-ROUTE-029"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(create("call_tl_2", "ui-operator", UIO_TASK)),
               calls(call("call_tl_3", "terminate_sub_agent", agent_id=1,
                          role_id="ui-operator")),
               says("Noted."), says("Good.")),
         agent(FSE, says("The API is done."), says("Port 8080.")),
         agent(UIO, calls(call("call_uio_1", "ask_other_agent", target_agent_id=1,
                               role_id="full-stack-engineer", message_id="ask_uio_001",
                               content=port), text=progress))],
        # The engineer's model call that holds the operator's ask shows that the operator's
        # reply was taken, and its progress report (accepted before the ask, TW-ROUTE-029)
        # waits in the queue of the Team Leader, whose fourth model call is held: that call's
        # reply terminates the operator.
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4, "await"), (UIO, 1), (FSE, 2, "await"),
                 (TL, 4), (TL, 5), (FSE, 2), (TL, 6)),
        [expect(TL, 5, tool("call_tl_3", {"success": True, "agent_id": 1,
                                           "role_id": "ui-operator", "display_name": UIO,
                                           "status": "terminated"}),
                envelope(UIO, "任务进度输出", "out_uio_001", "Output", progress)),
         expect(FSE, 2, envelope(UIO, "提问", "ask_uio_001", "Ask", port)),
         expect(TL, 6, output(FSE, "out_fse_002", "Port 8080."))])


def ask_blocks_later_calls() -> dict[str, Any]:
    return scenario(
        "ask-blocks-later-calls",
        "The calls of one reply run in order and an ask blocks the ones after it: the message "
        "the Team Leader sends after asking reaches the sub-agent only once its answer has "
        "resolved the ask, as a new turn",
        ["TW-ROUTE-022", "TW-ROUTE-014"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1, role_id="ui-operator",
                              task=UIO_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "ask_sub_agent", agent_id=1, question="Which colours?",
                          question_id="ask_tl_001"),
                     call("call_tl_3", "send_message_to_sub_agent", agent_id=1,
                          message="Use them on the button too.")),
               says("Told the operator."), says("Good.")),
         agent(UIO, says("The form is designed."), says("Navy and white."),
               says("The button is navy."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (UIO, 2), (TL, 4), (UIO, 3), (TL, 5)),
        [expect(UIO, 2, envelope(TL, "提问", "ask_tl_001", "Ask", "Which colours?")),
         expect(TL, 4, tool("call_tl_2", envelope(
             UIO, "回答", "ans_uio_001", "Answer", "Navy and white.",
             (("question_id", "ask_tl_001"),))["content"]),
                tool("call_tl_3", {"success": True, "display_name": UIO,
                                   "message_id": "msg_tl_001", "delivery": "new_turn"})),
         expect(UIO, 3, message("msg_tl_001", "Use them on the button too.")),
         expect(TL, 5, output(UIO, "out_uio_002", "The button is navy."))])


def repeated_members_and_large_integers() -> dict[str, Any]:
    return scenario(
        "repeated-members-and-large-integers",
        "Arguments that name a member twice, also inside an argument the tool does not define "
        "and spelled with an escape, and an integer beyond 2^53-1 fail with invalid-arguments "
        "and send nothing; 2^53-1 itself is an integer like any other",
        ["TW-TOOL-038", "TW-TOOL-040", "TW-TOOL-026"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1, role_id="ui-operator",
                              task=UIO_TASK),
                         {"id": "call_tl_2", "name": "send_message_to_sub_agent",
                          "arguments": '{"agent_id": 1, "message": "Navy.", '
                                       '"message": "White."}'},
                         {"id": "call_tl_3", "name": "send_message_to_sub_agent",
                          "arguments": '{"agent_id": 1, "message": "Navy.", '
                                       '"extra": {"colour": 1, "\\u0063olour": 2}}'},
                         {"id": "call_tl_4", "name": "send_message_to_sub_agent",
                          "arguments": '{"agent_id": 9007199254740992, "message": "Far."}'},
                         {"id": "call_tl_5", "name": "send_message_to_sub_agent",
                          "arguments": '{"agent_id": 9007199254740991, "message": "Far."}'}),
               says("Waiting."), says("Good.")),
         agent(UIO, says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3)),
        [expect(TL, 2, tool("call_tl_1", created(1, "ui-operator", UIO, "task_001")),
                tool("call_tl_2", failed("invalid-arguments")),
                tool("call_tl_3", failed("invalid-arguments")),
                tool("call_tl_4", failed("invalid-arguments")),
                tool("call_tl_5", failed("unknown-agent"))),
         expect(UIO, 1, TASK_UIO),
         expect(TL, 3, output(UIO, "out_uio_001", "The form is designed."))])


def base_tool_not_offered() -> dict[str, Any]:
    def forbidden(tool_name: str) -> dict[str, Any]:
        return {**failed("forbidden-tool"), UNLESS_OFFERED: tool_name}

    return scenario(
        "base-tool-not-offered",
        "A sub-agent calls base tools: one the router did not offer it fails with "
        "forbidden-tool, one it offered runs and its result is the router's own",
        ["TW-TOOL-041", "TW-TOOL-006", "TW-CERT-018"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               says("Waiting."), says("Good.")),
         agent(UIO, calls(call("call_uio_1", "read_file", path="form.html"),
                          call("call_uio_2", "run_command", command="ls")),
               says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (UIO, 2), (TL, 3)),
        [expect(UIO, 2, tool("call_uio_1", forbidden("read_file")),
                tool("call_uio_2", forbidden("run_command"))),
         expect(TL, 3, output(UIO, "out_uio_001", "The form is designed."))])


def tool_call_ids() -> dict[str, Any]:
    long_id = "call_" + "x" * 70
    # Code points, not UTF-16 units: a language whose strings count units would cut each of
    # these astral characters in half.
    astral_id = "call_" + "\U0001d465" * 70

    def listing(call_id: str | None) -> dict[str, Any]:
        return {**({} if call_id is None else {"id": call_id}),
                "name": "list_active_sub_agents", "arguments": {}}

    nobody = {"success": True, "agents": []}
    return scenario(
        "tool-call-ids",
        "Tool calls whose id repeats an earlier call's, is empty or is missing are new calls "
        "with ids the router forms as TW-DUR-009 says, and their results name those ids",
        ["TW-DUR-008", "TW-DUR-009", "TW-CERT-007", "TW-CERT-008"],
        [agent(TL, calls(listing("call_0")),
               calls(listing("call_0"), listing(""), listing(None), listing("call_2")),
               calls(listing(long_id), listing(long_id)),
               calls(listing(astral_id), listing(astral_id)),
               says("Nobody yet.")),
         ],
        schedule((TL, 1), (TL, 2), (TL, 3), (TL, 4), (TL, 5)),
        [expect(TL, 2, tool("call_0", nobody)),
         expect(TL, 3, tool("call_0_2", nobody), tool("call_2", nobody), tool("call_3", nobody),
                tool("call_2_2", nobody)),
         expect(TL, 4, tool(long_id, nobody), tool(long_id[:64] + "_2", nobody)),
         expect(TL, 5, tool(astral_id, nobody), tool(astral_id[:64] + "_2", nobody))])


SCENARIOS = [refused_arguments, sub_agent_status, sub_agent_status_results,
             output_kept_after_termination,
             ask_blocks_later_calls, repeated_members_and_large_integers, base_tool_not_offered,
             tool_call_ids]
