"""Mutation testing of teamwire: run mutmut, then score what it found, module by module.

    python tools/mutation.py run                       # every mutant not yet tested (hours)
    python tools/mutation.py run "teamwire.router.core*"   # retest one module's mutants
    python tools/mutation.py run --survivors           # retest the survivors (after new tests)
    python tools/mutation.py run --sample 1500 --seed 1  # a random sample (about an hour)
    python tools/mutation.py report --sample           # estimated scores of that sample
    python tools/mutation.py report                    # scores per module
    python tools/mutation.py report --survivors --diff # ... and each survivor's change
    python tools/mutation.py run --sample 120 --seed 11 "teamwire.conformance.*"
    python tools/mutation.py report --sample "teamwire.conformance.*"
                                                       # one package: a draw and its score
    python tools/mutation.py check "teamwire.envelope.*" -- tests/envelope/test_new.py
                                                       # do these tests kill those survivors?

``run`` calls ``mutmut run`` with the derandomized hypothesis profile ``mutation``
(tests/conftest.py), so a mutant's verdict does not depend on the draw. mutmut runs, for
each mutant, only the tests that called the mutated function (it records them in a first
run of the whole suite), which is what keeps a run on a two-core machine in hours, not days.
The modules it mutates are ``[tool.mutmut] only_mutate`` in pyproject.toml. Results are
kept in ``mutants/``: a run without names tests the mutants that have no verdict yet (new,
or in a function edited since), cheapest first, and can be stopped and resumed at any time;
a run with names (or ``--survivors``) retests the mutants they match, verdict or not.

``report`` reads mutmut's results and prints, per module: mutants killed (a test failed,
timed out or crashed), survived (every selected test passed), untested (no test calls the
function), equivalent (listed in tools/mutation_equivalents.toml with the reason no test
can tell them apart), and the score, killed / (all - equivalent - not yet run).
It exits 1 when the total score is below ``--target`` (default 90), 0 otherwise.

A whole run takes hours on two cores. ``run --sample N`` draws N mutants at random (seeded,
from every mutant of the configured modules or of the patterns given), records the draw in
``mutants/sample.json`` and tests only those; ``report --sample`` then scores that draw alone,
with a 95% Wilson interval per module, so the estimate is not biased by earlier partial runs
(which test the cheapest mutants first).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.toml"
SAMPLE = MUTANTS / "sample.json"
MUTMUT = Path(sys.executable).parent / "mutmut"
NO_MUTANT = "teamwire.no-such-module.x_none__mutmut_0"
"""A name that matches no mutant: ``mutmut run`` with it generates the mutants and collects
which tests reach which function, then stops (it refuses an empty selection)."""

KILLED = "killed"
SURVIVED = "survived"
UNTESTED = "untested"
PENDING = "pending"

_STATUS = {1: KILLED, 3: KILLED, 36: KILLED, 24: KILLED, -24: KILLED, 152: KILLED, 255: KILLED,
           -9: KILLED, -11: KILLED, 37: KILLED, 0: SURVIVED, 5: UNTESTED, 33: UNTESTED,
           None: PENDING}
"""mutmut's exit codes → our verdicts. A timeout or a crash is a kill: the mutant's change
was noticed. Codes not listed (mutmut's "suspicious", "skipped", an interrupted check)
count as survivors, so that nothing unexplained raises the score."""


@dataclass
class ModuleScore:
    """The verdicts of one module's mutants."""

    module: str
    counts: Counter[str] = field(default_factory=Counter)
    survivors: list[str] = field(default_factory=list)

    @property
    def scored(self) -> int:
        """Mutants that count: every one that ran and is not equivalent."""
        return self.counts[KILLED] + self.counts[SURVIVED] + self.counts[UNTESTED]

    @property
    def score(self) -> float | None:
        """Killed as a percentage of the mutants that count (None when none ran)."""
        return 100.0 * self.counts[KILLED] / self.scored if self.scored else None


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """Mutant name → why no test can tell it from the original."""
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {str(name): str(reason) for name, reason in data.get("equivalent", {}).items()}


def module_of(mutant: str) -> str:
    """``teamwire.router.core.x_f__mutmut_3`` → ``teamwire.router.core``."""
    head = mutant.split("__mutmut_")[0]
    return head.rsplit(".", 1)[0]


def verdicts(mutants: Path = MUTANTS) -> dict[str, str]:
    """Every mutant mutmut generated, with its verdict."""
    found: dict[str, str] = {}
    for meta in sorted(mutants.glob("src/**/*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        for name, code in data.get("exit_code_by_key", {}).items():
            found[name] = _STATUS.get(code, SURVIVED)
    return found


def score(found: dict[str, str], equivalents: dict[str, str]) -> dict[str, ModuleScore]:
    """Group verdicts by module; equivalent mutants are counted apart."""
    modules: dict[str, ModuleScore] = {}
    for name, verdict in found.items():
        module = modules.setdefault(module_of(name), ModuleScore(module_of(name)))
        if name in equivalents and verdict not in (KILLED, PENDING):
            module.counts["equivalent"] += 1
            continue
        module.counts[verdict] += 1
        if verdict in (SURVIVED, UNTESTED):
            module.survivors.append(name)
    return modules


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:5.1f}%"


def wilson(killed: int, scored: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a kill rate measured on a sample, in percent."""
    if scored == 0:
        return (0.0, 100.0)
    rate = killed / scored
    centre = rate + z * z / (2 * scored)
    spread = z * math.sqrt(rate * (1 - rate) / scored + z * z / (4 * scored * scored))
    scale = 1 + z * z / scored
    return (100.0 * (centre - spread) / scale, 100.0 * (centre + spread) / scale)


def draw_sample(names: list[str], size: int, seed: int, equivalents: dict[str, str]) -> list[str]:
    """``size`` mutants drawn at random (reproducibly, for a seed) from those not known to be
    equivalent, in a stable order."""
    population = sorted(name for name in names if name not in equivalents)
    if size >= len(population):
        return population
    return sorted(random.Random(seed).sample(population, size))


def report(args: argparse.Namespace) -> int:
    found = verdicts()
    if not found:
        print("no mutation results in mutants/: run `python tools/mutation.py run` first",
              file=sys.stderr)
        return 2
    equivalents = load_equivalents()
    drawn: list[str] = []
    if args.sample:
        if not SAMPLE.exists():
            print(f"no sample in {SAMPLE.relative_to(ROOT)}: run "
                  "`python tools/mutation.py run --sample N` first", file=sys.stderr)
            return 2
        drawn = json.loads(SAMPLE.read_text(encoding="utf-8"))["mutants"]
        found = {name: found.get(name, PENDING) for name in drawn}
        print(f"sample of {len(drawn)} mutants (seed {json.loads(SAMPLE.read_text())['seed']}); "
              "the interval is 95% Wilson\n")
    if args.names:
        found = {name: verdict for name, verdict in found.items() if _matches(name, args.names)}
    if not found:
        print("no mutant matches " + " ".join(args.names), file=sys.stderr)
        return 2
    modules = score(found, equivalents)
    total = ModuleScore("total")
    header = f"{'module':44} {'killed':>7} {'survived':>8} {'untested':>8} {'equiv.':>6} " \
             f"{'pending':>7} {'score':>7}" + (f" {'interval':>13}" if drawn else "")
    print(header)
    print("-" * len(header))
    for name in sorted(modules):
        m = modules[name]
        total.counts.update(m.counts)
        total.survivors.extend(m.survivors)
        print(f"{name:44} {m.counts[KILLED]:7} {m.counts[SURVIVED]:8} {m.counts[UNTESTED]:8} "
              f"{m.counts['equivalent']:6} {m.counts[PENDING]:7} {_percent(m.score):>7}"
              + (_interval(m) if drawn else ""))
    print("-" * len(header))
    print(f"{'total':44} {total.counts[KILLED]:7} {total.counts[SURVIVED]:8} "
          f"{total.counts[UNTESTED]:8} {total.counts['equivalent']:6} "
          f"{total.counts[PENDING]:7} {_percent(total.score):>7}" + (_interval(total) if drawn else ""))
    # A sample holds few of the listed equivalents: staleness is a whole run's to tell.
    stale = [] if drawn else sorted(name for name in equivalents
                                    if (not args.names or _matches(name, args.names))
                                    and found.get(name) in (None, KILLED))
    if stale:
        print(f"\n{len(stale)} entries of {EQUIVALENTS.relative_to(ROOT)} are stale "
              "(the mutant is gone, or a test kills it): remove them")
        for name in stale:
            print(f"  {name}")
    if args.equivalents:
        print("\nequivalent mutants:")
        for name in sorted(equivalents):
            if found.get(name) not in (None, KILLED):
                print(f"  {name}: {equivalents[name]}")
    if args.survivors:
        print(f"\n{len(total.survivors)} surviving mutants:")
        for name in sorted(total.survivors):
            print(f"  {name} ({found[name]})")
            if args.diff:
                shown = subprocess.run([str(MUTMUT), "show", name], cwd=ROOT, text=True,
                                       capture_output=True, check=False)
                print("    " + shown.stdout.strip().replace("\n", "\n    "))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "modules": {n: {**dict(m.counts), "score": m.score, "survivors": m.survivors}
                        for n, m in sorted(modules.items())},
            "total": {**dict(total.counts), "score": total.score,
                      **({"interval": wilson(total.counts[KILLED], total.scored)} if drawn else {})},
            **({"sample": len(drawn)} if drawn else {}),
        }, indent=2) + "\n", encoding="utf-8")
    if total.score is not None and total.score < args.target:
        print(f"\ntotal score {total.score:.1f}% is below the target of {args.target:g}%")
        return 1
    return 0


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def _interval(module: ModuleScore) -> str:
    low, high = wilson(module.counts[KILLED], module.scored)
    return f" {low:5.1f}–{high:5.1f}%" if module.scored else f" {'-':>13}"


def run(args: argparse.Namespace) -> int:
    env = dict(os.environ, TEAMWIRE_HYPOTHESIS_PROFILE="mutation")
    names = list(args.names)
    if args.sample:
        print("generating mutants and mapping tests to functions (minutes on a first run)",
              flush=True)
        # Generation (of changed files only) and the test-to-function map come first; mutmut
        # then exits on the empty selection, which is expected here.
        subprocess.run([str(MUTMUT), "run", "--max-children", str(args.jobs), NO_MUTANT],
                       cwd=ROOT, env=env, check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        everything = sorted(verdicts())
        if not everything:
            print("mutmut generated no mutants: see `mutmut run` for why", file=sys.stderr)
            return 2
        if names:
            everything = [n for n in everything if any(fnmatch.fnmatchcase(n, p) for p in names)]
        drawn = draw_sample(everything, args.sample, args.seed, load_equivalents())
        SAMPLE.write_text(json.dumps({"seed": args.seed, "patterns": names, "mutants": drawn},
                                     indent=1) + "\n", encoding="utf-8")
        found = verdicts()
        names = [name for name in drawn if found.get(name) == PENDING]
        print(f"sample of {len(drawn)} mutants drawn from {len(everything)}; "
              f"{len(names)} have no verdict yet", flush=True)
        if not names:
            return 0
    if args.survivors:
        found = verdicts()
        names += sorted(name for name, verdict in found.items() if verdict in (SURVIVED, UNTESTED))
        if not names:
            print("no surviving mutants to retest", file=sys.stderr)
            return 0
    command = [str(MUTMUT), "run", "--max-children", str(args.jobs), *names]
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


def check(args: argparse.Namespace) -> int:
    """Run the given tests against each matching survivor, through mutmut's trampolines, and
    say which the tests kill. Reads mutants/ only, so it can run beside a mutmut run; its
    verdicts are not recorded (retest with ``run`` for that)."""
    found = verdicts()
    names = sorted(name for name, verdict in found.items() if verdict in (SURVIVED, UNTESTED)
                   and any(fnmatch.fnmatchcase(name, pattern) for pattern in args.names))
    if not names:
        print("no surviving mutant matches", file=sys.stderr)
        return 2
    killed = 0
    for name in names:
        env = dict(os.environ, MUTANT_UNDER_TEST=name, PYTHONPATH=str(MUTANTS / "src"),
                   TEAMWIRE_HYPOTHESIS_PROFILE="mutation")
        result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                 *args.tests], cwd=ROOT, env=env, capture_output=True, check=False)
        verdict = KILLED if result.returncode == 1 else SURVIVED if result.returncode == 0 \
            else f"error (pytest exit {result.returncode})"
        killed += verdict == KILLED
        print(f"{verdict:9} {name}", flush=True)
    print(f"\n{killed} of {len(names)} killed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/mutation.py",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run mutmut (all modules, or the names given)")
    run_parser.add_argument("names", nargs="*",
                            help='mutant name patterns, e.g. "teamwire.router.core*"')
    run_parser.add_argument("--survivors", action="store_true",
                            help="retest every mutant that survived or had no test in the last run")
    run_parser.add_argument("--sample", type=int, metavar="N",
                            help="test N mutants drawn at random (see `report --sample`)")
    run_parser.add_argument("--seed", type=int, default=1, help="the draw of --sample (default 1)")
    run_parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                            help="mutants tested at once (default: one per core)")
    report_parser = commands.add_parser("report", help="scores per module from the last run")
    report_parser.add_argument("names", nargs="*",
                               help='score only the mutants these patterns match, e.g. '
                                    '"teamwire.conformance.*"')
    report_parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    report_parser.add_argument("--diff", action="store_true", help="with --survivors: show each change")
    report_parser.add_argument("--equivalents", action="store_true",
                               help="list the equivalent mutants and why")
    report_parser.add_argument("--sample", action="store_true",
                               help="score only the mutants drawn by the last `run --sample`")
    report_parser.add_argument("--json", metavar="FILE", help="also write the scores as JSON")
    report_parser.add_argument("--target", type=float, default=90.0,
                               help="exit 1 below this total score (default 90)")
    check_parser = commands.add_parser(
        "check", help="run some tests against matching survivors (beside a run, nothing recorded)")
    check_parser.add_argument("names", nargs="+", help="mutant name patterns")
    check_parser.add_argument("tests", nargs="+", help="after --: pytest arguments")
    raw = sys.argv[1:] if argv is None else argv
    if raw[:1] == ["check"] and "--" in raw:
        cut = raw.index("--")
        args = argparse.Namespace(command="check", names=raw[1:cut], tests=raw[cut + 1:])
    else:
        args = parser.parse_args(raw)
    if args.command == "run":
        return run(args)
    if args.command == "check":
        return check(args)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
