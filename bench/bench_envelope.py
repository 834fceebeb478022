"""Envelope parse throughput: Lark reference path, fast path, and a bare str.find floor.

Run: python bench/bench_envelope.py [--seconds S]

Absolute times drift on a shared machine, so every figure is printed beside
ratios measured in the same run. Targets: fast path >= 10x Lark at 300 B; fast
path within 10x of the floor (a str.find scan that only locates the header line,
the id line and the two closing tags) at both sizes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from teamwire.envelope import Envelope, render
from teamwire.envelope.fast_parser import parse_fast
from teamwire.envelope.lark_parser import parse_lark


def make_text(size: int) -> str:
    """A realistic progress envelope of about ``size`` UTF-8 bytes."""
    line = "Checked the login form: fields name, email, password; 校验规则已更新。\n"
    body = ""
    envelope = Envelope("UI Operator_1", "任务进度输出", "out_uio_001", "Output", "")
    overhead = len(render(envelope).encode())
    while len((body + line).encode()) + overhead <= size:
        body += line
    return render(Envelope("UI Operator_1", "任务进度输出", "out_uio_001", "Output", body.rstrip()))


def floor_scan(text: str) -> tuple[int, int, int, int]:
    """Locate the header line, the id line and the two closing tags; nothing else."""
    header_end = text.find("\n")
    id_end = text.find("\n", header_end + 1)
    outer_close = text.rfind("\n</")
    inner_close = text.rfind("\n</", 0, outer_close)
    return header_end, id_end, inner_close, outer_close


def batch_size(func: Callable[[str], object], text: str, seconds: float) -> int:
    """How many calls of ``func(text)`` take about ``seconds``."""
    n = 1
    while True:  # size the batch so one round lasts about `seconds`
        start = time.perf_counter()
        for _ in range(n):
            func(text)
        elapsed = time.perf_counter() - start
        if elapsed > seconds / 10:
            break
        n *= 2
    return max(1, int(n * seconds / max(elapsed, 1e-9)))


def rates(funcs: dict[str, Callable[[str], object]], text: str, seconds: float,
          rounds: int = 5) -> dict[str, float]:
    """Best calls/s of each function; rounds interleave them so drift hits all alike."""
    sizes = {name: batch_size(func, text, seconds) for name, func in funcs.items()}
    best = dict.fromkeys(funcs, 0.0)
    for _ in range(rounds):
        for name, func in funcs.items():
            n = sizes[name]
            start = time.perf_counter()
            for _ in range(n):
                func(text)
            best[name] = max(best[name], n / (time.perf_counter() - start))
    return best


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="time per round")
    args = parser.parse_args()
    print(f"{'size':>7} {'path':<6} {'envelopes/s':>14} {'vs lark':>9} {'floor/fast':>11}")
    for size in (300, 20_000):
        text = make_text(size)
        assert parse_fast(text) == parse_lark(text)
        measured = rates({"lark": parse_lark, "fast": parse_fast, "floor": floor_scan},
                         text, args.seconds)
        lark, fast, floor = measured["lark"], measured["fast"], measured["floor"]
        nbytes = len(text.encode())
        print(f"{nbytes:>6}B {'lark':<6} {lark:>14,.0f} {1.0:>8.1f}x {floor / lark:>10.1f}x")
        print(f"{nbytes:>6}B {'fast':<6} {fast:>14,.0f} {fast / lark:>8.1f}x {floor / fast:>10.1f}x")
        print(f"{nbytes:>6}B {'floor':<6} {floor:>14,.0f} {floor / lark:>8.1f}x {1.0:>10.1f}x")
    print("targets: fast >= 10x lark at 300 B; floor/fast <= 10 at both sizes")


if __name__ == "__main__":
    main()
