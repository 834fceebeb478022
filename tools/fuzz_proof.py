"""Fuzzing's own proof: generated scenarios alone catch every fault of the broken-router
fixtures, and never report a correct router as different.

    python tools/fuzz_proof.py faults                        # every fault, 200 scenarios each
    python tools/fuzz_proof.py faults --family node no-timeout reverse-batch

``faults`` runs, for each fault, up to ``--examples`` generated scenarios (as ``teamwire
certify --fuzz`` draws them, with the shipped scenarios left out) against the router with
that one fault, and stops at the first scenario the router fails: it prints the number of
that scenario, the requirements its failed checks name, and the time taken. It does not
shrink (the proof is that a failure is found, not how small it gets). The families are the
routers of ``tests/conformance/routers/``: the Python and Node routers written from the
specification (``MINI_ROUTER_FAULT``, black-box, level core), the reference router with a
durability mistake (``faulty_reference.py``, ``ROUTER_FAULT``, black-box, level durable) and
the reference router with a mistake made in process (``broken_inprocess.py``, on virtual
time, level durable). Faults of profile astrion are left out: generated scenarios are of
profile strict. The fault names are read from each router's header, so a new fault joins
the proof without an edit here.

That correct routers agree is ``teamwire certify --fuzz N`` itself (docs/contributing.md).

Exit codes: 0 every fault caught, 1 a fault was not caught, 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from teamwire.cli.run_cmd import CAPABILITIES
from teamwire.conformance.capabilities import Capabilities, capabilities_from_json
from teamwire.conformance.checks import Status
from teamwire.conformance.fuzz import fuzz, in_process
from teamwire.conformance.inprocess import load_factory
from teamwire.conformance.runner import Run, run_scenario
from teamwire.conformance.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent
ROUTERS = ROOT / "tests" / "conformance" / "routers"


@dataclass(frozen=True)
class Family:
    """Routers that share one code base and differ by the fault an environment variable (or
    a factory name) chooses."""

    name: str
    level: str
    faults: Callable[[], list[str]]
    target: Callable[[str], Callable[[Scenario], Run]]
    variable: str = ""


def _header_names(path: Path, pattern: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return list(dict.fromkeys(re.findall(pattern, text, flags=re.MULTILINE)))


def _python_faults() -> list[str]:
    text = (ROUTERS / "mini_router.py").read_text(encoding="utf-8")
    header = text.split('"""')[1]
    # the faults after the paragraph on profile astrion need that profile
    strict = header.split("--profile astrion")[0]
    return re.findall(r"^- ``([a-z0-9-]+)``:", strict, flags=re.MULTILINE)


def _node_faults() -> list[str]:
    return _header_names(ROUTERS / "mini_router.mjs", r"^//   ([a-z0-9-]+)\s")


def _derived_faults() -> list[str]:
    return _header_names(ROUTERS / "faulty_reference.py", r"^- ``([a-z-]+)``:")


def _inprocess_faults() -> list[str]:
    path = ROUTERS / "broken_inprocess.py"
    text = path.read_text(encoding="utf-8").split('"""')[1]
    # the header also names tools (``ask_master``): a fault is a factory the module defines
    defined = set(re.findall(r"^([a-z_]+) = ", path.read_text(encoding="utf-8"),
                             flags=re.MULTILINE))
    defined |= set(re.findall(r"^async def ([a-z_]+)\(setup", path.read_text(encoding="utf-8"),
                              flags=re.MULTILINE))
    return [name for name in dict.fromkeys(re.findall(r"``([a-z_]+)``", text))
            if name in defined]


def _black_box(command: list[str], variable: str,
               capabilities: Capabilities | None = None) -> Callable[[str], Callable[
                   [Scenario], Run]]:
    def target(fault: str) -> Callable[[Scenario], Run]:
        def run(scenario: Scenario) -> Run:
            with _environment(variable, fault):
                return run_scenario(scenario, command, capabilities=capabilities)
        return run
    return target


@contextmanager
def _environment(variable: str, value: str) -> Iterator[None]:
    """The router process inherits the fault from this process's environment."""
    before = os.environ.get(variable)
    if value:
        os.environ[variable] = value
    else:
        os.environ.pop(variable, None)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = before


def _in_process(fault: str) -> Callable[[Scenario], Run]:
    return in_process(load_factory(f"{ROUTERS / 'broken_inprocess.py'}:{fault}"))


def _families() -> dict[str, Family]:
    node = shutil.which("node") or "node"
    reference = [sys.executable, "-m", "teamwire", "run", "-q"]
    declared = capabilities_from_json(CAPABILITIES)
    return {
        "python": Family("python", "core", _python_faults,
                         _black_box([sys.executable, str(ROUTERS / "mini_router.py")],
                                    "MINI_ROUTER_FAULT"), "MINI_ROUTER_FAULT"),
        "node": Family("node", "core", _node_faults,
                       _black_box([node, str(ROUTERS / "mini_router.mjs")],
                                  "MINI_ROUTER_FAULT"), "MINI_ROUTER_FAULT"),
        "derived": Family("derived", "durable", _derived_faults,
                          _black_box([sys.executable, str(ROUTERS / "faulty_reference.py"),
                                      *reference[3:]], "ROUTER_FAULT", declared),
                          "ROUTER_FAULT"),
        "in-process": Family("in-process", "durable", _inprocess_faults, _in_process),
    }


def prove_fault(family: Family, fault: str, examples: int, seed: int) -> tuple[int | None,
                                                                                 str, float]:
    """The number of the first generated scenario the router with ``fault`` fails (None:
    none of ``examples``), what its failure names, and the seconds taken."""
    started = time.monotonic()
    run_target = family.target(fault)
    # the reference router's derivations declare what it declares
    capabilities = capabilities_from_json(CAPABILITIES) if family.name in ("derived", "in-process") \
        else None
    # shrinking is cut off at once: the first failure is the proof
    outcome = fuzz(run_target, examples=examples, seed=seed, level=family.level,
                   capabilities=capabilities, shrink_budget=-1.0,
                   at_timers=family.name == "in-process")
    if outcome.failing is None:
        return None, "", time.monotonic() - started
    failed = sorted({r for v in outcome.verdicts if v.status is Status.FAIL
                     for r in v.requirements})
    return outcome.examples, " ".join(failed), time.monotonic() - started


def faults_command(args: argparse.Namespace) -> int:
    families = _families()
    chosen = [families[name] for name in (args.family or families)]
    missed = 0
    for family in chosen:
        names = family.faults()
        if args.names:
            names = [n for n in names if n in args.names]
        for fault in names:
            found, what, seconds = prove_fault(family, fault, args.examples, args.seed)
            if found is None:
                missed += 1
                print(f"{family.name}\t{fault}\tNOT caught in {args.examples}\t{seconds:.1f} s",
                      flush=True)
            else:
                print(f"{family.name}\t{fault}\tcaught at scenario {found}\t{seconds:.1f} s\t"
                      f"{what}", flush=True)
    print(f"{missed} fault{'s' * (missed != 1)} not caught")
    return 1 if missed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    faults = commands.add_parser("faults", help="each fault is caught by generated scenarios")
    faults.add_argument("names", nargs="*", help="only these faults")
    faults.add_argument("--family", action="append", choices=sorted(_families()))
    faults.add_argument("--examples", type=int, default=200)
    faults.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return faults_command(args)


if __name__ == "__main__":
    sys.exit(main())
