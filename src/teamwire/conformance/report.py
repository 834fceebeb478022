"""Certification results: the verdicts of every scenario run, and what they add up to."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TextIO

from teamwire._version import __version__
from teamwire.conformance.checks import Status, Verdict
from teamwire.conformance.runner import Run

CONTRACT_CHECK = "contract"


@dataclass
class ScenarioResult:
    """The verdicts of one scenario run."""

    run: Run
    verdicts: list[Verdict]

    @property
    def passed(self) -> bool:
        """No check failed (warnings and skips do not fail a scenario)."""
        return all(v.status is not Status.FAIL for v in self.verdicts)


@dataclass
class Certification:
    """A router's certification at one level: every scenario's result."""

    router: str
    level: str
    results: list[ScenarioResult] = field(default_factory=list)

    @property
    def certified(self) -> bool:
        """Every scenario passed."""
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def broke_contract(self) -> bool:
        """The router could not be run as the contract says (not started, wrong endpoint
        use, calls no scenario expects): its behaviour could not be judged."""
        return any(v.check == CONTRACT_CHECK and v.status is Status.FAIL
                   for r in self.results for v in r.verdicts)

    def exit_code(self) -> int:
        """0 certified, 2 the contract was broken, 1 otherwise."""
        if self.broke_contract:
            return 2
        return 0 if self.certified else 1

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (schema ``certification-report``)."""
        return {
            "teamwire": __version__,
            "router": self.router,
            "level": self.level,
            "certified": self.certified,
            "scenarios": [{
                "scenario": r.run.scenario.name,
                "title": r.run.scenario.title,
                "requirements": list(r.run.scenario.requirements),
                "passed": r.passed,
                "seconds": round(r.run.seconds, 3),
                "router_exit_code": r.run.exit_code,
                "checks": [{
                    "check": v.check, "status": v.status.value,
                    "requirements": list(v.requirements),
                    **({"reason": v.reason} if v.reason else {}),
                    **({"expected": v.expected} if v.expected is not None else {}),
                    **({"received": v.received} if v.received is not None else {}),
                } for v in r.verdicts],
            } for r in self.results],
        }


def write_json(certification: Certification, stream: TextIO) -> None:
    """The JSON report."""
    json.dump(certification.to_json(), stream, ensure_ascii=False, indent=2)
    stream.write("\n")


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:2000]


def write_text(certification: Certification, stream: TextIO) -> None:
    """One line per scenario, the failed checks under it with expected and received, and
    the verdict."""
    for result in certification.results:
        run = result.run
        mark = "PASS" if result.passed else "FAIL"
        stream.write(f"{mark} {run.scenario.name} ({run.seconds:.1f} s)\n")
        for verdict in result.verdicts:
            if verdict.status is Status.PASS:
                continue
            stream.write(f"  {verdict.status.value}: {verdict.check} "
                         f"[{', '.join(verdict.requirements)}]: {verdict.reason}\n")
            if verdict.expected is not None:
                stream.write(f"    expected: {_shown(verdict.expected)}\n")
                stream.write(f"    received: {_shown(verdict.received)}\n")
        if not result.passed and run.output.strip():
            tail = run.output.strip().splitlines()[-5:]
            stream.write("  router output (last lines):\n")
            stream.writelines(f"    {line}\n" for line in tail)
    passed = sum(r.passed for r in certification.results)
    total = len(certification.results)
    if certification.certified:
        stream.write(f"\ncertified at level {certification.level}: {passed} of {total} "
                     "scenarios passed\n")
    elif certification.broke_contract:
        stream.write(f"\nnot certified: the router broke the harness contract ({passed} of "
                     f"{total} scenarios passed)\n")
    else:
        stream.write(f"\nnot certified at level {certification.level}: {passed} of {total} "
                     "scenarios passed\n")
