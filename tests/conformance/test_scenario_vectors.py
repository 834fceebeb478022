"""The router scenario vectors (conformance/scenarios): each fits its schema, names only
requirements the specification has, and is exactly what its source writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.scenarios.make import SOURCES

from teamwire.conformance.scenario import ScenarioError, load_scenario, scenario_from_json

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "conformance" / "scenarios").glob("*.json"))
REQUIREMENTS = {r["id"] for r in json.loads(
    (ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))["requirements"]}


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_scenario_loads_and_names_known_requirements(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.name == path.stem
    assert set(scenario.requirements) <= REQUIREMENTS
    # a scenario that expects nothing checks nothing, but for a refusal to start
    assert bool(scenario.expectations) != scenario.refused


def test_the_committed_scenarios_are_what_their_sources_write() -> None:
    written = {make()["scenario"]: make() for make in SOURCES}
    assert sorted(written) == sorted(p.stem for p in SCENARIOS)
    for path in SCENARIOS:
        assert json.loads(path.read_text(encoding="utf-8")) == written[path.stem], \
            f"{path.name} is stale: run python -m conformance.sources.scenarios.make"


def _base() -> dict[str, Any]:
    base: dict[str, Any] = json.loads(SCENARIOS[0].read_text(encoding="utf-8"))
    return base


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(request="no token here"), "the request holds no agent's token"),
    (lambda d: d["schedule"].append({"agent": "Team Leader", "call": 99}),
     "the schedule releases call 99 of Team Leader"),
    (lambda d: d.update(scenario="Not A Name"), "scenario"),
    (lambda d: d["agents"][1].update(token=d["agents"][0]["token"] + "x"),
     "is part of another agent's token"),
    (lambda d: d.update(knobs={"ask_timeout": 0}), "knobs/ask_timeout"),
    (lambda d: d.update(knobs={"round_limit": 0}), "knobs/round_limit"),
    (lambda d: d.update(refused=True), "is expected to be empty"),
    (lambda d: d["agents"][0]["replies"][0]["tool_calls"][0].update(id=7), "id"),
    (lambda d: d["expect"][0].update(requirements=["TW-SEC-001"]),
     "names TW-SEC-001, which the scenario's requirements do not list"),
    (lambda d: d["expect"][0].update(requirements=[]), "requirements"),
], ids=["no-leader-token", "unscripted-release", "bad-name", "nested-tokens",
        "zero-ask-timeout-not-refused", "zero-round-limit-not-refused", "refused-with-a-schedule",
        "call-id-not-text", "expectation-cites-a-foreign-requirement",
        "expectation-cites-nothing"])
def test_a_scenario_that_cannot_be_run_is_refused_with_the_reason(edit: Any, message: str) -> None:
    data = _base()
    edit(data)
    with pytest.raises(ScenarioError, match=message):
        scenario_from_json(data, "x.json")


def test_a_scenario_that_names_no_level_or_profile_is_core_and_strict() -> None:
    data = _base()
    data.pop("level", None)
    data.pop("profile", None)
    scenario = scenario_from_json(data, "x.json")
    assert (scenario.level, scenario.profile) == ("core", "strict")
