"""Router throughput: the routing core in memory, and durable routing on SQLite.

Run: python bench/bench_router.py [--messages N] [--batch B] [--synchronous full|normal]

1. Core, in memory: the leader sends N messages to a running sub-agent that
   drains its queue every ``batch`` messages; messages/s counts each message
   once it is delivered. Reported with and without rendering the envelope text.
2. Durable: the same workload with every event's store actions committed to
   SQLite, ``batch`` events per transaction, against a bare sqlite3 baseline
   that inserts and deletes the same rows with the same synchronous setting,
   ``batch`` rows per transaction. Both are measured in this run, interleaved;
   the ratio is durable / baseline.
3. p99 latency from send to delivery in the durable run.
"""

from __future__ import annotations

import argparse
import gc
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from teamwire.envelope import MessageType
from teamwire.router import (
    AgentCreated,
    AppendInline,
    MessageSent,
    ModelCallStarted,
    RoutingCore,
    TurnStarted,
)
from teamwire.router.store import SQLiteStore

LEADER, SUB = "Team Leader", "UI Operator_1"


def _core() -> RoutingCore:
    core = RoutingCore()
    for event in (AgentCreated(LEADER, "team-leader"), TurnStarted(LEADER),
                  AgentCreated(SUB, "ui-operator")):
        core.handle(event)
    core.handle(MessageSent(LEADER, SUB, MessageType.TASK, "start"))
    return core


def bench_core(n: int, batch: int, render: bool) -> float:
    core = _core()
    handle = core.handle
    send = [MessageSent(LEADER, SUB, MessageType.MESSAGE, f"guidance {i}") for i in range(n)]
    drain = ModelCallStarted(SUB)
    delivered = 0
    gc.disable()
    start = time.perf_counter()
    for i, event in enumerate(send, 1):
        handle(event)
        if i % batch == 0:
            for action in handle(drain):
                if isinstance(action, AppendInline):
                    delivered += len(action.texts if render else action.messages)
    elapsed = time.perf_counter() - start
    gc.enable()
    assert delivered == n - n % batch
    return delivered / elapsed


def bench_durable(path: Path, n: int, batch: int, synchronous: str) -> tuple[float, list[float]]:
    store = SQLiteStore(path, synchronous=synchronous)
    core = _core()
    store.apply_batch([[]])
    latencies: list[float] = []
    sent_at: dict[str, float] = {}
    pending: list[list[object]] = []
    delivered = 0
    start = time.perf_counter()
    for i in range(1, n + 1):
        pending.append(core.handle(MessageSent(LEADER, SUB, MessageType.MESSAGE, f"g {i}")))
        sent_at[f"msg_tl_{i:03d}"] = time.perf_counter()
        if i % batch == 0:
            actions = core.handle(ModelCallStarted(SUB))
            pending.append(actions)
            store.apply_batch(pending)  # type: ignore[arg-type]
            pending = []
            now = time.perf_counter()
            for action in actions:
                if isinstance(action, AppendInline):
                    for message in action.messages:
                        latencies.append(now - sent_at.pop(message.id))
                    delivered += len(action.messages)
    elapsed = time.perf_counter() - start
    store.close()
    return delivered / elapsed, latencies


def bench_baseline(path: Path, n: int, batch: int, synchronous: str) -> float:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous.upper()}")
    db.execute("CREATE TABLE messages (id TEXT PRIMARY KEY, seq INTEGER, kind TEXT, sender TEXT,"
               " receiver TEXT, content TEXT)")
    start = time.perf_counter()
    done = 0
    for first in range(1, n + 1, batch):
        rows = [(f"msg_tl_{i:03d}", i, "MESSAGE", LEADER, SUB, f"g {i}")
                for i in range(first, min(first + batch, n + 1))]
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?)", rows)
        db.executemany("DELETE FROM messages WHERE id = ?", [(r[0],) for r in rows])
        db.execute("COMMIT")
        done += len(rows)
    elapsed = time.perf_counter() - start
    db.close()
    return done / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--synchronous", choices=["full", "normal"], default="full")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n, batch = args.messages, args.batch

    core_plain = max(bench_core(n, batch, render=False) for _ in range(args.rounds))
    core_text = max(bench_core(n, batch, render=True) for _ in range(args.rounds))
    print(f"core, in memory ({n} messages, drain every {batch}):")
    print(f"  routing only           {core_plain:12,.0f} messages/s")
    print(f"  routing + render text  {core_text:12,.0f} messages/s")

    durable_rates, base_rates, latencies = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):  # interleaved, so both see the same machine
            rate, lat = bench_durable(Path(tmp) / f"d{r}.db", n // 5, batch, args.synchronous)
            durable_rates.append(rate)
            latencies = latencies or lat
            base_rates.append(bench_baseline(Path(tmp) / f"b{r}.db", n // 5, batch,
                                             args.synchronous))
    durable, base = statistics.median(durable_rates), statistics.median(base_rates)
    p99 = statistics.quantiles(latencies, n=100)[98] * 1000
    print(f"durable on SQLite (synchronous={args.synchronous}, {n // 5} messages, "
          f"{batch} events per transaction):")
    print(f"  router + SQLiteStore   {durable:12,.0f} messages/s")
    print(f"  bare insert + delete   {base:12,.0f} messages/s")
    print(f"  ratio                  {durable / base:12.2f}")
    print(f"  p99 send → delivery    {p99:12.2f} ms")


if __name__ == "__main__":
    main()
