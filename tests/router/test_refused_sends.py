"""A MessageSent the core refuses says why: a host that feeds one learns what it did wrong.

MessageSent is the Team Leader's Task or Message to a sub-agent (TW-TYPE-005, TW-TYPE-008); a
sub-agent's Message to a peer is an ask_other_agent call, which the host feeds as
ToolCallBlocked. Each refusal is a LocalProtocolError naming the rule broken, and the core is
left as it was.
"""

from __future__ import annotations

import pytest

from teamwire.envelope import MessageType
from teamwire.router import LocalProtocolError, MessageSent
from tests.router.helpers import FSE, LEADER, UIO, team


@pytest.mark.parametrize(("event", "message"), [
    (MessageSent(LEADER, UIO, MessageType.ANSWER, "Navy."),
     "MessageSent carries a Task or a Message, not a 回答"),
    (MessageSent(LEADER, UIO, MessageType.COMPLETION, "Done."),
     "MessageSent carries a Task or a Message, not a 任务完成汇报"),
    # the kind is checked before the sender: an Ask from a sub-agent is refused for its kind
    (MessageSent(UIO, FSE, MessageType.ASK, "Which blue?"),
     "MessageSent carries a Task or a Message, not a 提问"),
    (MessageSent(UIO, FSE, MessageType.MESSAGE, "Use the logo blue."),
     "UI Operator_1 may not send a 消息 (a sub-agent's Message comes from ask_other_agent: "
     "feed ToolCallBlocked)"),
    (MessageSent(FSE, UIO, MessageType.TASK, "Write the API."),
     "Full-Stack Engineer_1 may not send a 任务发布 (a sub-agent's Message comes from "
     "ask_other_agent: feed ToolCallBlocked)"),
    (MessageSent(LEADER, LEADER, MessageType.MESSAGE, "Note to self."),
     "a 消息 goes to a sub-agent, not the leader"),
    (MessageSent(LEADER, LEADER, MessageType.TASK, "Do it yourself."),
     "a 任务发布 goes to a sub-agent, not the leader"),
])
def test_a_refused_send_names_the_rule_it_breaks(event: MessageSent, message: str) -> None:
    core = team()
    before = core.snapshot()
    with pytest.raises(LocalProtocolError) as refused:
        core.handle(event)
    assert str(refused.value) == message
    assert core.snapshot() == before
