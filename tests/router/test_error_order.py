"""TW-TOOL-037: when several failures apply to one call, the router returns the first in the
spec's order (caller's tool set, arguments, target, the tool's own conditions)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import FSE, LEADER, UIO, run_to_idle

CREATE_UIO = ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"})
CREATE_FSE = ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer",
                                   "task": "build"})
TERMINATE_UIO = ("terminate_sub_agent", {"agent_id": 1, "role_id": "ui-operator"})


def _session(leader: list[Step], subs: dict[str, list[Step]]) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers, clock=clock)


def _codes(session: Session, agent: str) -> list[str]:
    codes = []
    for message in session.conversations[agent]:
        if message["role"] == "tool":
            result = json.loads(message["content"])
            codes.append("ok" if result["success"] else result["error"]["code"])
    return codes


# (what competes, the call, the code that wins); every call is made after UI Operator_1 and
# Full-Stack Engineer_1 were created and UI Operator_1 was terminated, so agent_id 1 without
# role_id is ambiguous and the UI Operator target is terminated.
LEADER_CASES: list[tuple[str, tuple[str, dict[str, Any]], str]] = [
    ("sub-agent tool over its bad arguments",
     ("ask_master", {"question": ""}), "forbidden-tool"),
    ("blank text over a terminated target",
     ("send_message_to_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "message": " "}),
     "invalid-arguments"),
    ("malformed chosen id over a terminated target",
     ("ask_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "question": "q",
                        "question_id": "a b"}), "invalid-arguments"),
    ("blank text over an unknown target",
     ("send_message_to_sub_agent", {"agent_id": 9, "message": ""}), "invalid-arguments"),
    ("ambiguous agent_id over a terminated candidate",
     ("send_message_to_sub_agent", {"agent_id": 1, "message": "hi"}), "ambiguous-agent-id"),
    ("terminated target over an unknown question",
     ("answer_sub_agent_question", {"agent_id": 1, "role_id": "ui-operator",
                                    "question_id": "ask_tl_404", "answer": "a"}),
     "agent-terminated"),
    ("unknown role over a used (role_id, agent_id)",
     ("create_sub_agent", {"agent_id": 1, "role_id": "no-such-role", "task": "x"}),
     "unknown-role"),
    ("invalid name over an existing role id",
     ("create_custom_agent", {"role_id": "ui-operator", "name": "Team Leader",
                              "description": "d", "prompt": "p"}), "invalid-name"),
]


@pytest.fixture  # per test: see docs/contributing.md, "Fixtures and mutants"
def leader_codes() -> list[str]:
    calls = tuple(call for _, call, _ in LEADER_CASES)
    session = run_to_idle(_session([Step(None, (CREATE_UIO, CREATE_FSE, TERMINATE_UIO)),
                                    Step(None, calls)], {}))
    codes = _codes(session, LEADER)
    assert codes[:3] == ["ok", "ok", "ok"]
    return codes[3:]


@pytest.mark.parametrize(("position", "case"), list(enumerate(LEADER_CASES)),
                         ids=[case[0] for case in LEADER_CASES])
def test_the_first_failure_in_the_order_wins(
        leader_codes: list[str], position: int,
        case: tuple[str, tuple[str, dict[str, Any]], str]) -> None:
    assert leader_codes[position] == case[2]


def test_a_sub_agents_calls_follow_the_same_order() -> None:
    # Full-Stack Engineer_1 waits on UI Operator_1 when UI Operator_1 asks back with the id
    # already taken: the cycle is the ask's own first condition, before the duplicate id.
    subs = {
        FSE: [Step(None, (("ask_other_agent", {"target_agent_id": 1, "role_id": "ui-operator",
                                               "content": "q1", "message_id": "ask_fse_001"}),),
                   delay=1.0), Step("done")],
        UIO: [Step(None, (
            ("ask_other_agent", {"target_agent_id": 1, "role_id": "full-stack-engineer",
                                 "content": "q", "message_id": "ask_fse_001"}),
            ("create_sub_agent", {"agent_id": "x"}),
            ("ask_other_agent", {"target_agent_id": 1, "content": "", "message_id": "ask_uio_009"}),
        ), delay=5.0), Step("done")],
    }
    session = run_to_idle(_session([Step(None, (CREATE_UIO, CREATE_FSE)), Step("wait", delay=50)],
                                   subs))
    assert _codes(session, UIO) == ["wait-cycle", "forbidden-tool", "invalid-arguments"]
