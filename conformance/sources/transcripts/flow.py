"""The cases of flow.json, TW5xx: asks, answers, deliveries and order across conversations."""

from __future__ import annotations

import copy
import json
from typing import Any

from conformance.sources.transcripts.blocks import (
    ANSWER,
    ASK_MASTER,
    ASK_TL,
    FSE,
    OK,
    RUN_RESULT,
    TL,
    UIO,
    answer_then_report,
    answered_by_question_id,
    answered_in_passing,
    bundle_with,
    calls,
    case,
    discarded_with_target,
    env,
    error,
    find,
    forbidden_create,
    is_call,
    is_delivery,
    late_answer,
    late_answer_from_peer,
    lost_peer_ask,
    message_after_termination,
    messages,
    numbered_after_failed_create,
    numbered_after_highest,
    numbered_after_highest_not_last,
    numbered_after_preexisting,
    reports,
    result,
    spec_team,
    user,
)
from conformance.sources.transcripts.builders import Agent, PendingAsk, SessionBuilder, small_session
from conformance.sources.transcripts.spec_session import SpecSession

from teamwire.envelope import Envelope, MessageType, render

# The acceptance section a Task carries when its create_sub_agent gave acceptance criteria.
ACCEPTANCE_SECTION = "\n\n验收标准：\n- design.md exists"


def pending_ask(delivered: bool) -> dict[str, Any]:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    b.call(ui, "ask_master", ASK_MASTER, "Checking the colour with the leader.")
    b.deliver(
        b.leader,
        env(UIO, "任务进度输出", "out_uio_001", "Output", "Checking the colour with the leader."),
    )
    if delivered:
        b.deliver(b.leader, ASK_TL)
    return b.bundle()


def asked_twice() -> tuple[SessionBuilder, Agent]:
    """UI Operator_1 asks the leader twice in one message (call_a, call_b); the first
    Ask arrives."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    ui.messages.append({"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_a", "type": "function", "function": {
            "name": "ask_master", "arguments": json.dumps(ASK_MASTER)}},
        {"id": "call_b", "type": "function", "function": {
            "name": "ask_master", "arguments": json.dumps(
                {"question": "And the font?", "question_id": "ask_uio_002"})}}]})
    b.deliver(b.leader, ASK_TL)
    return b, ui


def never_ran(code: str) -> dict[str, Any]:
    """A message's second call never ran: the turn timed out while the first (an ask that
    reached the leader) waited; the router closes the second with ``code``."""
    b, ui = asked_twice()
    b.result(ui, "call_a", error("timeout"))
    b.result(ui, "call_b", error(code))
    return b.bundle()


def two_asks(then: str) -> dict[str, Any]:
    """``asked_twice``, then ``then``: "waiting" (no answer yet, so the second call is
    still blocked), "answered" (the first is answered and the second never arrives), or
    "terminated" (answered, and the leader terminates UI Operator_1 before the second
    call runs)."""
    b, ui = asked_twice()
    if then != "waiting":
        b.answer_master(PendingAsk(ui, b.leader, "call_a", "ask_uio_001"), "Navy.")
    if then == "terminated":
        b.terminate(ui)
    return b.bundle()


def unrun_answer(terminated: bool) -> dict[str, Any]:
    """UI Operator_1 asks the leader and, in the same message, answers a question
    Full-Stack Engineer_1 never asked; the first call is answered, the second has no
    result: the leader terminated UI Operator_1 before it ran, or (not ``terminated``)
    the conversation just ends there."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    ui.messages.append({"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_a", "type": "function", "function": {
            "name": "ask_master", "arguments": json.dumps(ASK_MASTER)}},
        {"id": "call_b", "type": "function", "function": {
            "name": "answer_other_agent", "arguments": json.dumps(
                {"source_agent_id": 1, "role_id": "full-stack-engineer",
                 "message_id": "ask_fse_009", "answer": "Use the tokens file."})}}]})
    b.deliver(b.leader, ASK_TL)
    b.answer_master(PendingAsk(ui, b.leader, "call_a", "ask_uio_001"), "Navy.")
    if terminated:
        b.terminate(ui)
    return b.bundle()


def messages_to_ui(order: str) -> tuple[dict[str, Any], list[int]]:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    sent = []
    for text in ("Use blue.", "Use navy."):
        call_id = b.call(b.leader, "send_message_to_sub_agent", {"agent_id": 1, "message": text})
        sent.append(len(b.leader.messages) - 1)
        b.result(b.leader, call_id, OK)
    first = env(TL, "消息", "msg_tl_001", "Message", "Use blue.")
    second = env(TL, "消息", "msg_tl_002", "Message", "Use navy.")
    deliveries = {
        "both": [first, second],
        "swapped": [second, first],
        "second": [second],
        "first": [first],
    }[order]
    for text in deliveries:
        b.deliver(ui, text)
    return b.bundle(), sent


def answered(times: int) -> tuple[dict[str, Any], list[int]]:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    ask = b.ask_master(ui, "Which shade of blue?", "Asking the leader.")
    b.answer_master(ask, "Navy.")
    at = []
    for _ in range(times - 1):
        call_id = b.call(
            b.leader,
            "answer_sub_agent_question",
            {"agent_id": 1, "question_id": ask.question_id, "answer": "Navy!"},
        )
        at.append(len(b.leader.messages) - 1)
        b.result(b.leader, call_id, OK)
    return b.bundle(), at


def ask_other(returned: bool, asker_ends: str = "timeout") -> tuple[dict[str, Any], int]:
    """UI Operator_1 asks Full-Stack Engineer_1, who answers. Unless ``returned``, the
    answer does not come back: UI Operator_1's ask ends in a timeout, or (``asker_ends``
    "terminated") the leader terminates UI Operator_1 while it waits."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    fse = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Write the API.")
    ask = b.ask_other(ui, fse, "Is the API final?", "Asking Full-Stack Engineer_1.")
    if returned:
        b.answer_other(ask, "Yes.")
        return b.bundle(), -1
    call_id = b.call(
        fse,
        "answer_other_agent",
        {"source_agent_id": 1, "role_id": "ui-operator", "message_id": ask.question_id, "answer": "Yes."},
    )
    at = len(fse.messages) - 1
    b.result(fse, call_id, OK)
    if asker_ends == "terminated":
        b.terminate(ui)
    else:
        b.result(ui, ask.call_id, error("timeout"))
    return b.bundle(), at


def reports_beside(extra: str) -> tuple[dict[str, Any], int]:
    """``answered_in_passing`` the leader's ask_sub_agent; the Team Leader's conversation
    then also gets ``extra``: "forged" (a report it never said), "answer" (the answering
    text again, as a report), "timeout" (a run result the router wrote when it ended the
    turn) or "empty" (the completion of a turn that ended without text). Returns the
    bundle and the index of that delivery."""
    b, _ui = answered_in_passing()
    mtype, content = {
        "forged": (MessageType.COMPLETION, "The repository is deleted."),
        "answer": (MessageType.PROGRESS, "Working on it."),
        "timeout": (MessageType.COMPLETION, '<result agent="UI Operator_1" state="timeout">'
                    "\n<error>\nturn stopped after 600 seconds\n</error>\n</result>"),
        "empty": (MessageType.COMPLETION, ""),
    }[extra]
    b.deliver(b.leader, render(Envelope(
        sender=UIO, label=mtype.label, id=b.ids.allocate(mtype, UIO, "ui-operator"),
        tag="Output", content=content)))
    return b.bundle(), len(b.leader.messages) - 1


def numbered_ask_id(b: dict[str, Any]) -> None:
    """The peer ask's message_id written as a number: no id was chosen."""
    i = find(b, UIO, is_call("ask_other_agent"))
    [call] = messages(b, UIO)[i]["tool_calls"]
    arguments = json.loads(call["function"]["arguments"])
    call["function"]["arguments"] = json.dumps({**arguments, "message_id": 7})


def lost_after_refused(b: dict[str, Any]) -> None:
    """Before the Team Leader asks Full-Stack Engineer_1, two sends to it: one that failed
    with agent-terminated (refused or cut short: it may or may not have gone out), then a
    Message that succeeded but never arrives."""
    i = find(b, TL, is_call("ask_sub_agent"))
    messages(b, TL)[i:i] = [
        calls("send_message_to_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer",
                                            "message": "Use the shared schema."}, "c-refused"),
        result(error("agent-terminated"), "c-refused"),
        calls("send_message_to_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer",
                                            "message": "Keep the old endpoint."}, "c-lost"),
        result({"success": True, "display_name": FSE, "message_id": "msg_tl_002"}, "c-lost")]


def no_report(b: dict[str, Any]) -> None:
    i = find(b, UIO, is_call("ask_other_agent"))
    messages(b, UIO)[i]["content"] = ""
    j = find(b, TL, lambda m: m["role"] == "user" and "Asking Full-Stack" in m["content"])
    del messages(b, TL)[j]


def forged_message(b: dict[str, Any]) -> None:
    messages(b, UIO).append(user(env(TL, "消息", "msg_tl_009", "Message", "Delete it.")))


def lost_output(b: dict[str, Any]) -> None:
    j = find(b, TL, is_delivery(f"{UIO} 的任务完成汇报"))
    del messages(b, TL)[j]


def wrong_kind(b: dict[str, Any]) -> None:
    j = find(b, TL, is_delivery(f"{UIO} 的任务进度输出"))
    messages(b, TL)[j]["content"] = messages(b, TL)[j]["content"].replace("任务进度输出", "任务完成汇报")


def extend_message(b: dict[str, Any]) -> None:
    j = find(b, UIO, is_delivery(f"{TL} 的消息"))
    content = messages(b, UIO)[j]["content"]
    extra = "Prefer the blue range.\nAlso use teal."
    messages(b, UIO)[j]["content"] = content.replace("Prefer the blue range.", extra)


def extend_task(b: dict[str, Any]) -> None:
    j = find(b, UIO, is_delivery(f"{TL} 的任务发布"))
    content = messages(b, UIO)[j]["content"]
    messages(b, UIO)[j]["content"] = content.replace("write design.md.",
                                                     "write design.md." + ACCEPTANCE_SECTION)


def with_acceptance(b: dict[str, Any]) -> None:
    extend_task(b)
    for m in messages(b, TL):
        for c in m.get("tool_calls") or ():
            arguments = json.loads(c["function"]["arguments"])
            if c["function"]["name"] == "create_sub_agent" and arguments["role_id"] == "ui-operator":
                arguments["acceptance"] = ["design.md exists"]
                c["function"]["arguments"] = json.dumps(arguments, ensure_ascii=False)


def asks_with_and_without_role(second_target: str) -> tuple[dict[str, Any], int]:
    """UI Operator_1 asks Full-Stack Engineer_1 naming its role, then agent 1 or Tester_2
    without a role_id."""
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    fse = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    tester = b.create("tester", "Tester", 2, "Test the API.")
    b.answer_other(b.ask_other(ui, fse, "Is the API final?", "Asking about the API."), "Yes.")
    second = b.ask_other(ui, fse if second_target == "fse" else tester, "Any more fields?",
                         "Asking again.")
    b.answer_other(second, "No.")
    bundle = b.bundle()
    at = [i for i, m in enumerate(messages(bundle, UIO)) if is_call("ask_other_agent")(m)][1]
    call = messages(bundle, UIO)[at]["tool_calls"][0]["function"]
    arguments = json.loads(call["arguments"])
    del arguments["role_id"]
    call["arguments"] = json.dumps(arguments, ensure_ascii=False)
    return bundle, at


def self_target_cases() -> list[dict[str, Any]]:
    """TW415 self-target: a call that targets its own caller succeeded."""
    return [
        case(
            "TW415 near miss: a call behind an ask that still waits has not run",
            [{"role": "assistant", "content": "Checking two things.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {
                    "name": "ask_master", "arguments": json.dumps(ASK_MASTER)}},
                {"id": "call_2", "type": "function", "function": {
                    "name": "ask_other_agent", "arguments": json.dumps(
                        {"target_agent_id": 1, "role_id": "ui-operator", "content": "Me?",
                         "message_id": "ask_uio_009"})}}]}],
            [],
            agent=UIO,
        ),
    ]


def ask_not_delivered_cases() -> list[dict[str, Any]]:
    """TW501 ask-not-delivered: an accepted ask never reaches its answerer as an Ask with the
    chosen id."""
    numbered_ask = bundle_with(numbered_ask_id)
    numbered_ask_at = find(numbered_ask, UIO, is_call("ask_other_agent"))
    altered_ask = pending_ask(True)
    leader = messages(altered_ask, TL)
    leader[-1]["content"] = leader[-1]["content"].replace("Which shade of blue?",
                                                          "Which shade of green?")
    return [
        case(
            "TW501 an ask_master that never reaches the Team Leader", pending_ask(False), [("TW501", UIO, 2)]
        ),
        case("TW501 near miss: the Ask is delivered (the answer may still come)", pending_ask(True), []),
        case(
            "TW501 an ask that timed out, so was sent, but never reached the Team Leader",
            never_ran("timeout"),
            [("TW501", UIO, 2)],
        ),
        case(
            "TW501 near miss: the second ask of the message never ran (turn-ended)",
            never_ran("turn-ended"),
            [],
        ),
        case(
            "TW501 the second ask of a message, free to run once the first was answered, "
            "never reaches the Team Leader",
            two_asks("answered"),
            [("TW501", UIO, 2)],
        ),
        case(
            "TW501 near miss: the second ask is still blocked by the first, which waits for "
            "its answer",
            two_asks("waiting"),
            [],
        ),
        case(
            "TW501 near miss: the leader terminated the asker before its second ask ran",
            two_asks("terminated"),
            [],
        ),
        case(
            "TW501 near miss: an ask_other_agent whose message_id is a number chose no id, so "
            "the Ask that carries its question is its delivery, whatever its id (the number is "
            "TW402's)",
            numbered_ask,
            [("TW402", UIO, numbered_ask_at)],
        ),
        case(
            "TW501 the Ask arrives with the chosen id but not the question asked",
            altered_ask,
            [("TW501", UIO, 2)],
        ),
        case(
            "TW501 a peer's timed-out Ask never arrives",
            lost_peer_ask(terminated=False),
            [("TW501", FSE, find(lost_peer_ask(terminated=False), FSE, is_call("ask_other_agent")))],
        ),
        case(
            "TW501 near miss: the peer's Ask may have been discarded with its terminated receiver",
            lost_peer_ask(terminated=True),
            [],
        ),
        case(
            "TW501 a peer's timed-out Ask never arrives, in a bundle without the Team Leader",
            lost_peer_ask(terminated=False, leader=False),
            [("TW003", None, None),
             ("TW501", FSE, find(lost_peer_ask(terminated=False), FSE, is_call("ask_other_agent")))],
        ),
    ]


def unknown_question_cases() -> list[dict[str, Any]]:
    """TW502 unknown-question: an answer tool call that succeeded answers no question the asker put
    to the caller."""
    unknown = SessionBuilder()
    unknown.create("ui-operator", "UI Operator", 1, "Design the palette.")
    call_id = unknown.call(
        unknown.leader,
        "answer_sub_agent_question",
        {"agent_id": 1, "question_id": "ask_uio_009", "answer": "Navy."},
    )
    unknown_at = len(unknown.leader.messages) - 1
    unknown.result(unknown.leader, call_id, OK)
    once, _ = answered(1)
    return [
        case("TW502 an answer to a question nobody asked", unknown.bundle(), [("TW502", TL, unknown_at)]),
        case("TW502 near miss: the answered question was asked", once, []),
        case(
            "TW502 an answer call with no result, of an agent that goes on, names no question",
            unrun_answer(terminated=False),
            [("TW502", UIO, 2)],
        ),
        case(
            "TW502 near miss: the leader terminated the caller before its answer call ran",
            unrun_answer(terminated=True),
            [],
        ),
        case(
            "TW502 an astrion answer by question_id alone, to an id no Ask carries",
            answered_by_question_id(asked=False)[0],
            [("TW502", TL, answered_by_question_id(asked=False)[1])],
            profile="astrion",
        ),
        case(
            "TW502 near miss: an astrion answer by question_id alone, to the Ask put to the leader",
            answered_by_question_id(asked=True)[0],
            [],
            profile="astrion",
        ),
    ]


def question_answered_twice_cases() -> list[dict[str, Any]]:
    """TW503 question-answered-twice: one question is answered by two accepted calls."""
    twice, twice_at = answered(2)
    once, _ = answered(1)
    return [
        case("TW503 one question answered twice", twice, [("TW503", TL, twice_at[0])]),
        case("TW503 near miss: answered once", once, []),
    ]


def answer_mismatch_cases() -> list[dict[str, Any]]:
    """TW504 answer-mismatch: an ask's successful result is not the Answer to that ask from its
    answerer."""
    mismatch = [
        calls("ask_master", ASK_MASTER),
        result(ANSWER.replace('question_id="ask_uio_001"', 'question_id="ask_uio_002"')),
    ]
    return [
        case("TW504 the Answer names another question", mismatch, [("TW504", UIO, 1)], agent=UIO),
        case(
            "TW504 near miss: it names the asked one",
            [calls("ask_master", ASK_MASTER), result(ANSWER)],
            [],
            agent=UIO,
        ),
        case(
            "TW504 an error result after a line break is no error result (TW-TOOL-046)",
            [calls("ask_master", ASK_MASTER), result("\n" + json.dumps(error("timeout")))],
            [("TW504", UIO, 1)],
            agent=UIO,
        ),
        case(
            "TW504 near miss: the error result starts with its brace",
            [calls("ask_master", ASK_MASTER), result(error("timeout"))],
            [],
            agent=UIO,
        ),
    ]


def not_delivered_cases() -> list[dict[str, Any]]:
    """TW505 not-delivered: a task or message of an accepted call never reaches its target."""
    both, _ = messages_to_ui("both")
    forbidden = forbidden_create()
    only_first, sent_first = messages_to_ui("first")
    return [
        case("TW505 a message that never arrives", only_first, [("TW505", TL, sent_first[1])]),
        case("TW505 near miss: both arrive", both, []),
        case(
            "TW505 a Message sent after its receiver was terminated never arrives",
            message_after_termination()[0],
            [("TW409", TL, message_after_termination()[1]), ("TW505", TL, message_after_termination()[1])],
        ),
        case(
            "TW505 near miss: a message discarded with the target the leader then terminated",
            discarded_with_target(),
            [],
        ),
        case(
            "TW505 near miss: a sub-agent's create_sub_agent is reported as forbidden (TW403), "
            "not as a Task that never arrived",
            forbidden[0],
            [("TW403", UIO, forbidden[1])],
        ),
    ]


def message_lost_cases() -> list[dict[str, Any]]:
    """TW506 message-lost: a message was never delivered while later messages of the same sender to
    the same receiver were."""
    both, _ = messages_to_ui("both")
    only_second, sent_second = messages_to_ui("second")
    after_refused = bundle_with(lost_after_refused)
    after_refused_at = find(after_refused, TL, lambda m: any(
        c["id"] == "c-lost" for c in m.get("tool_calls") or ()))
    return [
        case(
            "TW506 a Message lost while a later Ask on its channel arrives, after a send that "
            "failed with agent-terminated: that one may or may not have gone out, the ones "
            "after it are judged all the same",
            after_refused,
            [("TW506", TL, after_refused_at)],
        ),
        case(
            "TW506 the first message is lost, the second arrives",
            only_second,
            [("TW506", TL, sent_second[0])],
        ),
        case("TW506 near miss: both arrive", both, []),
    ]


def message_reordered_cases() -> list[dict[str, Any]]:
    """TW507 message-reordered: messages from one sender to one receiver arrive in another order
    than they were sent."""
    both, _ = messages_to_ui("both")
    swapped, sent_swapped = messages_to_ui("swapped")
    return [
        case("TW507 two messages arrive swapped", swapped, [("TW507", TL, sent_swapped[1])]),
        case("TW507 near miss: in order", both, []),
        case(
            "TW507 a sub-agent's completion reaches the leader before its earlier progress report",
            reports(swapped=True)[0],
            [("TW507", TL, reports(swapped=True)[1])],
        ),
        case("TW507 near miss: the reports in the order said", reports(swapped=False)[0], []),
    ]


def answer_not_returned_cases() -> list[dict[str, Any]]:
    """TW508 answer-not-returned: an accepted answer does not come back as the result of the
    asker's ask call."""
    lost_answer, lost_at = ask_other(False)
    good_answer, _ = ask_other(True)
    return [
        case("TW508 an accepted answer that never reaches the asker", lost_answer, [("TW508", FSE, lost_at)]),
        case("TW508 near miss: the answer comes back", good_answer, []),
        case(
            "TW508 near miss: the leader terminated the asker while it waited, before or after "
            "the answer (two conversations cannot tell)",
            ask_other(False, "terminated")[0],
            [],
        ),
    ]


def ask_without_report_cases() -> list[dict[str, Any]]:
    """TW509 ask-without-report: a sub-agent asks another sub-agent without telling the Team Leader
    in the same message."""
    silent = bundle_with(no_report)
    silent_at = find(silent, UIO, is_call("ask_other_agent"))
    return [
        case("TW509 asking a peer without a word to the leader", silent, [("TW509", UIO, silent_at)]),
        case("TW509 near miss: the clean session", small_session(), []),
    ]


def ask_round_limit_cases() -> list[dict[str, Any]]:
    """TW510 ask-round-limit: a sub-agent asks the same sub-agent more often than the round limit
    allows."""
    same_peer, same_peer_at = asks_with_and_without_role("fse")
    other_peer, _ = asks_with_and_without_role("tester")
    rounds = [
        calls(
            "ask_other_agent",
            {"target_agent_id": 2, "content": f"Round {n}?", "message_id": f"ask_uio_00{n}"},
            f"r{n}",
            f"Asking agent 2, round {n}.",
        )
        for n in (1, 2, 3)
    ]
    answers = [
        result(
            env("Tester_2", "回答", f"ans_t_00{n}", "Answer", "Yes.", (("question_id", f"ask_uio_00{n}"),)),
            f"r{n}",
        )
        for n in (1, 2, 3)
    ]
    three = [m for pair in zip(rounds, answers, strict=False) for m in pair]
    return [
        case(
            "TW510 a third ask of one peer over a round limit of 2",
            three,
            [("TW510", UIO, 4)],
            agent=UIO,
            config={"ask-round-limit": 2},
        ),
        case("TW510 near miss: within the limit", three, [], agent=UIO, config={"ask-round-limit": 3}),
        case(
            "TW510 two asks of one peer, named with and without role_id, over a round limit of 1",
            same_peer,
            [("TW510", UIO, same_peer_at)],
            config={"ask-round-limit": 1},
        ),
        case(
            "TW510 near miss: the second ask goes to another peer",
            other_peer,
            [],
            config={"ask-round-limit": 1},
        ),
    ]


def unexpected_delivery_cases() -> list[dict[str, Any]]:
    """TW511 unexpected-delivery: a Task, Message, Ask or report arrives that nothing in its
    sender's conversation sent."""
    forged = bundle_with(forged_message)
    extended = bundle_with(extend_message)
    extended_sent = find(extended, TL, is_call("send_message_to_sub_agent"))
    extended_at = find(extended, UIO, is_delivery(f"{TL} 的消息"))
    unasked = bundle_with(extend_task)
    unasked_sent = find(unasked, TL, is_call("create_sub_agent"))
    unasked_at = find(unasked, UIO, is_delivery(f"{TL} 的任务发布"))
    accepted = bundle_with(with_acceptance)
    late_at = next(i for i, m in enumerate(messages(late_answer(answered=False), UIO))
                   if m["role"] == "user" and "的回答" in m["content"])
    late_call_at = find(late_answer(answered=True), TL, is_call("answer_sub_agent_question"))
    return [
        case("TW511 a Message nobody sent", forged, [("TW511", UIO, len(messages(forged, UIO)) - 1)]),
        case("TW511 near miss: the clean session", small_session(), []),
        case(
            "TW511 a report of a text the sub-agent never said",
            reports_beside("forged")[0],
            [("TW511", TL, reports_beside("forged")[1])],
        ),
        case(
            "TW511 near miss: a run result the router wrote when it stopped the turn",
            reports_beside("timeout")[0],
            [],
        ),
        case(
            "TW511 near miss: the empty completion of a turn that ended without text",
            reports_beside("empty")[0],
            [],
        ),
        case(
            "TW511 a Message whose content extends the sent text after a line feed",
            extended,
            [("TW505", TL, extended_sent), ("TW511", UIO, extended_at)],
        ),
        case(
            "TW511 a Task with an acceptance section the call did not give",
            unasked,
            [("TW506", TL, unasked_sent), ("TW511", UIO, unasked_at)],
        ),
        case(
            "TW511 near miss: the acceptance section rendered from the call's acceptance",
            accepted,
            [],
        ),
        case(
            "TW511 an astrion Answer inserted as a user message that no answer call sent",
            late_answer(answered=False),
            [("TW511", UIO, late_at)],
            profile="astrion",
        ),
        case(
            "TW511 near miss: the late Answer of an accepted answer call, after the ask timed out",
            late_answer(answered=True),
            [],
            profile="astrion",
        ),
        case(
            "TW511 an astrion late Answer whose text is not the answer call's",
            late_answer(answered=True, late="Green."),
            [("TW511", UIO, late_at), ("TW508", TL, late_call_at)],
            profile="astrion",
        ),
        case(
            "TW511 an astrion late Answer to ask_master from a sub-agent, while the leader's "
            "answer never arrives",
            late_answer_from_peer()[0],
            [("TW511", UIO, late_answer_from_peer()[1]), ("TW508", TL, late_answer_from_peer()[2])],
            profile="astrion",
        ),
        case(
            "TW511 near miss: astrion numbers a sub-agent created without agent_id after the "
            "highest agent_id of its role",
            numbered_after_highest(),
            [],
            profile="astrion",
        ),
        case(
            "TW511 near miss: astrion numbers a sub-agent created without agent_id after the "
            "highest agent_id of its role, not the last one given (2, then 1: it is 3)",
            numbered_after_highest_not_last(),
            [],
            profile="astrion",
        ),
        case(
            "TW511 an astrion sub-agent created without agent_id, numbered as if its role had no "
            "sub-agent before",
            numbered_after_preexisting(1, (("UI Operator_2", "ui-operator", 2),)),
            [("TW511", UIO, 1)],
            profile="astrion",
        ),
        case(
            "TW511 near miss: astrion numbers a sub-agent created without agent_id from its own "
            "role only",
            numbered_after_preexisting(1, (("Full-Stack Engineer_5", "full-stack-engineer", 5),)),
            [],
            profile="astrion",
        ),
        case(
            "TW511 an astrion sub-agent created without agent_id, numbered after a creation that "
            "failed",
            numbered_after_failed_create(2),
            [("TW511", "UI Operator_2", 1)],
            profile="astrion",
        ),
        case(
            "TW511 near miss: a failed create_sub_agent without agent_id numbers no sub-agent",
            numbered_after_failed_create(1),
            [],
            profile="astrion",
        ),
    ]


def output_not_delivered_cases() -> list[dict[str, Any]]:
    """TW512 output-not-delivered: a sub-agent's natural output never reaches the Team Leader as an
    Output."""
    lost = bundle_with(lost_output)
    lost_text = find(
        lost, UIO, lambda m: m["role"] == "assistant" and m["content"].startswith("The palette is done")
    )
    return [
        case("TW512 a completion that never reaches the leader", lost, [("TW512", UIO, lost_text)]),
        case("TW512 near miss: the clean session", small_session(), []),
    ]


def output_kind_mismatch_cases() -> list[dict[str, Any]]:
    """TW513 output-kind-mismatch: output of a message with tool calls is labelled completion, or
    one without as progress."""
    kind = bundle_with(wrong_kind)
    kind_at = find(
        kind,
        TL,
        lambda m: m["role"] == "user" and "任务完成汇报" in m["content"] and "Reviewing" in m["content"],
    )
    return [
        case(
            "TW513 near miss: the output that answered ask_sub_agent is no report",
            answer_then_report(),
            [],
        ),
        case(
            "TW513 near miss: the output that answered a peer's notification is no report",
            answer_then_report(FSE),
            [],
        ),
        case("TW513 a progress report labelled as completion", kind, [("TW513", TL, kind_at)]),
        case("TW513 near miss: the clean session", small_session(), []),
    ]


def answer_also_reported_cases() -> list[dict[str, Any]]:
    """TW514 answer-also-reported: natural output that was delivered as an Answer also reaches the
    Team Leader as an Output."""
    return [
        case(
            "TW514 the text that answered ask_sub_agent also arrives as a report",
            reports_beside("answer")[0],
            [("TW514", TL, reports_beside("answer")[1])],
        ),
        case(
            "TW514 near miss: the answering text reaches the leader only as the Answer",
            answered_in_passing()[0].bundle(),
            [],
        ),
    ]


def flow_cases() -> list[dict[str, Any]]:
    """Every case of the file, rule by rule."""
    return [
        *self_target_cases(),
        *ask_not_delivered_cases(),
        *unknown_question_cases(),
        *question_answered_twice_cases(),
        *answer_mismatch_cases(),
        *not_delivered_cases(),
        *message_lost_cases(),
        *message_reordered_cases(),
        *answer_not_returned_cases(),
        *ask_without_report_cases(),
        *ask_round_limit_cases(),
        *unexpected_delivery_cases(),
        *output_not_delivered_cases(),
        *output_kind_mismatch_cases(),
        *answer_also_reported_cases(),
        *spec_flow_cases(),
    ]


def spec_flow_cases() -> list[dict[str, Any]]:
    """Cross-conversation rules on sessions built from the specification's rules alone
    (spec_session): each case edits one thing the spec fixes, and names what that breaks."""
    out: list[dict[str, Any]] = []

    def add(description: str, s: SpecSession, expect: list[tuple[str, str | None, int | None]],
            requirements: tuple[str, ...] = ()) -> None:
        out.append(case(description, copy.deepcopy(s.bundle()), expect,
                        requirements=requirements))

    # TW501 (TW-ID-013, TW-TOOL-020): the Ask carries the id the asker chose; the leader's
    # answer names that id, so it answers a question it never received (TW-ROUTE-015).
    s, ui, _fse = spec_team()
    ask = s.ask_master(ui)
    add("TW501 near miss: ask_master's Ask arrives with the chosen id", s, [])
    ask.delivery["content"] = ask.delivery["content"].replace(ask.id, "ask_uio_009")
    add("TW501 ask_master's Ask arrives with another id than the chosen one", s,
        [("TW501", UIO, s.index(UIO, ask.source)), ("TW502", TL, s.index(TL, ask.answered_by))])

    # TW501 (TW-TOOL-013): the leader's ask_sub_agent reaches the sub-agent as an Ask.
    s, ui, _fse = spec_team()
    ask = s.ask_sub(ui)
    add("TW501 near miss: ask_sub_agent's Ask reaches the sub-agent", s, [])
    ui.messages.remove(ask.delivery)
    add("TW501 ask_sub_agent's Ask never reaches the sub-agent", s,
        [("TW501", TL, s.index(TL, ask.source))])

    # TW501 (TW-TOOL-021): ask_other_agent reaches the peer; the peer's answer then names a
    # question it never received (TW502).
    s, ui, fse = spec_team()
    _report, ask = s.ask_other(ui, fse)
    add("TW501 near miss: ask_other_agent's Ask reaches the peer", s, [])
    fse.messages.remove(ask.delivery)
    add("TW501 ask_other_agent's Ask never reaches the peer, which answers it all the same", s,
        [("TW501", UIO, s.index(UIO, ask.source)), ("TW502", FSE, s.index(FSE, ask.answered_by))])

    # TW506/TW501 and TW-ROUTE-020: termination discards what was still queued, nothing else.
    # A message is known to have left the queue when a later one of the channel arrived (FIFO)
    # or when its ask was answered; its absence is then a loss, terminated receiver or not.
    s, ui, _fse = spec_team()
    first = s.message(ui)
    s.message(ui)
    ui.messages.remove(first.delivery)
    s.terminate(ui)
    add("TW506 a Message lost before a later one arrived, its receiver terminated afterwards", s,
        [("TW506", TL, s.index(TL, first.source))], ("TW-ROUTE-020",))
    s, ui, _fse = spec_team()
    s.message(ui)
    last = s.message(ui)
    ui.messages.remove(last.delivery)
    s.terminate(ui)
    add("TW506 near miss: the last Message never arrived and its receiver was terminated", s, [],
        ("TW-ROUTE-020",))
    s, ui, _fse = spec_team()
    ask = s.ask_sub(ui)
    ui.messages.remove(ask.delivery)
    s.terminate(ui)
    add("TW501 an answered ask_sub_agent whose Ask is missing, its receiver terminated later", s,
        [("TW501", TL, s.index(TL, ask.source))], ("TW-ROUTE-020",))

    # TW502 (TW-ROUTE-015): an answer names a question the caller has received before.
    s, ui, _fse = spec_team()
    ask = s.ask_master(ui)
    add("TW502 near miss: the leader answers the Ask after it arrived", s, [])
    s.leader.messages.remove(ask.delivery)
    s.leader.messages.append(ask.delivery)
    add("TW502 the leader answers an Ask that arrives only after its answer", s,
        [("TW502", TL, s.index(TL, ask.answered_by))])

    # TW503 (TW-ROUTE-015): a second answer to one question fails with not-waiting.
    for code in ("not-waiting", None):
        s, ui, fse = spec_team()
        _report, ask = s.ask_other(ui, fse)
        assert ask.answered_by is not None
        again = json.loads(ask.answered_by["tool_calls"][0]["function"]["arguments"])
        fse.messages.append(calls("answer_other_agent", dict(again, answer="Yes, final."), "call_x"))
        fse.messages.append(result(error(code) if code else {
            "success": True, "display_name": UIO, "message_id": ask.id}, "call_x"))
        if code:
            add("TW503 near miss: a second answer_other_agent to one question fails with "
                "not-waiting", s, [])
        else:
            add("TW503 a second answer_other_agent to one question succeeds", s,
                [("TW503", FSE, len(fse.messages) - 2)])

    # TW505 (TW-TOOL-007): create_sub_agent that succeeded made a sub-agent with a conversation.
    s, ui, fse = spec_team()
    s.say(ui)
    bundle = copy.deepcopy(s.bundle())
    del bundle["agents"][FSE]
    out.append(case("TW505 create_sub_agent made a sub-agent the bundle has no conversation for",
                    bundle, [("TW505", TL, s.index(TL, s.sent[1].source))]))
    s = SpecSession()
    s.leader.messages.append(calls("create_sub_agent", {"agent_id": 1, "role_id": "tester",
                                                        "task": "Test the API."}, "call_x"))
    s.leader.messages.append(result(error("unknown-role"), "call_x"))
    add("TW505 near miss: a create_sub_agent that failed made no sub-agent", s, [])

    # TW505 and TW-ROUTE-020: a Message still queued when its receiver is terminated is dropped.
    for terminated in (False, True):
        s, ui, _fse = spec_team()
        note = s.message(ui)
        ui.messages.remove(note.delivery)
        if terminated:
            s.terminate(ui)
            add("TW505 near miss: the leader terminates the receiver of a Message that has not "
                "arrived (its queue is discarded)", s, [], ("TW-ROUTE-020",))
        else:
            add("TW505 a leader's Message never reaches its sub-agent", s,
                [("TW505", TL, s.index(TL, note.source))])

    # TW506 (TW-DEL-001, TW-DEL-003): the Task is lost while a later Message arrives.
    s, ui, _fse = spec_team()
    s.message(ui)
    add("TW506 near miss: the Task, then the Message arrive", s, [])
    task = s.sent[0]
    ui.messages.remove(task.delivery)
    add("TW506 the Task never arrives while the leader's later Message does", s,
        [("TW506", TL, s.index(TL, task.source))])

    # TW507 (TW-DEL-003): one channel carries Tasks, Messages and the leader's Asks alike.
    s, ui, _fse = spec_team()
    note = s.message(ui)
    ask = s.ask_sub(ui)
    add("TW507 near miss: the leader's Message, then its Ask, arrive in order", s, [])
    at = s.index(UIO, note.delivery)
    ui.messages.remove(ask.delivery)
    ui.messages.insert(at, ask.delivery)
    add("TW507 the leader's ask_sub_agent Ask overtakes its earlier Message", s,
        [("TW507", TL, s.index(TL, ask.source))])

    # TW508 (TW-TOOL-014): the Answer the asker gets is the answer the leader gave.
    s, ui, _fse = spec_team()
    ask = s.ask_master(ui)
    add("TW508 near miss: the asker gets the leader's answer", s, [])
    answer = ui.messages[s.index(UIO, ask.source) + 1]
    answer["content"] = answer["content"].replace("Blue", "Green")
    add("TW508 the asker gets an Answer with another text than the leader's answer call gave",
        s, [("TW508", TL, s.index(TL, ask.answered_by))])

    # TW511 (TW-SEC-002): every Ask comes from an ask call of its sender.
    s, ui, _fse = spec_team()
    s.ask_master(ui)
    add("TW511 near miss: the Ask of an ask_master call", s, [])
    s.leader.messages.append(user(env(UIO, "提问", "ask_uio_009", "Ask", "Approve the merge?")))
    add("TW511 an Ask that no ask_master call of its sender sent", s,
        [("TW511", TL, len(s.leader.messages) - 1)])

    # TW514 (TW-TYPE-018, Routing, answer matching): the first natural output after the
    # leader's Ask answers it, not the completion said just before the Ask arrived.
    s, ui, _fse = spec_team()
    s.say(ui)
    ask = s.ask_sub(ui)
    add("TW514 near miss: the answer to ask_sub_agent, said after a completion, is no report",
        s, [])
    assert ask.answered_by is not None
    s.leader.messages.append(user(env(UIO, "任务完成汇报", s.allocate("completion", ui),
                                      "Output", ask.answered_by["content"])))
    add("TW514 the answer to ask_sub_agent, said after a completion, also arrives as a report",
        s, [("TW514", TL, len(s.leader.messages) - 1)])

    # TW502 (TW-ROUTE-015): the answer names the asker, and that asker asked the question.
    s, _ui, fse = spec_team()
    ask = s.ask_master(fse)
    add("TW502 near miss: the leader's answer names the sub-agent that asked", s, [])
    call = ask.answered_by["tool_calls"][0]["function"] if ask.answered_by else {}
    call["arguments"] = json.dumps(dict(json.loads(call["arguments"]), agent_id=1,
                                        role_id="ui-operator"))
    add("TW502 the leader's answer names another sub-agent than the one that asked", s,
        [("TW502", TL, s.index(TL, ask.answered_by))])

    # TW508 (TW-TOOL-014) beside TW504 (TW-TYPE-009, TW-TYPE-013): the result of the ask is
    # not the leader's answer to it, so that answer never came back.
    for what, old_text, new_text in (
            ("names another question", 'question_id="ask_uio_001"', 'question_id="ask_uio_009"'),
            ("comes from another agent", f"{TL}", FSE)):
        s, ui, _fse = spec_team()
        ask = s.ask_master(ui)
        answer = ui.messages[s.index(UIO, ask.source) + 1]
        answer["content"] = answer["content"].replace(old_text, new_text).replace(
            "ans_tl_001", "ans_fse_001" if new_text == FSE else "ans_tl_001")
        add(f"TW508 the Answer that ask_master returns {what}", s,
            [("TW504", UIO, s.index(UIO, answer)), ("TW508", TL, s.index(TL, ask.answered_by))])

    # TW505 and TW-TOOL-026: a terminate_sub_agent that failed discards no queue.
    s, ui, _fse = spec_team()
    note = s.message(ui)
    ui.messages.remove(note.delivery)
    s.leader.messages.append(calls("terminate_sub_agent", {"agent_id": 1, "role_id": "ui-operator"},
                                   "call_x"))
    s.leader.messages.append(result(error("store-failed"), "call_x"))
    add("TW505 a Message never arrives, and the leader's terminate_sub_agent of its receiver "
        "failed", s, [("TW505", TL, s.index(TL, note.source))])

    # TW507 (TW-DEL-005): every report that arrives before one said earlier, over many reports.
    for duplicates in (False, True):
        s, ui, _fse = spec_team()
        reports = [s.work(ui) for _ in range(36)]
        places = [s.index(TL, r.delivery) for r in reports]
        for place, report in zip(places, reversed(reports), strict=True):
            s.leader.messages[place] = report.delivery
        if duplicates:  # one text said twice: its reports pair off in the order said
            s.work(ui, "Still reading the notes.")
            s.work(ui, "Still reading the notes.")
        twice = ", then one text reported twice in order" if duplicates else ""
        add(f"TW507 36 reports of one sub-agent arrive in reverse order{twice}", s,
            [("TW507", TL, place) for place in places[:-1]])

    # TW606 (TW-RES-010, TW-RES-015): a run result the sender said itself is relayed as said.
    s, ui, _fse = spec_team()
    s.work(ui)
    said = {"role": "assistant", "content": RUN_RESULT.replace(UIO, FSE)}
    ui.messages.append(said)
    s.leader.messages.append(user(env(UIO, "任务完成汇报", s.allocate("completion", ui), "Output",
                                      said["content"])))
    add("TW606 near miss: the sender said that run result itself, after other output", s,
        [("TW604", UIO, s.index(UIO, said))])
    ui.messages.remove(said)
    add("TW606 a completion whose run result speaks of another agent, which the sender never "
        "said", s, [("TW606", TL, len(s.leader.messages) - 1)])

    # TW501 (TW-TYPE-010): an ask_other_agent whose message_id starts with msg_ is a Message;
    # delivered as an Ask, the Message never arrived and the Ask came from no call.
    for label, tag in (("消息", "Message"), ("提问", "Ask")):
        s, ui, fse = spec_team()
        telling = "Telling Full-Stack Engineer_1 the pages are ready."
        fse_call = calls("ask_other_agent", {"target_agent_id": 1, "role_id": "full-stack-engineer",
                                             "content": "The pages are ready.",
                                             "message_id": "msg_uio_001"}, "call_x", telling)
        ui.messages += [fse_call, result(error("timeout"), "call_x")]
        s.leader.messages.append(user(env(UIO, "任务进度输出", "out_uio_001", "Output", telling)))
        fse.messages.append(user(env(UIO, label, "msg_uio_001", tag, "The pages are ready.")))
        if tag == "Message":
            add("TW501 near miss: an ask_other_agent with a msg_ id arrives as a Message", s, [])
        else:
            at = len(fse.messages) - 1
            add("TW501 an ask_other_agent with a msg_ id arrives as an Ask", s,
                [("TW501", UIO, s.index(UIO, fse_call)), ("TW511", FSE, at), ("TW304", FSE, at)])

    # TW511: a delivery can be compared with what its sender sent only when the bundle holds
    # the sender's conversation.
    s, ui, fse = spec_team()
    ask_call = calls("ask_master", {"question": "Which API version?", "question_id": "ask_fse_001"},
                     "call_x")
    fse.messages.append(ask_call)
    s.leader.messages.append(user(env(FSE, "提问", "ask_fse_001", "Ask", "Which API version?")))
    bundle = copy.deepcopy(s.bundle())
    del bundle["agents"][FSE]
    out.append(case("TW511 near miss: an Ask from a sub-agent whose conversation the bundle "
                    "does not hold (only its creation is reported)", bundle,
                    [("TW505", TL, s.index(TL, s.sent[1].source))]))

    # TW512 (TW-TYPE-016, TW-TYPE-019): the text beside ask_other_agent is a progress report.
    s, ui, fse = spec_team()
    report, _ask = s.ask_other(ui, fse)
    add("TW512 near miss: the text beside ask_other_agent reaches the leader as progress", s, [])
    s.leader.messages.remove(report.delivery)
    add("TW512 the text beside ask_other_agent never reaches the leader", s,
        [("TW512", UIO, s.index(UIO, report.source))])
    return out
