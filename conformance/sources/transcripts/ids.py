"""The cases of ids.json, TW3xx: uniqueness and shape of message ids."""

from __future__ import annotations

import copy
from typing import Any

from conformance.sources.transcripts.blocks import (
    ASK_MASTER,
    FSE,
    OUT1,
    OUT2,
    TASK,
    TL,
    UIO,
    bundle_with,
    calls,
    case,
    env,
    error,
    messages,
    result,
    spec_team,
    user,
)
from conformance.sources.transcripts.builders import small_session


def id_cases() -> list[dict[str, Any]]:
    def copy_ask_to_fse(b: dict[str, Any]) -> None:
        ask = next(
            m
            for m in messages(b, TL)
            if m["role"] == "user" and m["content"].startswith(f"来自 {FSE} 的提问")
        )
        messages(b, UIO).append(copy.deepcopy(ask))

    copied = bundle_with(copy_ask_to_fse)
    at = len(messages(copied, UIO)) - 1
    return [
        case(
            "TW301 two different reports with one id",
            [user(OUT1), user(OUT2.replace("out_uio_002", "out_uio_001"))],
            [("TW301", TL, 1)],
            agent=TL,
        ),
        case("TW301 near miss: distinct ids", [user(OUT1), user(OUT2)], [], agent=TL),
        case(
            "TW301 near miss: astrion answer that reuses its question's id",
            [
                calls("ask_master", {"question": "Which blue?"}),
                result(
                    env(TL, "回答", "msg_0a1b2c3d4e", "Answer", "Navy.", (("question_id", "msg_0a1b2c3d4e"),))
                ),
                user(env(TL, "消息", "msg_1a1b2c3d4e", "Message", "Also")),
            ],
            [],
            agent=UIO,
            profile="astrion",
        ),
        case("TW302 one report delivered twice", [user(OUT1), user(OUT1)], [("TW302", TL, 1)], agent=TL),
        case("TW302 near miss: two reports", [user(OUT1), user(OUT2)], [], agent=TL),
        case("TW303 one ask delivered to two agents", copied, [("TW303", UIO, at), ("TW511", UIO, at)]),
        case("TW303 near miss: the clean session", small_session(), []),
        case(
            "TW304 an agent-chosen id without the shape",
            [calls("ask_master", {"question": "Which blue?", "question_id": "q1"}), result(error("timeout"))],
            [("TW304", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW304 ask_master with a question_id of the msg_ prefix, and the Ask it became",
            {
                "teamwire": "1.0",
                "agents": {
                    TL: {"role_id": "team-leader", "messages": [
                        user(env(UIO, "提问", "msg_uio_001", "Ask", "Which blue?")),
                    ]},
                    UIO: {"role_id": "ui-operator", "agent_id": 1, "messages": [
                        calls("ask_master", {"question": "Which blue?", "question_id": "msg_uio_001"}),
                        result(error("timeout")),
                    ]},
                },
            },
            [("TW304", UIO, 0), ("TW304", TL, 0)],
        ),
        case(
            "TW304 near miss: ask_uio_001",
            [calls("ask_master", ASK_MASTER), result(error("timeout"))],
            [],
            agent=UIO,
        ),
        case(
            "TW305 a report id with another role's abbreviation",
            [user(env(UIO, "任务进度输出", "out_fse_001", "Output", "Working."))],
            [("TW305", TL, 0)],
            agent=TL,
        ),
        case("TW305 near miss: out_uio_001", [user(OUT1)], [], agent=TL),
        *id_shape_cases(),
        *spec_id_cases(),
    ]

def spec_id_cases() -> list[dict[str, Any]]:
    """Ids across the conversations of a session (TW-ID-010, TW-ID-011)."""
    s, ui, fse = spec_team()
    clean = copy.deepcopy(s.bundle())
    ui_task, fse_task = s.sent[0], s.sent[1]
    fse_task.delivery["content"] = fse_task.delivery["content"].replace(fse_task.id, ui_task.id)
    shared_task, task_at = s.bundle(), s.index(FSE, fse_task.delivery)

    s, ui, fse = spec_team()
    note = s.message(ui)
    s.say(ui)
    fse.messages.append(copy.deepcopy(note.delivery))
    copied = s.bundle()
    copied_at = len(fse.messages) - 1

    s, ui, fse = spec_team()
    first, second = s.message(ui), s.message(fse)
    second.delivery["content"] = second.delivery["content"].replace(second.id, first.id)
    shared_message, message_at = s.bundle(), s.index(FSE, second.delivery)

    # The first conversation that repeats an id of another still brings ids of its own.
    s, ui, fse = spec_team()
    ui2 = s.create("ui-operator", "UI Operator", 2)
    to_fse, to_ui2 = s.message(fse), s.message(ui2)
    ui_task, fse_task = s.sent[0], s.sent[1]
    fse_task.delivery["content"] = fse_task.delivery["content"].replace(fse_task.id, ui_task.id)
    to_ui2.delivery["content"] = to_ui2.delivery["content"].replace(to_ui2.id, to_fse.id)
    twice_reused = s.bundle()
    twice_at = (s.index(FSE, fse_task.delivery), s.index(ui2.name, to_ui2.delivery))
    return [
        case("TW301 the Tasks of two sub-agents carry one id", shared_task,
             [("TW301", FSE, task_at)]),
        case("TW301 near miss: task_001 and task_002 in two conversations", clean, []),
        case("TW301 the leader's Messages to two sub-agents carry one id", shared_message,
             [("TW301", FSE, message_at)]),
        case("TW301 two ids, each reused in a later conversation", twice_reused,
             [("TW301", FSE, twice_at[0]), ("TW301", "UI Operator_2", twice_at[1])]),
        case("TW303 a leader's Message is delivered to its receiver and to another sub-agent",
             copied, [("TW303", FSE, copied_at), ("TW511", FSE, copied_at)]),
        case("TW303 near miss: two Messages with two ids, one to each sub-agent",
             spec_messages_to_both(), []),
    ]


def spec_messages_to_both() -> dict[str, Any]:
    s, ui, fse = spec_team()
    s.message(ui)
    s.message(fse)
    return s.bundle()


def id_shape_cases() -> list[dict[str, Any]]:
    """Which ids the router allocates and which an agent chooses, by sender and type.

    The router allocates the ids of Tasks, reports, Answers and the Team Leader's Messages
    (TW-ID-004): one without the shape of the prefix table breaks a MUST (TW-ID-003), TW107,
    an error. The ids of Asks (the leader's ask_sub_agent included) and of sub-agents' Messages
    are chosen by the calling agent: their shape is a SHOULD (TW-ID-012), TW304, a warning,
    in the envelope and in the ask tool call alike. Each malformed id has a near miss, the
    same message with a well-formed id.
    """
    out: list[dict[str, Any]] = []
    # (what, sender, label, tag, malformed id, well-formed id, receiver, rule)
    envelopes = [
        ("a Team Leader Message", TL, "消息", "Message", "msg-tl-7", "msg_tl_007", UIO, "TW107"),
        ("a Team Leader Message, counter not padded", TL, "消息", "Message", "msg_tl_7",
         "msg_tl_007", UIO, "TW107"),
        ("a Team Leader Task", TL, "任务发布", "Task", "task-7", "task_007", UIO, "TW107"),
        ("a sub-agent's progress report", UIO, "任务进度输出", "Output", "out-uio-7",
         "out_uio_007", TL, "TW107"),
        ("a sub-agent's completion", UIO, "任务完成汇报", "Output", "out_uio_7", "out_uio_007",
         TL, "TW107"),
        ("a sub-agent's Message (ask_other_agent, agent-chosen)", FSE, "消息", "Message",
         "msg_fse_7", "msg_fse_007", UIO, "TW304"),
        ("a sub-agent's Ask (agent-chosen)", UIO, "提问", "Ask", "ask-uio-7", "ask_uio_007", TL,
         "TW304"),
        ("a Team Leader Ask (ask_sub_agent, agent-chosen)", TL, "提问", "Ask", "ask-tl-7",
         "ask_tl_007", UIO, "TW304"),
    ]
    for what, sender, label, tag, bad, good, receiver, rule in envelopes:
        for profile in ("strict", "astrion"):
            suffix = "" if profile == "strict" else ", under profile astrion"
            text = env(sender, label, bad, tag, "Use the blue palette.")
            out.append(case(f"{rule} {what} with the malformed id {bad!r}{suffix}",
                            [user(text)], [(rule, receiver, 0)], agent=receiver,
                            profile=profile))
        out.append(case(f"{rule} near miss: {what} with the id {good!r}",
                        [user(env(sender, label, good, tag, "Use the blue palette."))], [],
                        agent=receiver))
    # The plan a first, well-formed Message of the leader leaves must still check the ids of
    # the next ones.
    out.append(case(
        "TW107 a Team Leader Message with a malformed id after one with a well-formed id",
        [user(TASK), user(env(TL, "消息", "msg_tl_001", "Message", "Use blue.")),
         user(env(TL, "消息", "msg-tl-7", "Message", "Use navy."))],
        [("TW107", UIO, 2)], agent=UIO))
    out.append(case(
        "TW106 a Team Leader Message with the ask_ prefix (the router allocates it)",
        [user(env(TL, "消息", "ask_tl_001", "Message", "Use blue."))],
        [("TW106", UIO, 0)], agent=UIO))
    out.append(case(
        "TW304 near miss: a Team Leader Message with the ask_ prefix is TW106, not agent-chosen",
        [user(env(TL, "消息", "ask_tl_001", "Message", "Use blue."))],
        [("TW106", UIO, 0)], agent=UIO))
    out.append(case(
        "TW107 near miss: a Team Leader Ask with the msg_ prefix is agent-chosen (TW304)",
        [user(env(TL, "提问", "msg_tl_001", "Ask", "Status?"))],
        [("TW304", UIO, 0)], agent=UIO))
    answer_to = {"question": "Which shade of blue?", "question_id": "ask_uio_001"}
    for bad in ("ans-tl-7", "ans_tl_7"):
        out.append(case(
            f"TW107 the Team Leader's Answer with the malformed id {bad!r}",
            [calls("ask_master", answer_to),
             result(env(TL, "回答", bad, "Answer", "Navy.", (("question_id", "ask_uio_001"),)))],
            [("TW107", UIO, 1)], agent=UIO))
    out.append(case(
        "TW107 a sub-agent's Answer (to ask_sub_agent) with a malformed id",
        [calls("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                    "task": "Design the palette."}, "call_0"),
         result({"success": True, "agent_id": 1, "role_id": "ui-operator", "display_name": UIO,
                 "task_id": "task_001"}, "call_0"),
         calls("ask_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "question": "Status?",
                                 "question_id": "ask_tl_001"}),
         result(env(UIO, "回答", "ans-uio-1", "Answer", "Done soon.",
                    (("question_id", "ask_tl_001"),)))],
        [("TW107", TL, 3)], agent=TL))
    out.append(case(
        "TW107 near miss: the Answer with the id ans_tl_007",
        [calls("ask_master", answer_to),
         result(env(TL, "回答", "ans_tl_007", "Answer", "Navy.", (("question_id", "ask_uio_001"),)))],
        [], agent=UIO))
    # Agent-chosen ids as the ask tools take them.
    chosen: list[tuple[str, dict[str, Any], str, str, str, str]] = [
        ("ask_master", {"question": "Which blue?"}, "question_id", "ask-uio-7", "ask_uio_007", UIO),
        ("ask_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "question": "Status?"},
         "question_id", "ask-tl-7", "ask_tl_007", TL),
        ("ask_other_agent", {"target_agent_id": 1, "role_id": "full-stack-engineer",
                             "content": "Is the API final?"}, "message_id", "ask_uio_7",
         "ask_uio_007", UIO),
        ("ask_other_agent", {"target_agent_id": 1, "role_id": "full-stack-engineer",
                             "content": "The pages are ready."}, "message_id", "msg_uio_7",
         "msg_uio_007", UIO),
    ]
    for tool, arguments, key, bad, good, caller in chosen:
        text = "Asking." if tool == "ask_other_agent" else ""
        verdicts: list[tuple[str, list[tuple[str, str | None, int | None]]]] = [
            (bad, [("TW304", caller, 0)]), (good, [])]
        for value, expect in verdicts:
            near = "" if expect else "near miss: "
            out.append(case(
                f"TW304 {near}{tool} with the agent-chosen {key} {value!r}",
                [calls(tool, {**arguments, key: value}, text=text), result(error("timeout"))],
                expect, agent=caller))
    return out
