"""Bad input never produces a traceback: arbitrary JSON and bytes, through the API and the CLI."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire.cli import main
from teamwire.envelope import Profile
from teamwire.validator import REGISTRY, FileReport, LintOptions, lint_bytes, lint_value
from tests.validator import strategies

POINTER = re.compile(r"(?:/(?:[^~/]|~[01])*)*")
PROFILES = st.sampled_from([Profile.STRICT, Profile.ASTRION])


def well_formed(report: FileReport) -> None:
    for finding in report.findings:
        assert finding.rule in REGISTRY
        assert finding.message
        assert finding.pointer is None or POINTER.fullmatch(finding.pointer)
        assert finding.line is None or finding.line >= 1
        assert finding.column is None or finding.column >= 1
        assert finding.index is None or finding.index >= 0


@given(strategies.json_values, PROFILES)
def test_any_json_value(value: object, profile: Profile) -> None:
    well_formed(lint_value(value, options=LintOptions(profile=profile)))


@given(strategies.conversations, PROFILES, st.sampled_from([None, "Team Leader", "UI Operator_1"]))
def test_conversation_shaped_values(value: object, profile: Profile, agent: str | None) -> None:
    well_formed(lint_value(value, options=LintOptions(profile=profile, agent=agent)))


@given(strategies.bundles(), PROFILES)
def test_bundle_shaped_values(value: object, profile: Profile) -> None:
    well_formed(lint_value(value, options=LintOptions(profile=profile)))


@given(st.binary(max_size=300), st.sampled_from([None, False, True]))
def test_any_bytes(data: bytes, jsonl: bool | None) -> None:
    well_formed(lint_bytes(data, "x", jsonl=jsonl))


@given(strategies.conversations)
def test_conversations_as_json_lines(value: list[object]) -> None:
    data = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n" for m in value)
    well_formed(lint_bytes(data, "x.jsonl", jsonl=True))


@settings(max_examples=40)
@given(st.binary(max_size=200) | strategies.bundles().map(lambda b: json.dumps(b).encode()),
       st.sampled_from(["text", "json", "sarif", "github", "junit"]))
def test_cli_on_any_bytes(data: bytes, output_format: str) -> None:
    result = CliRunner().invoke(main, ["lint", "-f", output_format, "-"], input=data)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
