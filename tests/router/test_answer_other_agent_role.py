"""answer_other_agent resolves its asker with the role_id it is given (TW-TOOL-022,
TW-TOOL-027, TW-TOOL-028).

With three roles each running an instance 1, ``source_agent_id: 1`` alone matches two
agents besides the caller; with ``role_id`` it names exactly one. The answer must reach
the asker of that role, and the asker's ask must resolve with it.
"""

from __future__ import annotations

import json

from teamwire.envelope import parse
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.runtime.roles import DEFAULT_ROLES, RoleInfo
from tests.router.helpers import FSE, UIO, run_to_idle

DESIGNER = RoleInfo("designer", "Designer", "draws the mock-ups", "You draw mock-ups.")


def _create(role_id: str, task: str) -> tuple[str, dict[str, object]]:
    return "create_sub_agent", {"agent_id": 1, "role_id": role_id, "task": task}


def test_the_answer_reaches_the_asker_of_the_given_role() -> None:
    clock = VirtualClock()
    scripts = {
        UIO: [Step(None, (("list_active_sub_agents", {}),), delay=5.0),  # the ask arrives
              Step(None, (("answer_other_agent", {"source_agent_id": 1,
                                                  "role_id": "full-stack-engineer",
                                                  "message_id": "ask_fse_001",
                                                  "answer": "blue"}),))],
        FSE: [Step(None, (("ask_other_agent", {"target_agent_id": 1, "role_id": "ui-operator",
                                               "message_id": "ask_fse_001",
                                               "content": "which colour?"}),)),
              Step("using blue")],
    }

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(scripts.get(name, []), clock, tag=role_id[:3])

    leader = ScriptedAgent([Step(None, (_create("ui-operator", "design"),
                                        _create("full-stack-engineer", "build"),
                                        _create("designer", "draw"))),
                            Step("waiting for reports")], clock, tag="tl")
    session = run_to_idle(Session(leader=leader, drivers=drivers, clock=clock,
                                  roles=[*DEFAULT_ROLES, DESIGNER]))
    answered = [json.loads(m["content"]) for m in session.conversations[UIO]
                if m["role"] == "tool"][-1]
    assert answered == {"success": True, "display_name": FSE, "message_id": "ask_fse_001"}
    [result] = [m["content"] for m in session.conversations[FSE] if m["role"] == "tool"]
    answer = parse(result)
    assert (answer.sender, answer.question_id, answer.content) == (UIO, "ask_fse_001", "blue")
