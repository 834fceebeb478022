"""Model calls that fail (TW-ROUTE-031): the harness answers a try with an error status, a
response that holds no assistant message, or a closed connection. A router makes a failed
call again as often as the ``model_retries`` knob says and then gives up: a sub-agent's turn
ends with a run result of state error (TW-ROUTE-019), the Team Leader's ends with no message
at all (TW-ROUTE-025). A call the router gave up on left nothing in the conversation, so the
agent's next turn asks for the same reply again, and gets it."""

from __future__ import annotations

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
    envelope,
    expect,
    says,
    scenario,
    schedule,
    tool,
)
from conformance.sources.scenarios.routing import message, output

from teamwire.envelope.run_result import render_run_result


def failing(reply: dict[str, Any], *failures: str) -> dict[str, Any]:
    """``reply``, given only after its tries have failed in these ways."""
    return {**reply, "failures": list(failures)}


def model_call_retried() -> dict[str, Any]:
    return scenario(
        "model-call-retried",
        "A sub-agent's model call that fails twice (HTTP 429, then a dropped connection) is "
        "made again, with the same conversation, as often as model_retries allows; the third "
        "try's reply goes on as if nothing had failed",
        ["TW-ROUTE-031", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)),
               says("Waiting."), says("Good.")),
         agent(UIO, failing(says("The form is designed."), "status-429", "disconnect"))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (UIO, 1), (UIO, 1), (TL, 3)),
        [expect(UIO, 1, envelope(TL, "任务发布", "task_001", "Task", UIO_TASK)),
         expect(TL, 3, output(UIO, "out_uio_001", "The form is designed."))],
        knobs={"model_retries": 2})


def sub_agent_model_call_fails() -> dict[str, Any]:
    return scenario(
        "sub-agent-model-call-fails",
        "A sub-agent's model call that fails on every try the router makes (HTTP 500, then a "
        "response with no assistant message) ends its turn: the Team Leader gets a completion "
        "whose content is a run result of state error, and the sub-agent's next turn asks "
        "for the reply again, its conversation holding nothing of the failed turn",
        ["TW-ROUTE-019", "TW-ROUTE-031", "TW-RES-009", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message="Please try again.")),
               says("Asked again."), says("Good.")),
         agent(UIO, failing(says("The form is designed."), "status-500", "malformed"))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (UIO, 1), (TL, 3), (TL, 4), (UIO, 1), (TL, 5)),
        [expect(TL, 3, output(UIO, "out_uio_001", render_run_result(
            UIO, "error", "the model call failed"))),
         expect(UIO, 1, envelope(TL, "任务发布", "task_001", "Task", UIO_TASK),
                message("msg_tl_001", "Please try again.")),
         expect(TL, 5, output(UIO, "out_uio_002", "The form is designed."))],
        knobs={"model_retries": 1})


def sub_agent_model_call_given_up() -> dict[str, Any]:
    return scenario(
        "sub-agent-model-call-given-up",
        "A sub-agent's model call that fails on every try, however many tries the router makes "
        "(a response with no assistant message, then HTTP 500, in turn), ends its turn: the "
        "Team Leader gets a completion whose content is a run result of state error, and the "
        "sub-agent's next turn asks for the reply again; no knob is needed",
        ["TW-ROUTE-019", "TW-ROUTE-031", "TW-RES-009", "TW-CERT-025"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "send_message_to_sub_agent", agent_id=1,
                          message="Please try again.")),
               says("Asked again."), says("Good.")),
         agent(UIO, {**failing(says("The form is designed."), "malformed", "status-500"),
                     "fail_every_try": True})],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (TL, 4), (UIO, 1), (TL, 5)),
        [expect(TL, 3, output(UIO, "out_uio_001", render_run_result(
            UIO, "error", "the model call failed"))),
         expect(UIO, 1, envelope(TL, "任务发布", "task_001", "Task", UIO_TASK),
                message("msg_tl_001", "Please try again.")),
         expect(TL, 5, output(UIO, "out_uio_002", "The form is designed."))])


def leader_model_call_fails() -> dict[str, Any]:
    question = "Which port?"
    return scenario(
        "leader-model-call-fails",
        "The Team Leader's model call that fails ends its turn with no message: with "
        "unanswered_asks set to fail, the question that turn had received fails with "
        "unanswered, and the asker's completion starts the Team Leader's next turn, which asks "
        "for the same reply again",
        ["TW-ROUTE-025", "TW-ROUTE-030", "TW-ROUTE-031", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), failing(says("Noted."), "status-500")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question=question,
                               question_id="ask_fse_001")),
               says("Using port 8080, the default."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (FSE, 2), (TL, 3)),
        [expect(FSE, 2, tool("call_fse_1", failed("unanswered"))),
         expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", question),
                output(FSE, "out_fse_001", "Using port 8080, the default."))],
        knobs={"model_retries": 0, "unanswered_asks": "fail"})


SCENARIOS = [model_call_retried, sub_agent_model_call_fails, sub_agent_model_call_given_up,
             leader_model_call_fails]
