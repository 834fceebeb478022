"""Steps at a timer's instant (TW-CERT-021): in process the harness moves the router's clock
to its next timer without running it and then answers the call, so that the reply and the
timer fall at one instant with the reply observed first (TW-ROUTE-028); a router run as a
process cannot be given that, and such a scenario is never run against one."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.inprocess import HarnessClock, InProcessRouter, reference_router
from teamwire.conformance.runner import ClockUnavailable, ProcessRouter, play
from teamwire.conformance.scenario import ScenarioError, scenario_from_json

ROOT = Path(__file__).resolve().parents[2]
TIE = ROOT / "conformance" / "scenarios" / "answer-at-the-ask-timeout.json"
REFERENCE = [sys.executable, "-m", "teamwire", "run", "-q"]


def tie(edit: Any = None) -> Any:
    data = json.loads(TIE.read_text(encoding="utf-8"))
    if edit is not None:
        edit(data)
    return scenario_from_json(data, TIE.name)


def failed(run: Any) -> dict[str, tuple[str, ...]]:
    return {v.check: v.requirements for v in check_run(run) if v.status is Status.FAIL}


def test_moving_to_the_next_timer_runs_no_timer() -> None:
    clock = HarnessClock()
    fired: list[str] = []
    clock.call_later(1.0, lambda: fired.append("first"))
    clock.call_later(1.0, lambda: fired.append("second"))
    due = clock.next_timer()
    assert due == 1.0
    clock.move_to(due)
    assert clock.now() == 1.0 and fired == []
    assert clock.next_timer() == 1.0  # still due, at the instant the clock stands at
    clock.advance()
    assert fired == ["first", "second"]  # in the order they were started
    assert clock.now() == 1.0


def test_the_reference_router_lets_an_answer_at_the_timers_instant_decide_the_ask() -> None:
    scenario = tie()
    assert scenario.moves_clock
    run = play(scenario, InProcessRouter(scenario, reference_router))
    assert failed(run) == {}
    assert not run.missing and not run.problems


def test_a_step_at_a_timers_instant_with_no_timer_due_is_a_missing_call() -> None:
    """With the wait shorter than the ask timeout, no timer is due within it: the run says
    so and fails, rather than pass a tie that never happened."""
    scenario = tie()
    run = play(scenario, InProcessRouter(scenario, reference_router), wait=0.5)
    assert run.missing == ["no timer of the router was due within 0.5 s when model call 3 of "
                           "Team Leader was to be answered at a timer's instant"]
    assert "model-calls" in failed(run)


def test_a_router_run_as_a_process_is_never_played_a_timer_instant_scenario() -> None:
    scenario = tie()
    router = ProcessRouter(scenario, REFERENCE)
    try:
        with pytest.raises(ClockUnavailable, match=r"TW-ROUTE-028, .* not checked here"):
            play(scenario, router)
        assert router.process is None  # refused before anything was started
        # nor can a caller that skips play's refusal move its clock
        assert router.sets_clock is False
        with pytest.raises(ClockUnavailable, match="a router run as a process keeps its own time"):
            router.move_to_next_timer(1.0)
    finally:
        router.endpoint.close()


@pytest.mark.parametrize("other", ["await", "crash"])
def test_a_step_at_a_timers_instant_cannot_also_hold_or_crash(other: str) -> None:
    def edit(data: dict[str, Any]) -> None:
        data["schedule"][3][other] = True

    with pytest.raises(ScenarioError, match="schedule/3"):
        tie(edit)
