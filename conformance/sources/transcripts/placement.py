"""The cases of placement.json, TW2xx: who sends which message type, into whose conversation."""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.blocks import (
    ANSWER,
    ASK_MASTER,
    FSE,
    OUT1,
    TASK,
    TL,
    UIO,
    calls,
    case,
    env,
    result,
    user,
)


def placement_cases() -> list[dict[str, Any]]:
    ask_master = [calls("ask_master", ASK_MASTER)]
    return [
        case(
            "TW201 a Task sent by a sub-agent",
            [user(env(UIO, "任务发布", "task_002", "Task", "Write the API."))],
            [("TW201", FSE, 0)],
            agent=FSE,
        ),
        case("TW201 near miss: a Task from the Team Leader", [user(TASK)], [], agent=FSE),
        case(
            "TW202 an Output from the Team Leader, in its own conversation",
            [user(env(TL, "任务进度输出", "out_tl_001", "Output", "Working."))],
            [("TW202", TL, 0), ("TW206", TL, 0)],
            agent=TL,
        ),
        case("TW202 near miss: an Output from a sub-agent", [user(OUT1)], [], agent=TL),
        case("TW203 an Output delivered to a sub-agent", [user(OUT1)], [("TW203", FSE, 0)], agent=FSE),
        case("TW203 near miss: the Output in the Team Leader's conversation", [user(OUT1)], [], agent=TL),
        case("TW204 an Answer delivered as a user message", [user(ANSWER)], [("TW204", UIO, 0)], agent=UIO),
        case("TW204 near miss: profile astrion accepts it", [user(ANSWER)], [], agent=UIO, profile="astrion"),
        case(
            "TW205 a Message delivered to the Team Leader",
            [user(env(UIO, "消息", "msg_uio_001", "Message", "FYI: ready."))],
            [("TW205", TL, 0)],
            agent=TL,
        ),
        case(
            "TW205 near miss: the Message delivered to a sub-agent",
            [user(env(UIO, "消息", "msg_uio_001", "Message", "FYI: ready."))],
            [],
            agent=FSE,
        ),
        case(
            "TW206 an Ask from the Team Leader in its own conversation",
            [user(env(TL, "提问", "ask_tl_001", "Ask", "Status?"))],
            [("TW206", TL, 0)],
            agent=TL,
        ),
        case(
            "TW206 near miss: the Ask in a sub-agent's conversation",
            [user(env(TL, "提问", "ask_tl_001", "Ask", "Status?"))],
            [],
            agent=UIO,
        ),
        case(
            "TW207 a Task in the Team Leader's conversation",
            [user(TASK)],
            [("TW206", TL, 0), ("TW207", TL, 0)],
            agent=TL,
        ),
        case("TW207 near miss: the Task in a sub-agent's conversation", [user(TASK)], [], agent=UIO),
        case(
            "TW208 an astrion ask addressed to someone else",
            [user(env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", receiver=FSE))],
            [("TW208", "Tester_1", 0)],
            agent="Tester_1",
            profile="astrion",
        ),
        case(
            "TW208 near miss: in the addressee's conversation",
            [user(env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", receiver=FSE))],
            [],
            agent=FSE,
            profile="astrion",
        ),
        case(
            "TW208 an astrion target attribute naming someone else",
            [user(env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", (("target", FSE),)))],
            [("TW208", "Tester_1", 0)],
            agent="Tester_1",
            profile="astrion",
        ),
        case(
            "TW208 near miss: a target attribute naming the conversation's owner",
            [user(env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", (("target", "Tester_1"),)))],
            [],
            agent="Tester_1",
            profile="astrion",
        ),
        case(
            "TW208 near miss: a target attribute in a conversation whose owner is unknown",
            [user(env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", (("target", FSE),)))],
            [("TW009", None, None)],
            profile="astrion",
        ),
        case(
            "TW209 an Answer as the result of read_file",
            [calls("read_file", {"path": "a.md"}), result(ANSWER)],
            [("TW209", UIO, 1)],
            agent=UIO,
        ),
        case(
            "TW209 near miss: an Answer in a tool result that answers no call is only an "
            "orphan result",
            [result(ANSWER, call_id="call_9")],
            [("TW413", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW209 near miss: the Answer as the result of ask_master",
            [*ask_master, result(ANSWER)],
            [],
            agent=UIO,
        ),
        case(
            "TW210 a Message returned as the result of ask_master",
            [*ask_master, result(env(TL, "消息", "msg_tl_001", "Message", "Navy."))],
            [("TW210", UIO, 1), ("TW504", UIO, 1)],
            agent=UIO,
        ),
        case("TW210 near miss: an Answer", [*ask_master, result(ANSWER)], [], agent=UIO),
        case(
            "TW211 a second Task",
            [user(TASK), user(env(TL, "任务发布", "task_002", "Task", "Also the tests."))],
            [("TW211", UIO, 1)],
            agent=UIO,
        ),
        case(
            "TW211 a Message before the Task",
            [user(env(TL, "消息", "msg_tl_001", "Message", "Hi")), user(TASK)],
            [("TW211", UIO, 1)],
            agent=UIO,
        ),
        case(
            "TW211 near miss: the Task, then a Message",
            [user(TASK), user(env(TL, "消息", "msg_tl_001", "Message", "Also the tests."))],
            [],
            agent=UIO,
        ),
    ]
