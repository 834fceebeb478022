"""Crash and restart (level durable): the router is killed (SIGKILL) while a model call is
in flight and started again on the same state directory; nothing may be lost, nothing
delivered twice, and every conversation must come back as it was."""

from __future__ import annotations

from typing import Any

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
    envelope,
    expect,
    says,
    scenario,
    schedule,
    tool,
)

GUIDANCE = "Check the auth module first."


def restart_during_model_call() -> dict[str, Any]:
    return scenario(
        "restart-during-model-call",
        "Killed while a sub-agent's first model call is in flight, the router makes that "
        "call again after the restart, and the sub-agent's output still reaches the Team "
        "Leader once",
        ["TW-DUR-004", "TW-DUR-005", "TW-DEL-001", "TW-DEL-002", "TW-CERT-003"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               says("Waiting for the operator."), says("Good.")),
         agent(UIO, says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1, "crash"), (UIO, 1), (TL, 3)),
        [expect(UIO, 1, envelope(TL, "任务发布", "task_001", "Task", UIO_TASK)),
         expect(TL, 3, envelope(UIO, "任务完成汇报", "out_uio_001", "Output",
                                "The form is designed."))],
        level="durable")


def restart_with_a_queued_message() -> dict[str, Any]:
    return scenario(
        "restart-with-a-queued-message",
        "A message queued for a running sub-agent survives a crash: after the restart the "
        "sub-agent's repeated model call holds it once, after its task",
        ["TW-DUR-001", "TW-DUR-004", "TW-DUR-005", "TW-DEL-001", "TW-DEL-002", "TW-ROUTE-008"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message=GUIDANCE)),
               says("Told the operator."), says("Good.")),
         agent(UIO, says("Reusing the auth module."))],
        schedule((TL, 1), (TL, 2), (TL, 3), (UIO, 1, "crash"), (UIO, 1), (TL, 4)),
        [expect(UIO, 1, envelope(TL, "任务发布", "task_001", "Task", UIO_TASK),
                envelope(TL, "消息", "msg_tl_001", "Message", GUIDANCE)),
         expect(TL, 4, envelope(UIO, "任务完成汇报", "out_uio_001", "Output",
                                "Reusing the auth module."))],
        level="durable")


def restart_while_asking() -> dict[str, Any]:
    question = "Which port should the API listen on?"
    return scenario(
        "restart-while-asking",
        "Killed while the Team Leader's model reads a sub-agent's question, the router comes "
        "back with the ask still open: the answer given after the restart resolves it once",
        ["TW-DUR-004", "TW-DUR-005", "TW-ROUTE-010", "TW-DEL-002"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080.")),
               says("Answered."), says("Done.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question=question,
                               question_id="ask_fse_001")),
               says("Using port 8080."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3, "crash"), (TL, 3), (TL, 4), (FSE, 2),
                 (TL, 5)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", question)),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "ask_fse_001"),))["content"])),
         expect(TL, 5, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "Using port 8080."))],
        level="durable")


def ids_after_a_restart() -> dict[str, Any]:
    first, second = "Start with the form.", "Now the button."
    return scenario(
        "ids-after-a-restart",
        "An id counter survives a crash: the Team Leader's first message was msg_tl_001 "
        "before the router was killed, and its next message after the restart is "
        "msg_tl_002, not msg_tl_001 again",
        ["TW-DUR-006", "TW-DUR-004", "TW-DEL-002"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                              message=first)),
               says("Waiting."),
               calls(call("call_tl_3", "send_message_to_sub_agent", agent_id=1,
                          message=second)),
               says("Sent."), says("Good.")),
         agent(UIO, says("The form is designed."), says("The button is done."))],
        schedule((TL, 1), (TL, 2), (UIO, 1, "crash"), (UIO, 1), (TL, 3), (TL, 4), (UIO, 2),
                 (TL, 5)),
        [expect(UIO, 1, envelope(TL, "任务发布", "task_001", "Task", UIO_TASK),
                envelope(TL, "消息", "msg_tl_001", "Message", first)),
         expect(TL, 3, envelope(UIO, "任务完成汇报", "out_uio_001", "Output",
                                "The form is designed.")),
         expect(TL, 4, tool("call_tl_3", {"success": True, "display_name": UIO,
                                           "message_id": "msg_tl_002",
                                           "delivery": "new_turn"})),
         expect(UIO, 2, envelope(TL, "消息", "msg_tl_002", "Message", second)),
         expect(TL, 5, envelope(UIO, "任务完成汇报", "out_uio_002", "Output",
                                "The button is done."))],
        level="durable")


def deadline_across_a_restart() -> dict[str, Any]:
    port = "Which port?"
    return scenario(
        "deadline-across-a-restart",
        "Killed while a sub-agent's ask waits within its ask timeout, the router comes back "
        "with the ask and its deadline: once the time it had left has passed, the ask fails "
        "with timeout and the asker goes on",
        ["TW-DUR-010", "TW-DUR-004", "TW-ROUTE-017"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("I will not answer that."), says("Fine.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question=port,
                               question_id="ask_fse_001")),
               says("Using port 8080, the default."))],
        # The Team Leader's model call that reads the ask is where the router dies; after the
        # restart that call is held again until the ask has timed out.
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3, "crash"), (TL, 3, "await"), (FSE, 2),
                 (TL, 3), (TL, 4)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", port)),
         expect(FSE, 2, tool("call_fse_1", {"success": False, "error": {
             "code": "timeout", "message": "<any non-empty text>"}})),
         expect(TL, 4, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "Using port 8080, the default."))],
        level="durable", knobs={"ask_timeout": 1})


SCENARIOS = [restart_during_model_call, restart_with_a_queued_message, restart_while_asking,
             ids_after_a_restart,
             deadline_across_a_restart]
