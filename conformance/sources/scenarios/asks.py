"""Asks between agents: an answer between sub-agents, the round limit, the ask timeout.

A scenario releases a call only once the router has shown, by another call, that what the
call depends on has happened: a sub-agent that asks blocks and makes no call, so the peer it
asks is idle or completed when the ask arrives, and the ask starts the peer's turn."""

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

PORT = "Which port does the API listen on?"
HOST = "And which host?"


def failed(code: str) -> dict[str, Any]:
    """An error result: the code is normative, the message each router's own words."""
    return {"success": False, "error": {"code": code, "message": "<any non-empty text>"}}


def ask_other(call_id: str, message_id: str, content: str) -> dict[str, Any]:
    return call(call_id, "ask_other_agent", target_agent_id=1, role_id="full-stack-engineer",
                message_id=message_id, content=content)


def round_limit() -> dict[str, Any]:
    return scenario(
        "ask-between-sub-agents-and-round-limit",
        "A sub-agent's ask starts the turn of the completed peer it asks, the peer's answer is "
        "the asker's tool result, and with a round limit of 1 a second ask between the two "
        "fails with round-limit",
        ["TW-ROUTE-009", "TW-ROUTE-010", "TW-ROUTE-012", "TW-MSG-010", "TW-MSG-011",
         "TW-TOOL-021", "TW-TOOL-022", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("Noted."), says("Form noted."), says("API noted.")),
         agent(UIO, calls(ask_other("call_uio_1", "ask_uio_001", PORT)),
               calls(ask_other("call_uio_2", "ask_uio_002", HOST)),
               says("The form posts to port 8080.")),
         agent(FSE, says("The API skeleton is done."),
               calls(call("call_fse_1", "answer_other_agent", source_agent_id=1,
                          role_id="ui-operator", message_id="ask_uio_001", answer="8080.")),
               says("Answered the operator."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (UIO, 1), (FSE, 2), (UIO, 2), (UIO, 3),
                 (TL, 4), (FSE, 3), (TL, 5)),
        [expect(FSE, 2, envelope(UIO, "提问", "ask_uio_001", "Ask", PORT),
                requirements=("TW-ROUTE-009", "TW-TOOL-021")),
         expect(UIO, 2, tool("call_uio_1", envelope(
             FSE, "回答", "ans_fse_001", "Answer", "8080.",
             (("question_id", "ask_uio_001"),))["content"]),
             requirements=("TW-ROUTE-010", "TW-ROUTE-012", "TW-TOOL-021", "TW-TOOL-022")),
         expect(FSE, 3, tool("call_fse_1", {"success": True, "display_name": UIO,
                                             "message_id": "ask_uio_001"}),
                requirements=("TW-TOOL-022",)),
         expect(UIO, 3, tool("call_uio_2", failed("round-limit")),
                requirements=("TW-MSG-010", "TW-MSG-011", "TW-CERT-005")),
         expect(TL, 4, envelope(UIO, "任务完成汇报", "out_uio_001", "Output",
                                "The form posts to port 8080.")),
         expect(TL, 5, envelope(FSE, "任务完成汇报", "out_fse_002", "Output",
                                "Answered the operator."))],
        knobs={"round_limit": 1})


def ask_timeout() -> dict[str, Any]:
    return scenario(
        "ask-timeout",
        "An ask the Team Leader does not answer within the ask timeout, while the turn that "
        "read it goes on, fails with timeout, and the asker goes on",
        ["TW-ROUTE-017", "TW-TOOL-035", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("I will not answer that."), says("Fine.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               says("Using port 8080, the default."))],
        # the leader's model call that reads the ask is held until the ask has timed out
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3, "await"), (FSE, 2), (TL, 3), (TL, 4)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(FSE, 2, tool("call_fse_1", failed("timeout"))),
         expect(TL, 4, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "Using port 8080, the default."))],
        knobs={"ask_timeout": 1})


def answer_at_the_ask_timeout() -> dict[str, Any]:
    return scenario(
        "answer-at-the-ask-timeout",
        "The Team Leader's answer is observed at the instant the ask's timer is due, before the "
        "timer: the answer decides the ask, the asker gets it, and the timer then does nothing "
        "(no timeout result, nothing appended later); only a harness that keeps the router's "
        "clock can place the answer there",
        ["TW-ROUTE-028", "TW-ROUTE-017", "TW-ROUTE-012", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_2", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080.")),
               says("Answered."), says("Done.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               says("Using port 8080."))],
        # the leader's reply that answers is released once the clock has reached the ask's
        # timer, the timer not yet run
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3, "at_timer"), (TL, 4), (FSE, 2), (TL, 5)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(TL, 4, tool("call_tl_2", {"success": True, "display_name": FSE,
                                           "question_id": "ask_fse_001"})),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "ask_fse_001"),))["content"])),
         expect(TL, 5, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "Using port 8080."))],
        knobs={"ask_timeout": 1})


def unanswered_ask_master() -> dict[str, Any]:
    return scenario(
        "unanswered-ask-master",
        "With unanswered_asks set to fail, a turn of the Team Leader that read a sub-agent's "
        "question and ended without answering it fails the ask with unanswered at once, not "
        "after the ask timeout; the asker goes on",
        ["TW-ROUTE-030", "TW-TOOL-020", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("I will decide that later."), says("Fine.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               says("Using port 8080, the default."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (FSE, 2), (TL, 4)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(FSE, 2, tool("call_fse_1", failed("unanswered"))),
         expect(TL, 4, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "Using port 8080, the default."))],
        knobs={"unanswered_asks": "fail"})


def unanswered_ask_waits() -> dict[str, Any]:
    return scenario(
        "unanswered-ask-waits",
        "By default (unanswered_asks wait, the behaviour of spec 1.0) a turn of the Team "
        "Leader that read a sub-agent's question and ended without answering it leaves the ask "
        "open: it ends by its timeout, and the asker goes on",
        ["TW-ROUTE-030", "TW-ROUTE-017", "TW-VER-010"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("I will decide that later."), says("Fine.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question="Which port?",
                               question_id="ask_fse_001")),
               says("Using port 8080, the default."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (FSE, 2), (TL, 4)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", "Which port?")),
         expect(FSE, 2, tool("call_fse_1", failed("timeout"))),
         expect(TL, 4, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "Using port 8080, the default."))],
        knobs={"ask_timeout": 1})


def unanswered_ask_sub_agent() -> dict[str, Any]:
    return scenario(
        "unanswered-ask-sub-agent",
        "With unanswered_asks set to fail, a sub-agent whose turn after the Team Leader's "
        "question ends with no text answers nothing: the Team Leader's ask fails with "
        "unanswered at once, before the empty completion report is delivered",
        ["TW-ROUTE-030", "TW-TYPE-017", "TW-ROUTE-010", "TW-CERT-005"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "ask_sub_agent", agent_id=1, question="Which colours?",
                          question_id="ask_tl_001")),
               says("No answer, then.")),
         agent(UIO, says("The form is designed."), says(""))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (UIO, 2), (TL, 4)),
        [expect(UIO, 2, envelope(TL, "提问", "ask_tl_001", "Ask", "Which colours?")),
         expect(TL, 4, tool("call_tl_2", failed("unanswered")),
                envelope(UIO, "任务完成汇报", "out_uio_002", "Output", ""))],
        knobs={"unanswered_asks": "fail"})


def leader_asks_a_sub_agent() -> dict[str, Any]:
    return scenario(
        "leader-asks-a-sub-agent",
        "The Team Leader's ask starts the turn of the completed sub-agent it asks, and that "
        "sub-agent's natural output is the answer: the Team Leader's tool result, not a "
        "completion report",
        ["TW-TOOL-013", "TW-ROUTE-014", "TW-ROUTE-009"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "ask_sub_agent", agent_id=1, question="Which colours?",
                          question_id="ask_tl_001")),
               says("Thanks."), says("ok")),
         agent(UIO, says("The form is designed."), says("Navy and white."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (UIO, 2), (TL, 4)),
        [expect(UIO, 2, envelope(TL, "提问", "ask_tl_001", "Ask", "Which colours?"),
                requirements=("TW-TOOL-013", "TW-ROUTE-009")),
         expect(TL, 4, tool("call_tl_2", envelope(
             UIO, "回答", "ans_uio_001", "Answer", "Navy and white.",
             (("question_id", "ask_tl_001"),))["content"]),
             requirements=("TW-TOOL-013", "TW-ROUTE-014"))])


def leader_ask_answered_beside_tool_calls() -> dict[str, Any]:
    colours = "Navy and white."
    return scenario(
        "leader-ask-answered-beside-tool-calls",
        "Text a sub-agent writes beside its tool calls, in the first reply after the Team "
        "Leader's ask reached it, answers that ask at once: no progress report, and the end of "
        "its turn is a completion report",
        ["TW-ROUTE-014", "TW-TYPE-018"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK)), says("Waiting."),
               calls(call("call_tl_2", "ask_sub_agent", agent_id=1, question="Which colours?",
                          question_id="ask_tl_001")),
               says("Thanks."), says("ok")),
         agent(UIO, says("The form is designed."),
               # the call fails (no such agent): it only has to be a call, and run at once
               calls(call("call_uio_1", "answer_other_agent", source_agent_id=1,
                          role_id="full-stack-engineer", message_id="ask_fse_001",
                          answer="Port 8080."), text=colours),
               says("Colours applied."))],
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3), (UIO, 2), (TL, 4), (UIO, 3), (TL, 5)),
        [expect(TL, 4, tool("call_tl_2", envelope(
            UIO, "回答", "ans_uio_001", "Answer", colours,
            (("question_id", "ask_tl_001"),))["content"])),
         expect(TL, 5, envelope(UIO, "任务完成汇报", "out_uio_002", "Output", "Colours applied."))])


def answers_out_of_order() -> dict[str, Any]:
    colours = "Which colours?"
    waiting = {"success": True, "agents": [
        {"agent_id": 1, "role_id": "ui-operator", "display_name": UIO, "status": "waiting",
         "summary": ""},
        {"agent_id": 1, "role_id": "full-stack-engineer", "display_name": FSE,
         "status": "waiting", "summary": ""}]}
    return scenario(
        "answers-out-of-order",
        "Two sub-agents wait in ask_master; the Team Leader answers the second question first, "
        "and each answer reaches the asker of the question it names, whatever the order",
        ["TW-ROUTE-012", "TW-TOOL-014", "TW-TOOL-020", "TW-TOOL-028"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "full-stack-engineer", FSE_TASK)),
               says("Waiting."),
               calls(call("call_tl_3", "list_active_sub_agents")),
               calls(call("call_tl_4", "answer_sub_agent_question", agent_id=1,
                          role_id="full-stack-engineer", question_id="ask_fse_001",
                          answer="Port 8080."),
                     call("call_tl_5", "answer_sub_agent_question", agent_id=1,
                          role_id="ui-operator", question_id="ask_uio_001",
                          answer="Navy and white.")),
               says("Answered both."), says("Form noted."), says("API noted.")),
         agent(UIO, calls(call("call_uio_1", "ask_master", question=colours,
                               question_id="ask_uio_001")),
               says("A navy form.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question=PORT,
                               question_id="ask_fse_001")),
               says("The API listens on 8080."))],
        # The operator's question starts the Team Leader's turn, which stays open (a tool
        # call) while the engineer's question arrives inline: both asks wait on that turn,
        # which answers them in the other order before it ends. Nothing the router shows a
        # model tells that the engineer's ask was taken before the Team Leader's reply is
        # released, so a router run as a process is given a moment after each answer.
        schedule((TL, 1), (TL, 2), (UIO, 1), (TL, 3, "await"), (FSE, 1), (TL, 3), (TL, 4),
                 (TL, 5), (UIO, 2), (TL, 6), (FSE, 2), (TL, 7)),
        [expect(TL, 3, envelope(UIO, "提问", "ask_uio_001", "Ask", colours),
                requirements=("TW-TOOL-020",)),
         expect(TL, 4, tool("call_tl_3", waiting),
                envelope(FSE, "提问", "ask_fse_001", "Ask", PORT),
                requirements=("TW-TOOL-020",)),
         expect(TL, 5, tool("call_tl_4", {"success": True, "display_name": FSE,
                                           "question_id": "ask_fse_001"}),
                tool("call_tl_5", {"success": True, "display_name": UIO,
                                   "question_id": "ask_uio_001"}),
                requirements=("TW-TOOL-014", "TW-TOOL-028")),
         expect(FSE, 2, tool("call_fse_1", envelope(
             TL, "回答", "ans_tl_001", "Answer", "Port 8080.",
             (("question_id", "ask_fse_001"),))["content"])),
         expect(UIO, 2, tool("call_uio_1", envelope(
             TL, "回答", "ans_tl_002", "Answer", "Navy and white.",
             (("question_id", "ask_uio_001"),))["content"])),
         expect(TL, 6, envelope(UIO, "任务完成汇报", "out_uio_001", "Output", "A navy form.")),
         expect(TL, 7, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "The API listens on 8080."))],
        settle=0.2)


def answer_to_no_pending_question() -> dict[str, Any]:
    return scenario(
        "answer-to-no-pending-question",
        "With unanswered_asks set to fail, the Team Leader answers a question that an "
        "unanswered turn already failed "
        "(not-waiting) and one it never received (unknown-question); neither reaches the "
        "sub-agent",
        ["TW-ROUTE-015", "TW-TOOL-026"],
        [agent(TL, calls(create("call_tl_1", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("I will decide that later."),
               calls(call("call_tl_2", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_001", answer="Port 8080."),
                     call("call_tl_3", "answer_sub_agent_question", agent_id=1,
                          question_id="ask_fse_009", answer="Port 9090.")),
               says("Too late.")),
         agent(FSE, calls(call("call_fse_1", "ask_master", question=PORT,
                               question_id="ask_fse_001")),
               says("Using port 8080, the default."))],
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (FSE, 2), (TL, 4), (TL, 5)),
        [expect(TL, 3, envelope(FSE, "提问", "ask_fse_001", "Ask", PORT)),
         expect(FSE, 2, tool("call_fse_1", failed("unanswered"))),
         expect(TL, 4, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "Using port 8080, the default.")),
         expect(TL, 5, tool("call_tl_2", failed("not-waiting")),
                tool("call_tl_3", failed("unknown-question")))],
        knobs={"unanswered_asks": "fail"})


def message_between_sub_agents() -> dict[str, Any]:
    form = "The form posts JSON to /signup."
    return scenario(
        "message-between-sub-agents",
        "An ask_other_agent whose message_id starts with msg_ is a Message, which the peer's "
        "first natural output answers instead of a completion report; one whose id starts "
        "otherwise, even MSG_, is an Ask, which only answer_other_agent answers, so the text "
        "beside that call is a progress report",
        ["TW-TYPE-010", "TW-TYPE-018", "TW-TOOL-021", "TW-ROUTE-012", "TW-ROUTE-014",
         "TW-ID-013"],
        [agent(TL, calls(create("call_tl_1", "ui-operator", UIO_TASK),
                         create("call_tl_2", "full-stack-engineer", FSE_TASK)),
               says("Waiting."), says("Noted."), says("Checking noted."), says("API noted."),
               says("Form noted.")),
         agent(UIO, calls(ask_other("call_uio_1", "msg_uio_001", form)),
               calls(ask_other("call_uio_2", "MSG_uio_002", PORT)),
               says("The form is done.")),
         agent(FSE, says("The API skeleton is done."),
               says("JSON to /signup, understood."),
               calls(call("call_fse_1", "answer_other_agent", source_agent_id=1,
                          role_id="ui-operator", message_id="MSG_uio_002", answer="8080."),
                     text="Checking the config."),
               says("Answered the operator."))],
        # The engineer reports before the operator speaks to it, so each message of the
        # operator starts a new turn of the engineer; each report of the engineer reaches
        # the Team Leader after its previous turn has ended, as a new turn.
        schedule((TL, 1), (TL, 2), (FSE, 1), (TL, 3), (UIO, 1), (FSE, 2), (UIO, 2), (FSE, 3),
                 (TL, 4), (FSE, 4), (TL, 5), (UIO, 3), (TL, 6)),
        [expect(TL, 3, envelope(FSE, "任务完成汇报", "out_fse_001", "Output",
                                "The API skeleton is done.")),
         expect(FSE, 2, envelope(UIO, "消息", "msg_uio_001", "Message", form),
                requirements=("TW-TYPE-010", "TW-TOOL-021", "TW-ID-013")),
         expect(UIO, 2, tool("call_uio_1", envelope(
             FSE, "回答", "ans_fse_001", "Answer", "JSON to /signup, understood.",
             (("question_id", "msg_uio_001"),))["content"]),
             requirements=("TW-TYPE-010", "TW-ROUTE-012", "TW-ROUTE-014", "TW-TOOL-021")),
         expect(FSE, 3, envelope(UIO, "提问", "MSG_uio_002", "Ask", PORT),
                requirements=("TW-TYPE-010", "TW-TOOL-021", "TW-ID-013")),
         expect(TL, 4, envelope(FSE, "任务进度输出", "out_fse_002", "Output",
                                "Checking the config."),
                requirements=("TW-TYPE-010", "TW-TYPE-018")),
         expect(UIO, 3, tool("call_uio_2", envelope(
             FSE, "回答", "ans_fse_002", "Answer", "8080.",
             (("question_id", "MSG_uio_002"),))["content"]),
             requirements=("TW-ROUTE-012", "TW-TOOL-021")),
         expect(FSE, 4, tool("call_fse_1", {"success": True, "display_name": UIO,
                                             "message_id": "MSG_uio_002"})),
         expect(TL, 5, envelope(FSE, "任务完成汇报", "out_fse_003", "Output",
                                "Answered the operator.")),
         expect(TL, 6, envelope(UIO, "任务完成汇报", "out_uio_001", "Output",
                                "The form is done."))])


SCENARIOS = [round_limit, ask_timeout, answer_at_the_ask_timeout, leader_asks_a_sub_agent,
             leader_ask_answered_beside_tool_calls,
             answers_out_of_order, unanswered_ask_master, unanswered_ask_waits,
             unanswered_ask_sub_agent, answer_to_no_pending_question, message_between_sub_agents]
