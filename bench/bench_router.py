"""Router throughput: the routing core in memory, and durable routing on SQLite.

Run: python bench/bench_router.py [--messages N] [--batch B] [--synchronous full|normal]
                                  [--rounds R]

Workload: the Team Leader sends N messages with send_message_to_sub_agent (each
a tool call with its own call_id, so each is acknowledged and remembered for
re-execution) to a running sub-agent, which drains its queue before every
model call, one model call per B messages.

1. Core, in memory: messages/s counts each message once it is delivered;
   measured again with the envelope text rendered for every delivered message
   (hosts render only where they need text).
2. Durable: the same workload with the store actions of B events committed per
   transaction to SQLite (``SQLiteStore``), against a bare sqlite3 baseline that
   inserts the same rows into a table keyed by message id and deletes them
   again, B rows per transaction, with the same synchronous setting. The ratio
   is durable / baseline.
3. p99 latency from send to delivery in the durable run: from the moment the
   send is handed to the core to the commit of the transaction that holds its
   delivery (a message waits for its batch, as in any group commit).

The machine may be shared and noisy: rounds interleave the three measurements
and the best round of each is reported, so all three see the same machine.
"""

from __future__ import annotations

import argparse
import gc
import sqlite3
import tempfile
import time
from pathlib import Path

from teamwire.envelope import MessageType
from teamwire.router import (
    Action,
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
    core.handle(MessageSent(LEADER, SUB, MessageType.TASK, "start", call_id="call_0"))
    return core


def _sends(n: int) -> list[MessageSent]:
    return [MessageSent(LEADER, SUB, MessageType.MESSAGE, f"guidance {i}", call_id=f"call_{i}")
            for i in range(1, n + 1)]


def bench_core(n: int, batch: int, render: bool) -> float:
    """Messages/s delivered by the core alone (events built beforehand, as a host would)."""
    core = _core()
    handle = core.handle
    sends = _sends(n)
    drain = ModelCallStarted(SUB)
    delivered = 0
    gc.disable()
    start = time.perf_counter()
    for i, event in enumerate(sends, 1):
        handle(event)
        if i % batch == 0:
            for action in handle(drain):
                if type(action) is AppendInline:
                    delivered += len(action.texts if render else action.messages)
    elapsed = time.perf_counter() - start
    gc.enable()
    assert delivered == n - n % batch
    return delivered / elapsed


def bench_durable(path: Path, n: int, batch: int, synchronous: str) -> tuple[float, list[float]]:
    """Messages/s delivered with every event's store actions committed; latencies in s."""
    store = SQLiteStore(path, synchronous=synchronous)
    core = _core()
    handle = core.handle
    sends = _sends(n)
    drain = ModelCallStarted(SUB)
    clock = time.perf_counter
    sent_at: list[float] = []
    latencies: list[float] = []
    pending: list[list[Action]] = []
    delivered = 0
    gc.disable()
    start = clock()
    for i, event in enumerate(sends, 1):
        sent_at.append(clock())
        pending.append(handle(event))
        if i % batch == 0:
            actions = handle(drain)
            pending.append(actions)
            store.apply_batch(pending)
            pending = []
            now = clock()
            for action in actions:
                if type(action) is AppendInline:
                    # one sender, one receiver: deliveries come in the order of the sends
                    latencies.extend(now - t for t in sent_at[delivered:delivered + len(
                        action.messages)])
                    delivered += len(action.messages)
    elapsed = clock() - start
    gc.enable()
    store.close()
    assert delivered == n - n % batch
    return delivered / elapsed, latencies


def bench_baseline(path: Path, n: int, batch: int, synchronous: str) -> float:
    """Rows/s through a bare sqlite3 queue: insert the rows, delete them, B per transaction."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous.upper()}")
    db.execute("CREATE TABLE messages (id TEXT PRIMARY KEY, seq INTEGER, kind TEXT, sender TEXT,"
               " receiver TEXT, content TEXT, question_id TEXT, correlation_id TEXT,"
               " round INTEGER, call_id TEXT, ack TEXT)")
    rows = [(f"msg_tl_{i:03d}", i + 1, "MESSAGE", LEADER, SUB, f"guidance {i}", None,
             "task_001", 0, f"call_{i}", "inline") for i in range(1, n + 1)]
    gc.disable()
    start = time.perf_counter()
    done = 0
    for first in range(0, n - n % batch, batch):
        chunk = rows[first:first + batch]
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk)
        db.executemany("DELETE FROM messages WHERE id = ?", [(r[0],) for r in chunk])
        db.execute("COMMIT")
        done += len(chunk)
    elapsed = time.perf_counter() - start
    gc.enable()
    db.close()
    return done / elapsed


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--synchronous", choices=["full", "normal"], default="full")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n, batch = args.messages, args.batch
    durable_n = max(batch, n // 5)

    plain: list[float] = []
    text: list[float] = []
    durable: list[float] = []
    base: list[float] = []
    best_latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):  # interleaved, so that all see the same machine
            plain.append(bench_core(n, batch, render=False))
            text.append(bench_core(n // 5, batch, render=True))
            rate, latencies = bench_durable(Path(tmp) / f"d{r}.db", durable_n, batch,
                                            args.synchronous)
            if rate > max(durable, default=0.0):
                best_latencies = latencies
            durable.append(rate)
            base.append(bench_baseline(Path(tmp) / f"b{r}.db", durable_n, batch,
                                       args.synchronous))
    ratios = [d / b for d, b in zip(durable, base, strict=True)]
    print(f"core, in memory ({n} sends as tool calls, a model call every {batch}; "
          f"best of {args.rounds} interleaved rounds):")
    print(f"  routing only              {max(plain):12,.0f} messages/s")
    print(f"  routing + envelope text   {max(text):12,.0f} messages/s")
    print(f"durable on SQLite (synchronous={args.synchronous}, {durable_n} messages, "
          f"{batch} sends + 1 drain per transaction):")
    print(f"  router + SQLiteStore      {max(durable):12,.0f} messages/s")
    print(f"  bare insert + delete      {max(base):12,.0f} messages/s")
    print(f"  ratio, best round         {max(ratios):12.2f}   "
          f"(ratio of the best rates {max(durable) / max(base):.2f}; "
          f"rounds {' '.join(f'{x:.2f}' for x in ratios)})")
    print(f"  p99 send → delivery       {_p99(best_latencies) * 1000:12.2f} ms")


if __name__ == "__main__":
    main()
