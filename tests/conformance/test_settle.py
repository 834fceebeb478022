"""How a black-box run settles after an answer: it waits until no thread of the router's
process group is runnable, so a slow machine delays the next step instead of racing it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamwire.conformance.runner import wait_until_quiet

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(),
                                reason="thread states come from Linux /proc")


def _group(code: str) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                               stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        process.stdout.readline()  # started: what follows is the state under test
        yield process
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def sleeping() -> Iterator[subprocess.Popen[bytes]]:
    """A router that has finished: every thread sleeps (on a lock, a timer, a read)."""
    yield from _group("import threading, time\n"
                      "threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
                      "print('ready', flush=True)\n"
                      "time.sleep(600)\n")


@pytest.fixture
def busy() -> Iterator[subprocess.Popen[bytes]]:
    """A router still working on an answer: one of its threads never stops computing."""
    yield from _group("import threading, time\n"
                      "def spin():\n"
                      "    while True:\n"
                      "        pass\n"
                      "threading.Thread(target=spin, daemon=True).start()\n"
                      "print('ready', flush=True)\n"
                      "time.sleep(600)\n")


def test_a_router_whose_threads_all_sleep_is_quiet(sleeping: subprocess.Popen[bytes]) -> None:
    assert wait_until_quiet(sleeping.pid, 30) is True


def test_a_router_with_a_runnable_thread_is_not_quiet_and_the_wait_is_bounded(
        busy: subprocess.Popen[bytes]) -> None:
    # A thread that computes is runnable whether or not it has a processor at the moment.
    assert wait_until_quiet(busy.pid, 0.5) is False


def test_a_group_the_system_does_not_show_is_not_taken_as_quiet() -> None:
    beyond = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no process has it
    assert wait_until_quiet(beyond, 0.2) is False
