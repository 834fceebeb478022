"""The linter's tool catalog: argument schemas per profile (TW-TOOL-023, TW-PROF-004, TW-PROF-015,
TW-PROF-016).

Each profile's catalog gives the arguments validator of a protocol tool in that profile's own form
(spec/schemas), and none for a tool that is not a protocol tool of the profile. Its pass check
accepts anything for a tool without schemas and, where a schema has no compiled check, lets the
full validators judge (`ToolCatalog.pass_check`).
"""

from __future__ import annotations

import dataclasses

import pytest
from conformance.sources.transcripts.blocks import calls, result

from teamwire import schemas
from teamwire.envelope import Profile
from teamwire.schemas import arguments
from teamwire.validator import LintOptions, lint_value
from teamwire.validator.tooling import ToolCatalog, tool_catalog

CREATE = {"agent_id": 1, "role_id": "ui-operator", "task": "Design the palette."}
CREATE_WITHOUT_ID = {"role_id": "ui-operator", "task": "Design the palette."}


def fresh(profile: Profile) -> ToolCatalog:
    """The catalog of ``profile`` with nothing loaded yet."""
    catalog = tool_catalog(profile)
    return dataclasses.replace(catalog, arguments=arguments.ArgumentChecker(
        catalog.arguments.profiles), _passes={})


def test_strict_validator_requires_agent_id() -> None:
    validator = fresh(Profile.STRICT).validator("create_sub_agent")
    assert validator is not None
    assert validator.is_valid(CREATE)
    assert not validator.is_valid(CREATE_WITHOUT_ID)  # TW-TOOL-023: a required parameter


def test_astrion_validator_is_the_astrion_form() -> None:
    catalog = fresh(Profile.ASTRION)
    validator = catalog.validator("create_sub_agent")
    assert validator is not None
    assert validator.is_valid(CREATE_WITHOUT_ID)  # TW-PROF-015
    stop = catalog.validator("stop_sub_agent")  # TW-PROF-016: an astrion leader tool
    assert stop is not None
    assert stop.is_valid({"display_name": "UI Operator_1"})  # astrion today (TW-PROF-026)
    assert not stop.is_valid({"agent_id": 1})
    assert not stop.is_valid({})


@pytest.mark.parametrize(("tool", "today", "earlier"), [
    ("stop_sub_agent", {"display_name": "UI Operator_1"}, {"agent_id": 1}),
    ("terminate_sub_agent", {"display_name": "UI Operator_1"}, {"agent_id": 1}),
    ("send_message_to_sub_agent", {"display_name": "UI Operator_1", "message": "Go."},
     {"agent_id": 1, "message": "Go."}),
    ("get_sub_agent_status", {"display_names": ["UI Operator_1"]}, {"agent_ids": [1]}),
    ("ask_other_agent", {"target_display_name": "UI Operator_1", "question": "Ready?"},
     {"target_agent_id": 1, "question": "Ready?"}),
    ("answer_other_agent", {"question_id": "ask_other_0a1b2c3d4e", "answer": "Yes."},
     {"source_agent_id": 1, "question_id": "ask_other_0a1b2c3d4e", "answer": "Yes."}),
    ("create_sub_agent", CREATE_WITHOUT_ID, {**CREATE_WITHOUT_ID, "agent_id": 3}),
])
def test_astrion_accepts_both_versions_and_strict_nothing_of_them(
        tool: str, today: dict[str, object], earlier: dict[str, object]) -> None:
    # Profile astrion: astrion as it is (16aaea6b) and as it was (10654c4), TW-PROF-026.
    astrion = fresh(Profile.ASTRION)
    assert astrion.argument_errors(tool, today) == []
    assert astrion.argument_errors(tool, earlier) == []
    assert astrion.argument_errors(tool, {}) != []
    strict = fresh(Profile.STRICT)
    if tool in strict.protocol:
        assert strict.argument_errors(tool, today) != []


@pytest.mark.parametrize("profile", list(Profile))
def test_no_validator_for_a_tool_that_is_no_protocol_tool(profile: Profile) -> None:
    catalog = fresh(profile)
    assert catalog.validator("read_file") is None
    assert catalog.validator("close_sub_agent") is None  # removed in multi-agent mode


def test_stop_sub_agent_is_no_protocol_tool_in_strict() -> None:
    assert fresh(Profile.STRICT).validator("stop_sub_agent") is None


def test_no_validator_for_a_protocol_tool_the_argument_checker_has_no_schema_of() -> None:
    # An astrion catalog whose checker reads strict's schemas alone: stop_sub_agent is an
    # astrion tool (TW-PROF-016) that strict has no schema for, so there is nothing to validate
    # it with, while a tool of both profiles keeps strict's validator.
    catalog = dataclasses.replace(fresh(Profile.ASTRION),
                                  arguments=arguments.ArgumentChecker((Profile.STRICT.value,)))
    assert "stop_sub_agent" in catalog.protocol
    assert catalog.validator("stop_sub_agent") is None
    create = catalog.validator("create_sub_agent")
    assert create is not None and not create.is_valid(CREATE_WITHOUT_ID)


@pytest.mark.parametrize("profile", list(Profile))
def test_pass_check_accepts_anything_for_a_tool_without_schemas(profile: Profile) -> None:
    check = fresh(profile).pass_check("read_file")
    assert check({"path": "a.css"})
    assert check(42)


def test_without_compiled_checks_the_full_validators_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    # A schema the fast compiler cannot handle: invalid arguments must still be found, valid
    # ones still accepted.
    monkeypatch.setattr(arguments, "compile_check", lambda schema: None)
    catalog = fresh(Profile.STRICT)
    assert catalog.arguments.rules("create_sub_agent").checks == [None]
    assert catalog.pass_check("create_sub_agent")(CREATE)
    assert not catalog.pass_check("create_sub_agent")(CREATE_WITHOUT_ID)
    assert catalog.argument_errors("create_sub_agent", CREATE) == []
    assert catalog.argument_errors("create_sub_agent", CREATE_WITHOUT_ID) != []


@pytest.mark.parametrize("profile", list(Profile))
def test_catalogs_of_one_profile_share_compiled_schemas_and_nothing_else(profile: Profile) -> None:
    # A linter made per call (lint_value with options) must not compile the argument schemas
    # per call: the schema registry keeps one compiled predicate per schema for every catalog.
    first, second = tool_catalog(profile), tool_catalog(profile)
    assert first.arguments is not second.arguments
    for tool in sorted(first.protocol):
        ours, theirs = first.arguments.rules(tool), second.arguments.rules(tool)
        assert ours is not theirs
        assert all(a is b for a, b in zip(ours.checks, theirs.checks, strict=True))
        assert ours.checks == [schemas.tool_arguments_check(tool, p) for p in ours.profiles]


def test_a_checker_of_its_own_compiles_its_own_schemas() -> None:
    shared = tool_catalog(Profile.STRICT).arguments.rules("create_sub_agent").checks[0]
    own = arguments.ArgumentChecker(("strict",)).rules("create_sub_agent").checks[0]
    assert own is not None and own is not shared
    assert own(CREATE) and not own(CREATE_WITHOUT_ID)


def test_argument_problems_speak_of_the_form_the_call_is_written_in() -> None:
    # Under astrion, a call fits when it fits any accepted form (TW-PROF-004); when it fits
    # none, its problems are those of the form whose parameters it names most: astrion's
    # display_name form, or the agent_id form of strict and astrion's earlier version.
    conversation = [
        {"role": "user", "content": "Build the page."},
        calls("send_message_to_sub_agent", {"display_name": 5, "message": "Go."}, "c1"),
        result({"success": True}, "c1"),
        calls("send_message_to_sub_agent", {"agent_id": "one", "message": "Go."}, "c2"),
        result({"success": True}, "c2"),
    ]
    report = lint_value(conversation, "astrion.json",
                        LintOptions(profile=Profile.ASTRION, agent="Team Leader"))
    assert [(f.rule, f.index, f.message) for f in report.findings] == [
        ("TW402", 1, 'send_message_to_sub_agent: display_name: 5 is not of type "string"'),
        ("TW402", 3, 'send_message_to_sub_agent: agent_id: "one" is not of type "integer"'),
        ("TW402", 3, 'send_message_to_sub_agent: agent_id: "one" is not an integer (a JSON '
                     'number without fraction or exponent, at most 9007199254740991 in size)'),
    ]
