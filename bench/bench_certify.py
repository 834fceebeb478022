"""Certification speed: the whole scenario set against the reference router, black-box.

Run: python bench/bench_certify.py [--level core|durable] [--router CMD]

Runs every shipped scenario of the level against the router command (default: the
reference router, ``teamwire run -q``, as a subprocess), as ``teamwire certify`` does, and
prints per scenario its wall time beside the CPU time the router used and the CPU time the
harness used (endpoint, schedule, checks), then the totals against the target (the full set
in at most 120 s on this 2-core machine).

Baseline, measured in the same run: the wall time of starting the router's interpreter and
letting it exit (``python -c pass``), once per scenario, so the ratio says how much of a
scenario is more than starting a process.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

from teamwire._resources import data_path
from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.runner import run_scenario
from teamwire.conformance.scenario import LEVELS, load_scenario

TARGET_SECONDS = 120.0


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", choices=["core", "durable"], default="durable")
    parser.add_argument("--router", default=f"{sys.executable} -m teamwire run -q")
    args = parser.parse_args()
    command = args.router.split()
    allowed = LEVELS[:LEVELS.index(args.level) + 1]
    scenarios = [s for s in (load_scenario(p) for p in
                             sorted(data_path("conformance", "scenarios").glob("*.json")))
                 if s.level in allowed]
    print(f"{'scenario':42} {'wall s':>7} {'router cpu s':>12} {'harness cpu s':>13} "
          f"{'start-up s':>10}")
    totals = [0.0, 0.0, 0.0, 0.0]
    failed = 0
    for scenario in scenarios:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        startup = time.perf_counter() - started
        children, own, started = _cpu(resource.RUSAGE_CHILDREN), _cpu(resource.RUSAGE_SELF), \
            time.perf_counter()
        run = run_scenario(scenario, command)
        verdicts = check_run(run)
        wall = time.perf_counter() - started
        router = _cpu(resource.RUSAGE_CHILDREN) - children
        harness = _cpu(resource.RUSAGE_SELF) - own
        failed += any(v.status is Status.FAIL for v in verdicts)
        for i, value in enumerate((wall, router, harness, startup)):
            totals[i] += value
        print(f"{scenario.name:42} {wall:7.2f} {router:12.2f} {harness:13.2f} {startup:10.2f}")
    wall, router, harness, startup = totals
    print(f"{'total (' + str(len(scenarios)) + ' scenarios)':42} {wall:7.2f} {router:12.2f} "
          f"{harness:13.2f} {startup:10.2f}")
    print(f"\nwall time / start-up baseline: {wall / startup:.1f}x; harness CPU / router CPU: "
          f"{harness / router:.2f}" if router and startup else "")
    print(f"target: the full set in at most {TARGET_SECONDS:g} s: "
          f"{'met' if wall <= TARGET_SECONDS else 'NOT met'} ({wall:.1f} s); "
          f"{failed} scenario(s) failed")


if __name__ == "__main__":
    main()
