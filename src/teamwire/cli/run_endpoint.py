"""What ``teamwire run`` tells its user about the model endpoint: failed turns as warnings,
and, when no model call succeeded, one line saying what to change (``--model``, the key, the
URL) instead of a turn's error text."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from teamwire.cli.inputs import terminal_safe
from teamwire.router.runtime.driver import AgentDriver, DriverError, Reply
from teamwire.router.runtime.openai_chat import EndpointError, list_models

EXIT_ENDPOINT = 3
"""The exit status of a session at which no model call succeeded: the endpoint cannot be used
as given (unreachable, an unknown model, a refused key, every answer an error)."""


class CallWatch:
    """Watches every agent's model calls: whether any succeeded, the first failure, and the
    warnings of failed turns, held back until a call succeeds (while none has, the one line
    of ``failure_line`` says it all)."""

    def __init__(self, done: Callable[[str], None] | None = None) -> None:
        self.succeeded = 0
        self.first_error: DriverError | None = None
        self.failed_turns: list[str] = []
        self._held: list[str] = []
        self._done = done

    def wrap(self, driver: AgentDriver) -> AgentDriver:
        """``driver``, watched."""
        return _Watched(driver, self)

    def turn_failed(self, data: dict[str, Any]) -> None:
        """A turn ended by a failed model call or its timeout (the session's ``turn-failed``)."""
        self.failed_turns.append(f"{data['agent']}: {data['problem']}")
        warning = f"warning: a turn of {data['agent']} ended by {data['state']}: {data['problem']}"
        if self.succeeded:
            _warn(warning)
        else:
            self._held.append(warning)

    def flush(self) -> None:
        """Print the warnings held back."""
        held, self._held = self._held, []
        for warning in held:
            _warn(warning)

    def _succeeded(self) -> None:
        self.succeeded += 1
        self.flush()


class _Watched:
    def __init__(self, driver: AgentDriver, watch: CallWatch) -> None:
        self.driver = driver
        self.watch = watch

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        watch = self.watch
        try:
            reply = await self.driver.complete(agent, messages, tools)
        except DriverError as exc:
            if watch.first_error is None:
                watch.first_error = exc
            raise
        finally:
            if watch._done is not None:
                watch._done(agent)
        watch._succeeded()
        return reply


def _warn(text: str) -> None:
    click.echo(terminal_safe(text), err=True)


def _detail(text: str) -> str:
    """The server's own words from an error body: ``error.message``, ``error``, ``detail``
    or the text itself, on one line and short."""
    _, _, body = text.partition(": ")
    said: Any = body
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict):
        said = data.get("error", data.get("detail", body))
        if isinstance(said, dict):
            said = said.get("message", body)
    words = " ".join(str(said).split()).rstrip(".")  # the line goes on after it
    return words if len(words) <= 200 else words[:199] + "…"


def failure_line(error: DriverError | None, first_turn: str, base_url: str,
                 api_key: str | None) -> str:
    """The one line printed when no model call succeeded: what failed and what to change."""
    if not isinstance(error, EndpointError):
        return f"error: no model call succeeded; the first failure: {first_turn}"
    said = _detail(str(error))
    if error.status is None:
        return (f"error: cannot reach the model endpoint at {error.url} ({said}); check "
                f"--model-url (or $OPENAI_BASE_URL) and that the server is running")
    where = f"HTTP {error.status} from {error.url}"
    if error.status == 404:
        models = list_models(base_url, api_key)
        if models is not None and error.model not in models:
            return (f"error: the endpoint has no model {error.model!r} ({where}); name one "
                    f"with --model: it offers {', '.join(models)}")
        if models is None:
            return (f"error: {where}: {said}; the endpoint has no model {error.model!r} or no "
                    f"chat-completions endpoint at that URL: name the model with --model "
                    f"NAME, and check that --model-url ends in /v1")
    if error.status in (401, 403):
        return f"error: {where}: {said}; check the key (--api-key or $OPENAI_API_KEY)"
    return f"error: {where}: {said}"
