"""Which ids a router allocates and which it takes from the agent (TW-ID-004), agent-chosen
ids it refuses (TW-ID-014), and refused calls, which consume no counter value (TW-ID-009)."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.asks import failed
from conformance.sources.scenarios.blocks import (
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
from conformance.sources.scenarios.routing import TASK_UIO, message, output, sent

COLOURS = "Which colours?"


def ask_master(call_id: str, question_id: str, question: str = COLOURS) -> dict[str, Any]:
    return call(call_id, "ask_master", question=question, question_id=question_id)


def ids_only_for_accepted_calls() -> dict[str, Any]:
    return scenario(
        "ids-only-for-accepted-calls",
        "The router allocates the ids of Task, Message, Answer and Output, whatever id the "
        "model passes, and takes the Ask's id from the asker; a refused call consumes no "
        "counter value, and an agent-chosen id with white space or a quote fails with "
        "invalid-arguments, one already used in the session with duplicate-id",
        ["TW-ID-004", "TW-ID-009", "TW-ID-013", "TW-ID-014", "TW-TOOL-026"],
        [agent(TL, calls(call("call_tl_1", "create_sub_agent", agent_id=1,
                              role_id="web-designer", task="Design the logo."),
                         create("call_tl_2", "ui-operator", UIO_TASK)),
               says("Waiting."),
               calls(call("call_tl_3", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_uio_009", answer="Red."),
                     call("call_tl_4", "send_message_to_sub_agent", agent_id=2,
                          message="Hello?"),
                     call("call_tl_5", "send_message_to_sub_agent", agent_id=1,
                          message="Use them on the button too.", message_id="msg_tl_042"),
                     call("call_tl_6", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_uio_001", answer="Navy and white.")),
               says("Answered."), says("Noted."), says("Done.")),
         agent(UIO, calls(ask_master("call_uio_1", "ask uio 1"),
                          ask_master("call_uio_2", "task_001"),
                          ask_master("call_uio_3", 'ask_"uio"')),
               calls(ask_master("call_uio_4", "ask_uio_001")),
               calls(ask_master("call_uio_5", "ask_uio_001", "And the font?"),
                     text="Asking about the font."),
               says("The form is designed."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (UIO, 2), (TL, 3), (TL, 4), (UIO, 3), (TL, 5),
                 (UIO, 4), (TL, 6)),
        [expect(TL, 2, tool("call_tl_1", failed("unknown-role")),
                tool("call_tl_2", created(1, "ui-operator", UIO, "task_001")),
                requirements=("TW-ID-004", "TW-ID-009", "TW-TOOL-026")),
         expect(UIO, 1, TASK_UIO, requirements=("TW-ID-004", "TW-ID-009")),
         expect(UIO, 2, tool("call_uio_1", failed("invalid-arguments")),
                tool("call_uio_2", failed("duplicate-id")),
                tool("call_uio_3", failed("invalid-arguments")),
                requirements=("TW-ID-014", "TW-TOOL-026")),
         expect(TL, 3, envelope(UIO, "提问", "ask_uio_001", "Ask", COLOURS),
                requirements=("TW-ID-013", "TW-ID-014")),
         expect(TL, 4, tool("call_tl_3", failed("unknown-question")),
                tool("call_tl_4", failed("unknown-agent")),
                tool("call_tl_5", sent("msg_tl_001", "queued")),
                tool("call_tl_6", {"success": True, "display_name": UIO,
                                   "question_id": "ask_uio_001"}),
                requirements=("TW-ID-004", "TW-ID-009", "TW-TOOL-026")),
         expect(UIO, 3, tool("call_uio_4", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Navy and white.",
             (("question_id", "ask_uio_001"),))["content"]),
                message("msg_tl_001", "Use them on the button too."),
                requirements=("TW-ID-004", "TW-ID-009")),
         expect(TL, 5, envelope(UIO, "任务进度输出", "out_uio_001", "Output",
                                "Asking about the font."),
                requirements=("TW-ID-004", "TW-ID-009", "TW-ID-014")),
         expect(UIO, 4, tool("call_uio_5", failed("duplicate-id")),
                requirements=("TW-ID-014",)),
         expect(TL, 6, output(UIO, "out_uio_002", "The form is designed."),
                requirements=("TW-ID-004", "TW-ID-009", "TW-ID-014"))])


SCENARIOS = [ids_only_for_accepted_calls]
