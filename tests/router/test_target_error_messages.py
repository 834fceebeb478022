"""The messages of failed target resolutions and answers name what was not found
(TW-TOOL-027, TW-TOOL-028, TW-TOOL-029, TW-TOOL-032).

``RoutingCore.resolve_target`` raises ``TargetError``: an unknown agent_id says which role
was searched when a role_id was given (and only then), an ambiguous one lists the display
names it matched. An answer fed for an agent the core has never seen fails with a message
that names that agent.
"""

from __future__ import annotations

import pytest

from teamwire.router import AnswerGiven, FailToolCall
from teamwire.router.errors import TargetError
from tests.router.helpers import FSE, LEADER, UIO, team


def _failure(agent_id: int, role_id: str | None) -> TargetError:
    with pytest.raises(TargetError) as caught:
        team().resolve_target(agent_id, role_id)
    return caught.value


def test_an_unknown_agent_id_without_role_names_no_role() -> None:
    error = _failure(3, None)
    assert (error.code, error.message) == ("unknown-agent", "no sub-agent with agent_id 3")


def test_an_unknown_agent_id_of_a_role_names_the_role() -> None:
    error = _failure(3, "ui-operator")
    assert (error.code, error.message) == (
        "unknown-agent", "no sub-agent with agent_id 3 of role 'ui-operator'")


def test_an_ambiguous_agent_id_lists_the_agents_it_matches() -> None:
    error = _failure(1, None)
    assert (error.code, error.message) == (
        "ambiguous-agent-id",
        f"agent_id 1 matches {UIO}, {FSE}; pass role_id to choose")
    assert error.candidates == ((1, "ui-operator", UIO), (1, "full-stack-engineer", FSE))


def test_an_answer_for_an_unknown_agent_names_it() -> None:
    actions = team().handle(AnswerGiven(LEADER, "Nobody_1", "ask_nob_001", "yes",
                                        call_id="c9"))
    assert actions == [FailToolCall(LEADER, "c9", "unknown-agent",
                                    "no agent named 'Nobody_1'")]
