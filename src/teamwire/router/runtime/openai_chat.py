"""A driver for OpenAI-compatible chat-completions endpoints (standard library only).

The HTTP request runs in a daemon thread of its own with ``urllib``, so no HTTP client
dependency is needed, and a call whose agent was stopped meanwhile (terminated during its
model call) does not keep the process alive once the session has ended. A failed call raises
``EndpointError`` (a ``DriverError``) saying whether the endpoint answered with an error
status or could not be reached, so that a command can tell its user what to change.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any, TypeVar

from teamwire.router.runtime.driver import DriverError, Reply, ToolCall
from teamwire.router.runtime.openai_stream import read_event_stream

_T = TypeVar("_T")
_A = TypeVar("_A")


async def _in_daemon_thread(function: Callable[[], _T]) -> _T:
    """``function()`` in a daemon thread. Not ``asyncio.to_thread``: the event loop's
    executor is joined when ``asyncio.run`` returns, so an abandoned call (its agent was
    terminated, the harness never answers) would hold the router's exit until the socket
    timed out."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def give(result: _T) -> None:
        if not future.done():  # cancelled while the request ran: nobody waits for it
            future.set_result(result)

    def fail(error: BaseException) -> None:
        if not future.done():
            future.set_exception(error)

    def work() -> None:
        try:
            result = function()
        except BaseException as exc:  # handed to the awaiting task, raised there
            _call_soon(loop, fail, exc)
            return
        _call_soon(loop, give, result)

    threading.Thread(target=work, name="teamwire-model-call", daemon=True).start()
    return await future


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[_A], None], value: _A
               ) -> None:
    with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
        loop.call_soon_threadsafe(callback, value)


TextListener = Callable[[str, str], None]
"""Told each piece of streamed reply text as it arrives: the agent and the piece."""


class EndpointError(DriverError):
    """A model call the endpoint answered with an error status (``status``) or that never
    reached it (``status`` None); ``model`` is the model the call asked for."""

    def __init__(self, message: str, *, url: str, model: str, status: int | None) -> None:
        super().__init__(message)
        self.url = url
        self.model = model
        self.status = status


class OpenAIChatDriver:
    """Calls ``{base_url}/chat/completions`` with the agent's conversation and tools.

    With ``stream``, ``on_text`` (if given) is told each piece of reply text as it arrives, in
    the event loop's thread and before ``complete`` returns.
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 timeout: float = 120.0, extra: dict[str, Any] | None = None,
                 retries: int = 0, stream: bool = False,
                 on_text: TextListener | None = None) -> None:
        if retries < 0:
            # fewer than no retries would mean no call at all
            raise ValueError(f"retries must be 0 or more, not {retries}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        """How many times a failed call is made again before the driver gives up."""
        self.stream = stream
        """Ask for the reply as server-sent events (``"stream": true``) and put it together."""
        self.extra = dict(extra or {})
        """Further request members, e.g. ``{"temperature": 0}``."""
        self.on_text = on_text

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.extra}
        if tools:
            body["tools"] = tools
        if self.stream:
            body["stream"] = True
        piece: Callable[[str], None] | None = None
        if self.on_text is not None:
            loop, listener = asyncio.get_running_loop(), self.on_text

            def piece(text: str) -> None:
                # read in the worker thread, shown in the loop's: before the reply is taken
                loop.call_soon_threadsafe(listener, agent, text)
        for attempt in range(self.retries + 1):
            try:
                # A response that holds no assistant message is a failed call too
                # (TW-ROUTE-031), tried again like an error status.
                return await _in_daemon_thread(lambda: self._post(body, piece))
            except DriverError:
                if attempt == self.retries:
                    raise
        raise AssertionError("unreachable: the last try returns or raises")

    def _post(self, body: dict[str, Any], piece: Callable[[str], None] | None = None) -> Reply:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, json.dumps(body).encode("utf-8"), headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                if self.stream:
                    return read_event_stream(response, piece)
                return parse_completion(json.loads(response.read().decode("utf-8"),
                                                   object_pairs_hook=_keep_repeats))
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")[:500]
            raise EndpointError(f"HTTP {exc.code} from {self.url}: {detail}", url=self.url,
                                model=self.model, status=exc.code) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise EndpointError(f"cannot reach {self.url}: {exc}", url=self.url,
                                model=self.model, status=None) from None
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, a 5000-digit number
            raise DriverError(f"response from {self.url} is not JSON: {exc}") from None


def list_models(base_url: str, api_key: str | None = None,
                timeout: float = 10.0) -> list[str] | None:
    """The ids of the models ``GET {base_url}/models`` lists; None when it lists none (no
    such endpoint, an error, an answer of another shape)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    request = urllib.request.Request(base_url.rstrip("/") + "/models", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read().decode("utf-8"))
        ids = [str(entry["id"]) for entry in data["data"]]
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        return None
    return ids or None


def _text(value: Any) -> str:
    # no id (None) stays empty: the session gives such a call an id of its own
    return "" if value is None else str(value)


class _Repeats(dict[str, Any]):
    """An object of a response that named a member twice, with every member it named."""

    pairs: list[tuple[str, Any]]


def _keep_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) == len(pairs):
        return members
    repeats = _Repeats(members)
    repeats.pairs = pairs
    return repeats


def _json_text(value: Any) -> str:
    """``value`` as JSON text again, an object that named a member twice still so: the
    router must see the repeat to refuse the arguments (TW-TOOL-038)."""
    if isinstance(value, dict):
        members = value.pairs if isinstance(value, _Repeats) else value.items()
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_json_text(v)}"
                               for k, v in members) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_json_text(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _arguments(value: Any) -> str:
    """Arguments as JSON text; some endpoints send them as a JSON object instead of text."""
    if value is None or value == "":
        return "{}"
    if isinstance(value, str):
        return value
    return _json_text(value)  # parsed from JSON, so it is JSON text again


def parse_completion(data: Any) -> Reply:
    """The assistant message of a chat-completions response; DriverError if there is none."""
    try:
        message = data["choices"][0]["message"]
        content = message.get("content")
        calls = tuple(ToolCall(_text(c.get("id")), str(c["function"]["name"]),
                               _arguments(c["function"].get("arguments")))
                      for c in message.get("tool_calls") or ())
    except (KeyError, IndexError, TypeError, AttributeError, RecursionError) as exc:
        raise DriverError(f"unexpected chat-completions response: {exc!r}") from None
    if content is not None and not isinstance(content, str):
        raise DriverError("assistant content is not a string")
    return Reply(content, calls)
