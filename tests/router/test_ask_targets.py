"""Sub-agents naming one another by agent_id: ask_other_agent and answer_other_agent when two
roles share an agent_id (TW-TOOL-027 to TW-TOOL-029), on virtual time.

UI Operator_1, Full-Stack Engineer_1 and Coder_1 (a custom role) all have agent_id 1: from
any one of them, agent_id 1 alone names the other two, and role_id settles which.
"""

from __future__ import annotations

import json
from typing import Any

from teamwire import schemas
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import FSE, UIO, run_to_idle

CODER_NAME = "Coder_1"
CODER = {"role_id": "coder", "name": "Coder", "description": "Writes the code.",
         "prompt": "You are a Coder."}
TEAM = Step(None, (("create_custom_agent", CODER),
                   ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "form"}),
                   ("create_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer",
                                         "task": "api"}),
                   ("create_sub_agent", {"agent_id": 1, "role_id": "coder", "task": "code"})))


def _run(subs: dict[str, list[Step]]) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, [Step("done")]), clock, tag=role_id[:3])

    leader = ScriptedAgent([TEAM, Step("waiting", delay=1.0)], clock, tag="tl")
    return run_to_idle(Session(leader=leader, drivers=drivers, clock=clock), "build it")


def _results(session: Session, agent: str) -> dict[str, dict[str, Any] | str]:
    """Tool call id → its result: parsed JSON (checked against the schema) or envelope text."""
    found: dict[str, dict[str, Any] | str] = {}
    for message in session.conversations[agent]:
        if message["role"] == "tool":
            try:
                data = json.loads(message["content"])
            except ValueError:
                found[message["tool_call_id"]] = message["content"]
                continue
            assert schemas.is_valid("tool-results", data), data
            found[message["tool_call_id"]] = data
    return found


def test_an_ask_to_an_agent_id_two_others_share_lists_both_candidates() -> None:
    """TW-TOOL-027, TW-TOOL-029: from UI Operator_1, agent_id 1 names Full-Stack Engineer_1
    and Coder_1 (the caller itself left out): ambiguous-agent-id, candidates in creation
    order; with role_id the ask goes out."""
    session = _run({UIO: [
        Step(None, (("ask_other_agent", {"target_agent_id": 1, "message_id": "ask_uio_001",
                                         "content": "Which port?"}),)),
        Step("gave up asking")]})
    [result] = _results(session, UIO).values()
    assert isinstance(result, dict)
    assert result["error"]["code"] == "ambiguous-agent-id"
    assert result["error"]["candidates"] == [
        {"agent_id": 1, "role_id": "full-stack-engineer", "display_name": FSE},
        {"agent_id": 1, "role_id": "coder", "display_name": CODER_NAME}]


def test_role_id_picks_which_asker_an_answer_goes_to() -> None:
    """TW-TOOL-028: UI Operator_1 and Coder_1 both ask Full-Stack Engineer_1; the answers name
    their askers by agent_id 1 and role_id, and each reaches the one it names."""
    def ask(message_id: str) -> list[Step]:
        return [Step(None, (("ask_other_agent", {"target_agent_id": 1,
                                                 "role_id": "full-stack-engineer",
                                                 "message_id": message_id,
                                                 "content": "Which port?"}),)),
                Step("thanks")]

    session = _run({
        UIO: ask("ask_uio_001"),
        CODER_NAME: ask("ask_cod_001"),
        FSE: [Step(None, (("list_active_sub_agents", {}),), delay=10.0),
              Step(None, (("answer_other_agent", {"source_agent_id": 1, "role_id": "coder",
                                                  "message_id": "ask_cod_001",
                                                  "answer": "Port 9000 for the coder."}),
                          ("answer_other_agent", {"source_agent_id": 1,
                                                  "role_id": "ui-operator",
                                                  "message_id": "ask_uio_001",
                                                  "answer": "Port 8080 for the form."}))),
              Step("answered both")]})
    answers = {agent: next(iter(_results(session, agent).values())) for agent in (UIO, CODER_NAME)}
    assert "Port 8080 for the form." in str(answers[UIO])
    assert "Port 9000 for the coder." in str(answers[CODER_NAME])
    outcomes = [r for r in _results(session, FSE).values() if isinstance(r, dict)
                and "message_id" in r]
    assert [(r["display_name"], r["message_id"]) for r in outcomes] == [
        (CODER_NAME, "ask_cod_001"), (UIO, "ask_uio_001")]
