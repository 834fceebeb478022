"""Certification results: the verdicts of every scenario run, and what they add up to."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from xml.sax.saxutils import escape, quoteattr

from teamwire._version import __version__
from teamwire.conformance.checks import Status, Verdict
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import LEVELS, Scenario, runs_for

CONTRACT_CHECK = "contract"


@dataclass
class ScenarioResult:
    """The verdicts of one scenario run."""

    run: Run
    verdicts: list[Verdict]
    expected: dict[str, str] = field(default_factory=dict)
    """Checks (or ``*`` for the whole scenario) the baseline expects to fail, with why."""
    skipped: str = ""
    """Why the scenario was not run against this router (TW-CERT-015); empty when it ran."""

    @classmethod
    def skip(cls, scenario: Scenario, reason: str) -> ScenarioResult:
        """A scenario the router's declaration rules out: not run, and not a pass."""
        return cls(Run(scenario, [], [], []), [], skipped=reason)

    def _excused(self, verdict: Verdict) -> bool:
        return verdict.status is Status.FAIL and bool(
            {"*", verdict.check} & set(self.expected))

    @property
    def passed(self) -> bool:
        """The scenario ran and no check failed (warnings and skipped checks do not fail
        it)."""
        return not self.skipped and all(v.status is not Status.FAIL for v in self.verdicts)

    @property
    def new_failures(self) -> list[Verdict]:
        """Failed checks the baseline does not expect."""
        return [v for v in self.verdicts if v.status is Status.FAIL and not self._excused(v)]

    @property
    def stale(self) -> list[str]:
        """Baseline entries of this scenario that did not fail: the router does better now."""
        if self.skipped:
            return []
        failed = {v.check for v in self.verdicts if v.status is Status.FAIL}
        return [name for name in self.expected
                if (name == "*" and not failed) or (name != "*" and name not in failed)]

    def status(self, verdict: Verdict) -> str:
        """The status shown for ``verdict``: an excused failure is an expected failure."""
        return "expected-fail" if self._excused(verdict) else verdict.status.value

    def to_json(self) -> dict[str, Any]:
        """The scenario's entry of the JSON report (schema ``certification-report``)."""
        return {
            "scenario": self.run.scenario.name,
            "title": self.run.scenario.title,
            "requirements": list(self.run.scenario.requirements),
            "passed": self.passed,
            "seconds": round(self.run.seconds, 3),
            "router_exit_code": self.run.exit_code,
            **({"skipped": self.skipped} if self.skipped else {}),
            **({"stale_baseline": self.stale} if self.stale else {}),
            "checks": [{
                "check": v.check, "status": self.status(v),
                "requirements": list(v.requirements),
                **({"reason": v.reason} if v.reason else {}),
                **({"expected": v.expected} if v.expected is not None else {}),
                **({"received": v.received} if v.received is not None else {}),
            } for v in self.verdicts],
        }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class LevelVerdict:
    """What one level of a certification run adds up to (TW-CERT-023)."""

    level: str
    certified: bool
    judged: bool
    """Whether the level decides the verdict: it was asked for, or it has a scenario written
    for the router's profile (TW-CERT-024)."""
    ran: int
    """Scenarios of this level that ran."""
    skipped: int
    """Scenarios of this level that were skipped."""
    failed_scenarios: int
    """Scenarios of this level in which a check failed."""
    failed_checks: int
    reason: str
    """Why the level is not certified; empty when it is."""

    def to_json(self) -> dict[str, Any]:
        """The level's entry of the JSON report."""
        return {"level": self.level, "certified": self.certified, "judged": self.judged,
                "scenarios_run": self.ran, "scenarios_skipped": self.skipped,
                "scenarios_failed": self.failed_scenarios, "checks_failed": self.failed_checks,
                **({"reason": self.reason} if self.reason else {})}


@dataclass(frozen=True)
class FuzzSummary:
    """What fuzzing found (``--fuzz``): how many generated scenarios ran, drawn how, and the
    failing one, if any (its result is among the certification's results)."""

    examples: int
    """Generated scenarios run against the router, shrinking included."""
    seed: int
    level: str
    failing: str | None = None
    """The name of the failing generated scenario; None when the router agreed on all."""
    written: str | None = None
    """Where the failing scenario was written out as a vector."""
    shrunk: bool = True
    """False when shrinking ran out of time: the failing scenario is not a minimal one."""

    def line(self) -> str:
        """What fuzzing found, in one line."""
        drawn = f"{_plural(self.examples, 'generated scenario')} (level {self.level}, " \
                f"seed {self.seed})"
        if self.failing is None:
            return f"fuzz: {drawn}, each shown as the reference router shows it"
        how = "minimal" if self.shrunk else "not shrunk to the end"
        return (f"fuzz: {drawn}: the router differs from the reference router in "
                f"{self.failing} ({how}{f', written to {self.written}' if self.written else ''})")

    def to_json(self) -> dict[str, Any]:
        """The ``fuzz`` member of the JSON report."""
        return {"examples": self.examples, "seed": self.seed, "level": self.level,
                "agreed": self.failing is None,
                **({"failing": self.failing, "shrunk": self.shrunk} if self.failing else {}),
                **({"written": self.written} if self.written else {})}


@dataclass
class Certification:
    """A router's certification up to one level: every scenario's result, and the verdict of
    each level.

    ``level`` is the highest level judged; ``profile`` the profile the router declares. A
    level is judged when it was asked for (``level`` itself) or when a scenario of it is
    written for ``profile``: without ``--level``, the command asks for the highest level with
    such a scenario, so that every level of the protocol the router can be judged at is
    (TW-CERT-024)."""

    router: str
    level: str
    results: list[ScenarioResult] = field(default_factory=list)
    baseline: str | None = None
    """The expected-failures file the run is judged with."""
    describe: str | None = None
    """The router's capability declaration, if it gave one."""
    profile: str = "strict"
    requested: bool = True
    """Whether the level was asked for (``--level``) rather than chosen by default."""
    fuzz: FuzzSummary | None = None
    """What fuzzing found, when it ran."""

    @property
    def ran(self) -> list[ScenarioResult]:
        """The results of the scenarios that were run (not skipped)."""
        return [r for r in self.results if not r.skipped]

    @property
    def levels(self) -> list[LevelVerdict]:
        """The verdict of every level up to ``level``, lowest first (TW-CERT-023)."""
        verdicts: list[LevelVerdict] = []
        lower_failed = ""
        for level in LEVELS[:LEVELS.index(self.level) + 1]:
            own = [r for r in self.results if r.run.scenario.level == level]
            ran = [r for r in own if not r.skipped]
            failed = [r for r in ran if not r.passed]
            checks = sum(v.status is Status.FAIL for r in failed for v in r.verdicts)
            judged = level == self.level or any(
                runs_for(self.profile, r.run.scenario.profile) for r in own)
            if failed:
                reason = (f"{_plural(checks, 'check')} failed in "
                          f"{_plural(len(failed), 'scenario')} of {len(ran)}")
            elif lower_failed:
                reason = f"a scenario of level {lower_failed} failed"
            elif not own:
                reason = "no scenario of this level was given"
            elif not ran:
                written = {r.run.scenario.profile for r in own}
                reason = (f"none of its {_plural(len(own), 'scenario')} ran: "
                          + (f"they are written for profile {', '.join(sorted(written))}"
                             if not any(runs_for(self.profile, w) for w in written)
                             else "every one was skipped"))
            else:
                reason = ""
            verdicts.append(LevelVerdict(level, not reason, judged, len(ran),
                                         len(own) - len(ran), len(failed), checks, reason))
            if failed and not lower_failed:
                lower_failed = level
        return verdicts

    @property
    def certified_level(self) -> str | None:
        """The highest level certified, or None."""
        certified = [v.level for v in self.levels if v.certified]
        return certified[-1] if certified else None

    @property
    def certified(self) -> bool:
        """Every judged level is certified: each had a scenario of its own run, and every
        scenario that ran up to it passed."""
        return all(v.certified for v in self.levels if v.judged)

    def verdict_line(self) -> str:
        """The verdict in one line: what is certified, and each judged level that is not
        with the reason ("certified at level core; level durable: not certified, ..."),
        then what fuzzing found when it ran."""
        line = self._levels_line()
        return line if self.fuzz is None else f"{line}; {self.fuzz.line()}"

    def _levels_line(self) -> str:
        levels = [v for v in self.levels if v.judged]
        if all(v.certified for v in levels):
            passed = len(self.ran)
            return (f"certified at level {self.level}: "
                    f"{passed} of {_plural(passed, 'scenario')} passed")
        parts = []
        certified = [v for v in levels if v.certified]
        if certified:
            parts.append(f"certified at level {certified[-1].level}")
        for verdict in levels:
            if not verdict.certified and not (parts and verdict.reason.startswith("a scenario "
                                                                                   "of level")):
                head = "not certified at level" if not parts else "level"
                sep = ": " if not parts else ": not certified, "
                parts.append(f"{head} {verdict.level}{sep}{verdict.reason}")
        return "; ".join(parts)

    @property
    def regressed(self) -> bool:
        """A failure the baseline does not expect, or a baseline entry that went stale."""
        return any(r.new_failures or r.stale for r in self.results)

    @property
    def broke_contract(self) -> bool:
        """The router could not be run as the contract says (not started, wrong endpoint
        use, calls no scenario expects): its behaviour could not be judged."""
        return any(v.check == CONTRACT_CHECK and v.status is Status.FAIL
                   for r in self.results for v in r.verdicts)

    def exit_code(self) -> int:
        """0 certified at every judged level (or, with a baseline, nothing but the failures
        it expects, and a scenario of every judged level run), 2 the contract was broken, 1
        otherwise (TW-CERT-012)."""
        if self.broke_contract:
            return 2
        if self.baseline is not None:
            unrun = any(v.judged and not v.ran for v in self.levels)
            return 1 if self.regressed or unrun else 0
        return 0 if self.certified else 1

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (schema ``certification-report``)."""
        return {
            "teamwire": __version__,
            "router": self.router,
            "level": self.level,
            "certified": self.certified,
            "certified_level": self.certified_level,
            "level_requested": self.requested,
            "profile": self.profile,
            "levels": [v.to_json() for v in self.levels],
            **({"baseline": self.baseline} if self.baseline is not None else {}),
            **({"describe": self.describe} if self.describe is not None else {}),
            **({"fuzz": self.fuzz.to_json()} if self.fuzz is not None else {}),
            "scenarios": [r.to_json() for r in self.results],
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
        write_text_result(result, stream)
    write_text_verdict(certification, stream)


def write_text_result(result: ScenarioResult, stream: TextIO) -> None:
    """The text report's lines of one scenario: PASS, FAIL, XFAIL or SKIP, and under a
    failure each failed check with what was expected and received."""
    run = result.run
    if result.skipped:
        stream.write(f"SKIP {run.scenario.name}: {result.skipped}\n")
        return
    mark = "PASS" if result.passed else "FAIL" if result.new_failures else "XFAIL"
    stream.write(f"{mark} {run.scenario.name} ({run.seconds:.1f} s)\n")
    for name in result.stale:
        stream.write(f"  stale baseline entry: {name} passes now; remove it\n")
    for verdict in result.verdicts:
        if verdict.status is Status.PASS:
            continue
        stream.write(f"  {result.status(verdict)}: {verdict.check} "
                     f"[{', '.join(verdict.requirements)}]: {verdict.reason}\n")
        if verdict.expected is not None:
            stream.write(f"    expected: {_shown(verdict.expected)}\n")
            stream.write(f"    received: {_shown(verdict.received)}\n")
    if not result.passed and run.output.strip():
        tail = run.output.strip().splitlines()[-5:]
        stream.write("  router output (last lines):\n")
        stream.writelines(f"    {line}\n" for line in tail)


def write_text_verdict(certification: Certification, stream: TextIO) -> None:
    """The end of the text report: what was skipped, each level, and the verdict."""
    total = len(certification.ran)
    skipped = len(certification.results) - total
    if skipped:
        stream.write(f"\n{skipped} scenario{'s' if skipped > 1 else ''} skipped: not run, "
                     "not passed (see SKIP above)\n")
    stream.write("\n")
    for level in certification.levels:
        state = "certified" if level.certified else f"not certified, {level.reason}"
        unjudged = "" if level.judged else " (not judged: no scenario for this profile)"
        stream.write(f"level {level.level}: {state}{unjudged}\n")
    if certification.broke_contract:
        passed = sum(r.passed for r in certification.results)
        stream.write(f"\nnot certified: the router broke the harness contract ({passed} of "
                     f"{total} scenarios passed)\n")
        return
    line = certification.verdict_line()
    if certification.baseline is not None and not certification.certified:
        against = "no new failure" if not certification.regressed else "regressed"
        line += f"; against the baseline {certification.baseline}: {against}"
    stream.write(f"\n{line}\n")


def write_junit(certification: Certification, stream: TextIO) -> None:
    """JUnit XML: one test case per scenario, a failure per failed check."""
    results = certification.results
    failures = sum(1 for r in results if r.new_failures)
    seconds = sum(r.run.seconds for r in results)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(f'<testsuites name="teamwire certify" tests="{len(results)}" '
                 f'failures="{failures}" time="{seconds:.3f}">\n')
    stream.write(f'  <testsuite name={quoteattr("level " + certification.level)} '
                 f'tests="{len(results)}" failures="{failures}" time="{seconds:.3f}">\n')
    if certification.fuzz is not None:
        stream.write(f'    <properties><property name="fuzz" '
                     f'value={quoteattr(_xml_text(certification.fuzz.line()))}/></properties>\n')
    for result in results:
        run = result.run
        stream.write(f'    <testcase classname="teamwire.certify" '
                     f'name={quoteattr(run.scenario.name)} time="{run.seconds:.3f}">\n')
        for verdict in result.new_failures:
            message = f"{verdict.check} [{', '.join(verdict.requirements)}]: {verdict.reason}"
            body = message
            if verdict.expected is not None:
                body += (f"\nexpected: {json.dumps(verdict.expected, ensure_ascii=False)}"
                         f"\nreceived: {json.dumps(verdict.received, ensure_ascii=False)}")
            stream.write(f"      <failure message={quoteattr(_xml_text(message))}>"
                         f"{escape(_xml_text(body))}</failure>\n")
        if result.skipped:
            stream.write(f"      <skipped message={quoteattr(_xml_text(result.skipped))}/>\n")
        elif not result.new_failures and not result.passed:
            stream.write("      <skipped message=\"expected to fail by the baseline\"/>\n")
        stream.write("    </testcase>\n")
    stream.write("  </testsuite>\n</testsuites>\n")


def _xml_text(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold (a router may send anything)."""
    return "".join(c if c in "\t\n\r" or (" " <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd")
                   or c >= "\U00010000" else "\ufffd" for c in text)


def write_markdown(certification: Certification, stream: TextIO) -> None:
    """A Markdown summary, for a pull request or a job summary."""
    stream.write(f"## teamwire certify: {certification.verdict_line()}\n\n")
    stream.write(f"Router: `{certification.router}`\n\n")
    stream.write("| level | verdict |\n| --- | --- |\n")
    for level in certification.levels:
        state = "certified" if level.certified else f"not certified: {level.reason}"
        stream.write(f"| {level.level} | {state}{'' if level.judged else ' (not judged)'} |\n")
    stream.write("\n")
    stream.write("| scenario | result | failed requirements |\n| --- | --- | --- |\n")
    for result in certification.results:
        failed = sorted({r for v in result.verdicts if v.status is Status.FAIL
                         for r in v.requirements})
        mark = "pass" if result.passed else f"skipped: {result.skipped}" if result.skipped \
            else "fail" if result.new_failures else "expected fail"
        stream.write(f"| {result.run.scenario.name} | {mark} | {', '.join(failed)} |\n")


def badge_svg(certification: Certification) -> str:
    """A badge for a README: the level and whether the router was certified at it."""
    right = " ".join(f"{v.level} {'✓' if v.certified else '✗'}"
                     for v in certification.levels if v.judged)
    colour = "#2e7d32" if certification.certified else "#c62828"
    left = "teamwire certify"
    left_width, right_width = 7 * len(left) + 12, 7 * len(right) + 14
    width = left_width + right_width
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" '
            f'role="img" aria-label="{left}: {right}"><title>{left}: {right}</title>'
            f'<rect width="{left_width}" height="20" fill="#555"/>'
            f'<rect x="{left_width}" width="{right_width}" height="20" fill="{colour}"/>'
            f'<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
            f'<text x="6" y="14">{left}</text>'
            f'<text x="{left_width + 7}" y="14">{right}</text></g></svg>\n')


def load_baseline(path: Path) -> dict[str, dict[str, str]]:
    """Scenario → check (``*`` for the whole scenario) → why it is expected to fail.

    The file is JSON: ``{"expected_failures": [{"scenario": S, "check": C, "reason": R}]}``,
    ``check`` optional. ValueError says what is wrong with it."""
    data = json.loads(path.read_text(encoding="utf-8"))
    entries = data.get("expected_failures") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ValueError("the baseline needs an 'expected_failures' array")
    found: dict[str, dict[str, str]] = {}
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("scenario"), str) \
                or not isinstance(entry.get("reason"), str) or not entry["reason"].strip():
            raise ValueError(f"expected_failures[{number}] needs a 'scenario' and a 'reason'")
        check = entry.get("check", "*")
        if not isinstance(check, str):
            raise ValueError(f"expected_failures[{number}].check must be a string")
        found.setdefault(entry["scenario"], {})[check] = entry["reason"]
    return found
