"""Bad tool arguments: always an error result of the spec's shape, never a dead turn.

TW-TOOL-018, TW-TOOL-023, TW-TOOL-024, TW-TOOL-026, TW-TOOL-032, TW-TOOL-038, TW-SEC-006.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teamwire import schemas
from teamwire.envelope import is_envelope, parse
from teamwire.router.runtime import RoleInfo, ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.arguments import argument_problem, tool_definitions
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import SQLiteStore
from tests.router.helpers import LEADER, UIO

CREATE_UIO = ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"})
CREATE_FSE = ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer",
                                   "task": "api"})


def _run(leader: list[Step], subs: dict[str, list[Step]] | None = None,
         **kwargs: Any) -> Session:
    clock = VirtualClock()
    scripts = subs or {}

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(scripts.get(name, []), clock, tag=role_id[:3])

    session = Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers,
                      clock=clock, **kwargs)

    async def go() -> None:
        await session.start("do the thing")
        await session.run_until_idle()

    asyncio.run(go())
    return session


def _result(session: Session, agent: str, call_id: str) -> str:
    """The content of the tool message that answers ``call_id`` (AssertionError if none)."""
    found = [m["content"] for m in session.conversations[agent]
             if m["role"] == "tool" and m["tool_call_id"] == call_id]
    assert len(found) == 1, (agent, call_id, found)
    content: str = found[0]
    return content


def _replies(session: Session, agent: str) -> list[str]:
    return [m["content"] for m in session.conversations[agent] if m["role"] == "assistant"]


def _code(text: str) -> str:
    data = json.loads(text)
    assert data["success"] is False and schemas.is_valid("tool-results", data)
    code: str = data["error"]["code"]
    return code


# -- integers are JSON numbers without fraction or exponent ---------------------------------

NOT_INTEGERS = ["1.0", "1e0", "1E0", "true", "false", '"1"', "null", "[1]", "1.5"]


@pytest.mark.parametrize("literal", NOT_INTEGERS)
def test_agent_id_that_is_not_a_json_integer_gives_invalid_arguments(literal: str) -> None:
    """TW-TOOL-023: ``"agent_id": 1.0`` used to pass the schema, name ``UI Operator_1.0``
    and kill the leader's turn; now it is invalid-arguments and the turn goes on."""
    session = _run([Step(None, (
        ("create_sub_agent",
         f'{{"agent_id": {literal}, "role_id": "ui-operator", "task": "x"}}'),
        CREATE_UIO,
        ("send_message_to_sub_agent", f'{{"agent_id": {literal}, "message": "m"}}'),
        ("get_sub_agent_status", f'{{"agent_id": {literal}}}'),
        ("create_sub_agent", f'{{"agent_id": 1, "role_id": "full-stack-engineer", '
                             f'"task": "x", "timeout_seconds": {literal}}}'),
    )), Step("still here")])
    codes = [_code(_result(session, LEADER, f"call_tl_{n}")) for n in (1, 3, 4, 5)]
    assert codes == ["invalid-arguments"] * 4
    assert json.loads(_result(session, LEADER, "call_tl_2"))["display_name"] == UIO
    assert [r.name for r in session.core.records()] == [LEADER, UIO]  # TW-TOOL-026
    assert "still here" in _replies(session, LEADER)


@pytest.mark.parametrize("literal", ["1.0", "1e0", "true"])
def test_sub_agent_targets_that_are_not_integers_give_invalid_arguments(literal: str) -> None:
    """TW-TOOL-023 for target_agent_id and source_agent_id."""
    session = _run([Step(None, (CREATE_UIO, CREATE_FSE))], {UIO: [Step(None, (
        ("ask_other_agent", f'{{"target_agent_id": {literal}, "role_id": "full-stack-engineer",'
                            f' "content": "q", "message_id": "ask_uio_001"}}'),
        ("answer_other_agent", f'{{"source_agent_id": {literal}, "message_id": "ask_x_001", '
                               f'"answer": "a"}}'),
    ))]})
    assert [_code(_result(session, UIO, f"call_ui-_{n}")) for n in (1, 2)] \
        == ["invalid-arguments"] * 2


def test_argument_texts_that_are_not_json() -> None:
    """TW-TOOL-023: NaN and Infinity are not JSON, a lone surrogate is not Unicode, a number
    too long for the parser is not a traceback."""
    for text in ('{"agent_id": NaN, "message": "m"}', '{"agent_id": Infinity, "message": "m"}',
                 '{"agent_id": 1, "message": "\\ud800"}', '{"agent_id": 1' + "0" * 5000 + "}",
                 "[" * 100_000, '"just a string"', "[]", "null"):
        arguments, problem = argument_problem("send_message_to_sub_agent", text)
        assert arguments is None and problem, text
    assert argument_problem("send_message_to_sub_agent", 1)[0] is None
    assert argument_problem("send_message_to_sub_agent", '{"agent_id": 1, "message": "m"}')[0] \
        == {"agent_id": 1, "message": "m"}


REPEATED_NAMES = [
    '{"agent_id": 1, "message": "m", "message": "n"}',
    '{"agent_id": 1, "agent_id": 1, "message": "m"}',  # the same value twice is no excuse
    '{"agent_id": 1, "message": "m", "\\u006dessage": "n"}',  # one name, once escaped
    '{"agent_id": 1, "message": "m", "extra": {"a": 1, "a": 2}}',  # at any depth
    '{"agent_id": 1, "message": "m", "extra": [{"b": 1}, {"a": [], "a": []}]}',
]


@pytest.mark.parametrize("text", REPEATED_NAMES)
def test_a_member_named_twice_gives_invalid_arguments(text: str) -> None:
    """TW-TOOL-038: which value wins is up to each JSON reader, so the call fails, and the
    turn goes on; the same name in two objects is no repeat."""
    arguments, problem = argument_problem("send_message_to_sub_agent", text)
    assert arguments is None and problem is not None and "twice" in problem
    session = _run([Step(None, (CREATE_UIO, ("send_message_to_sub_agent", text))),
                    Step("still here")])
    assert _code(_result(session, LEADER, "call_tl_2")) == "invalid-arguments"
    assert not [m for m in session.conversations[UIO] if "<Message>" in str(m["content"])]
    assert "still here" in _replies(session, LEADER)
    fine = '{"agent_id": 1, "message": "m", "extra": [{"a": 1}, {"a": 2}], "a": {"a": 3}}'
    assert argument_problem("send_message_to_sub_agent", fine)[1] is None


def test_a_huge_turn_timeout_is_accepted_and_kept_finite() -> None:
    """TW-TOOL-023, TW-TOOL-040: any integer from 1 to 2^53-1 is in range, and the session
    holds it to a finite number; beyond I-JSON's exact range it is invalid-arguments."""
    session = _run([Step(None, (
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "x",
                              "timeout_seconds": 2**53 - 1}),
        ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer", "task": "x",
                              "timeout_seconds": 2**53}),
    ))], {UIO: [Step("done")]})
    assert json.loads(_result(session, LEADER, "call_tl_1"))["success"] is True
    assert session.turn_timeouts[UIO] == 1e9
    assert _code(_result(session, LEADER, "call_tl_2")) == "invalid-arguments"


# -- role names --------------------------------------------------------------------------------

BAD_ROLES = [("coder", "Coder "), ("coder", " Coder"), ("coder", "Coder\u00a0"),
             ("coder", "Team Leader"), ("coder", "Co<der"), ("coder", ""), ("coder", "Co\nder"),
             ("coder", "Cod 的er"), ("Coder", "Coder"), ("team-leader", "Coder"),
             ("-coder", "Coder"), ("c" * 65, "Coder")]


@pytest.mark.parametrize(("role_id", "name"), BAD_ROLES)
def test_create_custom_agent_refuses_bad_names(role_id: str, name: str) -> None:
    """TW-TOOL-018, TW-SEC-006: "Coder " used to be accepted and yield "Coder _1"."""
    session = _run([Step(None, (
        ("create_custom_agent", {"role_id": role_id, "name": name, "description": "d",
                                 "prompt": "p"}),
        ("create_sub_agent", {"agent_id": 1, "role_id": role_id, "task": "x"}),
        ("create_custom_agent", {"role_id": "coder", "name": "Coder", "description": "d",
                                 "prompt": "p"}),
    ))])
    assert _code(_result(session, LEADER, "call_tl_1")) == "invalid-name"
    assert _code(_result(session, LEADER, "call_tl_2")) == "unknown-role"
    assert json.loads(_result(session, LEADER, "call_tl_3")) \
        == {"success": True, "role_id": "coder", "name": "Coder"}


@pytest.mark.parametrize(("description", "prompt"), [("", "p"), ("d", ""), ("d", " \n\t"),
                                                    ("\u3000", "p")])
def test_create_custom_agent_refuses_blank_texts(description: str, prompt: str) -> None:
    """TW-TOOL-024: a blank prompt used to give the role's instances an empty system
    message."""
    session = _run([Step(None, (
        ("create_custom_agent", {"role_id": "coder", "name": "Coder", "description": description,
                                 "prompt": prompt}),
        ("list_agents", {}),
    ))])
    assert _code(_result(session, LEADER, "call_tl_1")) == "invalid-arguments"
    roles = json.loads(_result(session, LEADER, "call_tl_2"))["roles"]
    assert "coder" not in [role["role_id"] for role in roles]


def test_blank_arguments_a_tool_does_not_define_are_ignored() -> None:
    """TW-TOOL-025 before TW-TOOL-024: only the tool's own text parameters must not be blank."""
    assert argument_problem("list_agents", json.dumps({"prompt": "\u3000"}))[1] is None
    assert argument_problem("create_sub_agent", json.dumps({
        "agent_id": 1, "role_id": "ui-operator", "task": "design", "description": " "}))[1] is None
    assert argument_problem("create_custom_agent", json.dumps({
        "role_id": "coder", "name": "Coder", "description": "d", "prompt": " "}))[1] \
        == "prompt must not be empty"


@pytest.mark.parametrize(("role_id", "name"), BAD_ROLES[:4])
def test_a_session_refuses_a_catalog_with_bad_names(role_id: str, name: str) -> None:
    """TW-SEC-006: a host's catalog is held to the same rules."""
    clock = VirtualClock()
    with pytest.raises(ValueError):
        Session(leader=ScriptedAgent([], clock), drivers=lambda n, r: ScriptedAgent([], clock),
                clock=clock, roles=[RoleInfo(role_id, name, "d", "p")])


# -- any JSON at all, to every protocol tool ---------------------------------------------------

LEADER_TOOLS = [d["function"]["name"] for d in tool_definitions()["leader"]]
SUB_TOOLS = [d["function"]["name"] for d in tool_definitions()["sub_agent"]]
PARAMETERS = {d["function"]["name"]: list(d["function"]["parameters"].get("properties", {}))
              for key in ("leader", "sub_agent") for d in tool_definitions()[key]}

VALID: dict[str, dict[str, Any]] = {
    "create_sub_agent": {"agent_id": 2, "role_id": "ui-operator", "task": "t",
                         "timeout_seconds": 60, "acceptance": ["ok"]},
    "terminate_sub_agent": {"agent_id": 1, "role_id": "ui-operator"},
    "send_message_to_sub_agent": {"agent_id": 1, "role_id": "ui-operator", "message": "m"},
    "ask_sub_agent": {"agent_id": 1, "role_id": "ui-operator", "question": "q",
                      "question_id": "ask_tl_001"},
    "answer_sub_agent_question": {"agent_id": 1, "role_id": "ui-operator",
                                  "question_id": "ask_uio_001", "answer": "a"},
    "list_active_sub_agents": {},
    "get_sub_agent_status": {"agent_id": 1, "role_id": "ui-operator"},
    "create_custom_agent": {"role_id": "coder", "name": "Coder", "description": "d",
                            "prompt": "p", "thinking_mode": "fast"},
    "list_agents": {},
    "ask_master": {"question": "q", "question_id": "ask_uio_001"},
    "ask_other_agent": {"target_agent_id": 1, "role_id": "full-stack-engineer", "content": "c",
                        "message_id": "ask_uio_001"},
    "answer_other_agent": {"source_agent_id": 1, "role_id": "full-stack-engineer",
                           "message_id": "ask_fse_001", "answer": "a"},
}
"""A call of each tool that succeeds (or blocks) in the session below; the fuzz mutates it."""

NEAR_INTEGERS = st.sampled_from([1.0, 2.0, 1e0, True, False, 0, -1, 2, 10**30, "1", None, 2.5])
NEAR_STRINGS = st.sampled_from([
    "", " ", "x", "ui-operator", "full-stack-engineer", "team-leader", "Coder ", " Coder",
    "Team Leader", "UI Operator", "Co<der", "task_001", "ask_tl_001", "ask_uio_001",
    "msg_uio_001", "has space", "fast", "</Answer>", "\u2028", "\n", 1, None, ["x"]])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                               max_size=3),
    max_leaves=6)


@st.composite
def _arguments(draw: st.DrawFn, tool: str) -> str:
    """Arguments text: any JSON value, text that is not JSON, or a valid call of ``tool``
    with some parameters dropped or replaced by near misses or by any JSON value."""
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return json.dumps(draw(JSON))
    if shape == 1:
        return draw(st.text(max_size=12))
    arguments = dict(VALID[tool])
    for name in PARAMETERS[tool]:
        change = draw(st.sampled_from(["keep", "keep", "near", "near", "any", "drop"]))
        if change == "near":
            is_integer = name.endswith("agent_id") or name == "timeout_seconds"
            arguments[name] = draw(NEAR_INTEGERS if is_integer else NEAR_STRINGS)
        elif change == "any":
            arguments[name] = draw(JSON)
        elif change == "drop":
            arguments.pop(name, None)
    arguments.update(draw(st.dictionaries(st.text(max_size=5), JSON, max_size=2)))
    return json.dumps(arguments)


def _check_result(text: str) -> None:
    """A tool result of the spec's shape: a JSON object with success, or an Answer envelope."""
    if text.startswith("来"):
        assert is_envelope(text) and parse(text).tag == "Answer"
        return
    data = json.loads(text)
    assert isinstance(data, dict) and isinstance(data["success"], bool)
    if not data["success"]:
        assert schemas.is_valid("tool-results", data), data
        assert data["error"]["code"] and data["error"]["message"]


@pytest.mark.parametrize("tool", LEADER_TOOLS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_arguments_to_a_leader_tool_get_a_tool_result(tool: str, data: st.DataObject) -> None:
    """TW-TOOL-023, TW-TOOL-032: whatever the arguments, each call gets one tool result of the
    common shape (or an Answer) and the leader's turn goes on to its next reply."""
    calls = data.draw(st.lists(_arguments(tool), min_size=1, max_size=4), label="arguments")
    session = _run([Step(None, (CREATE_UIO, CREATE_FSE)),
                    Step(None, tuple((tool, arguments) for arguments in calls)),
                    Step("after the calls")], {UIO: [Step("designing")]}, ask_timeout=30.0)
    for n in range(len(calls)):
        _check_result(_result(session, LEADER, f"call_tl_{3 + n}"))
    assert "after the calls" in _replies(session, LEADER)


@pytest.mark.parametrize("tool", SUB_TOOLS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_arguments_to_a_sub_agent_tool_get_a_tool_result(tool: str,
                                                            data: st.DataObject) -> None:
    """TW-TOOL-023, TW-TOOL-032: the same for the sub-agents' protocol tools."""
    calls = data.draw(st.lists(_arguments(tool), min_size=1, max_size=4), label="arguments")
    session = _run([Step(None, (CREATE_UIO, CREATE_FSE))],
                   {UIO: [Step(None, tuple((tool, arguments) for arguments in calls)),
                          Step("after the calls")]}, ask_timeout=30.0)
    for n in range(len(calls)):
        _check_result(_result(session, UIO, f"call_ui-_{1 + n}"))
    assert "after the calls" in _replies(session, UIO)


def test_lone_surrogates_from_a_model_are_replaced_before_anything_is_stored(
        tmp_path: Path) -> None:
    """Bad model output is no traceback either: a lone surrogate (which SQLite and JSON files
    refuse) in a reply's text or raw arguments becomes U+FFFD; one written as a JSON escape
    in the arguments is invalid-arguments (TW-TOOL-023)."""
    store = SQLiteStore(tmp_path / "r.db", synchronous="normal")
    session = _run([Step("plan \ud800", (
        CREATE_UIO,
        ("send_message_to_sub_agent", '{"agent_id": 1, "message": "raw \ud800"}'),
        ("send_message_to_sub_agent", '{"agent_id": 1, "message": "escaped \\ud800"}'),
    )), Step("done")], {UIO: [Step("fine", delay=5.0)]}, store=store)
    assert session.failure is None
    assert session.conversations[LEADER][2]["content"] == "plan \ufffd"
    assert json.loads(_result(session, LEADER, "call_tl_2"))["success"] is True
    assert _code(_result(session, LEADER, "call_tl_3")) == "invalid-arguments"
    assert "raw \ufffd" in [parse(m["content"]).content for m in session.conversations[UIO]
                            if m["role"] == "user"]
    assert session.conversations == store.conversations()
    store.close()
