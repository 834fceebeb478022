"""The cases of envelope.json, TW1xx: envelope syntax, labels, tags, ids, attributes, names, dialect forms."""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.blocks import (
    ANSWER,
    ASK_MASTER,
    ASK_TL,
    FSE,
    OUT1,
    TASK,
    TL,
    UIO,
    astrion_ask,
    bundle_with,
    calls,
    case,
    env,
    result,
    user,
)


def envelope_cases() -> list[dict[str, Any]]:
    bad_id_line = ASK_TL.replace("id: ", "id:")
    ask_master = [calls("ask_master", ASK_MASTER)]
    return [
        case("TW101 id line without its space", [user(bad_id_line)], [("TW101", TL, 0)], agent=TL),
        case("TW101 near miss: the well-formed ask", [user(ASK_TL)], [], agent=TL),
        case(
            "TW102 outer close tag names another agent",
            [user(ASK_TL.replace(f"</{UIO}>", "</UI Operator_2>"))],
            [("TW102", TL, 0)],
            agent=TL,
        ),
        case("TW102 near miss: the well-formed ask", [user(ASK_TL)], [], agent=TL),
        case(
            "TW103 an Answer with question_id twice",
            [
                *ask_master,
                result(
                    ANSWER.replace(
                        '<Answer question_id="ask_uio_001">',
                        '<Answer question_id="ask_uio_001" question_id="ask_uio_002">',
                    )
                ),
            ],
            [("TW103", UIO, 1)],
            agent=UIO,
        ),
        case(
            "TW103 near miss: the Answer with one question_id", [*ask_master, result(ANSWER)], [], agent=UIO
        ),
        case(
            "TW104 an unknown label",
            [user(env(TL, "通知", "msg_tl_001", "Message", "FYI"))],
            [("TW104", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW104 near miss: the label 消息",
            [user(env(TL, "消息", "msg_tl_001", "Message", "FYI"))],
            [],
            agent=UIO,
        ),
        case(
            "TW105 a task label on a Message tag",
            [user(env(TL, "任务发布", "task_001", "Message", "Design the palette."))],
            [("TW105", UIO, 0)],
            agent=UIO,
        ),
        case("TW105 near miss: the Task tag", [user(TASK)], [], agent=UIO),
        case(
            "TW106 a progress report with an ask_ id",
            [user(env(UIO, "任务进度输出", "ask_uio_001", "Output", "Reviewing the styles."))],
            [("TW106", TL, 0)],
            agent=TL,
        ),
        case("TW106 near miss: the out_ id", [user(OUT1)], [], agent=TL),
        case(
            "TW106 near miss: an Ask's id is chosen by the agent, so a msg_ id is TW304 only",
            [user(env(UIO, "提问", "msg_uio_001", "Ask", "Which blue?"))],
            [("TW304", TL, 0)],
            agent=TL,
        ),
        case(
            "TW107 a task id of the wrong shape",
            [user(env(TL, "任务发布", "T-1", "Task", "Design the palette."))],
            [("TW107", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW107 a task counter of zero",
            [user(env(TL, "任务发布", "task_000", "Task", "Design the palette."))],
            [("TW107", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW107 a task counter padded to four digits",
            [user(env(TL, "任务发布", "task_0001", "Task", "Design the palette."))],
            [("TW107", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW107 a report counter of zero",
            [user(env(UIO, "任务进度输出", "out_uio_000", "Output", "Reviewing the styles."))],
            [("TW107", TL, 0)],
            agent=TL,
        ),
        case(
            "TW107 near miss: a counter over 999 is not padded",
            [user(env(TL, "任务发布", "task_1000", "Task", "Design the palette."))],
            [],
            agent=UIO,
        ),
        case("TW107 near miss: task_001", [user(TASK)], [], agent=UIO),
        case(
            "TW107 near miss: an astrion id under profile astrion",
            [user(env(TL, "任务发布", "msg_0123456789", "Task", "Design the palette."))],
            [],
            agent=UIO,
            profile="astrion",
        ),
        case(
            "TW108 the id repeated as an attribute",
            [user(env(UIO, "提问", "ask_uio_001", "Ask", "Which blue?", (("id", "ask_uio_001"),)))],
            [("TW108", TL, 0)],
            agent=TL,
        ),
        case("TW108 near miss: the id on the id line only", [user(ASK_TL)], [], agent=TL),
        case(
            "TW109 an Answer without question_id",
            [*ask_master, result(env(TL, "回答", "ans_tl_001", "Answer", "Navy."))],
            [("TW109", UIO, 1)],
            agent=UIO,
        ),
        case("TW109 near miss: the Answer with question_id", [*ask_master, result(ANSWER)], [], agent=UIO),
        case(
            "TW118 an Answer whose question_id holds white space",
            [*ask_master, result(env(TL, "回答", "ans_tl_001", "Answer", "Navy.",
                                     (("question_id", "ask uio 001"),)))],
            [("TW118", UIO, 1), ("TW504", UIO, 1)],
            agent=UIO,
        ),
        case(
            "TW118 an Answer with an empty question_id",
            [*ask_master, result(env(TL, "回答", "ans_tl_001", "Answer", "Navy.",
                                     (("question_id", ""),)))],
            [("TW118", UIO, 1), ("TW504", UIO, 1)],
            agent=UIO,
        ),
        case(
            "TW118 near miss: a chosen id without the prefix table's shape",
            [calls("ask_master", {"question": "Which shade of blue?",
                                  "question_id": "blue-question"}),
             result(env(TL, "回答", "ans_tl_001", "Answer", "Navy.",
                        (("question_id", "blue-question"),)))],
            [("TW304", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW110 question_id on an Ask",
            [user(env(UIO, "提问", "ask_uio_001", "Ask", "Which blue?", (("question_id", "ask_uio_001"),)))],
            [("TW110", TL, 0)],
            agent=TL,
        ),
        case(
            "TW110 near miss: the same under profile astrion, which ignores it",
            [user(env(UIO, "提问", "ask_uio_001", "Ask", "Which blue?", (("question_id", "ask_uio_001"),)))],
            [],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW111 an attribute spec 1.0 does not define",
            [user(env(UIO, "提问", "ask_uio_001", "Ask", "Which blue?", (("priority", "high"),)))],
            [("TW111", TL, 0)],
            agent=TL,
        ),
        case("TW111 near miss: no attribute", [user(ASK_TL)], [], agent=TL),
        case(
            "TW112 an instance number with a leading zero",
            [user(env("UI Operator_01", "提问", "ask_uio_001", "Ask", "Which blue?"))],
            [("TW112", TL, 0)],
            agent=TL,
        ),
        case(
            "TW112 a role name ending in white space",
            [user(env("Coder _1", "提问", "ask_c_001", "Ask", "Which blue?"))],
            [("TW112", TL, 0)],
            agent=TL,
        ),
        case(
            "TW112 a bundle key whose role name ends in white space",
            bundle_with(lambda b: b["agents"].update(
                {"Coder _1": {"role_id": "coder", "agent_id": 1, "messages": []}})),
            [("TW112", "Coder _1", None)],
        ),
        case(
            "TW112 near miss: the role name without the space",
            [user(env("Coder_1", "提问", "ask_c_001", "Ask", "Which blue?"))],
            [],
            agent=TL,
        ),
        case("TW112 near miss: UI Operator_1", [user(ASK_TL)], [], agent=TL),
        case(
            "TW113 the retired notification prefix",
            [user("[系统通知|任务完成] done")],
            [("TW113", TL, 0)],
            agent=TL,
        ),
        case("TW113 near miss: plain text mentioning 系统通知", [user("系统通知: done")], [], agent=TL),
        case(
            "TW114 the astrion completion label under profile strict",
            [user(env(UIO, "任务结束汇报", "out_uio_001", "Output", "Done."))],
            [("TW114", TL, 0)],
            agent=TL,
        ),
        case(
            "TW114 the astrion receiver header under profile strict",
            [user(env(UIO, "提问", "ask_uio_001", "Ask", "Ready?", receiver=FSE))],
            [("TW114", FSE, 0)],
            agent=FSE,
        ),
        case(
            "TW114 near miss: the same label under profile astrion",
            [user(env(UIO, "任务结束汇报", "out_uio_001", "Output", "Done."))],
            [],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW115 an envelope with a trailing line feed", [user(OUT1 + "\n")], [("TW115", TL, 0)], agent=TL
        ),
        case("TW115 near miss: the canonical text", [user(OUT1)], [], agent=TL),
        case(
            "TW116 subtype completion_report on a progress report",
            [
                user(
                    env(
                        UIO,
                        "任务进度输出",
                        "msg_3f9a0c11be",
                        "Output",
                        "Working.",
                        (("subtype", "completion_report"),),
                    )
                )
            ],
            [("TW116", TL, 0)],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW116 near miss: subtype progress_output",
            [
                user(
                    env(
                        UIO,
                        "任务进度输出",
                        "msg_3f9a0c11be",
                        "Output",
                        "Working.",
                        (("subtype", "progress_output"),),
                    )
                )
            ],
            [],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW117 header receiver and target attribute disagree",
            [
                user(
                    env(
                        UIO,
                        "提问",
                        "msg_8d02e4a7c5",
                        "Ask",
                        "Ready?",
                        (("target", "Full-Stack Engineer_2"),),
                        receiver=FSE,
                    )
                )
            ],
            [("TW117", FSE, 0)],
            agent=FSE,
            profile="astrion",
        ),
        case(
            "TW117 near miss: they agree",
            [user(env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", (("target", FSE),), receiver=FSE))],
            [],
            agent=FSE,
            profile="astrion",
        ),
        # TW-PROF-008 checks the receiver the envelope names (header or target attribute),
        # not the owner of the conversation it was found in.
        case(
            "TW116 subtype ask_other on an Ask whose target is the Team Leader",
            [user(astrion_ask((("target", TL), ("subtype", "ask_other"))))],
            [("TW009", None, None), ("TW116", None, 0)],
            profile="astrion",
        ),
        case(
            "TW116 near miss: subtype ask_master on an Ask whose target is the Team Leader",
            [user(astrion_ask((("target", TL), ("subtype", "ask_master"))))],
            [("TW009", None, None)],
            profile="astrion",
        ),
        case(
            "TW116 subtype ask_other on an Ask whose header names the Team Leader, elsewhere",
            [user(astrion_ask((("subtype", "ask_other"),), receiver=TL))],
            [("TW208", "Tester_1", 0), ("TW116", "Tester_1", 0)],
            agent="Tester_1",
            profile="astrion",
        ),
        case(
            "TW116 near miss: subtype ask_master on an Ask whose header names the Team Leader, elsewhere",
            [user(astrion_ask((("subtype", "ask_master"),), receiver=TL))],
            [("TW208", "Tester_1", 0)],
            agent="Tester_1",
            profile="astrion",
        ),
        case(
            "TW112 an astrion header naming an invalid receiver",
            [user(env(UIO, "提问", "msg_8d02e4a7c5", "Ask", "Ready?", receiver="Full-Stack Engineer_01"))],
            [("TW112", FSE, 0), ("TW208", FSE, 0)],
            agent=FSE,
            profile="astrion",
        ),
    ]
