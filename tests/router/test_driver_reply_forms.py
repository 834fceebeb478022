"""What a driver's reply puts into the conversation (TW-DUR-003, TW-TYPE-017).

A driver may hand back its tool calls as a list instead of a tuple: the reply's text must
still be recorded and routed with them. Endpoints that number every reply's calls from
zero, or repeat one id within a reply, get a fresh id for each repeat, so that every call
keeps its own result: the first repeat of ``c`` becomes ``c_2``, the next ``c_3`` (the
numbers count on; ``c_1`` would read as the first of the calls).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from teamwire.router.runtime import Session, VirtualClock
from teamwire.router.runtime.driver import AgentDriver, Reply, ToolCall
from tests.router.helpers import LEADER, run_to_idle


class Replies:
    """A driver that returns ``replies`` in order, then empty replies."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        self._replies = list(replies)

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        return self._replies.pop(0) if self._replies else Reply()


def _no_sub_agents(name: str, role_id: str) -> AgentDriver:
    raise AssertionError("no sub-agent is created")


def _leader_messages(*replies: Reply) -> list[dict[str, Any]]:
    session = run_to_idle(Session(leader=Replies(replies), drivers=_no_sub_agents,
                                  clock=VirtualClock()))
    return session.conversations[LEADER][2:]


LIST = '{}'


def test_text_of_a_reply_whose_calls_come_as_a_list_is_kept() -> None:
    calls: Any = [ToolCall("c1", "list_agents", LIST)]  # a list, not the declared tuple
    reply = Reply("checking the team first", calls)
    messages = _leader_messages(reply)
    assert messages[0] == {"role": "assistant", "content": "checking the team first",
                           "tool_calls": [{"id": "c1", "type": "function",
                                           "function": {"name": "list_agents",
                                                        "arguments": LIST}}]}
    assert messages[1]["tool_call_id"] == "c1"
    assert json.loads(messages[1]["content"])["success"] is True


def test_each_repeat_of_a_call_id_gets_the_next_free_number() -> None:
    calls = tuple(ToolCall("c", "list_active_sub_agents", LIST) for _ in range(3))
    messages = _leader_messages(Reply(None, calls))
    ids = [c["id"] for c in messages[0]["tool_calls"]]
    assert ids == ["c", "c_2", "c_3"]
    assert [m["tool_call_id"] for m in messages[1:4]] == ids
    assert all(json.loads(m["content"]) == {"success": True, "agents": []}
               for m in messages[1:4])
