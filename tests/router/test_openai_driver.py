"""The OpenAI-compatible driver against a stub chat-completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from teamwire.router.runtime import DriverError, ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import RetryingDriver
from teamwire.router.runtime.openai_chat import OpenAIChatDriver, parse_completion
from tests.router.helpers import LEADER, UIO, ChatStub, chat_stub


@pytest.fixture
def stub() -> Iterator[tuple[ChatStub, str]]:
    with chat_stub() as found:
        yield found


def _message(content: str | None,
             calls: Sequence[tuple[str, str, dict[str, Any]]] = ()) -> Any:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [{"id": i, "type": "function",
                                  "function": {"name": n, "arguments": json.dumps(a)}}
                                 for i, n, a in calls]
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def test_sub_agent_on_a_chat_completions_endpoint(stub: tuple[ChatStub, str]) -> None:
    state, url = stub
    state.replies = [
        (200, _message("Asking the leader.", [("c1", "ask_master",
                                               {"question": "colours?",
                                                "question_id": "ask_uio_001"})])),
        (200, _message("Blue it is.")),
    ]
    clock = VirtualClock()
    leader = ScriptedAgent([
        Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                          "task": "pick colours"}),)),
        Step(None, (("list_active_sub_agents", {}),), delay=5.0),
        # the ASK reaches the leader before this model call; only then can it be answered
        Step(None, (("answer_sub_agent_question", {"agent_id": 1, "question_id": "ask_uio_001",
                                                   "answer": "blue"}),), delay=1.0),
    ], clock)
    session = Session(leader=leader, clock=clock,
                      drivers=lambda name, role: OpenAIChatDriver(url, "stub-model",
                                                                  api_key="k"))

    async def go() -> None:
        await session.start("colours please")
        await session.run_until_idle()

    asyncio.run(go())
    assert [r["path"] for r in state.requests] == ["/v1/chat/completions"] * 2
    first, second = (r["body"] for r in state.requests)
    assert first["model"] == "stub-model" and state.requests[0]["auth"] == "Bearer k"
    assert {t["function"]["name"] for t in first["tools"]} >= {"ask_master", "ask_other_agent"}
    assert first["messages"][-1]["content"].startswith("来自 Team Leader 的任务发布")
    assert second["messages"][-1]["role"] == "tool"
    assert second["messages"][-1]["content"].startswith("来自 Team Leader 的回答")
    labels = [m["content"].split("\n")[0] for m in session.conversations[LEADER]
              if m["role"] == "user" and m["content"].startswith("来自")]
    assert labels[-1] == "来自 UI Operator_1 的任务完成汇报"
    assert session.core.state(UIO).value == "completed"


def test_parse_completion_rejects_garbage() -> None:
    bad: Any
    for bad in ({}, {"choices": []}, {"choices": [{"message": {"content": 3}}]}, None):
        with pytest.raises(DriverError):
            parse_completion(bad)
    assert parse_completion(_message("hi")).content == "hi"


@pytest.mark.parametrize("body", [b"{", b"\xff", b'{"n": 1' + b"0" * 5000 + b"}", b"[" * 100_000],
                         ids=["unclosed", "not-utf8", "long-number", "deep-nesting"])
def test_a_response_that_is_not_json_is_a_driver_error(stub: tuple[ChatStub, str],
                                                       body: bytes) -> None:
    """Not JSON, not UTF-8, a number too long for the parser, nesting too deep: each is a
    DriverError (the turn ends with an error result), never another exception."""
    state, url = stub
    state.replies = [(200, body)]
    with pytest.raises(DriverError):
        asyncio.run(OpenAIChatDriver(url, "m").complete(UIO, [], []))


def test_a_response_without_an_assistant_message_is_tried_again(
        stub: tuple[ChatStub, str]) -> None:
    """A response that holds no assistant message is a failed model call (TW-ROUTE-031),
    made again like an error status while retries are left."""
    chat, url = stub
    chat.replies = [(200, {"object": "chat.completion", "choices": []}),
                    (200, _message("ok"))]
    driver = OpenAIChatDriver(url, "m", retries=1)
    reply = asyncio.run(driver.complete("Team Leader", [{"role": "user", "content": "x"}], []))
    assert reply.content == "ok"
    assert len(chat.requests) == 2
    chat.replies = [(200, {"choices": []}), (200, _message("too late"))]
    with pytest.raises(DriverError):  # no retries: the first failure is the last
        asyncio.run(OpenAIChatDriver(url, "m").complete("Team Leader", [], []))


@pytest.mark.parametrize("make", [
    lambda retries: OpenAIChatDriver("http://127.0.0.1:9/v1", "m", retries=retries),
    lambda retries: RetryingDriver(ScriptedAgent([], VirtualClock()), retries),
])
def test_a_negative_number_of_retries_is_refused_when_the_driver_is_made(
        make: Callable[[int], OpenAIChatDriver | RetryingDriver]) -> None:
    """Fewer than no retries has no meaning: a driver made with one would call the model
    never, or never stop calling it. It is refused at once, with the number given."""
    with pytest.raises(ValueError, match=r"^retries must be 0 or more, not -1$"):
        make(-1)
    assert make(0).retries == 0
