"""The cost of a linter made per call: ``lint_value`` with explicit options, against the one
built once for calls without options, on a small clean session.

Run: python bench/bench_lint_value.py [--rounds N]

Explicit options make a new linter, with a memo of its own; what it must not redo per call is
what depends on the shipped schemas alone (their compiled argument checks, which the schema
registry keeps). Prints the best time of each over N rounds and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.sources.transcripts.builders import small_session  # noqa: E402

from teamwire.validator import LintOptions, lint_value  # noqa: E402


def best(run: Callable[[], object], rounds: int) -> float:
    """The shortest of ``rounds`` timed runs, in seconds."""
    found = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        found = min(found, time.perf_counter() - start)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    session, options = small_session(), LintOptions()
    lint_value(session)
    lint_value(session, options=options)
    shared = best(lambda: lint_value(session), args.rounds)
    own = best(lambda: lint_value(session, options=options), args.rounds)
    print(f"lint_value, the linter of calls without options: {shared * 1e3:.2f} ms")
    print(f"lint_value with explicit options (a linter per call): {own * 1e3:.2f} ms, "
          f"{own / shared:.1f} times as long")


if __name__ == "__main__":
    main()
