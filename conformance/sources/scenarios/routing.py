"""Routing by the receiver's state: the scenarios of the routing chapter (and of seed 001's
section 3): a message to a running agent goes inline, to a waiting agent only as the answer
it waits for, to an idle or completed agent as a new turn, and a message that arrives during
a final reply starts a new turn once that turn has ended."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.blocks import (
    FSE,
    FSE_TASK,
    REQUEST,
    TL,
    UIO,
    UIO2,
    UIO2_TASK,
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
    user,
)

GUIDANCE = "Check the auth module first."
TASK_UIO = envelope(TL, "任务发布", "task_001", "Task", UIO_TASK)
TASK_FSE = envelope(TL, "任务发布", "task_001", "Task", FSE_TASK)


def sent(message_id: str, delivery: str, name: str = UIO) -> dict[str, Any]:
    """send_message_to_sub_agent's success result (TW-TOOL-012)."""
    return {"success": True, "display_name": name, "message_id": message_id,
            "delivery": delivery}


def output(sender: str, message_id: str, text: str) -> dict[str, Any]:
    """A completion report: the natural output that ended a turn."""
    return envelope(sender, "任务完成汇报", message_id, "Output", text)


def message(message_id: str, text: str) -> dict[str, Any]:
    return envelope(TL, "消息", message_id, "Message", text)


def active(status: str) -> dict[str, Any]:
    """list_active_sub_agents with UI Operator_1 alone."""
    return {"success": True, "agents": [{"agent_id": 1, "role_id": "ui-operator",
                                         "display_name": UIO, "status": status,
                                         "summary": ""}]}


def task_to_idle_sub_agent() -> dict[str, Any]:
    return scenario(
        "task-to-idle-sub-agent",
        "A Task starts the new sub-agent's turn; its natural output reaches the idle Team "
        "Leader as a new turn",
        ["TW-ROUTE-007", "TW-ROUTE-009", "TW-ROUTE-023", "TW-TOOL-007", "TW-TOOL-009",
         "TW-TOOL-042", "TW-TOOL-047"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               says("Waiting for the operator."), says("The page is done.")),
         agent(UIO, says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3)),
        [expect(TL, 1, user(REQUEST), requirements=("TW-ROUTE-023",)),
         expect(TL, 2, tool("call_tl_1", created(1, "ui-operator", UIO, "task_001")),
                requirements=("TW-TOOL-007", "TW-TOOL-009", "TW-TOOL-042", "TW-TOOL-047")),
         expect(UIO, 1, TASK_UIO,
                requirements=("TW-ROUTE-007", "TW-ROUTE-009", "TW-TOOL-007", "TW-TOOL-042")),
         expect(TL, 3, output(UIO, "out_uio_001", "The form is designed."),
                requirements=("TW-ROUTE-007", "TW-ROUTE-009", "TW-ROUTE-023"))])


def first_call_after_the_reply() -> dict[str, Any]:
    return scenario(
        "first-call-after-the-reply",
        "A sub-agent created by a reply that goes on to send it a message makes its first "
        "model call once the whole reply has run: that call holds the Task and the message "
        "together",
        ["TW-ROUTE-033", "TW-ROUTE-008", "TW-ROUTE-009"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                              message=GUIDANCE)),
               says("Waiting for the operator."), says("The page is done.")),
         agent(UIO, says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3)),
        [expect(TL, 2, tool("call_tl_1", created(1, "ui-operator", UIO, "task_001")),
                tool("call_tl_2", sent("msg_tl_001", "inline"))),
         expect(UIO, 1, TASK_UIO, message("msg_tl_001", GUIDANCE)),
         expect(TL, 3, output(UIO, "out_uio_001", "The form is designed."))])


def message_to_running_sub_agent() -> dict[str, Any]:
    return scenario(
        "message-to-running-sub-agent",
        "A message to a running sub-agent goes inline: it follows the tool results of its "
        "current reply, before its next model call (seed 001, 3.1)",
        ["TW-ROUTE-007", "TW-ROUTE-008", "TW-TOOL-011", "TW-TOOL-012", "TW-TOOL-015"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message=GUIDANCE)),
               says("Told the operator."), says("Good.")),
         agent(UIO, calls(call("call_uio_1", "list_active_sub_agents")),
               says("Reusing the auth module."))],
        schedule((TL, 1), (TL, 2), (TL, 3), (UIO, 1), (UIO, 2), (TL, 4)),
        [expect(TL, 3, tool("call_tl_2", sent("msg_tl_001", "inline")),
                requirements=("TW-ROUTE-007", "TW-TOOL-011", "TW-TOOL-012")),
         expect(UIO, 2, tool("call_uio_1", active("running")), message("msg_tl_001", GUIDANCE),
                requirements=("TW-ROUTE-007", "TW-ROUTE-008", "TW-TOOL-015")),
         expect(TL, 4, output(UIO, "out_uio_001", "Reusing the auth module."))])


def answer_to_waiting_sub_agent() -> dict[str, Any]:
    question = "Which port should the API listen on?"
    return scenario(
        "answer-to-waiting-sub-agent",
        "A sub-agent waiting in ask_master gets the Team Leader's answer as the result of "
        "that call (seed 001, 3.2)",
        ["TW-ROUTE-010", "TW-ROUTE-012", "TW-TYPE-013", "TW-TOOL-014", "TW-TOOL-020",
         "TW-TOOL-034"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080.")),
               says("Answered."), says("Done.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question=question,
                               question_id="ask_fse_001")),
               says("Using port 8080."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4), (FSE, 2), (TL, 5)),
        [expect(FSE, 1, TASK_FSE),
         expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", question),
                requirements=("TW-TOOL-020",)),
         expect(TL, 4, tool("call_tl_2", {"success": True, "display_name": FSE,
                                           "question_id": "ask_fse_001"}),
                requirements=("TW-TOOL-014",)),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "ask_fse_001"),))["content"])),
         expect(TL, 5, output(FSE, "out_fse_001", "Using port 8080."))])


def progress_and_ask_to_an_idle_leader() -> dict[str, Any]:
    question = "Which port should the API listen on?"
    progress = "Checking the configuration first."
    return scenario(
        "progress-and-ask-to-an-idle-leader",
        "A sub-agent's reply whose text and ask_master both reach the idle Team Leader starts "
        "one new turn, whose first model call holds the progress report and the Ask together",
        ["TW-ROUTE-033", "TW-DEL-005", "TW-ROUTE-009"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080.")),
               says("Answered."), says("Done.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question=question,
                               question_id="ask_fse_001"), text=progress),
               says("Using port 8080."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4), (FSE, 2), (TL, 5)),
        [expect(TL, 3, envelope(FSE, "任务进度输出", "out_fse_001", "Output", progress),
                envelope(FSE, "提问", "ask_fse_001", "Ask", question)),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "ask_fse_001"),))["content"])),
         expect(TL, 5, output(FSE, "out_fse_002", "Using port 8080."))],
        # the Team Leader must be idle when the report comes: a router process given both
        # answers at once may still be running its turn, which hides an early first call
        settle=0.2)


def asker_goes_on_after_the_answering_reply() -> dict[str, Any]:
    colours, logo = "Navy and white.", "May I add a logo?"
    return scenario(
        "asker-goes-on-after-the-answering-reply",
        "A sub-agent's text answers the Team Leader's ask beside an ask_master: the answered "
        "ask is no longer pending, so the ask_master closes no wait cycle, and the Team "
        "Leader's next tool call runs only once that reply has run, so its message finds the "
        "sub-agent waiting and the Ask comes in the same model call as the answer",
        ["TW-ROUTE-033", "TW-ROUTE-016", "TW-ROUTE-007"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "ask_sub_agent", agent_id=1, question="Which colours?",
                          question_id="ask_tl_001"),
                     call("call_tl_3", "send_message_to_sub_agent", agent_id=1,
                          message="Use the brand font.")),
               calls(call("call_tl_4", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_uio_001", answer="Yes.")),
               says("Answered."), says("ok")),
         agent(UIO, says("The form is designed."),
               calls(call("call_uio_1", "ask_master", question=logo,
                          question_id="ask_uio_001"), text=colours),
               says("Logo added."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (UIO, 2), (TL, 4), (TL, 5), (UIO, 3),
                 (TL, 6)),
        [expect(TL, 4,
                tool("call_tl_2", envelope(UIO, "回答", "ans_uio_001", "Answer", colours,
                                           (("question_id", "ask_tl_001"),))["content"]),
                tool("call_tl_3", sent("msg_tl_001", "queued")),
                envelope(UIO, "提问", "ask_uio_001", "Ask", logo)),
         expect(UIO, 3,
                tool("call_uio_1", envelope(TL, "回答", "ans_tl_001", "Answer", "Yes.",
                                            (("question_id", "ask_uio_001"),))["content"]),
                envelope(TL, "消息", "msg_tl_001", "Message", "Use the brand font.")),
         expect(TL, 6, output(UIO, "out_uio_002", "Logo added."))])


def message_to_completed_sub_agent() -> dict[str, Any]:
    return scenario(
        "message-to-completed-sub-agent",
        "A message to a sub-agent whose turn has ended starts a new turn (seed 001, 3.3)",
        ["TW-ROUTE-007", "TW-ROUTE-009", "TW-TOOL-012"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               says("Waiting for the operator."),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message="Now add a password field.")),
               says("Asked for more."), says("Done.")),
         agent(UIO, says("The form is designed."), says("Password field added."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (TL, 4), (UIO, 2), (TL, 5)),
        [expect(TL, 4, tool("call_tl_2", sent("msg_tl_001", "new_turn")),
                requirements=("TW-ROUTE-007", "TW-TOOL-012")),
         expect(UIO, 2, message("msg_tl_001", "Now add a password field."),
                requirements=("TW-ROUTE-007", "TW-ROUTE-009")),
         expect(TL, 5, output(UIO, "out_uio_002", "Password field added."))])


def message_during_final_reply() -> dict[str, Any]:
    return scenario(
        "message-during-final-reply",
        "A message that reaches a sub-agent while its model writes its final reply is not "
        "lost: it starts a new turn once that turn has ended (seed 001, 3.4)",
        ["TW-ROUTE-011", "TW-ROUTE-007"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message=GUIDANCE)),
               says("Told the operator."), says("Good."), says("Fine.")),
         agent(UIO, says("Form designed."), says("Will reuse the auth module."))],
        schedule((TL, 1), (TL, 2), (TL, 3), (UIO, 1), (TL, 4), (UIO, 2), (TL, 5)),
        [expect(UIO, 2, message("msg_tl_001", GUIDANCE)),
         expect(TL, 4, output(UIO, "out_uio_001", "Form designed.")),
         expect(TL, 5, output(UIO, "out_uio_002", "Will reuse the auth module."))])


def batch_drain() -> dict[str, Any]:
    return scenario(
        "batch-drain",
        "Two messages that arrive while a sub-agent runs are both appended, in the order "
        "they were sent, before its next model call",
        ["TW-ROUTE-005", "TW-ROUTE-008", "TW-DEL-003"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message=GUIDANCE),
                     call("call_tl_3", "send_message_to_sub_agent", agent_id=1,
                          message="Keep the form short.")),
               says("Told the operator twice."), says("Good.")),
         agent(UIO, calls(call("call_uio_1", "list_active_sub_agents")),
               says("Reusing auth, keeping it short."))],
        schedule((TL, 1), (TL, 2), (TL, 3), (UIO, 1), (UIO, 2), (TL, 4)),
        [expect(TL, 3, tool("call_tl_2", sent("msg_tl_001", "inline")),
                tool("call_tl_3", sent("msg_tl_002", "inline"))),
         expect(UIO, 2, tool("call_uio_1", active("running")),
                message("msg_tl_001", GUIDANCE), message("msg_tl_002", "Keep the form short."))])


def progress_before_tool_calls() -> dict[str, Any]:
    port = "Which port does the API listen on?"
    progress = "Asking the engineer for the port."
    return scenario(
        "progress-before-tool-calls",
        "Text beside a sub-agent's tool calls is a progress report, accepted before the calls "
        "run; its final reply is the completion report, which follows the progress report",
        ["TW-DEL-005", "TW-ROUTE-029", "TW-TYPE-016"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(create("call_tl_2", "ui-operator", UIO_TASK)),
               says("Waiting for the form."), says("Noted."), says("Form noted."),
               says("API noted.")),
         agent(FSE, says("The API is done."),
               calls(call("call_fse_1", "answer_other_agent", source_agent_id=1,
                          role_id="ui-operator", message_id="ask_uio_001", answer="8080.")),
               says("Answered the operator.")),
         agent(UIO, calls(call("call_uio_1", "ask_other_agent", target_agent_id=1,
                               role_id="full-stack-engineer", message_id="ask_uio_001",
                               content=port), text=progress),
               says("The form posts to port 8080."))],
        # The engineer's model call that holds the ask shows that the operator's reply was
        # taken, so its progress report waits for the Team Leader, whose fourth call is held.
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4, "await"), (UIO, 1), (FSE, 2),
                 (TL, 4), (TL, 5), (UIO, 2), (TL, 6, "await"), (FSE, 3), (TL, 6), (TL, 7)),
        [expect(TL, 5, envelope(UIO, "任务进度输出", "out_uio_001", "Output", progress),
                requirements=("TW-ROUTE-029", "TW-TYPE-016")),
         expect(FSE, 2, envelope(UIO, "提问", "ask_uio_001", "Ask", port)),
         expect(UIO, 2, tool("call_uio_1", envelope(
             FSE, "回答", "ans_fse_001", "Answer", "8080.",
             (("question_id", "ask_uio_001"),))["content"])),
         expect(TL, 6, output(UIO, "out_uio_002", "The form posts to port 8080."),
                requirements=("TW-DEL-005", "TW-TYPE-016")),
         expect(TL, 7, output(FSE, "out_fse_002", "Answered the operator."))])


def instances_share_id_counters() -> dict[str, Any]:
    return scenario(
        "instances-share-id-counters",
        "Two instances of one role share its abbreviation and so its id counters: the "
        "second one's output is out_uio_002, not a second out_uio_001, and the tasks are "
        "task_001 and task_002",
        ["TW-ID-007", "TW-TOOL-011"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "ui-operator", UIO2_TASK, agent_id=2)),
               says("Waiting."), says("Noted."), says("Both forms noted.")),
         agent(UIO, says("The sign-up form is done.")),
         agent(UIO2, says("The sign-in form is done."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (UIO2, 1), (TL, 4)),
        [expect(TL, 2, tool("call_tl_1", created(1, "ui-operator", UIO, "task_001")),
                tool("call_tl_2", created(2, "ui-operator", UIO2, "task_002"))),
         expect(TL, 3, envelope(UIO, "任务完成汇报", "out_uio_001", "Output",
                                "The sign-up form is done.")),
         expect(TL, 4, envelope(UIO2, "任务完成汇报", "out_uio_002", "Output",
                                "The sign-in form is done."))])


def counters_skip_chosen_ids() -> dict[str, Any]:
    return scenario(
        "counters-skip-chosen-ids",
        "An agent may choose any well-formed id for its ask, even one a counter of the "
        "router would give later: the router then skips it, and the sub-agent's report is "
        "out_fse_002, not a second out_fse_001",
        ["TW-ID-008", "TW-ID-013", "TW-ID-010"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "answer_sub_agent_question", agent_id=1,
                          question_id="out_fse_001", answer="Port 8080.")),
               says("Answered."), says("Noted.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="out_fse_001")),
               says("Using port 8080."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (TL, 4), (FSE, 2), (TL, 5)),
        [expect(TL, 3, envelope(FSE, "提问", "out_fse_001", "Ask", "Which port?")),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "out_fse_001"),))["content"])),
         expect(TL, 5, envelope(FSE, "任务完成汇报", "out_fse_002", "Output",
                                "Using port 8080."))])


SCENARIOS = [task_to_idle_sub_agent, first_call_after_the_reply, message_to_running_sub_agent,
             answer_to_waiting_sub_agent, progress_and_ask_to_an_idle_leader,
             asker_goes_on_after_the_answering_reply,
             message_to_completed_sub_agent,
             message_during_final_reply, batch_drain, progress_before_tool_calls,
             instances_share_id_counters, counters_skip_chosen_ids]
