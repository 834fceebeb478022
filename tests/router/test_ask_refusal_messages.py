"""Why the routing core refuses an ask, in the words of its error result (TW-TOOL-030,
TW-MSG-011, TW-TOOL-032).

An ask that targets its caller fails with ``invalid-arguments`` and says so; an ask past
the round limit between two sub-agents fails with ``round-limit`` and names both agents
and the limit, so that the asker's model learns why and stops asking.
"""

from __future__ import annotations

from teamwire.router import FailToolCall, TimerFired, ToolCallBlocked
from tests.router.helpers import FSE, UIO, team


def test_an_ask_of_its_own_caller_says_so() -> None:
    actions = team().handle(ToolCallBlocked(UIO, "c1", UIO, "ask_uio_001", "is it blue?"))
    assert actions == [FailToolCall(UIO, "c1", "invalid-arguments",
                                    "an ask cannot target its own caller")]


def test_an_ask_past_the_round_limit_names_the_agents_and_the_limit() -> None:
    core = team(max_ask_rounds=1)
    core.handle(ToolCallBlocked(UIO, "c1", FSE, "ask_uio_001", "which fields?", timeout=5))
    [*_, failed] = core.handle(TimerFired(UIO, "c1"))  # unanswered: round 1 is used up
    assert isinstance(failed, FailToolCall), failed
    assert (failed.code, failed.call_id) == ("timeout", "c1")
    actions = core.handle(ToolCallBlocked(UIO, "c2", FSE, "ask_uio_002", "which fields now?"))
    assert actions == [FailToolCall(
        UIO, "c2", "round-limit",
        f"{UIO} already asked {FSE} 1 times about its current task")]
