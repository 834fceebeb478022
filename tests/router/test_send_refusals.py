"""Why the routing core refuses a Task or Message, in its error result (TW-TOOL-011,
TW-TOOL-032, TW-ID-012, TW-TOOL-036).

A host feeding ``MessageSent`` itself gets a ``FailToolCall`` for the sending call when
the id it chose is not a single token (``invalid-arguments``) or when the receiver is no
agent of the session (``unknown-agent``); each names the caller, the call and the reason.
Nothing is routed, and the refused call still counts once in the sender's statistics.
"""

from __future__ import annotations

import pytest

from teamwire.envelope import MessageType
from teamwire.router import FailToolCall, MessageSent
from tests.router.helpers import LEADER, UIO, team


def test_a_chosen_id_that_is_not_a_single_token_is_refused() -> None:
    core = team()
    before = core.tool_calls(LEADER)
    actions = core.handle(MessageSent(LEADER, UIO, MessageType.MESSAGE, "use blue",
                                      call_id="c1", message_id="msg tl 1"))
    assert actions == [FailToolCall(LEADER, "c1", "invalid-arguments",
                                    "id 'msg tl 1' is not a single token")]
    assert core.tool_calls(LEADER) == before + 1
    assert len(core.pending(UIO)) == 0


@pytest.mark.parametrize("kind", [MessageType.MESSAGE, MessageType.TASK])
def test_a_receiver_that_is_no_agent_is_refused(kind: MessageType) -> None:
    core = team()
    actions = core.handle(MessageSent(LEADER, "Nobody_1", kind, "use blue", call_id="c2"))
    assert actions == [FailToolCall(LEADER, "c2", "unknown-agent",
                                    "no agent named 'Nobody_1'")]
