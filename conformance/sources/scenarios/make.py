"""Write conformance/scenarios/*.json from the scenarios beside this file.

Run from the repository root: ``python -m conformance.sources.scenarios.make``

Each scenario's expectations are written by hand next to its script; before a file is
written, the scenario is run against the reference router (``teamwire run``, black-box, as
``teamwire certify`` runs any router) and the script refuses to write anything while one
check fails, so the vectors never just record what the router happens to do.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conformance.sources.scenarios import (
    arguments,
    asks,
    durability,
    failures,
    knobs,
    lifecycle,
    routing,
    targets,
)

from teamwire.cli.run_cmd import CAPABILITIES
from teamwire.conformance.capabilities import capabilities_from_json
from teamwire.conformance.checks import Status, check_run
from teamwire.conformance.runner import run_scenario
from teamwire.conformance.scenario import scenario_from_json

OUT = Path(__file__).resolve().parents[2] / "scenarios"
REFERENCE = [sys.executable, "-m", "teamwire", "run", "-q"]
SOURCES = [*routing.SCENARIOS, *asks.SCENARIOS, *targets.SCENARIOS, *lifecycle.SCENARIOS,
           *arguments.SCENARIOS,
           *failures.SCENARIOS, *durability.SCENARIOS, *knobs.SCENARIOS]


def main() -> int:
    """Check every scenario against the reference router; write them only if all pass."""
    failures = 0
    written = []
    declared = capabilities_from_json(CAPABILITIES, "teamwire run --describe")
    for make in SOURCES:
        data = make()
        run = run_scenario(scenario_from_json(data, data["scenario"]), REFERENCE,
                           capabilities=declared)
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
