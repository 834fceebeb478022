"""A call resumed from the store whose arguments are not JSON text fails with
invalid-arguments (TW-TOOL-023, TW-DUR-005).

On resume a running agent finishes the tool calls of its last reply that have no result.
Those calls come from the stored conversation, which another host (or an older one) may
have written with ``arguments`` as a JSON object instead of the JSON text the
chat-completions form requires. Such a call must not run: it gets the error result
``invalid-arguments`` saying that arguments must be a JSON text, and the turn goes on.
"""

from __future__ import annotations

import asyncio
import json

from teamwire.router import AgentCreated, RoutingCore, TurnStarted
from teamwire.router.actions import AppendConversation
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import MemoryStore
from tests.router.helpers import LEADER, run_stored


def _no_sub_agents(name: str, role_id: str) -> AgentDriver:
    raise AssertionError("no sub-agent is created")


def test_a_stored_call_with_object_arguments_gets_an_error_result_on_resume() -> None:
    store = MemoryStore()
    run_stored(RoutingCore(), store, AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER))
    call = {"id": "c1", "type": "function",
            "function": {"name": "list_agents", "arguments": {}}}
    store.apply_batch([[
        AppendConversation(LEADER, 0, {"role": "system", "content": "You lead."}),
        AppendConversation(LEADER, 1, {"role": "user", "content": "build the page"}),
        AppendConversation(LEADER, 2, {"role": "assistant", "content": None,
                                       "tool_calls": [call]}),
    ]])
    clock = VirtualClock()
    leader = ScriptedAgent([Step(None, (("list_agents", {}),)), Step("done")], clock, tag="tl")

    async def go() -> Session:
        session = await Session.resume(store, leader=leader, drivers=_no_sub_agents,
                                       clock=clock)
        await session.run_until_idle()
        return session

    session = asyncio.run(go())
    result = session.conversations[LEADER][3]
    assert result["tool_call_id"] == "c1"
    assert json.loads(result["content"]) == {"success": False, "error": {
        "code": "invalid-arguments", "message": "arguments must be a JSON text"}}
    assert session.conversations[LEADER][-1] == {"role": "assistant", "content": "done"}
