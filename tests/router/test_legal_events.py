"""``legal_events(state)``: the event types the transition table allows a subject in a state.

The oracle is ``EXPECTED`` of test_table.py, the transition table of spec/07-routing.md written
out by hand: for every state, exactly the events of its rows, in no particular order and each
once; a terminated agent only hears stale timers (TW-ROUTE-004), an absent one only its
creation (TW-ROUTE-002).

TW-ROUTE-001, TW-ROUTE-002, TW-ROUTE-003, TW-ROUTE-004.
"""

from __future__ import annotations

import pytest

from teamwire.router import AgentCreated, AgentState, TimerFired
from teamwire.router.table import legal_events
from tests.router.test_table import EXPECTED


@pytest.mark.parametrize("state", list(AgentState), ids=lambda s: s.value)
def test_the_legal_events_of_a_state_are_those_of_its_rows(state: AgentState) -> None:
    found = legal_events(state)
    assert len(found) == len(set(found))
    assert set(found) == {event for (s, event) in EXPECTED if s is state}


def test_an_absent_agent_can_only_be_created_and_a_terminated_one_only_hears_stale_timers() -> None:
    assert legal_events(AgentState.ABSENT) == [AgentCreated]
    assert legal_events(AgentState.TERMINATED) == [TimerFired]
