"""Certification speed: the reference router in process (every level, with fuzzing) and
black-box (the whole scenario set against ``teamwire run`` as a subprocess).

Run: python bench/bench_certify.py [--level core|durable] [--router CMD] [--describe FILE]
                                   [--fuzz N] [--seed S] [--no-black-box] [--no-in-process]

In process: at every level up to ``--level``, the shipped scenarios of the level and ``--fuzz``
generated scenarios (default 200) against the reference router in this process, on virtual
time, as ``teamwire certify --in-process --level L --fuzz N`` runs them; the total against
the target (at most 60 s on this 2-core machine).

Black-box: every shipped scenario of the level against the router command (default: the
reference router, ``teamwire run -q``, as a subprocess, with the knobs its declaration
names; another router with ``--describe``, scenarios it cannot run left out), as
``teamwire certify`` does; per scenario its wall time beside the CPU time the router used,
the CPU time the harness used (endpoint, schedule, checks), the same scenario's wall time
in process, and a start-up baseline measured in the same run: the wall time of starting the
router's interpreter and letting it exit (``python -c pass``). Then the totals against the
target: the full set of certify's default run (core and durable) in at most 60 s. The
harness's overhead per scenario is its wall time less the router's CPU time.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

from teamwire._resources import data_path
from teamwire.cli.run_cmd import CAPABILITIES
from teamwire.conformance.capabilities import (
    Capabilities,
    capabilities_from_json,
    load_capabilities,
)
from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.fuzz import fuzz, in_process
from teamwire.conformance.inprocess import InProcessRouter, reference_router
from teamwire.conformance.runner import clock_skip_reason, play, run_scenario
from teamwire.conformance.scenario import LEVELS, Scenario, load_scenario

TARGET_BLACK_BOX = 60.0
TARGET_IN_PROCESS = 60.0


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _scenarios(level: str) -> list[Scenario]:
    allowed = LEVELS[:LEVELS.index(level) + 1]
    return [s for s in (load_scenario(p) for p in
                        sorted(data_path("conformance", "scenarios").glob("*.json")))
            if s.level in allowed]


def _in_process_once(scenario: Scenario) -> tuple[float, bool]:
    started = time.perf_counter()
    run = play(scenario, InProcessRouter(scenario, reference_router))
    failed = any(v.status is Status.FAIL for v in check_run(run))
    return time.perf_counter() - started, failed


def bench_in_process(top: str, count: int, seed: int) -> None:
    print(f"in process: the reference router, on virtual time, {count} generated scenarios "
          "per level")
    print(f"{'level':8} {'scenarios':>9} {'set s':>7} {'fuzzed':>7} {'fuzz s':>7} "
          f"{'per fuzzed ms':>13} {'failed':>6}")
    total = 0.0
    for level in LEVELS[:LEVELS.index(top) + 1]:
        if level == "astrion":
            continue
        scenarios = _scenarios(level)
        started = time.perf_counter()
        failed = sum(_in_process_once(s)[1] for s in scenarios)
        shipped = time.perf_counter() - started
        started = time.perf_counter()
        outcome = fuzz(in_process(), examples=count, seed=seed, level=level, at_timers=True)
        fuzzed = time.perf_counter() - started
        failed += outcome.failing is not None
        total += shipped + fuzzed
        print(f"{level:8} {len(scenarios):9} {shipped:7.2f} {outcome.examples:7} {fuzzed:7.2f} "
              f"{1000 * fuzzed / max(outcome.examples, 1):13.1f} {failed:6}")
    print(f"target: every level with {count} generated scenarios in at most "
          f"{TARGET_IN_PROCESS:g} s: {'met' if total <= TARGET_IN_PROCESS else 'NOT met'} "
          f"({total:.1f} s)\n")


def bench_black_box(level: str, command: list[str], declared: Capabilities) -> None:
    # A scenario that needs the router's clock (at_timer) is certified in process only.
    scenarios = [s for s in _scenarios(level)
                 if declared.skip_reason(s) is None and clock_skip_reason(s) is None]
    print(f"black-box: {' '.join(command)}, level {level}")
    print(f"{'scenario':42} {'wall s':>7} {'router cpu s':>12} {'harness cpu s':>13} "
          f"{'overhead s':>10} {'in-process s':>12} {'start-up s':>10}")
    totals = [0.0] * 6
    failed = 0
    for scenario in scenarios:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        startup = time.perf_counter() - started
        inside, _ = _in_process_once(scenario)
        children, own, started = _cpu(resource.RUSAGE_CHILDREN), _cpu(resource.RUSAGE_SELF), \
            time.perf_counter()
        run = run_scenario(scenario, command, capabilities=declared)
        verdicts = check_run(run, declared)
        wall = time.perf_counter() - started
        router = _cpu(resource.RUSAGE_CHILDREN) - children
        harness = _cpu(resource.RUSAGE_SELF) - own
        overhead = wall - router
        failed += any(v.status is Status.FAIL for v in verdicts)
        row = (wall, router, harness, overhead, inside, startup)
        for i, value in enumerate(row):
            totals[i] += value
        print(f"{scenario.name:42} {wall:7.2f} {router:12.2f} {harness:13.2f} {overhead:10.2f} "
              f"{inside:12.3f} {startup:10.2f}")
    wall, router, harness, overhead, inside, startup = totals
    print(f"{'total (' + str(len(scenarios)) + ' scenarios)':42} {wall:7.2f} {router:12.2f} "
          f"{harness:13.2f} {overhead:10.2f} {inside:12.3f} {startup:10.2f}")
    if router and startup and inside:
        print(f"\nwall time / start-up baseline: {wall / startup:.1f}x; harness CPU / router "
              f"CPU: {harness / router:.2f}; black-box wall / in-process wall: "
              f"{wall / inside:.1f}x")
    print(f"target: the full set in at most {TARGET_BLACK_BOX:g} s: "
          f"{'met' if wall <= TARGET_BLACK_BOX else 'NOT met'} ({wall:.1f} s); "
          f"{failed} scenario(s) failed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", choices=["core", "durable"], default="durable")
    reference = f"{sys.executable} -m teamwire run -q"
    parser.add_argument("--router", default=reference)
    parser.add_argument("--describe", metavar="FILE",
                        help="the router's capability declaration (default: the reference "
                             "router's for the reference router, none for another)")
    parser.add_argument("--fuzz", type=int, default=200, metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-black-box", action="store_true")
    parser.add_argument("--no-in-process", action="store_true")
    args = parser.parse_args()
    if not args.no_in_process:
        bench_in_process(args.level, args.fuzz, args.seed)
    if not args.no_black_box:
        if args.describe:
            declared = load_capabilities(Path(args.describe))
        elif args.router == reference:
            declared = capabilities_from_json(CAPABILITIES, "teamwire run --describe")
        else:
            declared = Capabilities()
        bench_black_box(args.level, args.router.split(), declared)


if __name__ == "__main__":
    main()
