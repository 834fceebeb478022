"""What fuzzing found is in every report format and in the verdict line: how many generated
scenarios ran, their level and seed, and the failing one with where it was written."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import pytest

from teamwire import schemas
from teamwire.conformance.checks import Status, Verdict
from teamwire.conformance.report import (
    Certification,
    FuzzSummary,
    ScenarioResult,
    write_json,
    write_junit,
    write_markdown,
    write_text,
)
from teamwire.conformance.report_html import write_html
from teamwire.conformance.runner import Run
from teamwire.conformance.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
AGREED = FuzzSummary(200, 11, "core")
DIFFERED = FuzzSummary(37, 2, "core", "fuzz-c654e62316", "teamwire-fuzz/fuzz-c654e62316.json",
                       shrunk=False)
WRITERS: list[Callable[[Certification, TextIO], None]] = [
    write_text, write_json, write_junit, write_markdown, write_html]


def certification(fuzz: FuzzSummary | None) -> Certification:
    scenario = load_scenario(ROOT / "conformance" / "scenarios" / "batch-drain.json")
    result = ScenarioResult(Run(scenario, [], [], []),
                            [Verdict("append-only", Status.PASS, ("TW-CERT-007",))])
    return Certification("node router.js", "core", [result], fuzz=fuzz)


def written(writer: Callable[[Certification, TextIO], None], fuzz: FuzzSummary | None) -> str:
    stream = io.StringIO()
    writer(certification(fuzz), stream)
    return stream.getvalue()


def test_the_verdict_line_says_what_fuzzing_found() -> None:
    assert certification(AGREED).verdict_line() == (
        "certified at level core: 1 of 1 scenario passed; fuzz: 200 generated scenarios "
        "(level core, seed 11), each shown as the reference router shows it")
    line = certification(DIFFERED).verdict_line()
    assert line.endswith("fuzz: 37 generated scenarios (level core, seed 2): the router "
                         "differs from the reference router in fuzz-c654e62316 (not shrunk "
                         "to the end, written to teamwire-fuzz/fuzz-c654e62316.json)")
    assert "fuzz" not in certification(None).verdict_line()


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.__name__)
@pytest.mark.parametrize("fuzz", [AGREED, DIFFERED], ids=["agreed", "differed"])
def test_every_report_format_carries_the_fuzz_result(
        writer: Callable[[Certification, TextIO], None], fuzz: FuzzSummary) -> None:
    report = written(writer, fuzz)
    assert f"seed {fuzz.seed}" in report or f'"seed": {fuzz.seed}' in report
    if fuzz.failing is not None:
        assert fuzz.failing in report
    assert "seed" not in written(writer, None)


def test_the_json_report_s_fuzz_member_fits_its_schema() -> None:
    for fuzz, expected in [
            (AGREED, {"examples": 200, "seed": 11, "level": "core", "agreed": True}),
            (DIFFERED, {"examples": 37, "seed": 2, "level": "core", "agreed": False,
                        "failing": "fuzz-c654e62316", "shrunk": False,
                        "written": "teamwire-fuzz/fuzz-c654e62316.json"})]:
        report = json.loads(written(write_json, fuzz))
        assert report["fuzz"] == expected
        assert schemas.validate("certification-report", report) == []
    broken = json.loads(written(write_json, DIFFERED))
    del broken["fuzz"]["failing"]
    assert schemas.validate("certification-report", broken) != []
