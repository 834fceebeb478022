"""Run one scenario against a router and record what it did.

``play`` releases the model calls in the scenario's order against any ``RouterUnderTest``.
Black-box (``ProcessRouter``), the router is started as a process of its own with the
environment contract (the endpoint, a dummy key, a fresh state directory, the request, the
knobs) and nothing else: it needs no test hooks. The harness answers its model calls in the
scenario's order, waits for it to exit, and kills it (and everything it started) on every
path out. ``conformance.inprocess`` runs Python routers in this process instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

from teamwire.conformance.capabilities import PRESET_ROLES, ROLES_VARIABLE, Capabilities
from teamwire.conformance.endpoint import Breach, ModelCall, ModelEndpoint
from teamwire.conformance.scenario import Crash, Scenario, Step

DEFAULT_WAIT = 10.0
"""Seconds the harness waits for an expected model call, or for the router to exit."""

_OUTPUT_KEPT = 4000
OUTPUT_KEPT_WHOLE = 4 * 1024 * 1024
"""The most of each of a router's output streams a run keeps (``Run.stdout``, ``stderr``)."""


class ClockUnavailable(ValueError):
    """A scenario that answers a call at a timer's instant, or waits longer than the
    harness's bound, given to a router whose clock the harness does not keep;
    ``clock_skip_reason`` says why, for the report."""


def clock_skip_reason(scenario: Scenario, wait: float = DEFAULT_WAIT) -> str | None:
    """Why a harness that cannot set the router's clock and bounds each wait at ``wait``
    seconds skips ``scenario`` (TW-CERT-021, TW-CERT-031), or None when the scenario needs no
    such thing."""
    if not scenario.moves_clock:
        if scenario.wait <= wait:
            return None
        return (f"the scenario needs a wait of {scenario.wait:g} s of the router's clock (a "
                "default timer that no knob shortens), longer than the harness's bound of "
                f"{wait:g} s on waits: a router run as a process keeps its own time; "
                f"{', '.join(scenario.requirements)} not checked here (run in process: "
                "teamwire certify --in-process)")
    return ("the scenario answers a model call at the instant the router's next timer is due "
            "(at_timer), which needs the router's clock: a router run as a process keeps its "
            "own time; "
            f"{', '.join(scenario.requirements)} not checked here (run in process: "
            "teamwire certify --in-process)")


@dataclass
class Run:
    """What one scenario run observed."""

    scenario: Scenario
    calls: list[ModelCall]
    breaches: list[Breach]
    unexpected: list[ModelCall]
    repeats: list[ModelCall] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Breaches of the contract by the run itself: a router that could not be started, or
    that never called its model."""
    exit_problem: str = ""
    """How the router broke TW-CERT-004, if it did: it did not exit once the session had
    ended, or it exited with a non-zero status."""
    exited: bool = False
    """Whether the router ended by itself once its last life's steps had all taken place
    (then ``exit_code`` is the status it chose)."""
    missing: list[str] = field(default_factory=list)
    """Scheduled model calls that never came (the router exited, or went quiet, first)."""
    exit_code: int | None = None
    output: str = ""
    """The end of what the router wrote to standard output and standard error."""
    stdout: bytes = b""
    stderr: bytes = b""
    """What the router wrote to each (up to OUTPUT_KEPT_WHOLE bytes, the end kept), over
    every life, for a results directory; empty for a router in process."""
    seconds: float = 0.0
    restarts: int = 0
    """How many times the scenario killed the router and started it again."""
    refusal: str = ""
    """How the router refused to start, in a scenario that expects it to (``refused``): it
    exited by itself, or an in-process router's factory raised; empty if it did not."""

    @property
    def started(self) -> bool:
        """Whether the router ran at all."""
        return not any(p.startswith("cannot start") for p in self.problems)


_QUIET_SAMPLES = 3
_QUIET_GAP = 0.01


def _thread_states(group: int) -> list[str] | None:
    """The scheduler state of every thread of every process in process group ``group``
    (Linux ``/proc``); None where the system does not say."""
    proc = Path("/proc")
    if not (proc / str(group) / "task").is_dir():
        return None
    states: list[str] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            # after the command in parentheses: state, ppid, pgrp
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) != group:
                continue
            for task in (entry / "task").iterdir():
                text = (task / "stat").read_text()
                states.append(text[text.rindex(")") + 2])
        except (OSError, ValueError, IndexError):
            continue  # a process or thread that ended while it was read
    return states


def wait_until_quiet(group: int, bound: float) -> bool:
    """Wait, up to ``bound`` seconds, until no thread of the router's process group is
    runnable or in the middle of a disk write, in a few samples in a row: a router that has
    finished with an answer sleeps on its sockets, locks and timers, however slow the
    machine. False when the bound ran out, or where the system does not show thread states
    (the caller has then only waited its settle time)."""
    deadline = time.monotonic() + bound
    quiet = 0
    while time.monotonic() < deadline:
        states = _thread_states(group)
        if states is None:
            return False
        quiet = quiet + 1 if all(state in "SZXtTI" for state in states) else 0
        if quiet >= _QUIET_SAMPLES:
            return True
        time.sleep(_QUIET_GAP)
    return False


def router_environment(scenario: Scenario, base_url: str, state_dir: Path,
                       capabilities: Capabilities | None = None) -> dict[str, str]:
    """The environment a router under certification is started with; the scenario's knobs
    go in the variables the router's declaration names."""
    env = dict(os.environ)
    env.update({
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "teamwire-certify",
        "TEAMWIRE_STATE_DIR": str(state_dir),
        "TEAMWIRE_REQUEST": scenario.request,
        ROLES_VARIABLE: str(PRESET_ROLES),
    })
    env.update((capabilities or Capabilities()).environment(scenario))
    return env


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the router's whole process group, whatever state it is in."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    # Its children too, if it left any behind in its process group.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


class RouterUnderTest(Protocol):
    """The seam between the schedule and a router under test, however it runs: a process
    calling the HTTP endpoint (``ProcessRouter``), or a Python router in this process with
    the harness's model client and a virtual clock (``conformance.inprocess``). Both record
    model calls in a ``ModelEndpoint``; the schedule and the checks see only those calls."""

    endpoint: ModelEndpoint
    sets_clock: bool
    """Whether the harness keeps the router's clock, so that a step can answer a call at a
    timer's instant (TW-CERT-021)."""

    def start(self, run: Run) -> bool:
        """Start the router (again after a crash); False, with the problem in
        ``run.problems``, if it cannot be started."""
        ...

    def move_to_next_timer(self, wait: float) -> bool:
        """With the router quiet, move its clock to the instant its next timer is due,
        running no timer; False when no timer is due within ``wait`` seconds (only a router
        that ``sets_clock`` is asked)."""
        ...

    def wait_for_call(self, agent: str, number: int, wait: float) -> ModelCall | None:
        """The unanswered call of ``agent`` for reply ``number`` once it has arrived; None if
        the router ended first or ``wait`` seconds (of the router's time) went by."""
        ...

    def release(self, call: ModelCall) -> None:
        """Answer ``call`` with its agent's scripted reply."""
        ...

    def ended(self) -> str | None:
        """How the router ended (``the router exited (code 0)``), or None while it runs."""
        ...

    def wait_for_end(self, wait: float) -> bool:
        """Wait up to ``wait`` seconds for the router to end on its own; False if it did not."""
        ...

    def crash(self) -> None:
        """Kill the router where it stands, nothing flushed, and forget the calls it held."""
        ...

    def stop(self, run: Run) -> None:
        """On every way out: stop whatever still runs, record the exit code and the output
        in ``run``, and remove the state directory."""
        ...


class ProcessRouter:
    """A router command run as a process of its own, calling the endpoint over HTTP."""

    sets_clock = False
    """A process keeps its own time: a step at a timer's instant cannot be taken."""

    def __init__(self, scenario: Scenario, command: Sequence[str],
                 capabilities: Capabilities | None = None) -> None:
        self.scenario = scenario
        self.command = list(command)
        self.capabilities = capabilities
        self.endpoint = ModelEndpoint(scenario.tokens, scenario.scripts)
        self.state_dir = Path(tempfile.mkdtemp(prefix="teamwire-certify-"))
        self._log_path = self.state_dir.parent / f"{self.state_dir.name}.log"
        self._err_path = self.state_dir.parent / f"{self.state_dir.name}.err"
        self._log: BinaryIO | None = None
        self._err: BinaryIO | None = None
        self._env: dict[str, str] | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.settle_bound = DEFAULT_WAIT
        """The longest a settle step waits for the router to be quiet (TW-CERT-010)."""

    def start(self, run: Run) -> bool:
        if self._env is None:
            self._env = router_environment(self.scenario, self.endpoint.start(), self.state_dir,
                                           self.capabilities)
            self._log = open(self._log_path, "wb")  # noqa: SIM115 -- closed by stop()
            self._err = open(self._err_path, "wb")  # noqa: SIM115 -- closed by stop()
        try:
            self.process = subprocess.Popen(self.command, env=self._env, stdin=subprocess.DEVNULL,
                                            stdout=self._log, stderr=self._err,
                                            start_new_session=True)
        except OSError as exc:
            self.process = None
            hint = ""
            if isinstance(exc, FileNotFoundError) and os.sep not in self.command[0]:
                hint = (f"; {self.command[0]!r} is not on PATH: give its full path, or run "
                        "certify where it is installed (a virtual environment activated)")
            elif isinstance(exc, (FileNotFoundError, PermissionError)):
                hint = f"; check that {self.command[0]!r} exists and is executable"
            run.problems.append(f"cannot start the router {' '.join(self.command)!r}: "
                                f"{exc.strerror or exc}{hint}")
            return False
        return True

    def wait_for_call(self, agent: str, number: int, wait: float) -> ModelCall | None:
        call = None
        deadline = time.monotonic() + wait
        while call is None and time.monotonic() < deadline:
            call = self.endpoint.wait_for_call(agent, number, 0.1)
            if call is None and self.ended() is not None:
                break
        return call

    def release(self, call: ModelCall) -> None:
        self.endpoint.release(call)
        if self.scenario.settle:
            # The schedule assumes a router quiet by now: the answer has reached it, the
            # settle time has passed, and none of its threads waits for a processor.
            call.sent.wait(self.settle_bound)
            time.sleep(self.scenario.settle)
            if self.process is not None:
                wait_until_quiet(self.process.pid, self.settle_bound)

    def move_to_next_timer(self, wait: float) -> bool:
        raise ClockUnavailable("a router run as a process keeps its own time")

    def ended(self) -> str | None:
        if self.process is None or self.process.poll() is None:
            return None
        return f"the router exited (code {self.process.returncode})"

    def wait_for_end(self, wait: float) -> bool:
        if self.process is None:
            return True
        try:
            self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return False
        return True

    def crash(self) -> None:
        if self.process is not None:
            _stop(self.process)  # SIGKILL, nothing flushed
        self.endpoint.restarted()

    def stop(self, run: Run) -> None:
        if self.process is not None:
            _stop(self.process)
            run.exit_code = self.process.returncode
        self.endpoint.close()
        for log in (self._log, self._err):
            if log is not None:
                log.close()
        with contextlib.suppress(OSError):
            run.stdout = _tail(self._log_path, OUTPUT_KEPT_WHOLE)
            run.stderr = _tail(self._err_path, OUTPUT_KEPT_WHOLE)
        # the end of both: a router's last words on standard error come after its log lines
        ends = [stream[-_OUTPUT_KEPT:].decode("utf-8", "replace").strip()
                for stream in (run.stdout, run.stderr)]
        run.output = "\n".join(end for end in ends if end)[-_OUTPUT_KEPT:]
        self._log_path.unlink(missing_ok=True)
        self._err_path.unlink(missing_ok=True)
        shutil.rmtree(self.state_dir, ignore_errors=True)


def _tail(path: Path, size: int) -> bytes:
    """The last ``size`` bytes of the file at ``path``."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - size))
        return handle.read()


def run_scenario(scenario: Scenario, command: Sequence[str], *,
                 wait: float = DEFAULT_WAIT, capabilities: Capabilities | None = None) -> Run:
    """Run ``scenario`` against the router ``command`` and return what was observed."""
    router = ProcessRouter(scenario, command, capabilities)
    router.settle_bound = wait
    return play(scenario, router, wait=wait)


def play(scenario: Scenario, router: RouterUnderTest, *, wait: float = DEFAULT_WAIT) -> Run:
    """Play ``scenario``'s schedule against ``router``, life by life (a crash step kills it
    and starts it again), and return what was observed; the router is stopped on every way
    out. ClockUnavailable, before anything runs, if the scenario needs the router's clock
    and the harness does not keep it: the caller reports the scenario skipped."""
    if not router.sets_clock:
        reason = clock_skip_reason(scenario, wait)
        if reason is not None:
            raise ClockUnavailable(reason)
    else:
        wait = max(wait, scenario.wait)  # virtual seconds: the timer's wait costs nothing
    endpoint = router.endpoint
    run = Run(scenario, endpoint.calls, endpoint.breaches, endpoint.unexpected, endpoint.repeats)
    started = time.monotonic()
    try:
        if not router.start(run):
            return run
        for life in _lives(scenario):
            ended = _play(life, router, run, wait)
            if not ended or not life or not isinstance(life[-1], Crash):
                break
            router.crash()
            run.restarts += 1
            down = life[-1].down
            if down and not router.sets_clock:
                # Down for that long in real time, which the router's clock must not count
                # (TW-DUR-010, TW-CERT-032); on a clock the harness keeps, no time passes.
                time.sleep(down)
            if not router.start(run):
                break
    finally:
        router.stop(run)
        run.seconds = time.monotonic() - started
    if run.exited and run.exit_code:
        run.exit_problem = (f"the router exited with status {run.exit_code} once the session "
                            "had ended, not 0")
    return run


def _lives(scenario: Scenario) -> list[tuple[Step | Crash, ...]]:
    """The schedule cut after each crash: one part per life of the router; every part but
    the last ends with its crash."""
    lives: list[tuple[Step | Crash, ...]] = []
    current: list[Step | Crash] = []
    for step in scenario.schedule:
        current.append(step)
        if isinstance(step, Crash):
            lives.append(tuple(current))
            current = []
    lives.append(tuple(current))
    return lives


def _play(steps: Sequence[Step | Crash], router: RouterUnderTest, run: Run,
          wait: float) -> bool:
    """Release the calls of one life of the router in order; a crash step waits for its call
    to arrive and then returns for the kill. True when the steps all took place."""
    endpoint = router.endpoint
    for step in steps:
        call = router.wait_for_call(step.agent, step.call, wait)
        if call is None:
            seen = ", ".join(f"{c.agent} #{c.number}" for c in endpoint.calls) or "none"
            gone = router.ended()
            if gone is not None:
                why = f"{gone} before model call {step.call} of {step.agent}; calls made: {seen}"
            else:
                why = f"model call {step.call} of {step.agent} did not come within {wait:g} s; " \
                      f"calls made: {seen}"
            # A router that never called its model could not be judged at all.
            (run.missing if endpoint.calls else run.problems).append(why)
            return False
        if isinstance(step, Crash):
            return True  # held, never answered: the router dies waiting for it
        if step.at_timer and not router.move_to_next_timer(wait):
            # The tie the step is for cannot be made: said, and the call answered anyway so
            # that the rest of the run is still judged.
            run.missing.append(f"no timer of the router was due within {wait:g} s when model "
                               f"call {step.call} of {step.agent} was to be answered at a "
                               "timer's instant")
        if not step.hold:
            router.release(call)
    if run.scenario.refused:
        # The router is to refuse its knobs: the refusal check judges whether it exited.
        if router.wait_for_end(wait) and not endpoint.calls:
            run.refusal = run.refusal or str(router.ended())
        return True
    if not steps or not isinstance(steps[-1], Crash):
        run.exited = router.wait_for_end(wait)
        if not run.exited:
            run.exit_problem = (f"the router did not exit within {wait:g} s of the last "
                                "scripted reply (the session should have ended)")
    return True
