"""An invalid-arguments result names where in the arguments the problem is (TW-TOOL-023,
TW-TOOL-032).

The message of a schema failure starts with the path of the offending argument
(``agent_id``, ``acceptance/1``), or with ``arguments`` when the problem is the object
as a whole (a required parameter is missing), so that the model knows what to fix.
"""

from __future__ import annotations

import json

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import LEADER, run_to_idle


def _no_sub_agents(name: str, role_id: str) -> AgentDriver:
    raise AssertionError("no sub-agent is created")


def test_each_message_starts_with_the_path_of_the_bad_argument() -> None:
    clock = VirtualClock()
    leader = ScriptedAgent([Step(None, (
        ("create_sub_agent", {"agent_id": "one", "role_id": "ui-operator", "task": "design"}),
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design",
                              "acceptance": ["contrast checked", 2]}),
        ("create_sub_agent", {"role_id": "ui-operator", "task": "design"}),
    ))], clock, tag="tl")
    session = run_to_idle(Session(leader=leader, drivers=_no_sub_agents, clock=clock))
    errors = [json.loads(m["content"])["error"] for m in session.conversations[LEADER]
              if m["role"] == "tool"]
    assert [e["code"] for e in errors] == ["invalid-arguments"] * 3
    # the quotes around names and values are the schema validator's own, ' or "
    messages = [e["message"].replace('"', "'") for e in errors]
    assert messages == ["agent_id: 'one' is not of type 'integer'",
                        "acceptance/1: 2 is not of type 'string'",
                        "arguments: 'agent_id' is a required property"]
