"""The cases of tools.json, TW4xx: tool calls, arguments, permissions, targets, results."""

from __future__ import annotations

import json
from typing import Any

from conformance.sources.transcripts.blocks import (
    ANSWER,
    ASK_MASTER,
    CUSTOM_ROLE,
    FSE,
    OK,
    ROLE_ADDED,
    TL,
    UIO,
    bundle_with,
    calls,
    case,
    env,
    error,
    messages,
    result,
    say,
    stopped_while_asking,
    user,
)
from conformance.sources.transcripts.builders import small_session

# The Team Leader's arguments creating UI Operator_1 and Full-Stack Engineer_1, and a
# create_sub_agent call that succeeded.
CREATE_UIO = {"agent_id": 1, "role_id": "ui-operator", "task": "Design the palette."}
CREATE_FSE = {"agent_id": 1, "role_id": "full-stack-engineer", "task": "Write the API."}
CREATED = [calls("create_sub_agent", CREATE_UIO, "c0"), result(OK, "c0")]


def drop_role_ids(bundle: dict[str, Any]) -> None:
    """Remove role_id from the peer ask and answer: the caller is never its own target."""
    for name in (UIO, FSE):
        for message in messages(bundle, name):
            for call in message.get("tool_calls") or ():
                if call["function"]["name"] in ("ask_other_agent", "answer_other_agent"):
                    arguments = json.loads(call["function"]["arguments"])
                    arguments.pop("role_id", None)
                    call["function"]["arguments"] = json.dumps(arguments, ensure_ascii=False)


def invalid_arguments_json_cases() -> list[dict[str, Any]]:
    """TW401 invalid-arguments-json: a protocol tool call's arguments are not a JSON object in a
    string."""
    return [
        case(
            "TW401 arguments with a trailing comma",
            [calls("create_sub_agent", '{"agent_id": 1,}'), result(error("invalid-arguments"))],
            [("TW401", TL, 0)],
            agent=TL,
        ),
        case("TW401 near miss: valid arguments", CREATED, [], agent=TL),
        case(
            "TW401 near miss: an empty arguments string reads as no arguments",
            [calls("list_agents", ""), result({"success": True, "roles": []})],
            [],
            agent=TL,
        ),
    ]


def invalid_arguments_cases() -> list[dict[str, Any]]:
    """TW402 invalid-arguments: a protocol tool call's arguments do not satisfy the tool's schema."""
    return [
        case(
            "TW402 an empty arguments string for a tool with required parameters",
            [calls("send_message_to_sub_agent", " "), result(error("invalid-arguments"))],
            [("TW402", TL, 0), ("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 create_sub_agent without agent_id",
            [
                calls("create_sub_agent", {"role_id": "ui-operator", "task": "Design."}),
                result(error("invalid-arguments")),
            ],
            [("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 an agent_id written with a fraction (1.0) is no integer",
            [calls("create_sub_agent", '{"agent_id": 1.0, "role_id": "ui-operator", "task": "Design."}'),
             result(error("invalid-arguments"))],
            [("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 an agent_id written with an exponent (1e0) is no integer",
            [calls("send_message_to_sub_agent", '{"agent_id": 1e0, "message": "Use the new palette."}'),
             result(error("invalid-arguments"))],
            [("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 a timeout_seconds beyond I-JSON's exact integers (2^53)",
            [calls("create_sub_agent", '{"agent_id": 1, "role_id": "ui-operator", "task": '
                   '"Design.", "timeout_seconds": 9007199254740992}'),
             result(error("invalid-arguments"))],
            [("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 near miss: a timeout_seconds of 2^53-1, the largest exact integer",
            [calls("create_sub_agent", '{"agent_id": 1, "role_id": "ui-operator", "task": '
                   '"Design.", "timeout_seconds": 9007199254740991}'),
             result({"success": True, "agent_id": 1, "role_id": "ui-operator",
                     "display_name": "UI Operator_1", "status": "running",
                     "task_id": "task_001"})],
            [],
            agent=TL,
        ),
        case(
            "TW402 blank task text",
            [
                calls("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": " "}),
                result(error("invalid-arguments")),
            ],
            [("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 a custom role with a blank prompt",
            [calls("create_custom_agent", dict(CUSTOM_ROLE, prompt="  ")),
             result(error("invalid-arguments"))],
            [("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 a custom role with a blank description, under astrion",
            [calls("create_custom_agent", {"role_id": "api-designer", "name": "API Designer",
                                           "description": "", "body_prompt": "Use REST."}),
             result(error("invalid-arguments"))],
            [("TW402", TL, 0)],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW402 near miss: a blank argument the tool does not define is ignored",
            [calls("list_agents", {"prompt": " "}), result({"success": True, "roles": []})],
            [],
            agent=TL,
        ),
        case(
            "TW402 near miss: astrion's custom role without a description",
            [calls("create_custom_agent", {"role_id": "api-designer", "name": "API Designer",
                                           "body_prompt": "Use REST."}),
             result(ROLE_ADDED)],
            [],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW402 near miss: profile astrion numbers the agent itself",
            [calls("create_sub_agent", {"role_id": "ui-operator", "task": "Design."}), result(OK)],
            [],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW402 an astrion intent that is not a string, on astrion's form of the call",
            [calls("create_sub_agent", {"role_id": "ui-operator", "task": "Design.", "intent": 5}),
             result(OK)],
            [("TW402", TL, 0)],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW402 near miss: the same intent beside strict's form, which stays valid (TW-PROF-004)",
            [calls("list_agents", {"intent": 5}), result({"success": True, "roles": []})],
            [],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW402 arguments nest 65 levels deep, inside an argument the tool does not define",
            [calls("send_message_to_sub_agent", '{"agent_id": 1, "message": "Hi", "meta": '
                   + "[" * 64 + "]" * 64 + "}"),
             result(error("invalid-arguments"))],
            [("TW402", TL, 0)],
            agent=TL,
        ),
        case(
            "TW402 near miss: arguments 64 levels deep",
            [*CREATED,
             calls("send_message_to_sub_agent", '{"agent_id": 1, "message": "Hi", "meta": '
                   + '{"a": ' * 62 + "[]" + "}" * 62 + "}", "c1"),
             result({"success": True, "display_name": "UI Operator_1",
                     "message_id": "msg_tl_001"}, "c1")],
            [],
            agent=TL,
        ),
    ]


def leader_tool_by_sub_agent_cases() -> list[dict[str, Any]]:
    """TW403 leader-tool-by-sub-agent: a sub-agent calls a Team Leader tool."""
    return [
        case(
            "TW403 a sub-agent calls create_sub_agent",
            [calls("create_sub_agent", CREATE_FSE), result(error("forbidden-tool"))],
            [("TW403", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW403 near miss: it asks the leader instead",
            [calls("ask_master", ASK_MASTER), result(ANSWER)],
            [],
            agent=UIO,
        ),
    ]


def sub_agent_tool_by_leader_cases() -> list[dict[str, Any]]:
    """TW404 sub-agent-tool-by-leader: the Team Leader calls a sub-agent tool."""
    return [
        case(
            "TW404 the Team Leader calls ask_other_agent",
            [
                calls(
                    "ask_other_agent",
                    {"target_agent_id": 1, "content": "Status?", "message_id": "ask_tl_001"},
                ),
                result(error("forbidden-tool")),
            ],
            [("TW404", TL, 0)],
            agent=TL,
        ),
        case(
            "TW404 near miss: it calls ask_sub_agent",
            [
                *CREATED,
                calls("ask_sub_agent", {"agent_id": 1, "question": "Status?", "question_id": "ask_tl_001"}),
                result(
                    env(
                        UIO, "回答", "ans_uio_001", "Answer", "Nearly done.", (("question_id", "ask_tl_001"),)
                    )
                ),
            ],
            [],
            agent=TL,
        ),
    ]


def removed_tool_cases() -> list[dict[str, Any]]:
    """TW405 removed-tool: a tool removed in multi-agent mode (close_sub_agent) is called."""
    return [
        case(
            "TW405 close_sub_agent",
            [*CREATED, calls("close_sub_agent", {"agent_id": 1}), result(error("forbidden-tool"))],
            [("TW405", TL, 2)],
            agent=TL,
        ),
        case(
            "TW405 near miss: terminate_sub_agent",
            [*CREATED, calls("terminate_sub_agent", {"agent_id": 1}), result(OK)],
            [],
            agent=TL,
        ),
    ]


def forbidden_tool_cases() -> list[dict[str, Any]]:
    """TW406 forbidden-tool: report_progress or finish_task is called."""
    return [
        case(
            "TW406 finish_task",
            [calls("finish_task", {"summary": "Done."}), result("ok")],
            [("TW406", UIO, 0)],
            agent=UIO,
        ),
        case("TW406 near miss: a natural completion", [say("Done.")], [], agent=UIO),
    ]


def agent_id_reused_cases() -> list[dict[str, Any]]:
    """TW407 agent-id-reused: create_sub_agent reuses a (role_id, agent_id) pair."""
    return [
        case(
            "TW407 the same role and agent_id created twice",
            [*CREATED, calls("create_sub_agent", CREATE_UIO, "c1"), result(OK, "c1")],
            [("TW407", TL, 2)],
            agent=TL,
        ),
        case(
            "TW407 near miss: the second instance is number 2",
            [*CREATED, calls("create_sub_agent", dict(CREATE_UIO, agent_id=2), "c1"), result(OK, "c1")],
            [],
            agent=TL,
        ),
    ]


def unknown_target_cases() -> list[dict[str, Any]]:
    """TW408 unknown-target: a targeting call that succeeded names no existing sub-agent."""
    return [
        case(
            "TW408 a message to an agent that does not exist succeeds",
            [calls("send_message_to_sub_agent", {"agent_id": 7, "message": "Hi"}), result(OK)],
            [("TW408", TL, 0)],
            agent=TL,
        ),
        case(
            "TW408 near miss: the call fails with unknown-agent",
            [
                calls("send_message_to_sub_agent", {"agent_id": 7, "message": "Hi"}),
                result(error("unknown-agent")),
            ],
            [],
            agent=TL,
        ),
        case(
            "TW408 near miss: a create that failed makes no agent, so one of that name was "
            "there before",
            {"teamwire": "1.0", "agents": {
                TL: {"role_id": "team-leader", "messages": [
                    {"role": "system", "content": "You are the Team Leader."},
                    user("Build the settings page."),
                    calls("create_sub_agent", {"agent_id": 2, "role_id": "ui-operator",
                                               "task": " "}, "c1"),
                    result(error("invalid-arguments"), "c1"),
                    calls("send_message_to_sub_agent", {"agent_id": 2, "message": "Hi"}, "c2"),
                    result({"success": True, "display_name": "UI Operator_2",
                            "message_id": "msg_tl_001"}, "c2"),
                    say("Sent."),
                ]},
                "UI Operator_2": {"role_id": "ui-operator", "agent_id": 2, "messages": [
                    {"role": "system", "content": "You are UI Operator."},
                    user(env(TL, "消息", "msg_tl_001", "Message", "Hi")),
                ]},
            }},
            [("TW402", TL, 2)],
        ),
        case(
            "TW408 under astrion, a lone conversation names by display name a number no "
            "sub-agent has (TW-PROF-026)",
            [
                *CREATED,
                calls("send_message_to_sub_agent", {"display_name": "UI Operator_7",
                                                    "message": "Hi"}, "c1"),
                result(OK, "c1"),
            ],
            [("TW408", TL, 2)],
            profile="astrion",
            agent=TL,
        ),
        case(
            "TW408 near miss: under astrion, a lone conversation names the sub-agent it created "
            "by display name (TW-PROF-026)",
            [
                *CREATED,
                calls("send_message_to_sub_agent", {"display_name": "UI Operator_1",
                                                    "message": "Hi"}, "c1"),
                result(OK, "c1"),
            ],
            [],
            profile="astrion",
            agent=TL,
        ),
    ]


def terminated_target_cases() -> list[dict[str, Any]]:
    """TW409 terminated-target: a call to a terminated sub-agent succeeded."""
    return [
        case(
            "TW409 a message to a terminated agent succeeds",
            [
                *CREATED,
                calls("terminate_sub_agent", {"agent_id": 1}, "c1"),
                result(OK, "c1"),
                calls("send_message_to_sub_agent", {"agent_id": 1, "message": "Hi"}, "c2"),
                result(OK, "c2"),
            ],
            [("TW409", TL, 4)],
            agent=TL,
        ),
        case(
            "TW409 near miss: its status may still be read",
            [
                *CREATED,
                calls("terminate_sub_agent", {"agent_id": 1}, "c1"),
                result(OK, "c1"),
                calls("get_sub_agent_status", {"agent_id": 1}, "c2"),
                result(OK, "c2"),
            ],
            [],
            agent=TL,
        ),
        case(
            "TW409 under astrion, a lone conversation names a terminated sub-agent by display "
            "name: the number its name ends with (TW-PROF-026)",
            [
                *CREATED,
                calls("terminate_sub_agent", {"display_name": "UI Operator_1"}, "c1"),
                result(OK, "c1"),
                calls("send_message_to_sub_agent", {"display_name": "UI Operator_1",
                                                    "message": "Hi"}, "c2"),
                result(OK, "c2"),
            ],
            [("TW409", TL, 4)],
            profile="astrion",
            agent=TL,
        ),
    ]


def ambiguous_target_cases() -> list[dict[str, Any]]:
    """TW410 ambiguous-target: a call whose agent_id matches sub-agents of two roles succeeded
    without role_id."""
    return [
        case(
            "TW410 agent_id 1 of two roles, without role_id, succeeds",
            [
                *CREATED,
                calls("create_sub_agent", CREATE_FSE, "c1"),
                result(OK, "c1"),
                calls("send_message_to_sub_agent", {"agent_id": 1, "message": "Hi"}, "c2"),
                result(OK, "c2"),
            ],
            [("TW410", TL, 4)],
            agent=TL,
        ),
        case(
            "TW410 near miss: role_id names the role",
            [
                *CREATED,
                calls("create_sub_agent", CREATE_FSE, "c1"),
                result(OK, "c1"),
                calls(
                    "send_message_to_sub_agent",
                    {"agent_id": 1, "role_id": "ui-operator", "message": "Hi"},
                    "c2",
                ),
                result(OK, "c2"),
            ],
            [],
            agent=TL,
        ),
        case(
            "TW410 near miss: a sub-agent's own number names the other role's agent_id 1",
            bundle_with(drop_role_ids),
            [],
        ),
    ]


def missing_tool_result_cases() -> list[dict[str, Any]]:
    """TW411 missing-tool-result: a tool call gets no result before the next message."""
    return [
        case(
            "TW411 a message arrives before the result",
            [calls("read_file", {"path": "a.ts"}), user("hello"), result("code")],
            [("TW411", UIO, 0)],
            agent=UIO,
        ),
        case(
            "TW411 near miss: result first",
            [calls("read_file", {"path": "a.ts"}), result("code"), user("hello")],
            [],
            agent=UIO,
        ),
        case(
            "TW411 near miss: an astrion stop_sub_agent ended the turn of a waiting asker",
            stopped_while_asking(stop=True),
            [],
            profile="astrion",
        ),
        case(
            "TW411 the same under astrion without the stop",
            stopped_while_asking(stop=False),
            [("TW411", UIO, 2)],
            profile="astrion",
        ),
        case(
            "TW411 the same under strict, where stop_sub_agent is no protocol tool",
            stopped_while_asking(stop=True),
            [("TW411", UIO, 2)],
        ),
    ]


def duplicate_tool_result_cases() -> list[dict[str, Any]]:
    """TW412 duplicate-tool-result: a tool call gets a second result."""
    return [
        case(
            "TW412 two results for one call",
            [calls("read_file", {"path": "a.ts"}), result("code"), result("code")],
            [("TW412", UIO, 2)],
            agent=UIO,
        ),
        case(
            "TW412 near miss: one result",
            [calls("read_file", {"path": "a.ts"}), result("code")],
            [],
            agent=UIO,
        ),
    ]


def orphan_tool_result_cases() -> list[dict[str, Any]]:
    """TW413 orphan-tool-result: a tool result answers no call."""
    return [
        case(
            "TW413 a result for a call never made",
            [calls("read_file", {"path": "a.ts"}), result("code"), result("x", "call_9")],
            [("TW413", UIO, 2)],
            agent=UIO,
        ),
        case(
            "TW413 near miss: each result answers its call",
            [calls("read_file", {"path": "a.ts"}), result("code")],
            [],
            agent=UIO,
        ),
    ]


def duplicate_tool_call_id_cases() -> list[dict[str, Any]]:
    """TW414 duplicate-tool-call-id: two tool calls of one conversation share an id."""
    return [
        case(
            "TW414 two calls with one id",
            [
                calls("read_file", {"path": "a.ts"}),
                result("code"),
                calls("read_file", {"path": "b.ts"}),
                result("code"),
            ],
            [("TW414", UIO, 2)],
            agent=UIO,
        ),
        case(
            "TW414 near miss: distinct ids",
            [
                calls("read_file", {"path": "a.ts"}),
                result("code"),
                calls("read_file", {"path": "b.ts"}, "call_2"),
                result("code", "call_2"),
            ],
            [],
            agent=UIO,
        ),
    ]


def self_target_cases() -> list[dict[str, Any]]:
    """TW415 self-target: a call that targets its own caller succeeded."""
    # Full-Stack Engineer_1, as the Team Leader never terminates it: a terminated agent's
    # open call may never have run.
    self_ask = bundle_with(
        lambda b: messages(b, FSE).append(
            calls(
                "ask_other_agent",
                {
                    "target_agent_id": 1,
                    "role_id": "full-stack-engineer",
                    "content": "Me?",
                    "message_id": "ask_fse_009",
                },
                "self",
                "Asking myself.",
            )
        )
    )
    self_at = len(messages(self_ask, FSE)) - 1
    unrun_self_answer = bundle_with(lambda b: messages(b, UIO).append(calls(
        "answer_other_agent", {"source_agent_id": 1, "role_id": "ui-operator",
                               "message_id": "ask_uio_009", "answer": "Me."}, "self")))
    return [
        case(
            "TW415 a sub-agent asks itself (accepted and pending; its text, a progress report, "
            "never reaches the leader)",
            self_ask,
            [("TW415", FSE, self_at), ("TW512", FSE, self_at)],
        ),
        case("TW415 near miss: the clean session", small_session(), []),
        case(
            "TW415 near miss: a sub-agent the leader terminated answers itself in a call that has "
            "no result, so may never have run",
            unrun_self_answer,
            [],
        ),
    ]


def invalid_tool_result_cases() -> list[dict[str, Any]]:
    """TW416 invalid-tool-result: a protocol tool's result is not a success object, an error result
    or (for asks) an Answer."""
    return [
        case(
            "TW416 send_message_to_sub_agent answers in prose",
            [
                *CREATED,
                calls("send_message_to_sub_agent", {"agent_id": 1, "message": "Hi"}, "c1"),
                result("Message sent.", "c1"),
            ],
            [("TW416", TL, 3)],
            agent=TL,
        ),
        case(
            "TW416 a status that is no routing state",
            [calls("list_active_sub_agents", {}), result({"success": True, "agents": [
                {"agent_id": 1, "role_id": "ui-operator", "display_name": "UI Operator_1",
                 "status": "failed", "summary": ""}]})],
            [("TW416", TL, 1)],
            agent=TL,
        ),
        case(
            "TW416 near miss: profile astrion reads failed as completed after an error",
            [calls("list_active_sub_agents", {}), result({"success": True, "agents": [
                {"agent_id": 1, "role_id": "ui-operator", "display_name": "UI Operator_1",
                 "status": "failed", "summary": ""}]})],
            [],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW416 near miss: a JSON success result",
            [
                *CREATED,
                calls("send_message_to_sub_agent", {"agent_id": 1, "message": "Hi"}, "c1"),
                result({"success": True, "display_name": UIO, "message_id": "msg_tl_001"}, "c1"),
            ],
            [],
            agent=TL,
        ),
    ]


def role_exists_cases() -> list[dict[str, Any]]:
    """TW417 role-exists: create_custom_agent succeeded for a role id or name the catalog already
    has."""
    return [
        case(
            "TW417 a second create_custom_agent for one role id succeeds",
            [calls("create_custom_agent", CUSTOM_ROLE), result(ROLE_ADDED),
             calls("create_custom_agent", CUSTOM_ROLE, "call_2"), result(ROLE_ADDED, "call_2")],
            [("TW417", TL, 2)],
            agent=TL,
        ),
        case(
            "TW417 near miss: the second call fails with role-exists",
            [calls("create_custom_agent", CUSTOM_ROLE), result(ROLE_ADDED),
             calls("create_custom_agent", CUSTOM_ROLE, "call_2"),
             result(error("role-exists"), "call_2")],
            [],
            agent=TL,
        ),
        case(
            "TW417 a second custom role under a new role id but with the same name",
            [calls("create_custom_agent", CUSTOM_ROLE), result(ROLE_ADDED),
             calls("create_custom_agent", dict(CUSTOM_ROLE, role_id="api-designer-2"), "call_2"),
             result(dict(ROLE_ADDED, role_id="api-designer-2"), "call_2")],
            [("TW417", TL, 2)],
            agent=TL,
        ),
        case(
            "TW417 near miss: a second custom role with a new role id and a new name",
            [calls("create_custom_agent", CUSTOM_ROLE), result(ROLE_ADDED),
             calls("create_custom_agent",
                   dict(CUSTOM_ROLE, role_id="api-designer-2", name="API Designer Two"), "call_2"),
             result(dict(ROLE_ADDED, role_id="api-designer-2", name="API Designer Two"), "call_2")],
            [],
            agent=TL,
        ),
        case(
            "TW417 a custom role with the role id of a sub-agent created before",
            [*CREATED,
             calls("create_custom_agent", dict(CUSTOM_ROLE, role_id="ui-operator", name="UI Designer"),
                   "call_2"),
             result(dict(ROLE_ADDED, role_id="ui-operator", name="UI Designer"), "call_2")],
            [("TW417", TL, 2)],
            agent=TL,
        ),
        case(
            "TW417 near miss: a new custom role after a sub-agent of another role was created",
            [*CREATED, calls("create_custom_agent", CUSTOM_ROLE, "call_2"), result(ROLE_ADDED, "call_2")],
            [],
            agent=TL,
        ),
        case(
            "TW417 near miss: profile astrion replaces the role",
            [calls("create_custom_agent", dict(CUSTOM_ROLE, body_prompt="Use REST.")),
             result(ROLE_ADDED),
             calls("create_custom_agent", dict(CUSTOM_ROLE, body_prompt="Use JSON:API."), "call_2"),
             result(ROLE_ADDED, "call_2")],
            [],
            agent=TL,
            profile="astrion",
        ),
    ]


def repeated_argument_name_cases() -> list[dict[str, Any]]:
    """TW418 repeated-argument-name: a protocol tool call's arguments name one member twice in the
    same object."""
    return [
        case(
            "TW418 arguments name one member twice",
            [calls("send_message_to_sub_agent", '{"agent_id": 1, "message": "Hi", "agent_id": 2}'),
             result(error("invalid-arguments"))],
            [("TW418", TL, 0)],
            agent=TL,
        ),
        case(
            "TW418 one name written plainly and once escaped",
            [calls("send_message_to_sub_agent", '{"agent_id": 1, "message": "Hi", '
                   '"\\u006dessage": "Bye"}'),
             result(error("invalid-arguments"))],
            [("TW418", TL, 0)],
            agent=TL,
        ),
        case(
            "TW418 a repeat inside an argument the tool does not define",
            [calls("send_message_to_sub_agent", '{"agent_id": 1, "message": "Hi", '
                   '"meta": [{"k": 1, "k": 2}]}'),
             result(error("invalid-arguments"))],
            [("TW418", TL, 0)],
            agent=TL,
            profile="astrion",
        ),
        case(
            "TW418 near miss: one name in two objects, and colons inside texts",
            [*CREATED,
             calls("send_message_to_sub_agent", '{"agent_id": 1, "message": "Note: \\"k\\": 1", '
                   '"meta": [{"k": 1}, {"k": 2}], "k": {"k": 3}}', "c1"),
             result({"success": True, "display_name": "UI Operator_1",
                     "message_id": "msg_tl_001"}, "c1")],
            [],
            agent=TL,
        ),
    ]


def tool_cases() -> list[dict[str, Any]]:
    """Every case of the file, rule by rule."""
    return [
        *invalid_arguments_json_cases(),
        *invalid_arguments_cases(),
        *leader_tool_by_sub_agent_cases(),
        *sub_agent_tool_by_leader_cases(),
        *removed_tool_cases(),
        *forbidden_tool_cases(),
        *agent_id_reused_cases(),
        *unknown_target_cases(),
        *terminated_target_cases(),
        *ambiguous_target_cases(),
        *missing_tool_result_cases(),
        *duplicate_tool_result_cases(),
        *orphan_tool_result_cases(),
        *duplicate_tool_call_id_cases(),
        *self_target_cases(),
        *invalid_tool_result_cases(),
        *role_exists_cases(),
        *repeated_argument_name_cases(),
    ]
