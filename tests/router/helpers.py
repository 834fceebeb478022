"""Shared builders for the router tests."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from teamwire.envelope import MessageType
from teamwire.router import (
    Action,
    AgentCreated,
    Event,
    MessageSent,
    RoutingCore,
    TurnStarted,
)
from teamwire.router.demo import LEADER_STEPS, SCRIPTS
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.store import Store

LEADER = "Team Leader"
UIO = "UI Operator_1"
FSE = "Full-Stack Engineer_1"
UIO2 = "UI Operator_2"


ANSWERING_LEADER = [
    Step(None, (("create_sub_agent", {"agent_id": 1, "role_id": "ui-operator",
                                      "task": "design"}),)),
    Step(None, (("list_active_sub_agents", {}),), delay=5.0),  # the ask arrives meanwhile
    Step(None, (("answer_sub_agent_question", {"agent_id": 1, "question_id": "ask_uio_001",
                                               "answer": "blue"}),)),
    Step("the palette is blue"),
]
"""A leader that creates UI Operator_1 and answers its ask_master ask_uio_001 with 'blue'."""


def asking_operator(last_reply: str) -> list[Step]:
    """UI Operator_1's steps beside ANSWERING_LEADER: it asks ask_uio_001, then replies."""
    return [Step(None, (("ask_master", {"question": "which palette?",
                                        "question_id": "ask_uio_001"}),)),
            Step(last_reply)]


def team(*, start_leader: bool = True, tasks: bool = True, **kwargs: Any) -> RoutingCore:
    """A core with the leader (running) and UI Operator_1 / Full-Stack Engineer_1 (tasked)."""
    core = RoutingCore(**kwargs)
    core.handle(AgentCreated(LEADER, "team-leader"))
    if start_leader:
        core.handle(TurnStarted(LEADER))
    core.handle(AgentCreated(UIO, "ui-operator"))
    core.handle(AgentCreated(FSE, "full-stack-engineer"))
    if tasks:
        core.handle(MessageSent(LEADER, UIO, MessageType.TASK, "design the colours", call_id="t1"))
        core.handle(MessageSent(LEADER, FSE, MessageType.TASK, "build the API", call_id="t2"))
    return core


def of_type(actions: Iterable[Action], kind: type) -> list:  # type: ignore[type-arg]
    """The actions of one class, in order."""
    return [a for a in actions if isinstance(a, kind)]


def feed(core: RoutingCore, *events: Event) -> list[Action]:
    """Handle ``events`` in order and return all actions."""
    return core.handle_all(events)


def fingerprint(core: RoutingCore) -> tuple[object, ...]:
    """Everything the core holds, in comparable form (its private state, on purpose)."""
    agents = tuple((a.name, a.role_id, a.role_name, a.agent_id, a.state, a.ask,
                    tuple(a.rounds.items()), a.turns, a.tool_calls, a.task_id, tuple(a.queue),
                    tuple(a.results.items()))
                   for a in core._agents.values())
    counters = {k: v for k, v in vars(core._alloc)["_counters"].items() if v}
    return (agents, tuple(core._role_names.items()), tuple(core._ids), core._seq,
            tuple(core._asks_by_question.items()),
            tuple((k, tuple(v)) for k, v in core._awaiting_output.items() if v),
            tuple(core._questions.items()), tuple(core._received), counters)


async def resume_demo(store: Store) -> Session:
    """The demo's session resumed from ``store`` with its scripted agents, run until idle."""
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent(SCRIPTS.get(name, []), clock, tag=role_id.split("-")[0])

    session = await Session.resume(store, leader=ScriptedAgent(LEADER_STEPS, clock, tag="tl"),
                                   drivers=drivers, clock=clock)
    await session.run_until_idle()
    return session


def run_to_idle(session: Session, request: str = "do the thing") -> Session:
    """Start ``session`` with a user request and run it until every agent waits."""
    async def go() -> None:
        await session.start(request)
        await session.run_until_idle()

    asyncio.run(go())
    return session


class ChatStub:
    """What a stub chat-completions endpoint received, and the replies it sends in turn."""

    def __init__(self, default: tuple[int, Any]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, Any]] = []
        """(status, body) to send, first first: a body given as bytes goes out as it is."""
        self.default = default
        """What is sent once the replies run out."""


@contextmanager
def chat_stub(default: tuple[int, Any] = (500, {"error": "none"})
              ) -> Iterator[tuple[ChatStub, str]]:
    """A chat-completions endpoint on 127.0.0.1: the stub and its base URL."""
    state = ChatStub(default)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            state.requests.append({"path": self.path,
                                   "auth": self.headers.get("Authorization"),
                                   "body": json.loads(self.rfile.read(length))})
            status, reply = state.replies.pop(0) if state.replies else state.default
            data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as url:
        yield state, url


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 for the test's duration: its base URL (``…/v1``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def run_stored(core: RoutingCore, store: Store, *events: Event) -> list[Action]:
    """Feed ``events`` to ``core``, committing each one's actions to ``store``; all actions."""
    actions: list[Action] = []
    for event in events:
        step = core.handle(event)
        store.apply(step)
        actions.extend(step)
    return actions
