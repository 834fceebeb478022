"""The OpenAI-compatible driver on the wire: the request it sends, the errors a turn ends with,
the tool calls it reads back. A real HTTP server on 127.0.0.1 stands in for the endpoint.

docs/router.md (Drivers): the driver POSTs JSON to ``{base_url}/chat/completions``, bounds its
own waits, and any failure is a ``DriverError`` whose text ends the turn as a run result of
state ``error`` (TW-RES-009), so that text is what the leader's model reads. Tool calls:
an id the endpoint gave is kept (TW-DUR-008 gives an id only to a call without one), and
arguments sent as an object, as ``""`` or not at all are JSON text (TW-TOOL-023).
"""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from teamwire.router.runtime import DriverError, ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.openai_chat import OpenAIChatDriver, parse_completion
from tests.router.helpers import LEADER, UIO, serving

HELLO = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "你好"},
                      "finish_reason": "stop"}]}


class Endpoint:
    """What the server received (headers with their names as sent) and what it answers."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        """(method, path, headers, body) of each request."""
        self.status = 200
        self.reply: bytes = json.dumps(HELLO).encode()

    def header(self, n: int, name: str) -> str | None:
        """Header ``name`` of request ``n``; header names are case-insensitive (RFC 9110)."""
        found = [v for k, v in self.requests[n][2].items() if k.lower() == name.lower()]
        assert len(found) <= 1, found
        return found[0] if found else None


@contextmanager
def endpoint() -> Iterator[tuple[Endpoint, str]]:
    state = Endpoint()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            state.requests.append((self.command, self.path, dict(self.headers.items()),
                                   self.rfile.read(length)))
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(state.reply)))
            self.end_headers()
            self.wfile.write(state.reply)

        do_POST = do_GET = do_PUT = _answer

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as url:
        yield state, url


@pytest.fixture
def stub() -> Iterator[tuple[Endpoint, str]]:
    with endpoint() as found:
        yield found


def _complete(driver: OpenAIChatDriver, messages: list[dict[str, Any]] | None = None) -> Any:
    return asyncio.run(driver.complete(UIO, messages or [{"role": "user", "content": "hi"}], []))


def _driver_error(driver: OpenAIChatDriver) -> str:
    with pytest.raises(DriverError) as caught:
        _complete(driver)
    return str(caught.value)


# -- the request ----------------------------------------------------------------------------------

def test_a_base_url_with_a_trailing_slash_posts_to_chat_completions(
        stub: tuple[Endpoint, str]) -> None:
    state, url = stub
    reply = _complete(OpenAIChatDriver(url + "/", "m"))
    _complete(OpenAIChatDriver(url + "//", "m"))
    _complete(OpenAIChatDriver(url + "/GPT-X", "m"))  # only slashes are trimmed
    assert reply.content == "你好"
    assert [(method, path) for method, path, _, _ in state.requests] \
        == [("POST", "/v1/chat/completions")] * 2 + [("POST", "/v1/GPT-X/chat/completions")]


def test_the_request_is_json_and_says_so(stub: tuple[Endpoint, str]) -> None:
    """The body is UTF-8 JSON with the model, the messages, the extra members; the media type is
    application/json (media types compare case-insensitively, RFC 9110 section 8.3.1)."""
    state, url = stub
    messages = [{"role": "user", "content": "设计表单"}]
    asyncio.run(OpenAIChatDriver(url, "m", api_key="sk-1", extra={"temperature": 0})
                .complete(UIO, messages, []))
    content_type = state.header(0, "Content-Type")
    assert content_type is not None and content_type.lower() == "application/json"
    assert state.header(0, "Authorization") == "Bearer sk-1"
    body = json.loads(state.requests[0][3].decode("utf-8"))
    assert body == {"model": "m", "messages": messages, "temperature": 0}


def test_the_driver_bounds_its_wait_for_the_endpoint(stub: tuple[Endpoint, str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/router.md: a driver must bound its own waits; the timeout it was given is the
    bound of its HTTP request, and without one it still has a finite bound."""
    _, url = stub
    real = urllib.request.urlopen
    bounds: list[Any] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        bounds.append(kwargs.get("timeout", args[2] if len(args) > 2 else None))
        return real(*args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", spy)
    _complete(OpenAIChatDriver(url, "m", timeout=7.5))
    _complete(OpenAIChatDriver(url, "m"))
    assert bounds[0] == 7.5
    assert isinstance(bounds[1], float) and 0 < bounds[1] < float("inf")


# -- errors, as the turn's run result tells them --------------------------------------------------

def test_an_http_error_names_the_status_the_url_and_the_start_of_the_body(
        stub: tuple[Endpoint, str]) -> None:
    """The error body is cut to its first 500 characters."""
    state, url = stub
    state.status, state.reply = 500, b"x" * 499 + b"y" + b"z" * 100
    message = _driver_error(OpenAIChatDriver(url, "m"))
    assert message == f"HTTP 500 from {url}/chat/completions: " + "x" * 499 + "y"


def test_an_http_error_body_that_is_not_utf8_is_still_told(stub: tuple[Endpoint, str]) -> None:
    """A bad byte becomes U+FFFD: the error is still a DriverError with the rest of the body."""
    state, url = stub
    state.status, state.reply = 502, b"\xffbad gateway"
    message = _driver_error(OpenAIChatDriver(url, "m"))
    assert message == f"HTTP 502 from {url}/chat/completions: \ufffdbad gateway"


def test_an_endpoint_nobody_listens_on_cannot_be_reached() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    message = _driver_error(OpenAIChatDriver(url, "m", timeout=5.0))
    assert message.startswith(f"cannot reach {url}/chat/completions: ")
    assert len(message) > len(f"cannot reach {url}/chat/completions: ")


def test_a_reply_that_is_not_json_is_told_as_such(stub: tuple[Endpoint, str]) -> None:
    state, url = stub
    state.reply = b"<html>gateway</html>"
    message = _driver_error(OpenAIChatDriver(url, "m"))
    assert message.startswith(f"response from {url}/chat/completions is not JSON: ")
    assert len(message) > len(f"response from {url}/chat/completions is not JSON: ")


def test_the_leader_reads_the_http_error_in_the_run_result(stub: tuple[Endpoint, str]) -> None:
    """TW-RES-009: the sub-agent's failed model call reaches the leader as a run result of
    state error that says what failed."""
    state, url = stub
    state.status, state.reply = 503, b"overloaded, retry later"
    clock = VirtualClock()
    leader = ScriptedAgent([Step(None, (("create_sub_agent", {
        "agent_id": 1, "role_id": "ui-operator", "task": "x"}),))], clock)
    session = Session(leader=leader, clock=clock,
                      drivers=lambda name, role: OpenAIChatDriver(url, "m"))

    async def go() -> None:
        await session.start("go")
        await session.run_until_idle()

    asyncio.run(go())
    last = [m["content"] for m in session.conversations[LEADER] if m["role"] == "user"][-1]
    assert 'state="error"' in last
    assert f"HTTP 503 from {url}/chat/completions: overloaded, retry later" in last


# -- reading the reply ---------------------------------------------------------------------------

def _call(**fields: Any) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", **fields}]}}]}


def test_a_tool_call_keeps_the_id_the_endpoint_gave() -> None:
    """TW-DUR-008: only a call without an id gets one of the session's; a number is its text."""
    function = {"name": "list_agents", "arguments": "{}"}
    assert parse_completion(_call(id="call_abc", function=function)).tool_calls[0].id \
        == "call_abc"
    assert parse_completion(_call(id=7, function=function)).tool_calls[0].id == "7"
    assert parse_completion(_call(id=None, function=function)).tool_calls[0].id == ""
    assert parse_completion(_call(function=function)).tool_calls[0].id == ""


def test_empty_or_missing_arguments_read_as_an_empty_object() -> None:
    """TW-TOOL-023: ``""``, null and no arguments at all are ``{}``; white space is left to
    the router, which reads it as ``{}`` too."""
    for function in ({"name": "list_agents", "arguments": ""},
                     {"name": "list_agents", "arguments": None}, {"name": "list_agents"}):
        assert parse_completion(_call(id="c", function=function)).tool_calls[0].arguments == "{}"
    spaced = {"name": "list_agents", "arguments": " "}
    assert parse_completion(_call(id="c", function=spaced)).tool_calls[0].arguments == " "


def test_object_arguments_become_json_text_that_keeps_its_characters() -> None:
    """Arguments sent as an object are that object's JSON text: lists stay lists, and the
    text keeps Chinese as it is (the conversation, the bundle and the next request carry
    it; every text the router writes is UTF-8, not \\u escapes)."""
    arguments = {"颜色": "蓝", "files": ["a.py", "b.py"], "n": [1, [2, 3]], "ok": True,
                 "none": None, "nested": {"名字": ["王"]}}
    text = parse_completion(_call(id="c", function={"name": "create_sub_agent",
                                                    "arguments": arguments})).tool_calls[0].arguments
    assert json.loads(text) == arguments
    assert '"颜色": "蓝"' in text and '"名字": ["王"]' in text
    assert text.isascii() is False and "\\u" not in text


def test_replies_that_are_not_assistant_messages_say_what_is_wrong() -> None:
    with pytest.raises(DriverError) as caught:
        parse_completion({"choices": []})
    assert str(caught.value).startswith("unexpected chat-completions response: IndexError")
    with pytest.raises(DriverError) as caught:
        parse_completion({"choices": [{"message": {"content": ["a", "b"]}}]})
    assert str(caught.value) == "assistant content is not a string"
