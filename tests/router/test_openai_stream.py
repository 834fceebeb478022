"""Streamed replies (``"stream": true``) as the reference router's driver reads them: any
split of a reply into server-sent events gives back the reply a plain response holds, and a
stream that is cut, garbled or reports an error fails the call with the line it broke at."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamwire.conformance.endpoint import ModelEndpoint
from teamwire.conformance.scenario import Reply as ScriptedReply
from teamwire.router.runtime.driver import DriverError, Reply, ToolCall
from teamwire.router.runtime.openai_chat import OpenAIChatDriver
from teamwire.router.runtime.openai_stream import read_event_stream

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
calls = st.builds(ToolCall, st.from_regex(r"call_[a-z0-9]{1,8}", fullmatch=True),
                  st.sampled_from(["send_message", "ask_sub_agent", "create_sub_agent"]),
                  st.dictionaries(st.text(max_size=5), st.integers() | texts, max_size=3)
                  .map(lambda d: json.dumps(d, ensure_ascii=False)))
replies = st.builds(Reply, st.none() | texts.filter(bool),
                    st.lists(calls, max_size=3).map(tuple))


def _pieces(text: str, cuts: list[int]) -> list[str]:
    """``text`` cut at the given places (each taken modulo its length)."""
    places = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(places)] or [""]


def _events(reply: Reply, cuts: list[int]) -> list[bytes]:
    """``reply`` as an OpenAI-style event stream, every text cut into pieces, with the
    comments, blank lines and usage chunk that real endpoints send around the deltas."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": piece} for piece in _pieces(reply.content or "", cuts)]
    for index, call in enumerate(reply.tool_calls):
        deltas.append({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                       "function": {"name": call.name}}]})
        deltas += [{"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
                   for piece in _pieces(call.arguments, cuts)]
    lines = [": keep-alive"]
    for delta in deltas:
        lines += ["data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]},
                                        ensure_ascii=False), ""]
    lines += ['data: {"choices": [], "usage": {"total_tokens": 3}}', "", "data: [DONE]", ""]
    return [(line + "\n").encode("utf-8") for line in lines]


@given(replies, st.lists(st.integers(min_value=0), max_size=4))
def test_any_split_of_a_reply_into_events_reads_back_as_the_reply(
        reply: Reply, cuts: list[int]) -> None:
    assert read_event_stream(_events(reply, cuts)) == reply


def test_a_tool_call_without_arguments_gets_an_empty_object() -> None:
    events = [b'data: {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", '
              b'"function": {"name": "list_agents"}}]}}]}\n', b"data: [DONE]\n"]
    assert read_event_stream(events) == Reply(None, (ToolCall("c1", "list_agents", "{}"),))


@pytest.mark.parametrize(("lines", "problem"), [
    ([b'data: {"choices": [{"delta": {"content": "hi"}}]}\n'],
     "the streamed response ended before data: [DONE]"),
    ([b"\n", b"data: {not json\n"], "streamed event at line 2 is not JSON"),
    ([b'data: {"error": {"message": "overloaded"}}\n'],
     "the endpoint reported an error at line 1: {'message': 'overloaded'}"),
    ([b'data: {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c"}]}}]}\n',
      b"data: [DONE]\n"], "streamed tool call 0 has no function name"),
    ([b'data: {"choices": [{"delta": {"content": 7}}]}\n'],
     "streamed content at line 1 is not a string"),
    ([b'data: {"choices": [{"delta": {"tool_calls": [{"index": "0"}]}}]}\n'],
     "unexpected streamed chunk at line 1"),
    ([b"data: [1]\n"], "streamed event at line 1 is not a JSON object"),
    ([b"data: \xff\n"], "streamed line 1 is not UTF-8"),
])
def test_a_broken_stream_fails_the_call_saying_where(lines: list[bytes], problem: str) -> None:
    with pytest.raises(DriverError) as raised:
        read_event_stream(lines)
    assert str(raised.value).startswith(problem)


SCRIPTED = ScriptedReply("Two calls, 你好.", (
    ("call_1", "create_sub_agent", '{"agent_id": 1, "role_id": "ui-operator", "task": "x"}'),
    ("call_2", "list_agents", "{}")))


@pytest.fixture
def endpoint() -> Iterator[tuple[ModelEndpoint, str]]:
    server = ModelEndpoint({"[tw:leader]": "Team Leader"}, {"Team Leader": [SCRIPTED] * 2})
    url = server.start()
    yield server, url
    server.close()


def _complete(url: str, stream: bool, number: int, server: ModelEndpoint) -> Reply:
    """One call of the driver, released by the endpoint once it has arrived."""
    driver = OpenAIChatDriver(url, "m", stream=stream)
    history = [{"role": "user", "content": "Build it. [tw:leader]"}]
    history += [{"role": "assistant", "content": "…"}] * (number - 1)
    result: list[Reply] = []
    worker = threading.Thread(
        target=lambda: result.append(asyncio.run(driver.complete("Team Leader", history, []))))
    worker.start()
    call = server.wait_for_call("Team Leader", number, timeout=10)
    assert call is not None and call.stream is stream
    server.release(call)
    worker.join(10)
    return result[0]


def test_a_streamed_call_gives_the_reply_a_plain_call_gives(
        endpoint: tuple[ModelEndpoint, str]) -> None:
    server, url = endpoint
    plain = _complete(url, False, 1, server)
    streamed = _complete(url, True, 2, server)
    assert streamed == plain
    assert plain.content == "Two calls, 你好." and len(plain.tool_calls) == 2
