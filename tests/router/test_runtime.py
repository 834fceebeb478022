"""The asyncio runtime: tools, timeouts on virtual time, recording, the demo, the CLI."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from teamwire import schemas
from teamwire.cli.demo_cmd import validate_bundle
from teamwire.envelope import parse
from teamwire.router.demo import run_demo
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import MemoryStore, SQLiteStore
from tests.router.helpers import FSE, LEADER, UIO, run_to_idle


def _session(leader: list[Step], subs: dict[str, list[Step]], **kwargs: Any) -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    return Session(leader=ScriptedAgent(leader, clock, tag="tl"), drivers=drivers, clock=clock,
                   **kwargs)


def _tool_results(session: Session, agent: str) -> list[str]:
    return [m["content"] for m in session.conversations[agent] if m["role"] == "tool"]


CREATE_UIO = ("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator", "task": "design"})


def test_invalid_arguments_give_an_error_result_and_change_nothing() -> None:
    """TW-TOOL-023, TW-TOOL-024, TW-TOOL-026."""
    session = run_to_idle(_session([Step(None, (
        ("create_sub_agent", {"agent_id": "one", "role_id": "ui-operator", "task": "x"}),
        ("create_sub_agent", '{"agent_id": 1, '),
        ("send_message_to_sub_agent", {"agent_id": 1, "message": "   "}),
        ("create_sub_agent", {"agent_id": 1, "role_id": "no-such-role", "task": "x"}),
    ))], {}))
    codes = [json.loads(r)["error"]["code"] for r in _tool_results(session, LEADER)]
    assert codes == ["invalid-arguments", "invalid-arguments", "invalid-arguments",
                     "unknown-role"]
    assert [r.name for r in session.core.records()] == [LEADER]
    for result in _tool_results(session, LEADER):
        assert schemas.is_valid("tool-results", json.loads(result))


def test_forbidden_tools() -> None:
    """TW-TOOL-006: tools outside the caller's set fail with forbidden-tool."""
    session = run_to_idle(_session([Step(None, (CREATE_UIO, ("ask_master", {"question": "q",
                                                                     "question_id": "x"})))],
                            {UIO: [Step(None, (("report_progress", {}),
                                               ("create_sub_agent", {})))]}))
    leader_codes = [json.loads(r)["error"]["code"] for r in _tool_results(session, LEADER)[1:]]
    sub_codes = [json.loads(r)["error"]["code"] for r in _tool_results(session, UIO)]
    assert leader_codes == ["forbidden-tool"]
    assert sub_codes == ["forbidden-tool", "forbidden-tool"]


def test_ask_timeout_on_virtual_time() -> None:
    """TW-ROUTE-017: an unanswered ask_master fails with timeout after the ask timeout;
    nothing sleeps. The leader's turn that reads the ask outlasts the timeout (had it ended
    first, the ask would fail with unanswered, TW-ROUTE-030)."""
    session = run_to_idle(_session(
        [Step(None, (CREATE_UIO,)), Step("waiting for reports"), Step("reading", delay=1000)],
        {UIO: [Step(None, (("ask_master", {"question": "?", "question_id": "ask_uio_001"}),)),
               Step("giving up")]}, ask_timeout=42.0))
    [result] = _tool_results(session, UIO)
    assert json.loads(result)["error"]["code"] == "timeout"
    assert session.clock.now() >= 42.0


def test_turn_timeout_reports_a_run_result() -> None:
    """TW-ROUTE-018, TW-RES-009."""
    session = run_to_idle(_session(
        [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                           "task": "slow", "timeout_seconds": 5}),))],
        {UIO: [Step("thinking very long", delay=50.0)]}))
    completions = [parse(m["content"]) for m in session.conversations[LEADER]
                   if m["role"] == "user" and m["content"].startswith("来自")]
    assert completions[-1].label == "任务完成汇报"
    assert 'state="timeout"' in completions[-1].content


def test_ask_sub_agent_result_is_the_answer_envelope() -> None:
    """TW-TOOL-013, TW-TOOL-034, TW-TOOL-035."""
    session = run_to_idle(_session(
        [Step(None, (CREATE_UIO,)),
         Step(None, (("ask_sub_agent", {"agent_id": 1, "question": "eta?",
                                        "question_id": "ask_tl_001"}),), delay=5.0)],
        {UIO: [Step("done", delay=1.0), Step("ten minutes")]}))
    answer = _tool_results(session, LEADER)[-1]
    assert answer.startswith("来") and parse(answer).question_id == "ask_tl_001"


def test_terminate_fails_the_waiting_asker() -> None:
    """TW-ROUTE-020 through the tools: terminate_sub_agent while another waits on it."""
    session = run_to_idle(_session(
        [Step(None, (CREATE_UIO, ("create_sub_agent", {"agent_id": 1,
                                                       "role_id": "full-stack-engineer",
                                                       "task": "api"}))),
         Step(None, (("terminate_sub_agent", {"agent_id": 1, "role_id": "full-stack-engineer"}),
                     ), delay=3.0)],
        {UIO: [Step(None, (("ask_other_agent", {"target_agent_id": 1, "content": "fields?",
                                                "message_id": "ask_uio_001"}),))],
         FSE: [Step("busy", (("list_active_sub_agents", {}),), delay=10.0)]}))
    assert json.loads(_tool_results(session, UIO)[0])["error"]["code"] == "agent-terminated"
    assert json.loads(_tool_results(session, LEADER)[-1])["status"] == "terminated"


def test_demo_runs_every_situation(tmp_path: Path) -> None:
    """The demo covers the scenario and records a valid bundle and event log."""
    store = SQLiteStore(tmp_path / "r.db")
    session = asyncio.run(run_demo(store))
    bundle = session.bundle()
    assert validate_bundle(bundle) == []
    _bundle_path, events_path = session.write(tmp_path)
    validator = schemas.validator("event-log")
    lines = [json.loads(line) for line in events_path.read_text().splitlines()]
    assert all(validator.is_valid(line) for line in lines)
    labels = {parse(m["content"]).label for a in bundle["agents"].values()
              for m in a["messages"] if m["role"] in ("user", "tool")
              and m["content"].startswith("来自")}
    assert labels == {"任务发布", "任务进度输出", "任务完成汇报", "提问", "消息", "回答"}
    acks = [a for e in lines for a in e["actions"] if a["action"] == "AcknowledgeSend"]
    assert {a["delivery"] for a in acks} >= {"new_turn", "inline", "tool_result"}
    # the dark-mode message arrived during UI Operator_1's final model call ...
    dark = next(e for e in lines if e["event"] == "MessageSent" and "dark" in e["data"]["content"])
    # ... and started a new turn when that turn ended
    started = [e for e in lines if e["event"] == "TurnEnded" and e["data"]["agent"] == UIO
               and any(a["action"] == "StartTurn" for a in e["actions"])]
    assert started and started[0]["seq"] > dark["seq"]
    assert any(e["event"] == "OutputEmitted" and e["data"]["final"] and e["seq"] > dark["seq"]
               and e["data"]["agent"] == UIO for e in lines)
    assert all(r.state.value == "completed" for r in session.core.records())
    store.close()


def test_demo_is_deterministic() -> None:
    first = asyncio.run(run_demo(MemoryStore()))
    second = asyncio.run(run_demo(MemoryStore()))
    assert first.events == second.events and first.bundle() == second.bundle()


def test_silent_sub_agent_fails_ask_sub_agent_with_unanswered() -> None:
    """TW-TYPE-017, TW-ROUTE-012, TW-ROUTE-030 with unanswered_asks fail: the sub-agent's turn
    after the ASK ends with no output. The spec's answer is its first non-blank output, so the
    silent end is an empty COMPLETION for the leader, not an answer; the turn that received the
    ask is over, so the ask fails with unanswered at once (not after the ask timeout), and the
    leader then reads the empty COMPLETION."""
    session = run_to_idle(_session(
        [Step(None, (CREATE_UIO,)),
         Step(None, (("ask_sub_agent", {"agent_id": 1, "question": "eta?",
                                        "question_id": "ask_tl_001"}),), delay=5.0),
         Step("giving up on the answer")],
        {UIO: [Step("design done", delay=1.0)]}, ask_timeout=50.0, unanswered_asks="fail"))
    result = json.loads(_tool_results(session, LEADER)[-1])
    assert result["error"]["code"] == "unanswered"
    assert session.conversations[UIO][-1] == {"role": "assistant", "content": ""}
    reports = [parse(m["content"]) for m in session.conversations[LEADER]
               if m["role"] == "user" and m["content"].startswith("来自")]
    assert [(r.label, r.content) for r in reports][-1] == ("任务完成汇报", "")
    assert session.clock.now() < 50.0
    assert [p.text for p in validate_bundle(session.bundle()) if p.fatal] == []


def _silent_then_told(unanswered_asks: str) -> Session:
    """The leader asks UI Operator_1, whose turn then ends silently; Full-Stack Engineer_1's
    later notification starts its next turn, whose output is 'about ten minutes'."""
    return run_to_idle(_session(
        [Step(None, (CREATE_UIO, ("create_sub_agent", {"agent_id": 1,
                                                       "role_id": "full-stack-engineer",
                                                       "task": "api"}))),
         Step(None, (("ask_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                        "question": "eta?", "question_id": "ask_tl_001"}),),
              delay=5.0),
         Step("thanks")],
        {UIO: [Step("design done", delay=1.0), Step(None, delay=1.0),
               Step("about ten minutes", delay=1.0)],
         FSE: [Step(None, (("ask_other_agent", {"target_agent_id": 1, "role_id": "ui-operator",
                                                "content": "fyi: api.md is up",
                                                "message_id": "msg_fse_001"}),), delay=10.0)]},
        ask_timeout=500.0, unanswered_asks=unanswered_asks))


def test_after_a_silent_turn_end_the_next_output_is_a_report_not_an_answer() -> None:
    """TW-ROUTE-030 with unanswered_asks fail: a silent turn end fails the ask it had
    received; the next output, in the turn a later MESSAGE of ask_other_agent starts, answers
    that MESSAGE alone."""
    session = _silent_then_told("fail")
    result = json.loads(_tool_results(session, LEADER)[-1])
    assert result["error"]["code"] == "unanswered"
    answer = parse(_tool_results(session, FSE)[-1])
    assert (answer.question_id, answer.content) == ("msg_fse_001", "about ten minutes")
    assert session.clock.now() < 500.0


def test_by_default_the_ask_outlives_a_silent_turn_and_one_output_answers_both() -> None:
    """TW-ROUTE-030 with unanswered_asks wait (the default, spec 1.0): the leader's ask stays
    open past the silent turn end, and the next output answers both askers, the leader's ask
    first, as it reached UI Operator_1 first (TW-ROUTE-014)."""
    session = _silent_then_told("wait")
    leader = parse(_tool_results(session, LEADER)[-1])
    peer = parse(_tool_results(session, FSE)[-1])
    assert (leader.question_id, leader.content) == ("ask_tl_001", "about ten minutes")
    assert (peer.question_id, peer.content) == ("msg_fse_001", "about ten minutes")
    assert (leader.id, peer.id) == ("ans_uio_001", "ans_uio_002")


def test_terminating_a_sub_agent_before_its_turn_ran_does_not_stall() -> None:
    """TW-ROUTE-020: create and terminate in one reply; the new turn never runs, and the
    session still comes to rest (its activity count is released)."""
    session = run_to_idle(_session(
        [Step(None, (CREATE_UIO, ("terminate_sub_agent", {"agent_id": 1}))), Step("done")],
        {UIO: [Step("never said")]}))
    assert session.core.state(UIO).value == "terminated"
    assert all(m["role"] != "assistant" for m in session.conversations[UIO])


def test_a_turn_timeout_closes_the_calls_left_in_its_reply() -> None:
    """TW-ROUTE-018: the pending ask gets timeout; calls of the last reply that never ran get
    turn-ended, so that each call has one result and the next turn's conversation is one a
    model accepts."""
    from teamwire.validator import lint_value

    session = run_to_idle(_session(
        [Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                           "task": "slow", "timeout_seconds": 5}),)),
         Step(None, (("send_message_to_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                                    "message": "try again"}),), delay=100.0),
         Step("ok", delay=1.0)],
        {UIO: [Step(None, (("ask_master", {"question": "?", "question_id": "ask_uio_001"}),
                           ("read_file", {"path": "notes.md"}))),
               Step("after")]}))
    conversation = session.conversations[UIO]
    [calls] = [m["tool_calls"] for m in conversation if m.get("tool_calls")]
    results = {m["tool_call_id"]: json.loads(m["content"]) for m in conversation
               if m["role"] == "tool"}
    assert sorted(results) == sorted(c["id"] for c in calls)
    codes = {call["function"]["name"]: results[call["id"]]["error"]["code"] for call in calls}
    assert codes == {"ask_master": "timeout", "read_file": "turn-ended"}
    assert conversation[-1] == {"role": "assistant", "content": "after"}
    assert lint_value(session.bundle()).findings == []
