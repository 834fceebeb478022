"""Certify a Python router in this process: no subprocess, no socket, virtual time.

The router gets the harness's model client (``ScriptedModel``, the runtime's
``AgentDriver`` interface answered from the scenario's scripts) and a virtual clock; the
schedule and the checks are those of a black-box run (``runner.play``), because the model
calls are recorded in the same ``ModelEndpoint``. The harness acts only when the router is
quiet (every task waits for a model call, an ask or a timer), so a run is deterministic;
when the schedule waits for a call that needs time to pass, the clock jumps to the router's
next timer, up to the wait of the step (in virtual seconds). A step ``at_timer`` moves the
clock to the router's next timer without running it, and then answers its call: the router
observes the reply at that instant, before the timers due at it (TW-CERT-021).

A crash drops the running router without any shutdown: its event loop is never run again,
so none of its code runs after the crash (not even a ``finally``), as after SIGKILL; a new
router is made by the same factory on the same state directory. What the old one had
committed is in its files: a killed process loses nothing the system already has, so the
state directory may live in memory (``/dev/shm`` where there is one) and the reference
router's SQLite store runs with ``synchronous=normal`` (no sync at each commit).

An in-process router is a factory (``MODULE:FACTORY``): an async callable that takes an
``InProcessSetup``, starts the router's session on the running event loop (or resumes the
one its state directory holds) and returns once its tasks are scheduled. The router must
take its time from ``setup.clock`` (``now``, ``call_later``, ``sleep``) and every model call
from ``setup.model``; it may count its runnable tasks in ``setup.clock.activity`` as the
teamwire runtime does.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import orjson

from teamwire.conformance.endpoint import (
    FAILURES,
    Breach,
    ModelCall,
    ModelEndpoint,
    parts_response,
)
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import Scenario
from teamwire.router.core import DEFAULT_MAX_ASK_ROUNDS
from teamwire.router.runtime.clock import VirtualClock
from teamwire.router.runtime.driver import AgentDriver, DriverError, Reply, RetryingDriver
from teamwire.router.runtime.openai_chat import parse_completion
from teamwire.router.runtime.session import DEFAULT_ASK_TIMEOUT, Session
from teamwire.router.store import SQLiteStore

REFERENCE_NAME = "teamwire.conformance.inprocess:reference_router"
"""The factory of the reference router (``teamwire certify --in-process`` alone)."""

STORE_FILE = "router.db"
"""Where the reference router keeps its session in the state directory (as ``teamwire run``)."""


@dataclass(frozen=True)
class InProcessSetup:
    """What the harness gives an in-process router for one life (the in-process form of the
    environment contract of chapter 13)."""

    model: AgentDriver
    """Every model call of every agent goes here; the agent argument is not used: calls are
    told apart by token, as on the wire."""
    clock: VirtualClock
    state_dir: Path
    """An empty directory for the durable state; the same one again after a crash."""
    request: str
    ask_timeout: float | None
    """The scenario's ask timeout in seconds, or None for the router's default."""
    round_limit: int | None
    """The scenario's round limit, or None for the router's default."""
    life: int
    """0 at first, one more after each crash."""
    turn_timeout: float | None = None
    """The scenario's turn timeout in seconds, or None for the router's default."""
    model_retries: int | None = None
    """How many times the scenario has a failed model call made again, or None for the
    router's default."""
    unanswered_asks: str | None = None
    """``wait`` or ``fail`` as the scenario sets it (TW-ROUTE-030), or None for the router's
    default."""


RouterFactory = Callable[[InProcessSetup], Awaitable[object]]
"""Starts (or resumes) one life of an in-process router; what it returns is kept until the
run ends."""


_MEMORY_DIR = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
"""Where state directories go: memory, where the system has it. The crash is of the router,
not of the machine, so what it wrote needs no disk; the files are the same either way."""


class FactoryError(ValueError):
    """A ``MODULE:FACTORY`` that names no usable factory, with the reason."""


def load_factory(spec: str) -> RouterFactory:
    """The factory ``MODULE:FACTORY`` names: MODULE is a dotted module name or the path of a
    ``.py`` file; FactoryError says why it cannot be used."""
    module_name, sep, attribute = spec.rpartition(":")
    if not sep or not module_name or not attribute:
        raise FactoryError(f"{spec!r}: write MODULE:FACTORY (a module or a .py file, then the "
                           "name of the factory in it)")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            loader_spec = importlib.util.spec_from_file_location(path.stem, path)
            if loader_spec is None or loader_spec.loader is None or not path.is_file():
                raise FactoryError(f"{spec!r}: no such file: {path}")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules.setdefault(path.stem, module)
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except FactoryError:
        raise
    except Exception as exc:  # whatever importing the user's module raised, said plainly
        raise FactoryError(f"{spec!r}: cannot import {module_name}: "
                           f"{type(exc).__name__}: {exc}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise FactoryError(f"{spec!r}: {module_name} has no callable {attribute}")
    return cast(RouterFactory, factory)


class HarnessClock(VirtualClock):
    """The virtual clock of an in-process run, which can also say when its next timer is due."""

    def next_timer(self) -> float | None:
        """The time of the earliest timer not cancelled, or None when none is left."""
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    ties = 0
    """How often two timers or more came due at one instant and ran together: an order
    between them that a router on a real clock need not share (a generated scenario with
    one is not fair to a router run as a process)."""

    def advance(self) -> bool:
        due = self.next_timer()
        if due is not None and sum(1 for when, _, timer, _ in self._heap
                                   if when == due and not timer.cancelled) > 1:
            self.ties += 1
        return super().advance()

    def move_to(self, time: float) -> None:
        """Make ``now()`` ``time`` without running any timer, even one due by then: what the
        router is given next is observed at that instant before the timers due at it."""
        self._now = max(self._now, time)


class ScriptedModel:
    """The harness's model client: records each call in the endpoint, as the HTTP server
    would, and answers it when the schedule releases it."""

    def __init__(self, owner: InProcessRouter, clock: VirtualClock) -> None:
        self._owner = owner
        self._clock = clock

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Reply:
        endpoint = self._owner.endpoint
        body: dict[str, Any] = {"messages": messages}
        if tools:
            body["tools"] = tools
        try:
            # What a router sends is copied as JSON, as the wire would: the record does not
            # change when the router changes its own objects afterwards.
            raw = orjson.dumps(body)
        except TypeError as exc:
            endpoint.breaches.append(Breach(f"the model call is not JSON: {exc}", repr(body)[:2000]))
            raise DriverError("the model call is not JSON") from None
        call = endpoint.receive(orjson.loads(raw), raw.decode("utf-8"))
        if call is None:
            raise DriverError("the call belongs to no agent of the scenario")
        if not call.released.is_set():
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._owner.held[id(call)] = (call, future, self._clock)
            self._clock.activity.stop()  # waits for the harness, like a timer
            try:
                await future
            except asyncio.CancelledError:
                if not future.done():
                    self._clock.activity.start()
                # The router gave up the call (a stop cancels a call in flight, TW-PROF-037):
                # it waits on it no more, and the schedule's step still answers it.
                self._owner.held.pop(id(call), None)
                raise
        return _reply(call, endpoint)


def _reply(call: ModelCall, endpoint: ModelEndpoint) -> Reply:
    """The scripted reply as the reference router reads a chat-completions response; a
    scripted failure as the DriverError a failed HTTP call gives."""
    if call.failure == "malformed":
        return parse_completion({"object": "chat.completion", "choices": []})  # raises
    if call.failure == "content-parts":
        return parse_completion(parts_response(endpoint.scripted(call)))  # raises
    if call.failure is not None:
        raise DriverError(f"scripted failure: {FAILURES[call.failure]}")
    message = (call.reply.message() if call.reply is not None
               else {"role": "assistant", "content": ""})
    return parse_completion({"choices": [{"index": 0, "message": message}]})


class InProcessRouter:
    """A Python router run in this process, on virtual time (a ``RouterUnderTest``)."""

    sets_clock = True
    """The harness keeps the router's clock: a step may answer a call at a timer's instant."""

    def __init__(self, scenario: Scenario, factory: RouterFactory, name: str = REFERENCE_NAME,
                 endpoint: ModelEndpoint | None = None) -> None:
        self.scenario = scenario
        self.factory = factory
        self.name = name
        self.endpoint = endpoint if endpoint is not None else \
            ModelEndpoint(scenario.tokens, scenario.scripts)
        self.state_dir = Path(tempfile.mkdtemp(prefix="teamwire-certify-", dir=_MEMORY_DIR))
        self.held: dict[int, tuple[ModelCall, asyncio.Future[None], VirtualClock]] = {}
        """id(call) → the call, the future its model client waits on, and its life's clock."""
        self.clock = HarnessClock()
        self._past_ties = 0
        self.life = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._dead: list[asyncio.AbstractEventLoop] = []
        self._kept: list[object] = []
        self._ended = False

    def timer_ties(self) -> int:
        """How often, over every life so far, timers came due together (``HarnessClock``)."""
        return self._past_ties + self.clock.ties

    # -- RouterUnderTest ------------------------------------------------------------------

    def start(self, run: Run) -> bool:
        self.life += 1
        self._past_ties += self.clock.ties
        self.clock = HarnessClock()
        self._loop = asyncio.new_event_loop()
        self._ended = False
        knobs = self.scenario.knobs
        setup = InProcessSetup(
            model=ScriptedModel(self, self.clock), clock=self.clock, state_dir=self.state_dir,
            request=self.scenario.request,
            ask_timeout=float(knobs["ask_timeout"]) if "ask_timeout" in knobs else None,
            round_limit=int(knobs["round_limit"]) if "round_limit" in knobs else None,
            life=self.life,
            turn_timeout=float(knobs["turn_timeout"]) if "turn_timeout" in knobs else None,
            model_retries=int(knobs["model_retries"]) if "model_retries" in knobs else None,
            unanswered_asks=str(knobs["unanswered_asks"]) if "unanswered_asks" in knobs
            else None)
        try:
            self._kept.append(self._loop.run_until_complete(self._start(setup)))
        except Exception as exc:  # the router's own failure to start, said plainly
            if self.scenario.refused and not self.endpoint.calls:
                # What the scenario asks of it: the in-process form of exiting at once.
                run.refusal = f"the router refused to start: {type(exc).__name__}: {exc}"
                self._ended = True
                return True
            run.problems.append(f"cannot start the router {self.name}: "
                                f"{type(exc).__name__}: {exc}")
            return False
        return True

    async def _start(self, setup: InProcessSetup) -> object:
        return await self.factory(setup)

    def wait_for_call(self, agent: str, number: int, wait: float) -> ModelCall | None:
        assert self._loop is not None
        return self._loop.run_until_complete(self._wait_for(agent, number, wait))

    def release(self, call: ModelCall) -> None:
        self.endpoint.release(call)
        held = self.held.pop(id(call), None)
        if held is not None:
            _, future, clock = held
            if not future.done():
                clock.activity.start()
                future.set_result(None)
        if self.scenario.settle and self._loop is not None:
            # As a process is given real seconds after each answer, this router is given
            # virtual ones: timers set in different steps never fall due at one instant.
            self._loop.run_until_complete(self._pass_time(self.scenario.settle))

    async def _pass_time(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass, running each timer due meanwhile."""
        target = self.clock.now() + seconds
        while True:
            await self._settle()
            due = self.clock.next_timer()
            if due is None or due > target:
                break
            self.clock.advance()
        self.clock.move_to(target)

    def move_to_next_timer(self, wait: float) -> bool:
        assert self._loop is not None
        return self._loop.run_until_complete(self._move_to_next_timer(wait))

    async def _move_to_next_timer(self, wait: float) -> bool:
        await self._settle()
        due = self.clock.next_timer()
        if due is None or due > self.clock.now() + wait:
            return False
        self.clock.move_to(due)
        return True

    def ended(self) -> str | None:
        return "the router's session ended" if self._ended else None

    def wait_for_end(self, wait: float) -> bool:
        assert self._loop is not None
        self._loop.run_until_complete(self._wait_for(None, 0, wait))
        return self._ended

    def crash(self) -> None:
        # Nothing of the old life runs again: its loop is set aside, not stopped or drained.
        if self._loop is not None:
            self._dead.append(self._loop)
            self._loop = None
        self.held.clear()
        self.endpoint.restarted()

    def stop(self, run: Run) -> None:
        loops = [*self._dead, *([self._loop] if self._loop is not None else [])]
        self._dead, self._loop = [], None
        for loop in loops:
            _discard(loop)
        self.held.clear()
        self._kept.clear()
        # A refusal has no exit status in process; a session that ended has 0.
        run.exit_code = 0 if self._ended and not run.refusal else None
        self.endpoint.close()
        shutil.rmtree(self.state_dir, ignore_errors=True)

    # -- beyond the schedule: what the fuzzer asks ---------------------------------------

    def held_calls(self, wait: float) -> list[ModelCall]:
        """Once the router is quiet, the calls it waits on, in the order they came; when it
        holds none, the clock first jumps to its timers (up to ``wait`` virtual seconds on)
        until it does. An empty list: the session ended, or nothing is due within ``wait``."""
        assert self._loop is not None
        return self._loop.run_until_complete(self._held(wait))

    async def _held(self, wait: float) -> list[ModelCall]:
        deadline = self.clock.now() + wait
        while True:
            await self._settle()
            held = [c for c, _, _ in self.held.values() if not c.released.is_set()]
            if held:
                return sorted(held, key=self.endpoint.calls.index)
            due = self.clock.next_timer()
            if due is None:
                self._ended = True
                return []
            if due > deadline:
                return []
            self.clock.advance()

    # -- waiting on virtual time ---------------------------------------------------------

    async def _settle(self) -> None:
        """Return once no task of the router can make progress."""
        loop = asyncio.get_running_loop()
        while True:
            await self.clock.activity.wait_idle()
            await asyncio.sleep(0)
            # The activity count is the router's own word; the loop's queue of ready
            # callbacks confirms it (a router that counts nothing is judged by it alone).
            if self.clock.activity.busy == 0 and not getattr(loop, "_ready", ()):
                return

    async def _wait_for(self, agent: str | None, number: int, wait: float) -> ModelCall | None:
        """The unanswered call ``number`` of ``agent`` once the router is quiet with it held
        (``agent`` None: none, wait for the end); None once the session has ended or no timer
        is due within ``wait`` virtual seconds."""
        deadline = self.clock.now() + wait
        while True:
            await self._settle()
            if agent is not None:
                call = self.endpoint.wait_for_call(agent, number, 0)
                if call is not None:
                    return call
            due = self.clock.next_timer()
            if due is None and not any(not c.released.is_set() for c, _, _ in
                                       self.held.values()):
                self._ended = True
                return None
            if due is None or due > deadline:
                return None
            self.clock.advance()


def _discard(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left on a finished run's loop and close it (its results are not used)."""
    loop.set_exception_handler(lambda loop, context: None)
    tasks = asyncio.all_tasks(loop)
    for task in tasks:
        task.cancel()
    # gather() of nothing would look for the current loop, which a finished run has not set.
    if tasks:
        with contextlib.suppress(Exception):
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    loop.close()


def reference_factory(session_class: type[Session] = Session) -> RouterFactory:
    """The factory of the reference router as ``teamwire run`` builds it, in this process: a
    session kept in the state directory's SQLite store and resumed from there after a crash.
    ``session_class`` may be a subclass that changes one thing (a router broken on purpose)."""

    async def start(setup: InProcessSetup) -> object:
        store = SQLiteStore(setup.state_dir / STORE_FILE, synchronous="normal")
        options: dict[str, Any] = {
            "ask_timeout": setup.ask_timeout if setup.ask_timeout is not None
            else DEFAULT_ASK_TIMEOUT,
            "max_ask_rounds": setup.round_limit if setup.round_limit is not None
            else DEFAULT_MAX_ASK_ROUNDS}
        if setup.turn_timeout is not None:
            options["turn_timeout"] = setup.turn_timeout
        if setup.unanswered_asks is not None:
            options["unanswered_asks"] = setup.unanswered_asks

        model: AgentDriver = setup.model
        if setup.model_retries:
            model = RetryingDriver(setup.model, setup.model_retries)

        def drivers(name: str, role_id: str) -> AgentDriver:
            return model

        if store.load().agents:
            return await session_class.resume(store, leader=model, drivers=drivers,
                                              clock=setup.clock, **options)
        session = session_class(leader=model, drivers=drivers, store=store,
                                clock=setup.clock, **options)
        await session.start(setup.request)
        return session

    return start


reference_router: RouterFactory = reference_factory()
"""The reference router (``teamwire certify --in-process``)."""
