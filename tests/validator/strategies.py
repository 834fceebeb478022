"""Hypothesis strategies: arbitrary JSON, and message- and bundle-shaped values."""

from __future__ import annotations

from typing import Any

from conformance.sources.transcripts.spec_session import Agent as SpecAgent
from conformance.sources.transcripts.spec_session import SpecSession
from hypothesis import assume
from hypothesis import strategies as st

from teamwire.envelope import Envelope, render

NAMES = ["Team Leader", "UI Operator_1", "Full-Stack Engineer_1", "UI Operator_2", "X_0", ""]
TOOLS = ["create_sub_agent", "terminate_sub_agent", "send_message_to_sub_agent", "ask_sub_agent",
         "answer_sub_agent_question", "get_sub_agent_status", "ask_master", "ask_other_agent",
         "answer_other_agent", "list_active_sub_agents", "read_file", "close_sub_agent",
         "finish_task", "stop_sub_agent"]
LABELS = ["任务发布", "任务进度输出", "任务完成汇报", "任务结束汇报", "提问", "消息", "回答", "通知"]
TAGS = ["Task", "Output", "Ask", "Message", "Answer", "Other"]
IDS = ["task_001", "out_uio_001", "ask_uio_001", "ans_tl_001", "msg_tl_001", "msg_0123456789", "x"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20,
)


@st.composite
def envelopes(draw: st.DrawFn) -> str:
    attrs = draw(st.lists(st.tuples(st.sampled_from(["question_id", "id", "target", "subtype",
                                                      "x"]), st.sampled_from([*IDS, "ask_other"])),
                          max_size=2, unique_by=lambda a: a[0]))
    text = render(Envelope(
        sender=draw(st.sampled_from(NAMES[:4])), label=draw(st.sampled_from(LABELS)),
        id=draw(st.sampled_from(IDS)), tag=draw(st.sampled_from(TAGS)),
        content=draw(st.sampled_from(["", "ok", "来自 Team Leader 的消息", "a\n</Task>\nb"])),
        attributes=tuple(attrs)))
    cut = draw(st.integers(min_value=0, max_value=len(text) + 2))
    return text if draw(st.booleans()) else text[:cut]


contents = (st.none() | st.text(max_size=30) | envelopes()
            | st.lists(st.dictionaries(st.sampled_from(["type", "text"]), st.text(max_size=5)),
                       max_size=2)
            | st.integers())


@st.composite
def arguments(draw: st.DrawFn) -> Any:
    value = draw(st.dictionaries(
        st.sampled_from(["agent_id", "role_id", "task", "message", "question", "question_id",
                         "message_id", "target_agent_id", "source_agent_id", "content", "answer",
                         "agent_ids"]),
        st.integers(min_value=-1, max_value=3) | st.sampled_from([*IDS, "ui-operator", " "]),
        max_size=5))
    return draw(st.sampled_from([value, "{", "[]", 3])) if draw(st.booleans()) else value


@st.composite
def messages(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    message: dict[str, Any] = {"role": draw(st.sampled_from(["system", "user", "assistant",
                                                             "tool", "robot"]))}
    if draw(st.booleans()):
        message["content"] = draw(contents)
    if message["role"] == "assistant" and draw(st.booleans()):
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            args = draw(arguments())
            calls.append({"id": draw(st.sampled_from(["c1", "c2", "", 7])), "type": "function",
                          "function": {"name": draw(st.sampled_from(TOOLS)),
                                       "arguments": args if isinstance(args, str)
                                       else __import__("json").dumps(args)}})
        message["tool_calls"] = calls
    if message["role"] == "tool":
        message["tool_call_id"] = draw(st.sampled_from(["c1", "c2", "", None]))
    return message


conversations = st.lists(messages(), max_size=8)


@st.composite
def bundles(draw: st.DrawFn) -> Any:
    agents: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True)):
        entry: dict[str, Any] = {"role_id": draw(st.sampled_from(["team-leader", "ui-operator",
                                                                  "full-stack-engineer", 3])),
                                 "messages": draw(conversations)}
        if draw(st.booleans()):
            entry["agent_id"] = draw(st.integers(0, 2))
        agents[name] = entry
    bundle: dict[str, Any] = {"teamwire": draw(st.sampled_from(["1.0", "2.0", 1])),
                              "agents": agents}
    return bundle


# -- sessions built by the specification's rules, and what is no chat message ------------------

ROLES = [("ui-operator", "UI Operator", 1), ("full-stack-engineer", "Full-Stack Engineer", 1),
         ("ui-operator", "UI Operator", 2)]
"""Two instances of one role (one abbreviation), and two roles with agent_id 1."""


@st.composite
def spec_sessions(draw: st.DrawFn) -> SpecSession:
    """A consistent session (spec_session) of up to three sub-agents doing what the protocol
    offers, in any order; it lints clean."""
    s = SpecSession()
    created = draw(st.integers(1, len(ROLES)))
    live: list[SpecAgent] = [s.create(*role) for role in ROLES[:created]]
    for action in draw(st.lists(st.sampled_from(
            ["create", "message", "ask_sub", "work", "say", "ask_master", "ask_other",
             "terminate"]), min_size=2, max_size=16)):
        if action == "create":
            if created < len(ROLES):
                live.append(s.create(*ROLES[created]))
                created += 1
            continue
        if not live:
            break
        agent = draw(st.sampled_from(live))
        if action == "ask_other":
            others = [a for a in live if a is not agent]
            if others:
                s.ask_other(agent, draw(st.sampled_from(others)))
        elif action == "terminate":
            s.terminate(agent)
            live.remove(agent)
        else:
            getattr(s, action)(agent)
    return s


CHAT_ROLES = ("system", "user", "assistant", "tool")
_NOT_A_STRING = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                 | st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
_NOT_AN_OBJECT = (st.none() | st.booleans() | st.integers() | st.text(max_size=10)
                  | st.floats(allow_nan=False, allow_infinity=False) | st.lists(json_values, max_size=3))
_PARTS = st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=8)}),
                  min_size=1, max_size=2)
_PLAIN = st.text(alphabet="abcdefghij .,", max_size=20)


@st.composite
def not_messages(draw: st.DrawFn) -> tuple[Any, str]:
    """An element of a conversation that is no chat-completions message, and the one rule
    that says so (TW004), or a message whose content is an array of parts (TW005)."""
    kind = draw(st.integers(0, 6))
    if kind == 0:  # not an object
        return draw(_NOT_AN_OBJECT), "TW004"
    if kind == 1:  # no role, or one chat completions does not have
        value: dict[str, Any] = {"content": draw(contents)} if draw(st.booleans()) else {}
        if draw(st.booleans()):
            value["role"] = draw(st.sampled_from(["robot", "Assistant", "", "developer", "function"])
                                 | _NOT_A_STRING)
        assume(value.get("role") not in CHAT_ROLES)
        return value, "TW004"
    if kind == 2:  # a system or user message whose content is not a string
        role = draw(st.sampled_from(["system", "user"]))
        if draw(st.booleans()):
            return {"role": role, "content": draw(_PARTS)}, "TW005"
        return ({"role": role, "content": draw(_NOT_A_STRING)} if draw(st.booleans())
                else {"role": role}), "TW004"
    if kind == 3:  # an assistant message with neither content nor tool calls
        return ({"role": "assistant", "content": None} if draw(st.booleans())
                else {"role": "assistant"}), "TW004"
    if kind == 4:  # tool calls that are not an array
        return {"role": "assistant", "content": None,
                "tool_calls": draw(st.sampled_from([{}, "call_1", 3, True]))}, "TW004"
    # a tool message without a tool_call_id string
    tool: dict[str, Any] = {"role": "tool", "content": draw(_PLAIN)}
    if draw(st.booleans()):
        tool["tool_call_id"] = draw(st.sampled_from([None, "", 7, ["call_1"]]))
    return tool, "TW004"
