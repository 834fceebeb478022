"""The scripted model endpoint: an OpenAI-compatible chat-completions server on 127.0.0.1.

A router under certification calls it for every model call of every agent, as it would call
a real model. Each call is recorded (what the router sent is what is checked), assigned to an
agent by the token the scenario put into that agent's first user message, and held until the
schedule releases it; the answer is the agent's scripted reply, as one JSON response or, when
the request says ``"stream": true``, as server-sent events (tool calls included).

The server runs in threads of its own; the harness talks to it through ``ModelEndpoint``.
Anything the router does that breaks the contract (another path, a body that is not JSON, a
call no token identifies) is answered with an HTTP error and recorded as a breach.

A scripted reply may first fail a given number of tries (``Reply.failures``): each try is a
model call of its own, held and released by the schedule like any other, and answered with
the failure instead of the reply, in one of the forms chapter 07 counts as a failed model
call (TW-ROUTE-031): an error status, a body that holds no assistant message, or a
connection closed without an answer.

A scripted reply may be one the router must drop (``Reply.dropped``: its model call was in
flight when a ``stop_sub_agent`` ended the turn, TW-PROF-037). Once released, it counts as
consumed: the agent's next call asks for the reply after it though its history holds one
assistant message fewer (TW-CERT-022). Whether the router reads the answer or has closed the
connection by then changes nothing here.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from teamwire.conformance.scenario import Reply

COMPLETIONS_PATH = "/v1/chat/completions"
MAX_BODY_BYTES = 64 * 1024 * 1024
"""The largest request body the endpoint reads; a larger one is a breach."""

FAILURES: dict[str, str] = {
    "status-500": "the endpoint answers HTTP 500 (a server error)",
    "status-429": "the endpoint answers HTTP 429 (too many requests, retry at once)",
    "malformed": "the endpoint answers HTTP 200 with a response that holds no assistant message"
                 " (to a streamed request: an event stream whose one event is an error)",
    "disconnect": "the endpoint closes the connection without answering",
    "content-parts": "the endpoint answers HTTP 200 with one assistant message whose content is "
                     "an array of parts, not text",
}
"""The ways a scripted model call can fail, each a failed model call by TW-ROUTE-031."""


def text_parts(reply: Reply) -> list[dict[str, str]]:
    """The reply's text as an array of one text part: the content of the failure
    ``content-parts``, which TW-ROUTE-031 counts as a failed model call (content is a string
    or null)."""
    return [{"type": "text", "text": reply.content or ""}]


def parts_response(reply: Reply) -> dict[str, Any]:
    """The chat-completions response of the failure ``content-parts``: the reply's assistant
    message with its text given as ``text_parts``."""
    message = {**reply.message(), "content": text_parts(reply)}
    return {"id": "chatcmpl-parts", "object": "chat.completion", "created": 0,
            "model": "scripted", "choices": [{"index": 0, "message": message,
                                              "finish_reason": "stop"}]}

MAX_TRIES = 3
"""The most tries of one request a router makes before it gives up on it (TW-ROUTE-031)."""


@dataclass
class ModelCall:
    """One call the router made: whose, which of that agent's calls, and what it sent."""

    agent: str
    number: int
    """Which of the agent's scripted replies the call asks for, 1-based: one more than the
    replies its history already holds, plus the agent's dropped replies released before the
    call arrived (TW-CERT-022). A router that repeats a model call after a restart asks for
    the same reply again."""
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    stream: bool
    arrived: float
    released: threading.Event = field(default_factory=threading.Event, repr=False)
    reply: Reply | None = None
    abandoned: bool = False
    """Held when the router was killed: never answered to it."""
    life: int = 0
    """How many restarts came before the call: 0 for the router's first life."""
    failure: str | None = None
    """The failure (a key of FAILURES) the call was answered with instead of a reply."""
    sent: threading.Event = field(default_factory=threading.Event, repr=False)
    """Set once the answer has been written to the router's connection (over HTTP only)."""


@dataclass(frozen=True)
class Breach:
    """A request that broke the endpoint contract, with what was received."""

    reason: str
    request: str


def _first_user_text(messages: Sequence[Any]) -> str | None:
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):  # content parts: the text parts, joined
                return "".join(part.get("text", "") for part in content
                               if isinstance(part, dict) and isinstance(part.get("text"), str))
            return None
    return None


class ModelEndpoint:
    """The endpoint of one scenario run: records calls, holds them, answers from scripts.

    ``tokens`` maps each agent's token to its name: a call belongs to the agent whose token
    its first user message holds. ``scripts`` gives each agent's replies in order; a call
    beyond its agent's script is recorded as unexpected and answered with empty content, so
    that the router can end its turn.
    """

    def __init__(self, tokens: Mapping[str, str], scripts: Mapping[str, Sequence[Reply]],
                 *, clock: Callable[[], float] = time.monotonic) -> None:
        self.tokens = dict(tokens)
        self.scripts = {agent: list(replies) for agent, replies in scripts.items()}
        self.clock = clock
        self.calls: list[ModelCall] = []
        self.breaches: list[Breach] = []
        self.unexpected: list[ModelCall] = []
        self.repeats: list[ModelCall] = []
        """Calls that asked again for a reply already given: allowed after a restart (the
        router repeats the model call it lost), answered at once with the same reply."""
        self.restarts = 0
        self._released: dict[tuple[str, int], int] = {}
        """(agent, reply) → the restart count when that reply was released."""
        self._failed: dict[tuple[str, int], int] = {}
        """(agent, reply) → how many tries for that reply were answered with a failure."""
        self._failing: dict[tuple[str, int], list[Any]] = {}
        """(agent, reply) → the messages of the request whose every try fails
        (``Reply.fails_every_try``), once its first try was released."""
        self._dropped: dict[str, set[int]] = {}
        """agent → the dropped replies released to it, each consumed (TW-CERT-022)."""
        self._lock = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._closing = False

    # -- the harness's side -----------------------------------------------------------------

    def start(self) -> str:
        """Serve on an ephemeral port of 127.0.0.1; returns the base URL (ending in ``/v1``)."""
        endpoint = self

        class Handler(_Handler):
            owner = endpoint

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="teamwire-model-endpoint")
        self._thread.start()
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def close(self) -> None:
        """Release every held call with an empty reply and stop serving."""
        with self._lock:
            self._closing = True
            for call in self.calls:
                if not call.released.is_set():
                    call.reply = call.reply or Reply("")
                    call.released.set()
            self._lock.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def wait_for_call(self, agent: str, number: int, timeout: float) -> ModelCall | None:
        """The latest call of ``agent`` for reply ``number`` not yet answered, once it has
        arrived; None after ``timeout`` seconds (or once the endpoint is closing)."""
        deadline = self.clock() + timeout
        with self._lock:
            while True:
                found = self._find(agent, number)
                if found is not None or self._closing:
                    return found
                left = deadline - self.clock()
                if left <= 0:
                    return None
                self._lock.wait(min(left, 0.05))

    def scripted(self, call: ModelCall) -> Reply:
        """The scripted reply ``call`` asks for (an empty one beyond its agent's script),
        whether the call gets it or one of its failures."""
        script = self.scripts.get(call.agent, [])
        return script[call.number - 1] if call.number <= len(script) else Reply("")

    def release(self, call: ModelCall) -> None:
        """Answer ``call`` with its agent's scripted reply, or with the reply's next failure
        while it has failures left."""
        script = self.scripts.get(call.agent, [])
        reply = script[call.number - 1] if call.number <= len(script) else Reply("")
        key = (call.agent, call.number)
        with self._lock:
            failed = self._failed.get(key, 0)
            if reply.fails_every_try and reply.failures and key not in self._failing:
                self._failing[key] = call.messages
                self._failed[key] = 1
                call.failure = reply.failures[0]
            elif reply.fails_every_try:
                call.reply = reply  # a call with other messages: the agent's next turn
                self._released[key] = self.restarts
            elif failed < len(reply.failures):
                self._failed[key] = failed + 1
                call.failure = reply.failures[failed]
            else:
                call.reply = reply
                self._released[key] = self.restarts
                if reply.dropped:
                    self._dropped.setdefault(call.agent, set()).add(call.number)
        call.released.set()

    def restarted(self) -> None:
        """The router was killed and started again: calls held for it are gone with it, and
        it may now repeat model calls it made before."""
        with self._lock:
            self.restarts += 1
            for call in self.calls:
                if not call.released.is_set():
                    call.reply = Reply("")
                    call.released.set()  # its connection died with the router
                    call.abandoned = True

    def calls_of(self, agent: str) -> list[ModelCall]:
        """The call of ``agent`` that got each reply (the last, when one was repeated),
        in the order of the replies."""
        with self._lock:
            latest: dict[int, ModelCall] = {}
            for call in self.calls:
                if call.agent == agent and not call.abandoned and call.failure is None:
                    latest[call.number] = call
            return [latest[n] for n in sorted(latest)]

    def _find(self, agent: str, number: int) -> ModelCall | None:
        for call in reversed(self.calls):
            if call.agent == agent and call.number == number and not call.released.is_set():
                return call
        return None

    # -- the router's side (server threads, or an in-process model client) ----------------

    def receive(self, body: dict[str, Any], raw: str) -> ModelCall | None:
        """Record a model call whose request body is ``body`` (``raw``: the text, quoted in
        a breach) and answer it at once when the schedule has no say in it (a call beyond
        the script, a repeat, a call while closing); None, with a breach recorded, if it
        belongs to no agent. The HTTP server calls this, and so does the in-process model
        client (``conformance.inprocess``): the bookkeeping does not depend on transport."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            self._breach("the request has no 'messages' array", raw)
            return None
        first = _first_user_text(messages)
        agent = next((name for token, name in self.tokens.items()
                      if first is not None and token in first), None)
        if agent is None:
            self._breach("no agent's token in the first user message, so the call belongs to "
                         "no agent of the scenario", raw)
            return None
        offered = body.get("tools")
        tools: list[dict[str, Any]] = offered if isinstance(offered, list) else []
        held = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        with self._lock:
            # A dropped reply the agent was given is consumed, though its history lacks it.
            number = 1 + held + len(self._dropped.get(agent, ()))
            call = ModelCall(agent, number, messages, tools, body.get("stream") is True,
                             self.clock(), life=self.restarts)
            self.calls.append(call)
            script = self.scripts.get(agent, [])
            given = self._released.get((agent, number))
            if number > len(script):
                self.unexpected.append(call)
                call.reply = Reply("")
                call.released.set()
            elif given is not None:
                # The reply was given before: a repeat after a restart is answered the same,
                # a repeat within one life of the router is a model call too many.
                (self.repeats if given < self.restarts else self.unexpected).append(call)
                call.reply = script[number - 1]
                call.released.set()
            elif self._closing:
                call.reply = Reply("")
                call.released.set()
            elif self._failing.get((agent, number)) == messages:
                # A try again of the request that fails on every try: answered at once with
                # the next failure; more tries than TW-ROUTE-031 allows is a call too many.
                tries = self._failed[(agent, number)] + 1
                self._failed[(agent, number)] = tries
                failures = script[number - 1].failures
                call.failure = failures[(tries - 1) % len(failures)]
                if tries > MAX_TRIES:
                    self.unexpected.append(call)
                call.released.set()
            self._lock.notify_all()
        return call

    def _breach(self, reason: str, raw: str) -> None:
        with self._lock:
            self.breaches.append(Breach(reason, raw[:2000]))
            self._lock.notify_all()


class _QuietServer(ThreadingHTTPServer):
    """A server that keeps quiet about connections the router dropped (killed mid-reply):
    the harness judges the router by what it sent, not by how it hung up."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


class _Handler(BaseHTTPRequestHandler):
    owner: ModelEndpoint
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return  # the harness reports; the server stays quiet

    def do_GET(self) -> None:
        self.owner._breach(f"GET {self.path}: the harness serves POST {COMPLETIONS_PATH} only",
                           f"GET {self.path}")
        self._json(404, {"error": {"message": f"no such path: {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self.owner._breach(f"a request body of {length} bytes", f"POST {self.path}")
            self._json(413, {"error": {"message": "request too large"}})
            return
        raw = self.rfile.read(length).decode("utf-8", "replace")
        if self.path.rstrip("/") != COMPLETIONS_PATH:
            self.owner._breach(f"POST {self.path}: the harness serves {COMPLETIONS_PATH} only",
                               raw)
            self._json(404, {"error": {"message": f"no such path: {self.path}"}})
            return
        try:
            body = json.loads(raw)
        except ValueError as exc:
            self.owner._breach(f"the request body is not JSON: {exc}", raw)
            self._json(400, {"error": {"message": "the body is not JSON"}})
            return
        if not isinstance(body, dict):
            self.owner._breach("the request body is not a JSON object", raw)
            self._json(400, {"error": {"message": "the body is not a JSON object"}})
            return
        call = self.owner.receive(body, raw)
        if call is None:
            self._json(400, {"error": {"message": "the call belongs to no agent"}})
            return
        call.released.wait()
        try:
            self._answer(call, body)
        finally:
            call.sent.set()

    def _answer(self, call: ModelCall, body: dict[str, Any]) -> None:
        """Write the answer the schedule released: a scripted failure or the reply."""
        if call.failure == "content-parts" and call.stream:
            self._open_stream()  # the parts as the content of one delta
            self._stream_chunks([{"role": "assistant",
                                  "content": text_parts(self.owner.scripted(call))}], "stop")
            return
        if call.failure == "content-parts":
            self._json(200, parts_response(self.owner.scripted(call)))
            return
        reply = call.reply or Reply("")
        if call.failure is not None:
            self._fail(call.failure, call.stream)
            return
        if call.stream:
            self._stream(reply)
        else:
            self._json(200, {
                "id": f"chatcmpl-{call.agent}-{call.number}", "object": "chat.completion",
                "created": 0, "model": str(body.get("model", "scripted")),
                "choices": [{"index": 0, "message": reply.message(),
                             "finish_reason": "tool_calls" if reply.tool_calls else "stop"}]})

    def _fail(self, failure: str, stream: bool) -> None:  # content-parts: see _answer
        """Answer a try with its scripted failure (FAILURES)."""
        if failure == "disconnect":
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if failure == "malformed" and stream:
            self._stream_error()
            return
        if failure == "malformed":
            self._json(200, {"id": "chatcmpl-malformed", "object": "chat.completion",
                             "created": 0, "model": "scripted", "choices": []})
            return
        status = 429 if failure == "status-429" else 500
        self._json(status, {"error": {"message": FAILURES[failure], "type": "scripted"}},
                   {"Retry-After": "0"} if status == 429 else None)

    def _json(self, status: int, data: dict[str, Any],
              headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _open_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _stream_error(self) -> None:
        """A streamed answer that holds no assistant message (TW-CERT-033): one event whose
        data is an error object, and the stream closed before ``data: [DONE]``. A stream of
        chunks with no choices would be read by the official SDKs as an empty reply, not as
        the failure it is; an ``error`` event they raise as an error."""
        self._open_stream()
        data = {"error": {"message": FAILURES["malformed"], "type": "scripted"}}
        self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _stream(self, reply: Reply) -> None:
        """The reply as server-sent events, as the OpenAI API streams: a role delta, the
        content, each tool call (name first, then its arguments in two pieces), the finish."""
        self._open_stream()
        chunks: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        if reply.content:
            middle = len(reply.content) // 2
            chunks += [{"content": reply.content[:middle]}, {"content": reply.content[middle:]}]
        for index, (call_id, name, arguments) in enumerate(reply.tool_calls):
            middle = len(arguments) // 2
            named: dict[str, Any] = {"index": index, "type": "function",
                                     "function": {"name": name, "arguments": ""}}
            if call_id is not None:
                named["id"] = call_id
            chunks.append({"tool_calls": [named]})
            for piece in (arguments[:middle], arguments[middle:]):
                chunks.append({"tool_calls": [{"index": index,
                                               "function": {"arguments": piece}}]})
        self._stream_chunks(chunks, "tool_calls" if reply.tool_calls else "stop")

    def _stream_chunks(self, chunks: list[dict[str, Any]], finish: str) -> None:
        """Each delta of ``chunks`` as an event, the finish, and ``data: [DONE]``."""
        choices: list[tuple[dict[str, Any], str | None]] = [(delta, None) for delta in chunks]
        choices.append(({}, finish))
        for delta, reason in choices:
            data: dict[str, Any] = {
                "id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": 0,
                "model": "scripted",
                "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
            self.wfile.write(f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
