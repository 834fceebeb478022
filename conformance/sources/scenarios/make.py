"""Write conformance/scenarios/*.json from the scenarios beside this file.

Run from the repository root: ``python -m conformance.sources.scenarios.make``

Each scenario's expectations are written by hand next to its script; before a file is
written, the scenario is run against the reference router (``teamwire run``, black-box, as
``teamwire certify`` runs any router) and the script refuses to write anything while one
check fails, so the vectors never just record what the router happens to do. The reference
router runs profile strict only: a scenario of profile astrion is run against the router
written from the specification alone, started in that profile
(``tests/conformance/routers/mini_router.py --profile astrion``). A scenario that answers a
call at a timer's instant needs the router's clock, which only an in-process run keeps, and
so does one whose ``wait`` (a default timer no knob shortens, say the ask timeout's 300
seconds) is longer than a black-box run waits: it is run against the reference router in
this process (``teamwire certify --in-process``), on virtual time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conformance.sources.scenarios import (
    arguments,
    asks,
    astrion,
    durability,
    failures,
    ids,
    knobs,
    lifecycle,
    natural_output,
    one_one,
    one_one_more,
    routing,
    targets,
)

from teamwire.cli.run_cmd import CAPABILITIES
from teamwire.conformance.capabilities import Capabilities, capabilities_from_json
from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.inprocess import InProcessRouter, reference_router
from teamwire.conformance.runner import clock_skip_reason, play, run_scenario
from teamwire.conformance.scenario import scenario_from_json

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "conformance" / "scenarios"
REFERENCE = [sys.executable, "-m", "teamwire", "run", "-q"]
ASTRION_ROUTER = [sys.executable, str(ROOT / "tests" / "conformance" / "routers" / "mini_router.py"),
                  "--profile", "astrion"]
SOURCES = [*routing.SCENARIOS, *asks.SCENARIOS, *targets.SCENARIOS, *lifecycle.SCENARIOS,
           *arguments.SCENARIOS, *ids.SCENARIOS, *natural_output.SCENARIOS,
           *failures.SCENARIOS, *durability.SCENARIOS, *knobs.SCENARIOS,
           *one_one.SCENARIOS, *one_one_more.SCENARIOS, *astrion.SCENARIOS]


def _declared(command: list[str]) -> Capabilities:
    """The capability declaration a router prints with ``--describe``."""
    printed = subprocess.run([*command, "--describe"], capture_output=True, text=True,
                             check=True, timeout=60).stdout
    return capabilities_from_json(json.loads(printed), " ".join(command[1:]) + " --describe")


def main() -> int:
    """Check every scenario against the reference router; write them only if all pass."""
    failures = 0
    written = []
    routers = {"strict": (REFERENCE, capabilities_from_json(CAPABILITIES,
                                                            "teamwire run --describe")),
               "astrion": (ASTRION_ROUTER, _declared(ASTRION_ROUTER))}
    for make in SOURCES:
        data = make()
        command, declared = routers[data["profile"]]
        scenario = scenario_from_json(data, data["scenario"])
        if clock_skip_reason(scenario) is not None:
            run = play(scenario, InProcessRouter(scenario, reference_router))
        else:
            run = run_scenario(scenario, command, capabilities=declared)
        for verdict in check_run(run, declared):
            if verdict.status is not Status.PASS:
                failures += 1
                print(f"{data['scenario']}: {verdict.check}: {verdict.reason}", file=sys.stderr)
                if verdict.expected is not None:
                    print(f"  expected: {json.dumps(verdict.expected, ensure_ascii=False)}\n"
                          f"  received: {json.dumps(verdict.received, ensure_ascii=False)}",
                          file=sys.stderr)
        written.append(data)
    if failures:
        return 1
    for data in written:
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        (OUT / f"{data['scenario']}.json").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
