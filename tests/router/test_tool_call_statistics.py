"""Every tool call counts once in its caller's statistics (TW-TOOL-016, TW-TOOL-017).

``get_sub_agent_status`` reports ``statistics.tool_calls``; the routing core counts the
calls it routes (sends, answers, even those it refuses) and the session counts the others
(listing, status, calls refused before they reach the core). A call counted by both would
show a leader or a sub-agent as twice as busy as it was.
"""

from __future__ import annotations

import json

from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import FSE, LEADER, UIO, run_to_idle


def _session(leader: list[Step], subs: dict[str, list[Step]]) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers, clock=clock)


def test_each_call_of_the_leader_counts_once() -> None:
    session = run_to_idle(_session([Step(None, (
        ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"}),
        ("send_message_to_sub_agent", {"agent_id": 1, "message": "use the blue palette"}),
        # refused by the routing core: no such question was asked
        ("answer_sub_agent_question", {"agent_id": 1, "question_id": "ask_uio_009",
                                       "answer": "yes"}),
        ("list_active_sub_agents", {}),
    ))], {}))
    codes = [json.loads(m["content"]).get("error", {}).get("code")
             for m in session.conversations[LEADER] if m["role"] == "tool"]
    assert codes == [None, None, "unknown-question", None]
    assert session.core.tool_calls(LEADER) == 4


def test_a_sub_agents_refused_answer_counts_once_in_its_status() -> None:
    session = run_to_idle(_session(
        [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                           "task": "design"}),
                     ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer",
                                           "task": "build"}))),
         Step(None, (("get_sub_agent_status", {"agent_id": 1, "role_id": "ui-operator"}),),
              delay=20.0)],
        {UIO: [Step(None, (("answer_other_agent", {"source_agent_id": 1,
                                                   "role_id": "full-stack-engineer",
                                                   "message_id": "ask_fse_009",
                                                   "answer": "blue"}),
                           ("list_active_sub_agents", {})))]}))
    [refused, _listed] = [json.loads(m["content"]) for m in session.conversations[UIO]
                          if m["role"] == "tool"]
    assert refused["error"]["code"] == "unknown-question"
    status = json.loads([m["content"] for m in session.conversations[LEADER]
                         if m["role"] == "tool"][-1])
    assert status["display_name"] == UIO
    assert status["statistics"] == {"turns": 1, "tool_calls": 2}
    assert session.core.tool_calls(FSE) == 0
