"""A small OpenAI-compatible endpoint on 127.0.0.1 for ``teamwire run``'s tests: a Team Leader
that hands one task to a UI Operator and then answers, as JSON or as server-sent events; or a
fixed error status for every call; and, if asked, a list of models at ``GET /v1/models``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.router.helpers import serving

TASK = "Pick three colours for a weather app."
REPORT = "Sky blue, storm grey and sun yellow."
ANSWER = "The palette: sky blue, storm grey, sun yellow."


@dataclass
class Fake:
    """What the endpoint answers, and the bodies of the chat-completions calls it got."""

    status: int = 200
    error: dict[str, Any] = field(default_factory=lambda: {"error": {"message": "no"}})
    models: list[str] | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for ``body``: by who calls (the leader is offered
        create_sub_agent) and how many replies its conversation holds."""
        tools = {t["function"]["name"] for t in body.get("tools", [])}
        replies = sum(m["role"] == "assistant" for m in body["messages"])
        if "create_sub_agent" not in tools:
            return {"role": "assistant", "content": REPORT}
        if replies == 0:
            arguments = {"agent_id": 1, "role_id": "ui-operator", "task": TASK}
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "create_sub_agent", "arguments": json.dumps(arguments)}}]}
        has_report = any(m["role"] == "user" and REPORT in (m.get("content") or "")
                         for m in body["messages"])
        return {"role": "assistant", "content": ANSWER if has_report else "Waiting."}


def _chunks(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    for word in (message.get("content") or "").split(" "):
        if word:
            yield {"choices": [{"index": 0, "delta": {"content": word + " "}}]}
    for index, call in enumerate(message.get("tool_calls") or ()):
        yield {"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": index, "id": call["id"], "function": call["function"]}]}}]}


@contextmanager
def fake_endpoint(fake: Fake | None = None) -> Iterator[tuple[Fake, str]]:
    """Serve ``fake`` for the test's duration: it and its base URL."""
    state = fake or Fake()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, data: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/v1/models" and state.models is not None:
                models = [{"id": m, "object": "model"} for m in state.models]
                self._send(200, json.dumps({"object": "list", "data": models}).encode())
            else:
                self._send(404, b'{"detail": "Not Found"}')

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            state.calls.append(body)
            if state.status != 200:
                self._send(state.status, json.dumps(state.error).encode())
                return
            message = state.reply(body)
            if not body.get("stream"):
                self._send(200, json.dumps({"choices": [
                    {"index": 0, "message": message, "finish_reason": "stop"}]}).encode())
                return
            events = "".join(f"data: {json.dumps(c)}\n\n" for c in _chunks(message))
            self._send(200, (events + "data: [DONE]\n\n").encode(), "text/event-stream")

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as url:
        yield state, url
