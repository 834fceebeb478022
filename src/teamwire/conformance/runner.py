"""Run one scenario against a router command, black-box, and record what it did.

The router is started as a process of its own with the environment contract (the endpoint,
a dummy key, a fresh state directory, the request, the knobs) and nothing else: it needs no
test hooks. The harness answers its model calls in the scenario's order, waits for it to
exit, and kills it (and everything it started) on every path out.
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

from teamwire.conformance.capabilities import PRESET_ROLES, ROLES_VARIABLE, Capabilities
from teamwire.conformance.endpoint import Breach, ModelCall, ModelEndpoint
from teamwire.conformance.scenario import Crash, Scenario, Step

DEFAULT_WAIT = 10.0
"""Seconds the harness waits for an expected model call, or for the router to exit."""

_OUTPUT_KEPT = 4000


@dataclass
class Run:
    """What one scenario run observed."""

    scenario: Scenario
    calls: list[ModelCall]
    breaches: list[Breach]
    unexpected: list[ModelCall]
    repeats: list[ModelCall] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Breaches of the contract by the run itself: a router that could not be started,
    that never called its model, or that did not exit once the session had ended."""
    missing: list[str] = field(default_factory=list)
    """Scheduled model calls that never came (the router exited, or went quiet, first)."""
    exit_code: int | None = None
    output: str = ""
    """The end of what the router wrote to standard output and standard error."""
    seconds: float = 0.0
    restarts: int = 0
    """How many times the scenario killed the router and started it again."""

    @property
    def started(self) -> bool:
        """Whether the router ran at all."""
        return not any(p.startswith("cannot start") for p in self.problems)


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


def run_scenario(scenario: Scenario, command: Sequence[str], *,
                 wait: float = DEFAULT_WAIT, capabilities: Capabilities | None = None) -> Run:
    """Run ``scenario`` against the router ``command`` and return what was observed."""
    endpoint = ModelEndpoint(scenario.tokens, scenario.scripts)
    state_dir = Path(tempfile.mkdtemp(prefix="teamwire-certify-"))
    log_path = state_dir.parent / f"{state_dir.name}.log"
    run = Run(scenario, endpoint.calls, endpoint.breaches, endpoint.unexpected, endpoint.repeats)
    started = time.monotonic()
    process: subprocess.Popen[bytes] | None = None
    try:
        base_url = endpoint.start()
        env = router_environment(scenario, base_url, state_dir, capabilities)
        with open(log_path, "wb") as log:

            def start() -> subprocess.Popen[bytes] | None:
                try:
                    return subprocess.Popen(list(command), env=env, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
                except OSError as exc:
                    run.problems.append(f"cannot start the router {' '.join(command)!r}: "
                                        f"{exc.strerror or exc}")
                    return None

            process = start()
            for life in _lives(scenario):
                if process is None:
                    return run
                ended = _play(life, endpoint, process, run, wait)
                if not ended or not life or not isinstance(life[-1], Crash):
                    break
                _stop(process)  # the crash: SIGKILL, nothing flushed
                run.restarts += 1
                endpoint.restarted()
                process = start()
    finally:
        if process is not None:
            _stop(process)
            run.exit_code = process.returncode
        endpoint.close()
        run.seconds = time.monotonic() - started
        with contextlib.suppress(OSError):
            run.output = log_path.read_bytes()[-_OUTPUT_KEPT:].decode("utf-8", "replace")
        log_path.unlink(missing_ok=True)
        shutil.rmtree(state_dir, ignore_errors=True)
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


def _play(steps: Sequence[Step | Crash], endpoint: ModelEndpoint,
          process: subprocess.Popen[bytes], run: Run, wait: float) -> bool:
    """Release the calls of one life of the router in order; a crash step waits for its call
    to arrive and then returns for the kill. True when the steps all took place."""
    for step in steps:
        call = None
        deadline = time.monotonic() + wait
        while call is None and time.monotonic() < deadline:
            call = endpoint.wait_for_call(step.agent, step.call, 0.1)
            if call is None and process.poll() is not None:
                break
        if call is None:
            seen = ", ".join(f"{c.agent} #{c.number}" for c in endpoint.calls) or "none"
            if process.poll() is not None:
                why = f"the router exited (code {process.returncode}) before model call " \
                      f"{step.call} of {step.agent}; calls made: {seen}"
            else:
                why = f"model call {step.call} of {step.agent} did not come within {wait:g} s; " \
                      f"calls made: {seen}"
            # A router that never called its model could not be judged at all.
            (run.missing if endpoint.calls else run.problems).append(why)
            return False
        if isinstance(step, Crash):
            return True  # held, never answered: the router dies waiting for it
        if not step.hold:
            endpoint.release(call)
    if not steps or not isinstance(steps[-1], Crash):
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            run.problems.append(f"the router did not exit within {wait:g} s of the last "
                                "scripted reply (the session should have ended)")
    return True
