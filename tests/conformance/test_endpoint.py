"""The scripted model endpoint as a router's HTTP client sees it: plain and streamed replies
(tool calls included) that reassemble to the scripted message, calls held until released,
and requests that break the contract answered with an error and recorded."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from teamwire.conformance.endpoint import ModelEndpoint
from teamwire.conformance.scenario import Reply
from teamwire.router.runtime.driver import DriverError
from teamwire.router.runtime.openai_stream import read_event_stream

REPLIES = {
    "Team Leader": [Reply(None, (("call_1", "create_sub_agent",
                                  '{"agent_id": 1, "role_id": "ui-operator", "task": "x"}'),
                                 ("call_2", "list_agents", "{}"))),
                    Reply("Waiting for the operator, 你好.")],
}


@pytest.fixture
def endpoint() -> Iterator[tuple[ModelEndpoint, str]]:
    server = ModelEndpoint({"[tw:leader]": "Team Leader"}, REPLIES)
    url = server.start()
    yield server, url
    server.close()


def _post(url: str, body: Any, path: str = "/chat/completions") -> tuple[int, bytes]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _reassemble(stream: bytes) -> dict[str, Any]:
    """What a streaming client rebuilds from the server-sent events."""
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    calls: dict[int, dict[str, Any]] = {}
    events = [line[len("data: "):] for line in stream.decode().split("\n")
              if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    for event in events[:-1]:
        delta = json.loads(event)["choices"][0]["delta"]
        message["content"] += delta.get("content") or ""
        for part in delta.get("tool_calls", []):
            call = calls.setdefault(part["index"], {"id": None, "type": "function",
                                                    "function": {"name": "", "arguments": ""}})
            call["id"] = part.get("id") or call["id"]
            call["function"]["name"] += part.get("function", {}).get("name", "")
            call["function"]["arguments"] += part.get("function", {}).get("arguments", "")
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    message["content"] = message["content"] or None
    return message


def _ask(url: str, results: list[tuple[int, bytes]], stream: bool, turn: int) -> None:
    messages = [{"role": "user", "content": "Build it. [tw:leader]"}]
    messages += [{"role": "assistant", "content": "…"}] * (turn - 1)
    results.append(_post(url, {"model": "m", "messages": messages, "stream": stream}))


@pytest.mark.parametrize("stream", [False, True])
def test_replies_reach_the_client_as_scripted_once_released(
        endpoint: tuple[ModelEndpoint, str], stream: bool) -> None:
    server, url = endpoint
    for number, reply in enumerate(REPLIES["Team Leader"], start=1):
        results: list[tuple[int, bytes]] = []
        client = threading.Thread(target=_ask, args=(url, results, stream, number))
        client.start()
        call = server.wait_for_call("Team Leader", number, timeout=10)
        assert call is not None and call.stream is stream
        assert not results  # held until the schedule releases it
        server.release(call)
        client.join(10)
        [(status, body)] = results
        assert status == 200
        got = _reassemble(body) if stream else json.loads(body)["choices"][0]["message"]
        assert got == reply.message()


def test_a_call_beyond_the_script_is_answered_empty_and_recorded(
        endpoint: tuple[ModelEndpoint, str]) -> None:
    server, url = endpoint
    for number in (1, 2):
        threading.Thread(target=_ask, args=(url, [], False, number)).start()
        found = server.wait_for_call("Team Leader", number, timeout=10)
        assert found is not None
        server.release(found)
    messages = [{"role": "user", "content": "[tw:leader]"}] + [{"role": "assistant"}] * 2
    status, body = _post(url, {"messages": messages})
    assert status == 200
    assert json.loads(body)["choices"][0]["message"]["content"] == ""
    assert [(c.agent, c.number) for c in server.unexpected] == [("Team Leader", 3)]


def test_a_reply_asked_for_again_is_a_repeat_after_a_restart_and_one_too_many_before(
        endpoint: tuple[ModelEndpoint, str]) -> None:
    server, url = endpoint
    threading.Thread(target=_ask, args=(url, [], False, 1)).start()
    first = server.wait_for_call("Team Leader", 1, timeout=10)
    assert first is not None
    server.release(first)
    again = {"messages": [{"role": "user", "content": "Build it. [tw:leader]"}]}
    _post(url, again)  # the same history again, in the same life of the router
    assert [c.number for c in server.unexpected] == [1]
    server.restarted()
    status, body = _post(url, again)  # after a restart: answered at once, the same reply
    assert status == 200
    assert json.loads(body)["choices"][0]["message"] == REPLIES["Team Leader"][0].message()
    assert [(c.number, c.life) for c in server.repeats] == [(1, 1)]


@pytest.mark.parametrize(("body", "path", "status", "reason"), [
    (b"{not json", "/chat/completions", 400, "the request body is not JSON"),
    ([1, 2], "/chat/completions", 400, "the request body is not a JSON object"),
    ({"model": "m"}, "/chat/completions", 400, "the request has no 'messages' array"),
    ({"messages": [{"role": "user", "content": "hello"}]}, "/chat/completions", 400,
     "no agent's token in the first user message"),
    ({"messages": []}, "/completions", 404, "POST /v1/completions"),
], ids=["not-json", "not-an-object", "no-messages", "no-token", "unknown-path"])
def test_a_request_that_breaks_the_contract_is_refused_and_recorded(
        endpoint: tuple[ModelEndpoint, str], body: Any, path: str, status: int,
        reason: str) -> None:
    server, url = endpoint
    got, _ = _post(url, body, path)
    assert got == status
    [breach] = server.breaches
    assert breach.reason.startswith(reason)
    assert server.calls == []


def test_a_get_is_refused_with_an_error_the_client_can_read_and_recorded(
        endpoint: tuple[ModelEndpoint, str]) -> None:
    server, url = endpoint
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url + "/models", timeout=10)
    assert refused.value.code == 404
    assert json.loads(refused.value.read()) == {"error": {"message": "no such path: /v1/models"}}
    [breach] = server.breaches
    assert breach.reason.startswith("GET /v1/models: the harness serves POST")
    assert server.calls == []


def _ask_raw(url: str, results: list[Any]) -> None:
    """One call for reply 1; what the client got: (status, body), or the exception."""
    body = {"model": "m", "messages": [{"role": "user", "content": "Build it. [tw:leader]"}]}
    request = urllib.request.Request(url + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            results.append((response.status, json.loads(response.read())))
    except urllib.error.HTTPError as exc:
        results.append((exc.code, exc.headers.get("Retry-After")))
    except (urllib.error.URLError, OSError) as exc:
        results.append(exc)


def test_a_reply_fails_its_scripted_tries_in_order_then_is_given() -> None:
    """Each failed try is a call of its own, held until released; the forms are those chapter
    07 counts as a failed model call (TW-ROUTE-031)."""
    reply = Reply("Done.", failures=("status-500", "status-429", "malformed", "disconnect"))
    server = ModelEndpoint({"[tw:leader]": "Team Leader"}, {"Team Leader": [reply]})
    url = server.start()
    got: list[Any] = []
    try:
        for _ in range(5):
            results: list[Any] = []
            client = threading.Thread(target=_ask_raw, args=(url, results))
            client.start()
            call = server.wait_for_call("Team Leader", 1, timeout=10)
            assert call is not None
            assert not results  # a failing try is held like any other
            server.release(call)
            client.join(10)
            got += results
    finally:
        server.close()
    assert got[0] == (500, None)
    assert got[1] == (429, "0")
    status, malformed = got[2]
    assert status == 200 and malformed["choices"] == []
    assert isinstance(got[3], OSError | urllib.error.URLError)  # closed without an answer
    assert got[4] == (200, got[4][1]) and got[4][1]["choices"][0]["message"] == reply.message()
    assert [c.failure for c in server.calls] == [*reply.failures, None]
    assert [c.number for c in server.calls_of("Team Leader")] == [1]  # the one answered
    assert server.unexpected == []


def _streamed_failure(failure: str) -> tuple[int, bytes]:
    """The status and body a request for a stream gets for a try that fails with ``failure``."""
    server = ModelEndpoint({"[tw:leader]": "Team Leader"},
                           {"Team Leader": [Reply("Done.", failures=(failure,))]})
    url = server.start()
    results: list[tuple[int, bytes]] = []
    try:
        client = threading.Thread(target=_ask, args=(url, results, True, 0))
        client.start()
        call = server.wait_for_call("Team Leader", 1, timeout=10)
        assert call is not None and call.stream
        server.release(call)
        client.join(10)
    finally:
        server.close()
    [(status, body)] = results
    return status, body


def test_a_streamed_request_that_gets_no_assistant_message_is_told_so_by_an_error_event(
) -> None:
    """To a request for a stream, the failure without an assistant message is an event stream
    whose one event carries ``error`` and that ends before ``data: [DONE]`` (TW-CERT-033): a
    stream of chunks without choices would read as an empty reply, not as a failure."""
    status, body = _streamed_failure("malformed")
    assert status == 200
    events = [line for line in body.decode().split("\n") if line]
    assert len(events) == 1 and events[0].startswith("data: ")
    assert set(json.loads(events[0][len("data: "):])) == {"error"}
    with pytest.raises(DriverError, match="reported an error"):
        read_event_stream(body.splitlines(keepends=True))


def test_a_reply_given_as_parts_is_a_failed_try_holding_the_replys_text() -> None:
    """content-parts answers HTTP 200 with the reply's assistant message, its text given as
    an array of one text part: a failed model call by TW-ROUTE-031, and the next try gets
    the reply with its text as a string."""
    reply = Reply("Done.", failures=("content-parts",))
    server = ModelEndpoint({"[tw:leader]": "Team Leader"}, {"Team Leader": [reply]})
    url = server.start()
    got: list[Any] = []
    try:
        for _ in range(2):
            client = threading.Thread(target=_ask_raw, args=(url, got))
            client.start()
            call = server.wait_for_call("Team Leader", 1, timeout=10)
            assert call is not None
            server.release(call)
            client.join(10)
    finally:
        server.close()
    [(status, parts), (again, given)] = got
    assert status == 200 == again
    assert parts["choices"][0]["message"] == {"role": "assistant",
                                              "content": [{"type": "text", "text": "Done."}]}
    assert given["choices"][0]["message"] == {"role": "assistant", "content": "Done."}
    assert [c.failure for c in server.calls] == ["content-parts", None]


def test_a_streamed_reply_given_as_parts_carries_the_array_in_its_delta() -> None:
    """To a request for a stream, content-parts is a stream whose one delta's content is the
    array (TW-CERT-033): a reader that takes only text content fails the try."""
    status, body = _streamed_failure("content-parts")
    assert status == 200
    chunks = [json.loads(line[len("data: "):]) for line in body.decode().split("\n")
              if line.startswith("data: {")]
    assert chunks[0]["choices"][0]["delta"]["content"] == [{"type": "text", "text": "Done."}]
    with pytest.raises(DriverError, match="is not a string"):
        read_event_stream(body.splitlines(keepends=True))
