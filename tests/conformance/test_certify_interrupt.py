"""Ctrl-C during a certification: the harness stops the router it started and removes the
state directory it gave it, and says there is no verdict (exit 2), never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SILENT = ROOT / "tests" / "conformance" / "routers" / "silent_router.py"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_an_interrupted_certification_leaves_no_router_and_no_state(tmp_path: Path) -> None:
    announce = tmp_path / "announce"
    os.mkfifo(announce)
    certify = subprocess.Popen(
        [sys.executable, "-m", "teamwire", "certify", "--router",
         f"{sys.executable} {SILENT} {announce}", "--wait", "120", "--scenario",
         str(ROOT / "conformance" / "scenarios" / "batch-drain.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell without job control starts background jobs with SIGINT ignored, and the
        # child would inherit that: give it the disposition a terminal's Ctrl-C meets.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        with open(announce, encoding="utf-8") as pipe:  # blocks until the router runs
            pid, state_dir = pipe.read().split()
        certify.send_signal(signal.SIGINT)
        out, err = certify.communicate(timeout=60)
    finally:
        certify.kill()
    assert certify.returncode == 2
    assert err.strip() == ("interrupted: the router was stopped and its state directory "
                           "removed; no verdict")
    assert out == ""
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid), 0)
    assert not Path(state_dir).exists()
