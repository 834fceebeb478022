"""A router's capability declaration: its profile, the MAY features it implements, and the
knobs the harness may set through the environment (schema ``router-capabilities``).

The declaration decides three things for each scenario: whether it runs at all (a scenario
of another profile, or one that needs a knob the router does not read, is skipped with the
reason), which environment variables carry its knobs, and which optional features the checks
hold the router to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamwire._resources import data_path
from teamwire.conformance.scenario import Scenario, runs_for

KNOBS: dict[str, str] = {
    "ask_timeout": "TEAMWIRE_ASK_TIMEOUT",
    "turn_timeout": "TEAMWIRE_TURN_TIMEOUT",
    "round_limit": "TEAMWIRE_ROUND_LIMIT",
    "model_retries": "TEAMWIRE_MODEL_RETRIES",
    "unanswered_asks": "TEAMWIRE_UNANSWERED_ASKS",
}
"""Every knob a scenario may set, with the variable chapter 13 names for it."""

SECONDS_KNOBS = frozenset({"ask_timeout", "turn_timeout"})
"""Knobs given as a decimal number of seconds."""

WORD_KNOBS = frozenset({"unanswered_asks"})
"""Knobs given as a word (``wait`` or ``fail``); the others are whole numbers."""

FEATURES: dict[str, str] = {
    "send-delivery": "TW-TOOL-012",
}
"""The optional features the harness can check, with the MAY requirement each one is."""

UNDECLARED_KNOBS = ("ask_timeout", "round_limit")
"""What a router that gives no declaration is taken to read (TW-CERT-014): the two knobs
every router under certification was asked to read before declarations existed."""

ROLES_VARIABLE = "TEAMWIRE_ROLES"
"""The variable that names the file of the preset role catalog (TW-CERT-017)."""

PRESET_ROLES = data_path("spec", "certification", "preset-roles.json")
"""The role catalog every scenario starts with: a JSON array of role definitions."""


class CapabilitiesError(ValueError):
    """A declaration that cannot be used, with the reason."""


@dataclass(frozen=True)
class Capabilities:
    """What a router declares about itself."""

    profile: str = "strict"
    features: frozenset[str] = frozenset()
    knobs: Mapping[str, str] = field(
        default_factory=lambda: {k: KNOBS[k] for k in UNDECLARED_KNOBS})
    """Knob → the environment variable the router reads it from."""
    source: str = ""
    """The declaration file, or empty when the router gave none."""
    unknown_features: tuple[str, ...] = ()
    """Declared features the harness does not know (reported, otherwise ignored)."""

    def skip_reason(self, scenario: Scenario) -> str | None:
        """Why ``scenario`` cannot be run against this router, or None when it can."""
        if not runs_for(self.profile, scenario.profile):
            return (f"the scenario is written for profile {scenario.profile}; the router "
                    f"declares profile {self.profile}")
        if scenario.profile != self.profile:
            # run in astrion's forms where it can be (TW-CERT-028, TW-CERT-035)
            from teamwire.conformance.astrion_forms import NotApplicable, for_profile_astrion

            try:
                for_profile_astrion(scenario)
            except NotApplicable as exc:
                return str(exc)
        missing = sorted(set(scenario.knobs) - set(self.knobs))
        if missing:
            where = f"in {self.source}" if self.source else "(no --describe file was given)"
            return (f"the router declares no {', '.join(missing)} knob {where}, which the "
                    f"scenario sets; {', '.join(scenario.requirements)} not checked here")
        return None

    def scenario_for(self, scenario: Scenario) -> Scenario:
        """``scenario`` as it runs against this router: a scenario of profile strict, for a
        router of profile astrion, in astrion's forms (TW-CERT-028); call only when
        ``skip_reason`` gives None."""
        if scenario.profile != self.profile:
            from teamwire.conformance.astrion_forms import for_profile_astrion

            return for_profile_astrion(scenario)
        return scenario

    def environment(self, scenario: Scenario) -> dict[str, str]:
        """The scenario's knobs as environment variables, under the names declared."""
        found = {}
        for knob, value in scenario.knobs.items():
            if knob in self.knobs:
                found[self.knobs[knob]] = repr(float(value)) if knob in SECONDS_KNOBS \
                    else str(value) if knob in WORD_KNOBS else str(int(value))
        return found

    def declares(self, feature: str) -> bool:
        """Whether the router declares the optional ``feature``."""
        return feature in self.features


def capabilities_from_json(data: Any, source: str = "") -> Capabilities:
    """A declaration from its JSON form; CapabilitiesError if it does not fit the schema."""
    from teamwire import schemas

    errors = schemas.validate("router-capabilities", data)
    if errors:
        first = errors[0]
        raise CapabilitiesError(f"{source or 'declaration'}: {first.path or '(root)'}: "
                                f"{first.message}")
    features = frozenset(data.get("features", ()))
    knobs = {k: v for k, v in data.get("knobs", {}).items() if k in KNOBS}
    return Capabilities(profile=data["profile"], features=features & set(FEATURES),
                        knobs=knobs, source=source,
                        unknown_features=tuple(sorted(features - set(FEATURES))))


def load_capabilities(path: Path) -> Capabilities:
    """Read a declaration file; CapabilitiesError with the path if it cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CapabilitiesError(f"{path}: {exc}") from None
    return capabilities_from_json(data, str(path))
