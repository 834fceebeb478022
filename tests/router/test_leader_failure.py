"""TW-ROUTE-025, TW-ROUTE-026: a failed model call of the Team Leader ends its turn with no
message, fails the asks it had received with unanswered (TW-ROUTE-030), and is told to the
host's listener."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from teamwire.cli.session_show import SessionShow
from teamwire.router.runtime import DriverError, ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.validator import lint_value
from tests.router.helpers import LEADER, UIO, run_to_idle


class _FailingCalls:
    """The scripted leader, except that the model calls numbered in ``failing`` (from 1)
    raise DriverError after ``delay`` seconds of virtual time."""

    def __init__(self, steps: list[Step], clock: VirtualClock, failing: set[int],
                 delay: float = 5.0) -> None:
        self.scripted = ScriptedAgent(steps, clock, tag="tl")
        self.clock, self.failing, self.delay, self.calls = clock, failing, delay, 0

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Any:
        self.calls += 1
        if self.calls in self.failing:
            await self.clock.sleep(self.delay)
            raise DriverError("upstream 503")
        return await self.scripted.complete(agent, messages, tools)


def _asked_while_the_leader_fails(failing: set[int], unanswered_asks: str = "wait"
                                  ) -> tuple[Session, list[tuple[str, Any]]]:
    # UI Operator_1 asks the leader at once; the leader's next model calls fail as given.
    clock = VirtualClock()
    subs = {UIO: [Step("Asking.", (("ask_master", {"question": "Which palette?",
                                                   "question_id": "ask_uio_001"}),), delay=1.0),
                  Step("Got it.")]}
    leader = _FailingCalls([
        Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                          "task": "design"}),)),
        Step(None, (("answer_sub_agent_question", {"agent_id": 1, "question_id": "ask_uio_001",
                                                   "answer": "Blue."}),)),
        Step("Done."),
    ], clock, failing)
    notes: list[tuple[str, Any]] = []

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(subs.get(name, []), clock, tag=role_id[:3])

    session = Session(leader=leader, drivers=drivers, clock=clock,
                      listener=lambda kind, data: notes.append((kind, data)),
                      unanswered_asks=unanswered_asks)
    return run_to_idle(session), notes


def test_a_failed_leader_turn_produces_no_message_and_the_next_message_restarts_it() -> None:
    # The call that fails is the one started by the ASK; the leader's next turn answers it.
    session, notes = _asked_while_the_leader_fails({2})
    failures = [data for kind, data in notes if kind == "turn-failed"]
    assert failures == [{"agent": LEADER, "state": "error", "problem": "upstream 503"}]
    # Nothing in any conversation tells of the failure.
    for conversation in session.conversations.values():
        assert not any("upstream 503" in (m.get("content") or "") for m in conversation)
    assert [m["role"] for m in session.conversations[UIO]] == [
        "system", "user", "assistant", "tool", "assistant"]
    assert lint_value(session.bundle()).findings == []


def test_an_ask_the_failing_leader_had_received_fails_with_unanswered() -> None:
    # The second failing call is the one the ASK was delivered before: that turn ends without
    # an answer, so with unanswered_asks fail the ask fails at once with unanswered
    # (TW-ROUTE-025, TW-ROUTE-030) instead of waiting for the ask timeout; the asker goes on,
    # and its COMPLETION wakes the leader, whose late answer then fails with not-waiting.
    session, notes = _asked_while_the_leader_fails({2, 3}, "fail")
    failures = [(data["agent"], data["state"]) for kind, data in notes if kind == "turn-failed"]
    assert failures == [(LEADER, "error"), (LEADER, "error")]
    assert session.core.state(LEADER).value == "completed"
    ask_result = next(m["content"] for m in session.conversations[UIO] if m["role"] == "tool")
    assert '"code": "unanswered"' in ask_result
    assert session.clock.now() < 300  # long before the ask timeout
    late = [m["content"] for m in session.conversations[LEADER] if m["role"] == "tool"][-1]
    assert '"code": "not-waiting"' in late
    assert lint_value(session.bundle()).findings == []


def test_by_default_an_ask_the_failing_leader_had_received_waits_for_its_timeout() -> None:
    # unanswered_asks wait (the default, spec 1.0): the turn that received the ask fails and
    # the ask stays open; nothing wakes the leader, so the ask ends by its timeout
    # (TW-ROUTE-017), and the asker's report then wakes the leader, whose answer comes late.
    session, _ = _asked_while_the_leader_fails({2, 3})
    ask_result = next(m["content"] for m in session.conversations[UIO] if m["role"] == "tool")
    assert '"code": "timeout"' in ask_result
    assert session.clock.now() >= 300
    late = [m["content"] for m in session.conversations[LEADER] if m["role"] == "tool"][-1]
    assert '"code": "not-waiting"' in late


def test_the_demo_prints_a_failed_turn() -> None:
    console = Console(record=True, width=120)
    SessionShow(console)("turn-failed", {"agent": LEADER, "state": "error",
                                         "problem": "upstream 503"})
    assert "Team Leader · turn ended by error: upstream 503" in console.export_text()
