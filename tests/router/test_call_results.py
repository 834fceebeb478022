"""core.call_result: what a host asks before it executes a tool call again (TW-DUR-003).

docs/router.md (Tool calls executed again): ``core.call_result(agent, call_id)`` tells a
host beforehand whether the call already has a stored result. A host asks it about any
name its conversations hold, including an agent the core has never seen (a conversation
restored from a store that lost the agent's row, a typo): the answer is "no result", not a
crash.
"""

from __future__ import annotations

from teamwire.envelope import MessageType
from teamwire.router import AcknowledgeSend, MessageSent, RoutingCore
from tests.router.helpers import LEADER, UIO, of_type, team


def test_a_call_of_an_unknown_agent_has_no_result() -> None:
    assert RoutingCore().call_result(LEADER, "c-1") is None
    assert team().call_result("Nobody_1", "c-1") is None


def test_a_call_has_its_result_once_it_produced_one() -> None:
    core = team()
    assert core.call_result(LEADER, "c-7") is None
    [ack] = of_type(core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "use the auth module",
                                            call_id="c-7")), AcknowledgeSend)
    assert core.call_result(LEADER, "c-7") == ack
    assert core.call_result(UIO, "c-7") is None
