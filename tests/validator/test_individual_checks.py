"""Spec conformance of individual checks: names with non-ASCII digits, version strings, ids
chosen by agents, verbatim content, blank text arguments and round counts per target."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conformance.sources.transcripts.builders import small_session

from teamwire.validator import LintOptions, lint_value
from teamwire.validator.engine import agent_for_name

TL, UIO = "Team Leader", "UI Operator_1"


def codes(value: Any, options: LintOptions | None = None) -> list[str]:
    return [f.rule for f in lint_value(value, "x", options or LintOptions()).findings]


@pytest.mark.parametrize("suffix", ["²", "١", "٣", "𝟙", "1²"])
def test_non_ascii_digits_are_not_agent_numbers(suffix: str) -> None:
    name = f"UI Operator_{suffix}"
    assert agent_for_name(name).agent_id is None
    codes([{"role": "user", "content": "hi"}], LintOptions(agent=name))
    bundle = copy.deepcopy(small_session())
    bundle["agents"][name] = {"role_id": "ui-operator", "agent_id": 1, "messages": []}
    found = codes(bundle)
    assert "TW007" in found and "TW112" in found


def test_ascii_agent_numbers_still_read() -> None:
    assert agent_for_name("UI Operator_12").agent_id == 12
    assert agent_for_name("UI Operator_012").agent_id is None
    assert agent_for_name("UI Operator_" + "9" * 5000).agent_id is None


@pytest.mark.parametrize("version", ["1", "1.", "1.01", "01.0", "1.2.3", "1.²", "１.0", ".1",
                                     "1.0 ", "", "1.0\n", "+1.0", "1.-0"])
def test_malformed_versions_are_rejected(version: str) -> None:
    bundle = copy.deepcopy(small_session())
    bundle["teamwire"] = version
    assert codes(bundle) == ["TW006"]


@pytest.mark.parametrize("version", ["1.0", "1.3", "1.10", "1.0"])
def test_well_formed_1x_versions_are_read(version: str) -> None:
    bundle = copy.deepcopy(small_session())
    bundle["teamwire"] = version
    assert codes(bundle) == []


@pytest.mark.parametrize("version", ["2.0", "0.9", "10.0"])
def test_other_majors_are_rejected(version: str) -> None:
    bundle = copy.deepcopy(small_session())
    bundle["teamwire"] = version
    assert codes(bundle) == ["TW006"]


def test_fast_id_counter_agrees_with_strict_id() -> None:
    import re

    from teamwire.envelope.ids import STRICT_ID
    from teamwire.validator.envelope_checks import _COUNTER

    fast = re.compile("task_" + _COUNTER)
    for n in ["0", "00", "000", "001", "010", "099", "100", "999", "0999", "1000", "0001",
              "12345", "0100", "01000"]:
        assert (fast.fullmatch("task_" + n) is None) == (STRICT_ID.fullmatch("task_" + n) is None)


@pytest.mark.parametrize("task_id", ["task_000", "task_0001", "task_0999"])
def test_zero_and_overpadded_counters_are_tw107_on_every_path(task_id: str) -> None:
    from conformance.sources.transcripts.blocks import TASK, env, user

    # The second envelope takes the remembered (fast) path of the first.
    conversation = [user(TASK), user(env(TL, "任务发布", task_id, "Task", "More."))]
    report = lint_value(conversation, "x", LintOptions(agent=UIO))
    assert [(f.rule, f.index) for f in report.findings if f.rule.startswith("TW1")] == [
        ("TW107", 1)]


def _strength(requirement: str) -> str:
    """The keyword of a requirement's statement in the spec (MUST, SHOULD or MAY)."""
    import re
    from pathlib import Path

    spec = Path(__file__).resolve().parents[2] / "spec"
    for path in spec.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        at = text.find(f"**[{requirement}]**")
        if at >= 0:
            found = re.search(r"\b(MUST|SHOULD|MAY)\b", text[at:at + 600])
            assert found is not None
            return found[1]
    raise AssertionError(f"{requirement} not in the spec")


@pytest.mark.parametrize(("code", "cited", "not_cited"), [
    ("TW304", {"TW-ID-012"}, {"TW-ID-001"}),
    ("TW415", {"TW-TOOL-030"}, {"TW-ROUTE-016"}),
    ("TW106", {"TW-ID-003"}, set()),
])
def test_rule_citations(code: str, cited: set[str], not_cited: set[str]) -> None:
    from teamwire.validator.rules import REGISTRY

    requirements = set(REGISTRY[code].requirements)
    assert cited <= requirements and not requirements & not_cited


def test_warnings_that_cite_a_must_say_why() -> None:
    from teamwire.validator.findings import Severity
    from teamwire.validator.rules import REGISTRY

    # TW304 cites a SHOULD only; TW510 is a warning for a MUST because the round limit is the
    # router's own setting, and its rationale says how to make it an error.
    assert {_strength(r) for r in REGISTRY["TW304"].requirements} == {"SHOULD"}
    tw510 = REGISTRY["TW510"]
    assert tw510.severity is Severity.WARNING and _strength("TW-MSG-010") == "MUST"
    assert "TW-MSG-010" in tw510.rationale and "error" in tw510.rationale


def test_bidi_controls_are_not_unsafe_name_characters() -> None:
    from teamwire.validator.scan import unsafe_name_char

    for ch in "\u200e\u200f\u061c\u202a\u202e\u2066\u2069":
        assert unsafe_name_char(f"UI{ch}Operator_1") is None
    for ch in "\x00\x1f\x7f\x85\x9f\u2028\u2029<>\"":
        assert unsafe_name_char(f"UI{ch}Operator_1") == ch


def _tw402(arguments: dict[str, Any], tool: str = "send_message_to_sub_agent") -> list[str]:
    import json

    conversation = [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": tool, "arguments": json.dumps(arguments)}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
            {"success": False, "error": {"code": "invalid-arguments", "message": "blank"}})},
    ]
    report = lint_value(conversation, "x", LintOptions(agent=TL))
    return [f.message for f in report.findings if f.rule == "TW402"]


def test_empty_text_gives_one_tw402() -> None:
    assert len(_tw402({"agent_id": 1, "message": ""})) == 1


def test_white_space_text_gives_one_tw402() -> None:
    assert len(_tw402({"agent_id": 1, "message": " \n "})) == 1


def test_text_gives_no_tw402() -> None:
    assert _tw402({"agent_id": 1, "message": "Use blue."}) == []
