"""The reference router with one mistake made on purpose, for certification in process
(``teamwire certify --in-process tests/conformance/routers/broken_inprocess.py:drop_inline``).

- ``drop_inline``: a message that reaches a running agent is routed (the sender is told it
  went inline) but never put into the receiver's conversation (TW-ROUTE-008 broken);
- ``newest_first``: the messages of one delivery are put into the conversation newest first
  (TW-ROUTE-005, TW-ROUTE-008 broken);
- ``timers_first``: a model reply is handled only after every timer due at the instant it
  arrived, so that an answer observed at its ask's timer loses to the timer (TW-ROUTE-028
  broken);
- ``timers_reversed``: timers due at one instant run newest first (TW-ROUTE-028 broken);
- ``ask_timeout_600``: with no ask timeout set, an ask waits 600 seconds, 1.0's default, not
  300 (TW-ROUTE-017, TW-ROUTE-032 broken).

Each of the next faults is made in what the router sends its model (its model client
rewrites the request), so that it breaks what exactly one run check of every scenario run
judges (``tests/conformance/test_run_checks_have_teeth.py``):

- ``never_exits``: a housekeeping timer keeps the session from ever ending (TW-CERT-004);
- ``two_system_messages``: every conversation opens with two system messages (TW-TOOL-043);
- ``rewrites_history``: the system message is reworded once the model has replied, so a
  later call no longer begins with what an earlier one held (TW-CERT-007);
- ``drops_tool_results``: no tool result is sent to the model (TW-CERT-008);
- ``leader_tool_for_sub_agents``: sub-agents are offered ``create_sub_agent`` too, and
  ``sub_agent_tool_left_out``: sub-agents are not offered ``ask_master`` (TW-CERT-009);
- ``duplicates_envelopes``: every envelope in a user message is sent twice (TW-DEL-002);
- ``forgets_after_restart``: after a restart, the last message each conversation held is
  gone (TW-DUR-004);
- ``drops_delivery``: send_message_to_sub_agent results lose ``delivery``, which the
  reference router declares (TW-TOOL-012 as TW-CERT-016 holds a declared feature to).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from teamwire.conformance.inprocess import HarnessClock, InProcessSetup, reference_factory
from teamwire.envelope.header import HEADER_MARK
from teamwire.router.actions import Action, AppendInline, StartTurn
from teamwire.router.runtime import Session
from teamwire.router.runtime.clock import Timer
from teamwire.router.runtime.driver import AgentDriver, Reply


class _DropsInline(Session):
    def _place(self, actions: list[Action]) -> None:
        super()._place([a for a in actions if not isinstance(a, AppendInline)])


class _NewestFirst(Session):
    def _place(self, actions: list[Action]) -> None:
        turned: list[Action] = []
        for action in actions:
            if isinstance(action, (AppendInline, StartTurn)) and len(action.messages) > 1:
                action = replace(action, messages=tuple(reversed(action.messages)))
            turned.append(action)
        super()._place(turned)


drop_inline = reference_factory(_DropsInline)
newest_first = reference_factory(_NewestFirst)


class _TimersFirst:
    """A model client that, once a reply has come, runs the timers already due before the
    router sees the reply: the mistake of a loop that polls its timers before its input."""

    def __init__(self, model: AgentDriver, clock: HarnessClock) -> None:
        self._model = model
        self._clock = clock

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        reply = await self._model.complete(agent, messages, tools)
        due = self._clock.next_timer()
        while due is not None and due <= self._clock.now():
            self._clock.advance()
            due = self._clock.next_timer()
        return reply


async def timers_first(setup: InProcessSetup) -> object:
    assert isinstance(setup.clock, HarnessClock)
    return await reference_factory()(
        replace(setup, model=_TimersFirst(setup.model, setup.clock)))


class _Cancelled:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class _NewestFirstClock:
    """The harness's clock, but the timers of one instant are kept in a stack: one timer of
    the harness's per instant runs them newest first."""

    def __init__(self, clock: HarnessClock) -> None:
        self._clock = clock
        self.activity = clock.activity
        self._stacks: dict[float, list[tuple[_Cancelled, Callable[[], None]]]] = {}

    def now(self) -> float:
        return self._clock.now()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        when = self._clock.now() + max(delay, 0.0)
        handle = _Cancelled()
        stack = self._stacks.get(when)
        if stack is None:
            stack = self._stacks[when] = []

            def run() -> None:
                for timer, due in reversed(self._stacks.pop(when)):
                    if not timer.cancelled:
                        due()

            self._clock.call_later(delay, run)
        stack.append((handle, callback))
        return handle

    async def sleep(self, delay: float) -> None:
        await self._clock.sleep(delay)

    def advance(self) -> bool:
        return self._clock.advance()

    def skip_to(self, time: float) -> None:
        self._clock.skip_to(time)


async def timers_reversed(setup: InProcessSetup) -> object:
    assert isinstance(setup.clock, HarnessClock)
    return await reference_factory()(
        replace(setup, clock=_NewestFirstClock(setup.clock)))  # type: ignore[arg-type]


async def ask_timeout_600(setup: InProcessSetup) -> object:
    return await reference_factory()(replace(
        setup, ask_timeout=600.0 if setup.ask_timeout is None else setup.ask_timeout))


async def never_exits(setup: InProcessSetup) -> object:
    def tick() -> None:
        setup.clock.call_later(1.0, tick)

    tick()
    return await reference_factory()(setup)


Rewrite = Callable[[list[dict[str, Any]], list[dict[str, Any]]],
                   tuple[list[dict[str, Any]], list[dict[str, Any]]]]


class _Rewrites:
    """A model client that sends the model the request ``rewrite`` makes of the router's,
    a copy: the router's own conversation stays as it was."""

    def __init__(self, model: AgentDriver, rewrite: Rewrite) -> None:
        self._model = model
        self._rewrite = rewrite

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        sent, offered = self._rewrite(copy.deepcopy(messages), copy.deepcopy(tools))
        return await self._model.complete(agent, sent, offered)


def _rewriting(make: Callable[[InProcessSetup], Rewrite]) -> Callable[[InProcessSetup],
                                                                      Any]:
    async def start(setup: InProcessSetup) -> object:
        return await reference_factory()(replace(setup, model=_Rewrites(setup.model,
                                                                         make(setup))))

    return start


def _names(tools: list[dict[str, Any]]) -> set[str]:
    return {t.get("function", {}).get("name") for t in tools}


def _is_sub_agent(tools: list[dict[str, Any]]) -> bool:
    return "ask_master" in _names(tools)


def _two_system_messages(setup: InProcessSetup) -> Rewrite:
    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        return [messages[0], *messages], tools
    return rewrite


def _rewrites_history(setup: InProcessSetup) -> Rewrite:
    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        if any(m.get("role") == "assistant" for m in messages):
            messages[0]["content"] += "\nBe brief."
        return messages, tools
    return rewrite


def _drops_tool_results(setup: InProcessSetup) -> Rewrite:
    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        return [m for m in messages if m.get("role") != "tool"], tools
    return rewrite


LEADER_TOOL = {"type": "function", "function": {
    "name": "create_sub_agent", "description": "Create a sub-agent.",
    "parameters": {"type": "object", "properties": {}}}}


def _leader_tool_for_sub_agents(setup: InProcessSetup) -> Rewrite:
    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        return messages, [*tools, LEADER_TOOL] if _is_sub_agent(tools) else tools
    return rewrite


def _sub_agent_tool_left_out(setup: InProcessSetup) -> Rewrite:
    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        if _is_sub_agent(tools):
            tools = [t for t in tools if t.get("function", {}).get("name") != "ask_master"]
        return messages, tools
    return rewrite


def _is_envelope(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return message.get("role") == "user" and isinstance(content, str) \
        and content.startswith(HEADER_MARK)


def _duplicates_envelopes(setup: InProcessSetup) -> Rewrite:
    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        return [each for m in messages for each in ([m, m] if _is_envelope(m) else [m])], tools
    return rewrite


def _forgets_after_restart(setup: InProcessSetup) -> Rewrite:
    """From the second life on, each conversation loses the user message it ended with when
    the life began (a message that reached the store, but not the restored conversation)."""
    lost: dict[str, tuple[int, dict[str, Any]] | None] = {}

    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        if setup.life == 0:
            return messages, tools
        key = json.dumps(messages[:2], sort_keys=True)
        if key not in lost:
            last = len(messages) - 1
            lost[key] = (last, messages[last]) \
                if last >= 2 and messages[last].get("role") == "user" else None
        found = lost[key]
        if found is not None and len(messages) > found[0] and messages[found[0]] == found[1]:
            messages = messages[:found[0]] + messages[found[0] + 1:]
        return messages, tools
    return rewrite


def _drops_delivery(setup: InProcessSetup) -> Rewrite:
    def rewrite(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        for message in messages:
            if message.get("role") != "tool":
                continue
            try:
                value = json.loads(message.get("content") or "")
            except ValueError:
                continue
            if isinstance(value, dict) and "delivery" in value:
                del value["delivery"]
                message["content"] = json.dumps(value, ensure_ascii=False)
        return messages, tools
    return rewrite


two_system_messages = _rewriting(_two_system_messages)
rewrites_history = _rewriting(_rewrites_history)
drops_tool_results = _rewriting(_drops_tool_results)
leader_tool_for_sub_agents = _rewriting(_leader_tool_for_sub_agents)
sub_agent_tool_left_out = _rewriting(_sub_agent_tool_left_out)
duplicates_envelopes = _rewriting(_duplicates_envelopes)
forgets_after_restart = _rewriting(_forgets_after_restart)
drops_delivery = _rewriting(_drops_delivery)
