"""SIGKILL at random points, then a history check in the manner of a queue checker.

TW-DEL-001, TW-DEL-002, TW-DEL-003, TW-DUR-001, TW-DUR-002, TW-DUR-004.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

from teamwire.router.store import MessageStatus, SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
RUNS = 15


def _child(db: Path, seed: int, *extra: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tests.router.kill_child", str(db), str(seed),
                             *extra], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)


def test_sigkill_history_has_no_lost_duplicated_unexpected_or_reordered(tmp_path: Path) -> None:
    db = tmp_path / "router.db"
    rng = random.Random(20260)
    lines: list[str] = []
    for run in range(RUNS):
        child = _child(db, 1000 + run)
        assert child.stdout is not None
        stop_after = rng.randint(5, 400)
        for n, line in enumerate(child.stdout, 1):
            lines.append(line)
            if n >= stop_after:
                child.send_signal(signal.SIGKILL)
                break
        lines.extend(child.stdout)  # what it printed before it died
        child.wait(timeout=30)
    drain = _child(db, 0, "--drain")
    out, _ = drain.communicate(timeout=60)
    assert drain.returncode == 0
    lines.extend(out.splitlines(keepends=True))
    # a line cut short by the kill was never fully printed: it acknowledges nothing
    lines = [line for line in lines if line.endswith("\n")]

    attempted = {line.split()[1] for line in lines if line.startswith("pending ")}
    acked = {line.split()[1] for line in lines if line.startswith("ack ")}
    printed = Counter(line.split()[-1] for line in lines if line.startswith("deliver "))
    store = SQLiteStore(db)
    history = [h for h in store.history() if h.status is MessageStatus.DELIVERED]
    assert store.load().pending == ()
    store.close()
    delivered = Counter(h.message_id for h in history)

    lost = acked - set(delivered)
    duplicated = {m for m, n in (delivered + printed).items() if n > 2 or delivered[m] > 1
                  or printed[m] > 1}
    unexpected = set(delivered) - attempted
    by_pair: dict[tuple[str, str], list[int]] = defaultdict(list)
    for h in history:
        by_pair[(h.sender, h.receiver)].append(h.seq)
    reordered = {pair for pair, seqs in by_pair.items() if seqs != sorted(seqs)}
    assert len(acked) > 100, "the workload should have acknowledged many messages"
    assert (lost, duplicated, unexpected, reordered) == (set(), set(), set(), set())
