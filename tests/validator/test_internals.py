"""Pieces with their own contracts: pointer location, compiled argument checks, selection."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamwire import schemas
from teamwire.envelope import Profile
from teamwire.validator.config import ConfigError, LintConfig, Overrides, resolve, select_rules
from teamwire.validator.findings import Severity
from teamwire.validator.locate import locate_pointers
from teamwire.validator.tooling import compile_check, tool_catalog
from tests.validator import strategies


def leaves(value: Any, pointer: str = "") -> list[tuple[str, Any]]:
    out = [(pointer, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            token = key.replace("~", "~0").replace("/", "~1")
            out += leaves(item, f"{pointer}/{token}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += leaves(item, f"{pointer}/{i}")
    return out


@given(strategies.json_values, st.sampled_from([None, 1, 2]))
def test_located_pointers_start_their_values(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    wanted = leaves(value)
    places = locate_pointers(text, [p for p, _ in wanted])
    decoder = json.JSONDecoder()
    lines = text.split("\n")
    for pointer, item in wanted:
        line, column = places[pointer]
        offset = sum(len(row) + 1 for row in lines[: line - 1]) + column - 1
        assert decoder.raw_decode(text, offset)[0] == item


def test_missing_pointers_are_left_out() -> None:
    assert locate_pointers('{"a": [1, 2]}', ["/a/5", "/b", "/a/1"]) == {"/a/1": (1, 11)}


@pytest.mark.parametrize("profile", [Profile.STRICT, Profile.ASTRION])
@given(data=st.data())
def test_compiled_checks_agree_with_jsonschema(profile: Profile, data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(sorted(schemas.tool_names(profile.value).protocol_tools)))
    validator = schemas.tool_arguments_validator(tool, profile.value)
    check = compile_check(validator.schema)
    assert check is not None, tool
    value = data.draw(strategies.arguments() | strategies.json_values)
    assert check(value) == validator.is_valid(value)


def test_selection_prefers_the_more_specific_selector() -> None:
    assert "TW101" not in select_rules(["ALL"], ["TW1"])
    assert "TW101" in select_rules(["TW101"], ["TW1"])
    assert "TW102" not in select_rules(["TW101"], ["TW1"])
    assert select_rules(["envelope-syntax"], []) == {"TW101"}


def test_flags_override_the_configuration() -> None:
    config = LintConfig(select=["TW6"], severity={"TW6": "info"}, profile="astrion")
    options, _ = resolve(config, Overrides())
    assert options.enabled == {"TW601", "TW602", "TW603", "TW604", "TW605", "TW606"}
    assert options.severity["TW602"] is Severity.INFO
    assert options.profile is Profile.ASTRION
    options, _ = resolve(config, Overrides(select=["TW1"], ignore=["TW111"],
                                           severity={"TW602": "error"}, profile="strict"))
    assert "TW101" in options.enabled and "TW111" not in options.enabled
    assert options.severity["TW602"] is Severity.ERROR
    assert options.profile is Profile.STRICT


@pytest.mark.parametrize(("config", "flags", "on"), [
    (LintConfig(), Overrides(), False),  # off by default
    (LintConfig(extend_select=["TW011"]), Overrides(), True),
    (LintConfig(), Overrides(extend_select=["repeated-member-name"]), True),
    (LintConfig(select=["ALL"]), Overrides(), True),  # a selection that names it
    (LintConfig(select=["ALL"], ignore=["TW0"], extend_select=["TW011"]), Overrides(), True),
    (LintConfig(extend_select=["TW011"], ignore=["TW011"]), Overrides(), False),
    (LintConfig(extend_select=["TW011"]), Overrides(select=["TW1"]), False),
    (LintConfig(), Overrides(select=["TW0"]), True),
])
def test_a_rule_off_by_default_is_on_only_when_a_selection_names_it(
        config: LintConfig, flags: Overrides, on: bool) -> None:
    options, _ = resolve(config, flags)
    assert ("TW011" in options.enabled) is on


def test_bad_selectors_and_levels_are_configuration_errors() -> None:
    with pytest.raises(ConfigError):
        resolve(LintConfig(ignore=["E501"]), Overrides())
    with pytest.raises(ConfigError):
        resolve(LintConfig(severity={"TW1": "fatal"}), Overrides())
    with pytest.raises(ConfigError):
        resolve(LintConfig(profile="loose"), Overrides())


def test_per_file_ignores_match_globs(tmp_path: Any) -> None:
    config = LintConfig(path=tmp_path / "teamwire.toml",
                        per_file_ignores={"legacy/*.json": ["TW113"]})
    options, _ = resolve(config, Overrides())
    inside = str(tmp_path / "legacy" / "a.json")
    assert "TW113" not in options.policy_for(inside).enabled
    assert "TW113" in options.policy_for(str(tmp_path / "new" / "a.json")).enabled


def test_astrion_accepts_strict_arguments() -> None:
    catalog = tool_catalog(Profile.ASTRION)
    strict_form = {"target_agent_id": 2, "content": "Ready?", "message_id": "ask_uio_001"}
    assert catalog.argument_errors("ask_other_agent", strict_form) == []
    assert catalog.argument_errors("ask_other_agent", {"target_agent_id": 2,
                                                       "question": "Ready?"}) == []
    assert catalog.argument_errors("ask_other_agent", {"target_agent_id": 2}) != []
    assert "ask_sub_agent" in catalog.protocol and "stop_sub_agent" in catalog.protocol


def test_lint_settings_directly_under_tool_teamwire(tmp_path: Any) -> None:
    from teamwire.validator.config import load_config

    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.teamwire]\nignore = ["TW111"]\nselect = ["TW1"]\nother = 1\n\n'
                    '[tool.teamwire.lint]\nselect = ["TW6"]\n', encoding="utf-8")
    config = load_config(path)
    assert config.ignore == ["TW111"] and config.select == ["TW6"]
