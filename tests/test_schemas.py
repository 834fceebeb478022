"""The shipped JSON Schemas, their examples, the tool sets, and the schema registry."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from teamwire import schemas
from teamwire._resources import data_path
from teamwire.schemas import (
    SchemaCatalog,
    SchemaError,
    SchemaLoadError,
    ToolSet,
    UnknownProfileError,
    UnknownSchemaError,
    UnknownToolError,
)
from teamwire.schemas.inlining import inline_refs

SCHEMA_DIR = data_path("spec", "schemas")
EXAMPLES = SCHEMA_DIR / "examples"
META = "https://json-schema.org/draft/2020-12/schema"

# Schemas of the protocol itself; each must ship examples. Schemas added later by other
# parts of the project are still checked wherever they ship examples.
PROTOCOL_SCHEMAS = [
    "bundle",
    "chat-message",
    "conversation",
    "message",
    "parse-result",
    "result",
    "role",
    "tool-results",
    "tool-set",
    "tools",
]
DEFINITION_ONLY = ["common"]


# --------------------------------------------------------------------------- schema files


def test_protocol_schemas_are_all_shipped() -> None:
    assert set(PROTOCOL_SCHEMAS + DEFINITION_ONLY) <= set(schemas.names())


@pytest.mark.parametrize("name", schemas.names())
def test_schema_matches_the_2020_12_metaschema(name: str) -> None:
    document = json.loads(schemas.path(name).read_text(encoding="utf-8"))
    assert document["$schema"] == META
    Draft202012Validator.check_schema(document)


@pytest.mark.parametrize("name", schemas.names())
def test_schema_has_id_title_and_description(name: str) -> None:
    document = schemas.schema(name)
    assert document["$id"] == f"https://teamwire.dev/schemas/1.0/{name}.schema.json"
    assert schemas.uri(name) == document["$id"]
    assert schemas.path(name).name == f"{name}.schema.json"
    assert document["title"].strip() == schemas.title(name)
    assert len(document["description"]) > 40


def test_ids_are_unique() -> None:
    ids = [schemas.uri(name) for name in schemas.names()]
    assert len(ids) == len(set(ids))


def test_every_ref_resolves_and_metaschema_holds() -> None:
    assert schemas.default_catalog().check() == []


@pytest.mark.parametrize("name", PROTOCOL_SCHEMAS)
def test_top_level_stays_open_for_extensions(name: str) -> None:
    # Extension rule: readers ignore unknown optional fields.
    document = schemas.schema(name)
    assert document.get("additionalProperties", True) is not False
    assert "unevaluatedProperties" not in document


# --------------------------------------------------------------------------- examples


def _example_files() -> list[tuple[str, Path, bool]]:
    """(schema reference, file, expected validity) for every example file.

    ``examples/<name>/*.json`` are valid for ``<name>``, ``examples/<name>/invalid/*.json``
    invalid; ``examples/<name>/defs/<def>/`` does the same for ``<name>#/$defs/<def>``.
    """
    cases = []
    for path in sorted(EXAMPLES.rglob("*.json")):
        parts = path.relative_to(EXAMPLES).parts
        ref, rest = parts[0], parts[1:]
        if rest[0] == "defs":
            ref, rest = f"{ref}#/$defs/{rest[1]}", rest[2:]
        cases.append((ref, path, rest[0] != "invalid"))
    return cases


EXAMPLE_CASES = _example_files()


@functools.cache
def _plain_catalog() -> SchemaCatalog:
    """Validators that resolve every $ref through the registry, for comparison."""
    return SchemaCatalog(SCHEMA_DIR, inline=False)


@pytest.mark.parametrize(
    ("ref", "path", "valid"),
    EXAMPLE_CASES,
    ids=[str(p.relative_to(EXAMPLES)) for _, p, _ in EXAMPLE_CASES],
)
def test_example(ref: str, path: Path, valid: bool) -> None:
    instance = json.loads(path.read_text(encoding="utf-8"))
    errors = schemas.validate(ref, instance)
    if valid:
        assert errors == []
    else:
        assert errors, "an invalid example was accepted"
    assert schemas.is_valid(ref, instance) is valid


@pytest.mark.parametrize("name", PROTOCOL_SCHEMAS)
def test_each_protocol_schema_has_valid_and_invalid_examples(name: str) -> None:
    mine = [(p, valid) for ref, p, valid in EXAMPLE_CASES if ref == name]
    assert sum(valid for _, valid in mine) >= 2
    assert sum(not valid for _, valid in mine) >= 1


@pytest.mark.parametrize(
    ("ref", "path", "valid"),
    EXAMPLE_CASES,
    ids=[str(p.relative_to(EXAMPLES)) for _, p, _ in EXAMPLE_CASES],
)
def test_inlined_validators_agree_with_registry_resolution(ref: str, path: Path, valid: bool) -> None:
    plain = _plain_catalog()
    instance = json.loads(path.read_text(encoding="utf-8"))
    fast = {(e.path, e.keyword, e.message) for e in schemas.validate(ref, instance)}
    slow = {(e.path, e.keyword, e.message) for e in plain.validate(ref, instance)}
    assert fast == slow


# --------------------------------------------------------------------------- tool sets

INT, S, B = "integer", "string", "boolean"
MODE = ("string", ["fast", "thinking"])

# Seed 002, parameter for parameter: name -> (properties in order, required in order).
SEED_TOOLS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "create_sub_agent": (
        {
            "agent_id": INT,
            "role_id": S,
            "task": S,
            "run_in_background": B,
            "timeout_seconds": INT,
            "thinking_mode": MODE,
            "model_key": S,
        },
        ["agent_id", "role_id", "task"],
    ),
    "terminate_sub_agent": ({"agent_id": INT}, ["agent_id"]),
    "send_message_to_sub_agent": ({"agent_id": INT, "message": S}, ["agent_id", "message"]),
    "ask_sub_agent": (
        {"agent_id": INT, "question": S, "question_id": S},
        ["agent_id", "question", "question_id"],
    ),
    "answer_sub_agent_question": (
        {"agent_id": INT, "question_id": S, "answer": S},
        ["agent_id", "question_id", "answer"],
    ),
    "list_active_sub_agents": ({}, []),
    "get_sub_agent_status": ({"agent_id": INT}, ["agent_id"]),
    "create_custom_agent": (
        {
            "role_id": S,
            "name": S,
            "description": S,
            "model": S,
            "thinking_mode": MODE,
            "prompt": S,
        },
        ["role_id", "name", "description", "prompt"],
    ),
    "list_agents": ({}, []),
    "ask_master": ({"question": S, "question_id": S}, ["question", "question_id"]),
    "ask_other_agent": (
        {"target_agent_id": INT, "content": S, "message_id": S},
        ["target_agent_id", "content", "message_id"],
    ),
    "answer_other_agent": (
        {"source_agent_id": INT, "message_id": S, "answer": S},
        ["source_agent_id", "message_id", "answer"],
    ),
}
# The additions of profile strict: an optional role_id on every targeting tool, and an
# optional acceptance list on create_sub_agent.
ROLE_ID_ADDED = {
    "terminate_sub_agent",
    "send_message_to_sub_agent",
    "ask_sub_agent",
    "answer_sub_agent_question",
    "get_sub_agent_status",
    "ask_other_agent",
    "answer_other_agent",
}
STRICT_LEADER = [
    "create_sub_agent",
    "terminate_sub_agent",
    "send_message_to_sub_agent",
    "ask_sub_agent",
    "answer_sub_agent_question",
    "list_active_sub_agents",
    "get_sub_agent_status",
    "create_custom_agent",
    "list_agents",
]
SUB_AGENT = ["ask_master", "ask_other_agent", "answer_other_agent", "list_active_sub_agents"]
BASE_TOOLS = [
    "read_file",
    "write_file",
    "edit_file",
    "run_command",
    "web_search",
    "extract_webpage",
    "search_workspace",
    "read_mediafile",
]

# astrion as it was at commit 10654c4 (intent appended everywhere), which profile astrion
# still accepts: sub-agents named by instance number.
ASTRION_10654C4_TOOLS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "create_sub_agent": (
        {"role_id": S, "task": S, "agent_id": INT, "thinking_mode": MODE},
        ["role_id", "task"],
    ),
    "stop_sub_agent": ({"agent_id": INT}, ["agent_id"]),
    "terminate_sub_agent": ({"agent_id": INT}, ["agent_id"]),
    "send_message_to_sub_agent": ({"agent_id": INT, "message": S}, ["agent_id", "message"]),
    "answer_sub_agent_question": ({"question_id": S, "answer": S}, ["question_id", "answer"]),
    "create_custom_agent": (
        {"role_id": S, "name": S, "description": S, "body_prompt": S, "thinking_mode": MODE},
        ["role_id", "name", "body_prompt"],
    ),
    "list_agents": ({}, []),
    "list_active_sub_agents": ({}, []),
    "get_sub_agent_status": ({"agent_ids": ("array", "integer")}, ["agent_ids"]),
    "ask_master": ({"question": S, "question_id": S}, ["question"]),
    "ask_other_agent": (
        {"target_agent_id": INT, "question": S, "question_id": S},
        ["target_agent_id", "question"],
    ),
    "answer_other_agent": (
        {"source_agent_id": INT, "question_id": S, "answer": S},
        ["source_agent_id", "question_id", "answer"],
    ),
}
# Profile astrion as astrion defines it today, commit 16aaea6b: sub-agents named by display
# name, instance numbers astrion's alone (modules/multi_agent/tools.py, the wire names).
ASTRION_TOOLS: dict[str, tuple[dict[str, Any], list[str]]] = {
    **ASTRION_10654C4_TOOLS,
    "create_sub_agent": ({"role_id": S, "task": S, "thinking_mode": MODE}, ["role_id", "task"]),
    "stop_sub_agent": ({"display_name": S}, ["display_name"]),
    "terminate_sub_agent": ({"display_name": S}, ["display_name"]),
    "send_message_to_sub_agent": ({"display_name": S, "message": S}, ["display_name", "message"]),
    "get_sub_agent_status": ({"display_names": ("array", "string")}, ["display_names"]),
    "ask_other_agent": (
        {"target_display_name": S, "question": S, "question_id": S},
        ["target_display_name", "question"],
    ),
    "answer_other_agent": ({"question_id": S, "answer": S}, ["question_id", "answer"]),
}
ASTRION_SETS = {"astrion": ASTRION_TOOLS, "astrion-10654c4": ASTRION_10654C4_TOOLS}
PROFILES = ["strict", "astrion", "astrion-10654c4"]
ASTRION_LEADER = [
    "create_sub_agent",
    "stop_sub_agent",
    "terminate_sub_agent",
    "send_message_to_sub_agent",
    "answer_sub_agent_question",
    "create_custom_agent",
    "list_agents",
    "list_active_sub_agents",
    "get_sub_agent_status",
]


def _expected(profile: str) -> dict[str, tuple[dict[str, Any], list[str]]]:
    if profile in ASTRION_SETS:
        return {name: ({**props, "intent": S}, required)
                for name, (props, required) in ASTRION_SETS[profile].items()}
    table = {}
    for name, (props, required) in SEED_TOOLS.items():
        extra: dict[str, Any] = {"role_id": S} if name in ROLE_ID_ADDED else {}
        if name == "create_sub_agent":
            extra["acceptance"] = ("array", "string")
        table[name] = ({**props, **extra}, required)
    return table


def _shape(prop: dict[str, Any]) -> Any:
    """A property schema reduced to what the expected tables state."""
    if prop["type"] == "array":
        return ("array", prop["items"]["type"])
    if "enum" in prop:
        return (prop["type"], prop["enum"])
    return prop["type"]


def _definitions(profile: str) -> list[tuple[str, dict[str, Any]]]:
    data = schemas.tool_set(profile)
    return [(side, tool["function"]) for side in ("leader", "sub_agent") for tool in data[side]]


def test_profiles() -> None:
    # The tool set of each profile, and the earlier astrion one profile astrion accepts.
    assert schemas.profiles() == ["astrion", "astrion-10654c4", "strict"]
    assert schemas.tool_names("astrion").earlier == ("astrion-10654c4",)
    assert schemas.tool_names("strict").earlier == ()


def test_astrion_result_texts_are_the_wire_texts() -> None:
    # toolkit.py at 16aaea6b and 10654c4 alike: what a sub-agent's tool result starts with.
    assert dict(schemas.tool_names("astrion").result_texts) == {
        "ask_master": ("Team Leader 的回答：\n",),
        "ask_other_agent": ("子智能体的回答：\n",),
        "answer_other_agent": ("回复已发送。",),
        "list_active_sub_agents": ("当前会话活跃子智能体（共 ", "当前会话没有活跃子智能体。"),
    }


@pytest.mark.parametrize("profile", PROFILES)
def test_tool_set_file_matches_the_tool_set_schema(profile: str) -> None:
    data = json.loads((SCHEMA_DIR / "tools" / f"{profile}.json").read_text(encoding="utf-8"))
    assert schemas.validate("tool-set", data) == []
    assert data["profile"] == profile


def test_tool_names_strict() -> None:
    assert schemas.tool_names() == ToolSet(
        profile="strict",
        leader=tuple(STRICT_LEADER),
        sub_agent=tuple(SUB_AGENT),
        base=tuple(BASE_TOOLS),
        removed=("close_sub_agent",),
        forbidden=("report_progress", "finish_task"),
    )
    assert schemas.tool_names("strict").protocol_tools == tuple(
        [*STRICT_LEADER, "ask_master", "ask_other_agent", "answer_other_agent"]
    )


@pytest.mark.parametrize("profile", ["astrion", "astrion-10654c4"])
def test_tool_names_astrion(profile: str) -> None:
    names = schemas.tool_names(profile)
    assert names.leader == tuple(ASTRION_LEADER)
    assert names.sub_agent == tuple(SUB_AGENT)
    assert "ask_sub_agent" not in names.protocol_tools
    assert names.base == tuple(BASE_TOOLS)


@pytest.mark.parametrize("profile", ["strict", "astrion"])
def test_tool_parameters_match_the_expected_table(profile: str) -> None:
    expected = _expected(profile)
    seen = set()
    for _side, function in _definitions(profile):
        name = function["name"]
        seen.add(name)
        props, required = expected[name]
        parameters = function["parameters"]
        assert parameters["type"] == "object"
        actual = {key: _shape(value) for key, value in parameters["properties"].items()}
        assert list(actual) == list(props), name
        assert actual == props, name
        assert parameters.get("required", []) == required, name
        for prop in parameters["properties"].values():
            assert prop["description"].strip()
        assert function["description"].strip()
    assert seen == set(expected)


def test_strict_tools_keep_the_seed_wire_names_and_required_lists() -> None:
    # Additions are optional only: every seed parameter keeps its name, type and
    # requiredness, and nothing new is required.
    for _side, function in _definitions("strict"):
        props, required = SEED_TOOLS[function["name"]]
        parameters = function["parameters"]
        for key, kind in props.items():
            assert _shape(parameters["properties"][key]) == kind
        assert parameters.get("required", []) == required


@pytest.mark.parametrize("profile", PROFILES)
def test_tool_parameters_equal_the_arguments_defs(profile: str) -> None:
    defs = schemas.schema("tools")["$defs"]
    prefix = "" if profile == "strict" else f"{profile}."
    for _side, function in _definitions(profile):
        assert function["parameters"] == defs[f"{prefix}{function['name']}.arguments"]


@pytest.mark.parametrize("profile", PROFILES)
def test_tool_on_both_sides_has_the_same_parameters(profile: str) -> None:
    by_side: dict[str, dict[str, Any]] = {}
    for _side, function in _definitions(profile):
        name = function["name"]
        if name in by_side:
            assert by_side[name] == function["parameters"]
        by_side[name] = function["parameters"]


def test_every_arguments_def_belongs_to_a_shipped_tool() -> None:
    defs = [k for k in schemas.schema("tools")["$defs"] if k.endswith(".arguments")]
    shipped = {f"{n}.arguments" for n in schemas.tool_names("strict").protocol_tools}
    for tool_set in ("astrion", "astrion-10654c4"):
        shipped |= {f"{tool_set}.{n}.arguments" for n in schemas.tool_names(tool_set).protocol_tools}
    assert set(defs) == shipped


# --------------------------------------------------------------------------- tool arguments

SAMPLE = {"integer": 1, "string": "ui-operator", "boolean": False}
WRONG = {"integer": "1", "string": 1, "boolean": "false", "array": 1}


def _value(kind: Any) -> Any:
    if isinstance(kind, tuple):
        return [SAMPLE[kind[1]]] * 2 if kind[0] == "array" else kind[1][0]
    return SAMPLE[kind]


def _argument_cases() -> list[tuple[str, str, dict[str, Any], list[str]]]:
    return [
        (profile, name, props, required)
        for profile in PROFILES
        for name, (props, required) in _expected(profile).items()
    ]


ARGUMENT_CASES = _argument_cases()


@pytest.mark.parametrize(
    ("profile", "tool", "props", "required"),
    ARGUMENT_CASES,
    ids=[f"{p}-{t}" for p, t, _, _ in ARGUMENT_CASES],
)
def test_arguments_schema(profile: str, tool: str, props: dict[str, Any], required: list[str]) -> None:
    validator = schemas.tool_arguments_validator(tool, profile)
    assert validator is schemas.tool_arguments_validator(tool, profile)  # built once
    minimal = {key: _value(props[key]) for key in required}
    assert schemas.validate_tool_arguments(tool, minimal, profile) == []
    full = {key: _value(kind) for key, kind in props.items()}
    assert validator.is_valid(full)
    # Unknown arguments are not a schema error (extension rule); the linter may warn.
    assert validator.is_valid({**full, "x_note": "extra"})
    for key in required:
        missing = {k: v for k, v in minimal.items() if k != key}
        errors = schemas.validate_tool_arguments(tool, missing, profile)
        assert [(e.path, e.keyword) for e in errors] == [("", "required")]
        assert repr(key) in errors[0].message
    for key, kind in props.items():
        base_kind = kind[0] if isinstance(kind, tuple) else kind
        errors = schemas.validate_tool_arguments(tool, {**full, key: WRONG[base_kind]}, profile)
        assert {e.path for e in errors} == {f"/{key}"}
    assert not validator.is_valid(["not", "an", "object"])


def test_thinking_mode_enum_is_enforced() -> None:
    args = {"agent_id": 1, "role_id": "ui-operator", "task": "t", "thinking_mode": "deep"}
    errors = schemas.validate_tool_arguments("create_sub_agent", args)
    assert [(e.path, e.keyword) for e in errors] == [("/thinking_mode", "enum")]


def test_astrion_variants_differ_as_specified() -> None:
    strict = {f["name"]: f["parameters"] for _, f in _definitions("strict")}
    astrion = {f["name"]: f["parameters"] for _, f in _definitions("astrion")}
    # intent everywhere, optional
    for name, parameters in astrion.items():
        assert "intent" in parameters["properties"]
        assert "intent" not in parameters.get("required", [])
        assert "intent" not in strict.get(name, {"properties": {}})["properties"]
    assert astrion["create_sub_agent"]["required"] == ["role_id", "task"]
    assert "agent_id" not in astrion["create_sub_agent"]["properties"]  # astrion numbers alone
    assert "stop_sub_agent" in astrion and "stop_sub_agent" not in strict
    assert "ask_sub_agent" in strict and "ask_sub_agent" not in astrion
    assert "agent_id" not in astrion["answer_sub_agent_question"]["properties"]
    assert astrion["answer_sub_agent_question"]["required"] == ["question_id", "answer"]
    assert astrion["get_sub_agent_status"]["properties"]["display_names"]["type"] == "array"
    assert "agent_id" not in astrion["get_sub_agent_status"]["properties"]
    assert "body_prompt" in astrion["create_custom_agent"]["properties"]
    assert "prompt" not in astrion["create_custom_agent"]["properties"]
    assert astrion["ask_master"]["required"] == ["question"]
    assert set(astrion["ask_other_agent"]["properties"]) >= {"question", "question_id"}
    assert "content" not in astrion["ask_other_agent"]["properties"]
    assert "message_id" not in astrion["answer_other_agent"]["properties"]
    assert "question_id" in astrion["answer_other_agent"]["required"]
    # the same call validates differently under the two profiles
    call = {"role_id": "ui-operator", "task": "Design the palette."}
    assert schemas.validate_tool_arguments("create_sub_agent", call, "astrion") == []
    assert schemas.validate_tool_arguments("create_sub_agent", call, "strict")


def test_unknown_tool_and_profile() -> None:
    with pytest.raises(UnknownToolError) as info:
        schemas.tool_arguments_validator("stop_sub_agent")
    assert isinstance(info.value, KeyError)
    assert "ask_sub_agent" in str(info.value)
    with pytest.raises(UnknownToolError):
        schemas.tool_arguments_validator("ask_sub_agent", "astrion")
    with pytest.raises(UnknownToolError):
        schemas.tool_arguments_validator("read_file")  # a base tool, not a protocol tool
    with pytest.raises(UnknownProfileError) as profile_info:
        schemas.tool_names("loose")
    assert "astrion, astrion-10654c4, strict" in str(profile_info.value)
    with pytest.raises(UnknownProfileError):
        schemas.tool_arguments_validator("create_sub_agent", "loose")


# --------------------------------------------------------------------------- tool results


def test_tool_result_validator_accepts_success_and_error() -> None:
    validator = schemas.tool_result_validator("terminate_sub_agent")
    assert validator is schemas.tool_result_validator("terminate_sub_agent")
    ok = {
        "success": True,
        "agent_id": 1,
        "role_id": "ui-operator",
        "display_name": "UI Operator_1",
        "status": "terminated",
    }
    assert validator.is_valid(ok)
    assert validator.is_valid(
        {"success": False, "error": {"code": "unknown-agent", "message": "No agent 7."}}
    )
    assert not validator.is_valid({**ok, "status": "idle"})
    assert not validator.is_valid({"success": False})


def test_tool_result_validator_unknown_tool() -> None:
    with pytest.raises(UnknownToolError):
        schemas.tool_result_validator("ask_master")  # answers with envelope text


def test_known_error_codes() -> None:
    # The error table of the Tools chapter, in its order.
    assert schemas.known_error_codes() == tuple(_spec_error_codes())
    assert schemas.known_error_codes() == (
        "invalid-arguments",
        "forbidden-tool",
        "unknown-agent",
        "ambiguous-agent-id",
        "agent-terminated",
        "duplicate-id",
        "unknown-role",
        "role-exists",
        "invalid-name",
        "unknown-question",
        "not-waiting",
        "wait-cycle",
        "timeout",
        "round-limit",
        "store-failed",
        "turn-ended",
        "unanswered",
    )
    description = schemas.schema("tool-results")["description"]
    for code in schemas.known_error_codes():
        assert code in description


# --------------------------------------------------------------------------- registry API


def test_unknown_schema_name_lists_known_names() -> None:
    with pytest.raises(UnknownSchemaError) as info:
        schemas.schema("mesage")
    assert isinstance(info.value, KeyError)
    message = str(info.value)
    assert message.startswith("unknown schema 'mesage'; known: ")
    assert "bundle, certification-report, chat-message" in message
    for call in (schemas.validator, schemas.path, schemas.title, schemas.uri):
        with pytest.raises(UnknownSchemaError):
            call("mesage")
    with pytest.raises(UnknownSchemaError):
        schemas.validate("mesage", {})


def test_unknown_pointer_is_an_unknown_schema() -> None:
    with pytest.raises(UnknownSchemaError):
        schemas.validator("tools#/$defs/nothing.arguments")
    with pytest.raises(UnknownSchemaError):
        schemas.schema("tools#/$defs/nothing")


def test_schema_returns_a_private_copy() -> None:
    first = schemas.schema("role")
    first["title"] = "changed"
    assert schemas.schema("role")["title"] == "Role definition"


def test_subschema_by_pointer() -> None:
    arguments = schemas.schema("tools#/$defs/ask_master.arguments")
    assert arguments["required"] == ["question", "question_id"]


def test_validators_are_built_once() -> None:
    assert schemas.validator("bundle") is schemas.validator("bundle")
    assert isinstance(schemas.validator("bundle"), Draft202012Validator)


def test_errors_are_sorted_by_path_with_numeric_indexes() -> None:
    conversation = [{"role": "user", "content": "hi"}] * 12
    conversation[10] = {"role": "user"}
    conversation[2] = {"role": "robot", "content": "x"}
    errors = schemas.validate("conversation", conversation)
    assert [e.path for e in errors] == ["/2/role", "/10"]
    assert all(isinstance(e, SchemaError) for e in errors)


def test_error_fields() -> None:
    bundle = {"teamwire": "1.0", "agents": {"Team Leader": {"role_id": "lead", "messages": []}}}
    [error] = schemas.validate("bundle", bundle)
    assert error.path == "/agents/Team Leader/role_id"
    assert error.keyword == "const"
    assert error.message == '"team-leader" was expected'
    assert error.schema_path.endswith("/role_id/const")


def test_pointer_segments_are_escaped() -> None:
    assert schemas.json_pointer(["a/b", "c~d", 3]) == "/a~1b/c~0d/3"
    bundle = {
        "teamwire": "1.0",
        "agents": {"Team Leader": {"role_id": "team-leader", "messages": []}, "A/B_1": 5},
    }
    assert [e.path for e in schemas.validate("bundle", bundle)] == ["/agents/A~1B_1"]


def test_forbidden_field_is_reported_at_its_own_path() -> None:
    message = {
        "version": "1.0",
        "id": "ask_uio_001",
        "correlation_id": "task_001",
        "type": "ask",
        "sender": "UI Operator_1",
        "receiver": "Team Leader",
        "content": "Which blue?",
        "question_id": "ask_uio_001",
    }
    [error] = schemas.validate("message", message)
    assert (error.path, error.message) == (
        "/question_id",
        "property 'question_id' is not allowed here",
    )


def test_long_values_are_not_quoted_in_full() -> None:
    errors = schemas.validate("conversation", {"messages": ["x" * 5000]})
    assert len(errors[0].message) < 500


def test_display_names() -> None:
    valid = ["Team Leader", "UI Operator_1", "Full-Stack Engineer_12", "数据分析师_3", "a_b_2"]
    invalid = [
        "Team Leader_1",
        "UI Operator",
        "UI Operator_0",
        "UI Operator_01",
        "A<B_1",
        'Quote"d_1',
        "Line\nBreak_1",
        "_1",
        "UI Operator_-1",
    ]
    for name in valid:
        assert schemas.is_valid("common#/$defs/display-name", name), name
    for name in invalid:
        assert not schemas.is_valid("common#/$defs/display-name", name), name


def test_role_ids() -> None:
    for role_id in ["ui-operator", "full-stack-engineer", "a", "r2_d2", "0" + "x" * 63]:
        assert schemas.is_valid("common#/$defs/role-id", role_id)
    for role_id in ["UI", "-x", "_x", "", "a b", "x" * 65]:
        assert not schemas.is_valid("common#/$defs/role-id", role_id)


# --------------------------------------------------------------------------- names and ids

RESERVED = "Team Leader"
FORBIDDEN_CHARS = {chr(c) for c in range(0x20)} | {chr(c) for c in range(0x7F, 0xA0)} | set('\u2028\u2029<>"')


def _role_name_ok(name: str) -> bool:
    """TW-NAME-004/005/006/009/012, written out plainly as an oracle for the patterns."""
    return (
        name != ""
        and name != RESERVED
        and not any(ch in FORBIDDEN_CHARS for ch in name)
        and name == name.strip()
        and " 的" not in name
        and " 向 " not in name
    )


def _display_name_ok(name: str) -> bool:
    """TW-NAME-001 to TW-NAME-006 and TW-NAME-009: split at the last '_'."""
    if name == RESERVED:
        return True
    role, sep, number = name.rpartition("_")
    digits = number.isascii() and number.isdigit()
    return bool(sep) and digits and number[0] != "0" and _role_name_ok(role)


def _message_id_ok(text: str) -> bool:
    """TW-ID-001, with white space as Python (and so the envelope grammar) defines it."""
    return text != "" and not any(ch.isspace() or ch in '<>"' for ch in text)


NAME_PIECES = [
    "a",
    "Z",
    " ",
    "_",
    "1",
    "0",
    "9",
    "的",
    "向",
    "Team Leader",
    "\u00a0",
    "\u3000",
    "\u2003",
    "\u0085",
    "\u009f",
    "\u2028",
    "\n",
    "\t",
    "\r",
    "<",
    '"',
    "\ufeff",
]
NAMES = st.lists(st.sampled_from(NAME_PIECES), max_size=7).map("".join)


@given(name=NAMES)
def test_name_patterns_follow_the_naming_rules(name: str) -> None:
    assert schemas.is_valid("common#/$defs/display-name", name) is _display_name_ok(name)
    sub_agent = _display_name_ok(name) and name != RESERVED
    assert schemas.is_valid("common#/$defs/sub-agent-name", name) is sub_agent
    assert schemas.is_valid("common#/$defs/role-name", name) is _role_name_ok(name)
    assert schemas.is_valid("common#/$defs/message-id", name) is _message_id_ok(name)


def _walk_patterns(node: Any, where: str, found: dict[str, str]) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            found[f"{where}/pattern"] = node["pattern"]
        for key, value in node.items():
            _walk_patterns(value, f"{where}/{key}", found)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _walk_patterns(value, f"{where}/{i}", found)


@functools.cache
def _patterns() -> dict[str, str]:
    """Every regex of the shipped schemas and tool sets, keyed by where it stands."""
    found: dict[str, str] = {}
    for name in schemas.names():
        _walk_patterns(schemas.schema(name), name, found)
    for profile in schemas.profiles():
        _walk_patterns(schemas.tool_set(profile), f"tools/{profile}", found)
    return found


@given(text=NAMES)
def test_patterns_mean_the_same_in_ecma_262(text: str) -> None:
    # JSON Schema patterns are ECMA-262 regexes; jsonschema runs them with Python's re.
    # Both must give one verdict, so that other validators agree with ours.
    for where, (python, ecma) in _compiled_patterns().items():
        assert (python.search(text) is not None) is (ecma.find(text) is not None), (where, text)


@functools.cache
def _compiled_patterns() -> dict[str, tuple[re.Pattern[str], Any]]:
    regress = pytest.importorskip("regress")
    return {where: (re.compile(p), regress.Regex(p)) for where, p in _patterns().items()}


def test_anchored_patterns_reject_a_trailing_newline() -> None:
    # Python's '$' also matches before a final LF; every end anchor carries a guard.
    for where, pattern in _patterns().items():
        assert not pattern.endswith("$"), where
        assert pattern.count("$") == pattern.count("$(?!\\n)") + pattern.count("$)"), where


@pytest.mark.parametrize(
    ("ref", "text"),
    [
        ("common#/$defs/display-name", "Team Leader\n"),
        ("common#/$defs/display-name", "UI Operator_1\n"),
        ("common#/$defs/role-name", "UI Operator\n"),
        ("common#/$defs/role-id", "ui-operator\n"),
        ("common#/$defs/message-id", "ask_uio_001\n"),
        ("common#/$defs/version", "1.0\n"),
        ("tools#/$defs/tool-name", "ask_master\n"),
    ],
)
def test_trailing_newline_is_rejected(ref: str, text: str) -> None:
    assert schemas.is_valid(ref, text.rstrip("\n"))
    assert not schemas.is_valid(ref, text)


def test_name_patterns_take_linear_time() -> None:
    # A long hostile name must not make the regex engine backtrack exponentially.
    for text in ["a" * 20000 + "_", "a _" * 7000, " 的" * 7000 + "_1", "_1" * 10000 + " "]:
        for ref in ("display-name", "sub-agent-name", "role-name"):
            assert not schemas.is_valid(f"common#/$defs/{ref}", text + "\u0000")


def test_pattern_errors_name_the_definition() -> None:
    [error] = schemas.validate("common#/$defs/display-name", "Coder _1")
    assert error.message == '"Coder _1" is not a valid display name'


def test_versions_of_major_one_are_accepted() -> None:
    for version in ["1.0", "1.1", "1.10"]:
        assert schemas.is_valid("common#/$defs/version", version)
    wrong: list[object] = ["2.0", "1.01", "01.0", "1", "1.", "1.0.0", "v1.0", 1.0]
    for value in wrong:
        assert not schemas.is_valid("common#/$defs/version", value)


# --------------------------------------------------------------------------- the spec's tables

SPEC_DIR = data_path("spec")
SPEC_TYPES: dict[str, dict[str, Any]] = {
    "integer ≥ 1": {"type": "integer", "minimum": 1},
    "string": {"type": "string"},
    "string, non-empty": {"type": "string", "minLength": 1},
    "boolean": {"type": "boolean"},
    "`fast` or `thinking`": {"type": "string", "enum": ["fast", "thinking"]},
    "array of non-empty strings, at least one": {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "minItems": 1,
    },
}
# Agent-chosen ids must satisfy TW-ID-001, or the call fails with invalid-arguments (TW-ID-014).
CHOSEN_IDS = {
    ("ask_master", "question_id"),
    ("ask_sub_agent", "question_id"),
    ("ask_other_agent", "message_id"),
}


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _spec_tools() -> dict[str, tuple[dict[str, dict[str, Any]], list[str]]]:
    """Every tool section of the Tools chapter: parameter schemas and required names."""
    tools: dict[str, tuple[dict[str, dict[str, Any]], list[str]]] = {}
    current: str | None = None
    for line in (SPEC_DIR / "06-tools.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = None
        elif line.startswith("### "):
            current = line[4:].strip()
            tools[current] = ({}, [])
        elif current is not None and line.startswith("| `"):
            name, kind, required = _cells(line)[:3]
            props, req = tools[current]
            props[name.strip("`")] = dict(SPEC_TYPES[kind])
            if required.startswith("yes"):
                req.append(name.strip("`"))
    return tools


def _spec_error_codes() -> list[str]:
    text = (SPEC_DIR / "06-tools.md").read_text(encoding="utf-8")
    table = text.split("| Code | Meaning |", 1)[1].split("\n\n", 1)[0]
    return [_cells(line)[0].strip("`") for line in table.splitlines()[2:]]


def test_strict_tools_match_the_spec_tables() -> None:
    spec = _spec_tools()
    strict = {f["name"]: f["parameters"] for _, f in _definitions("strict")}
    assert set(spec) == set(strict)
    for name, (props, required) in spec.items():
        parameters = strict[name]
        # Property order follows the original definitions, not the table.
        assert set(parameters["properties"]) == set(props), name
        for key, expected in props.items():
            actual = dict(parameters["properties"][key])
            actual.pop("description")
            pattern = actual.pop("pattern", None)
            assert actual == expected, (name, key)
            assert (pattern is not None) is ((name, key) in CHOSEN_IDS), (name, key)
        assert parameters.get("required", []) == required, name


def test_strict_tool_sets_match_the_spec_table() -> None:
    text = (SPEC_DIR / "06-tools.md").read_text(encoding="utf-8")
    table = text.split("| Tool | Leader | Sub-agent | Purpose |", 1)[1].split("\n\n", 1)[0]
    rows = [_cells(line) for line in table.splitlines()[2:]]
    names = schemas.tool_names("strict")
    assert list(names.leader) == [r[0].strip("`") for r in rows if r[1] == "yes"]
    assert set(names.sub_agent) == {r[0].strip("`") for r in rows if r[2] == "yes"}


def test_chosen_ids_use_the_message_id_syntax() -> None:
    common = schemas.schema("common#/$defs/message-id")["pattern"]
    for tool, key in CHOSEN_IDS:
        prop = schemas.schema(f"tools#/$defs/{tool}.arguments")["properties"][key]
        assert prop["pattern"] == common


def test_function_definition_examples_are_the_shipped_definitions() -> None:
    shipped = {
        t["function"]["name"]: t for side in ("leader", "sub_agent") for t in schemas.tool_set("strict")[side]
    }
    for path in sorted((EXAMPLES / "tools").glob("*.json")):
        assert json.loads(path.read_text(encoding="utf-8")) == shipped[path.stem], path.name


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["role", "content", "type", "agents", "success", "error", "x"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@given(name=st.sampled_from(PROTOCOL_SCHEMAS), instance=JSON)
def test_any_json_value_yields_errors_not_exceptions(name: str, instance: Any) -> None:
    errors = schemas.validate(name, instance)
    assert schemas.is_valid(name, instance) is (errors == [])
    for error in errors:
        assert isinstance(error, SchemaError)
        assert error.message and error.keyword
        assert error.path == "" or error.path.startswith("/")


# --------------------------------------------------------------------------- loading


def _write(directory: Path, name: str, document: Any) -> None:
    (directory / f"{name}.schema.json").write_text(json.dumps(document), encoding="utf-8")


def _schema(name: str, **body: Any) -> dict[str, Any]:
    return {
        "$schema": META,
        "$id": f"https://teamwire.dev/schemas/1.0/{name}.schema.json",
        "title": name,
        "description": "test",
        **body,
    }


def test_new_schema_files_are_picked_up_and_cross_referenced(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "event-log",
        _schema("event-log", type="array", items={"$ref": "lint-findings.schema.json#/$defs/x"}),
    )
    _write(tmp_path, "lint-findings", _schema("lint-findings", **{"$defs": {"x": {"type": "integer"}}}))
    catalog = SchemaCatalog(tmp_path)
    assert catalog.names() == ["event-log", "lint-findings"]
    assert catalog.validate("event-log", [1, 2]) == []
    assert [e.path for e in catalog.validate("event-log", [1, "2"])] == ["/1"]
    assert catalog.check() == []


def test_a_schema_of_one_record_says_so_itself(tmp_path: Path) -> None:
    """Which schemas describe a JSON Lines record is read from the schema, whatever its name."""
    _write(tmp_path, "record", _schema("record", **{"x-json-lines": True}, type="object"))
    _write(tmp_path, "event-log", _schema("event-log", type="object"))
    catalog = SchemaCatalog(tmp_path)
    assert (catalog.json_lines("record"), catalog.json_lines("event-log")) == (True, False)
    assert catalog.check() == []
    assert [n for n in schemas.names() if schemas.json_lines(n)] == ["event-log"]


def test_recursive_schemas_still_validate(tmp_path: Path) -> None:
    tree = _schema(
        "tree",
        type="object",
        properties={
            "children": {"type": "array", "items": {"$ref": "#"}},
            "name": {"type": "string"},
        },
    )
    _write(tmp_path, "tree", tree)
    catalog = SchemaCatalog(tmp_path)
    assert catalog.is_valid("tree", {"children": [{"children": [{"name": "leaf"}]}]})
    errors = catalog.validate("tree", {"children": [{"children": [{"name": 1}]}]})
    assert [e.path for e in errors] == ["/children/0/children/0/name"]


def test_wrong_id_is_a_load_error(tmp_path: Path) -> None:
    _write(tmp_path, "thing", _schema("other"))
    with pytest.raises(SchemaLoadError, match="must be"):
        SchemaCatalog(tmp_path)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_unreadable_schema_is_a_load_error(tmp_path: Path, content: str) -> None:
    (tmp_path / "thing.schema.json").write_text(content, encoding="utf-8")
    with pytest.raises(SchemaLoadError):
        SchemaCatalog(tmp_path)


def test_check_reports_bad_schemas_and_dangling_refs(tmp_path: Path) -> None:
    _write(tmp_path, "bad", _schema("bad", type="banana", items={"$ref": "missing.schema.json"}))
    problems = SchemaCatalog(tmp_path).check()
    assert any("banana" in p for p in problems)
    assert any("does not resolve" in p for p in problems)


def test_dangling_ref_is_a_load_error_when_used(tmp_path: Path) -> None:
    _write(tmp_path, "bad", _schema("bad", items={"$ref": "missing.schema.json"}))
    with pytest.raises(SchemaLoadError):
        SchemaCatalog(tmp_path).validator("bad")


def test_inlining_keeps_dynamic_scopes() -> None:
    document = _schema("dyn", **{"$dynamicAnchor": "node", "type": "object"})
    assert inline_refs({"$ref": document["$id"]}, lambda uri: document) == {"$ref": document["$id"]}


def _every_ref_target(catalog: SchemaCatalog) -> list[str]:
    from urllib.parse import urljoin

    from teamwire.schemas.catalog import _refs

    targets = set()
    for name in catalog.names():
        uri = catalog.uri(name)
        targets.add(uri)
        for ref in _refs(catalog.schema(name)):
            targets.add(urljoin(uri, ref))
    return sorted(targets)


def test_local_resolution_agrees_with_the_registry() -> None:
    # The catalog resolves its own documents' JSON-pointer references without referencing;
    # every target the shipped schemas name must come out as the registry resolves it.
    catalog = schemas.default_catalog()
    targets = _every_ref_target(catalog)
    assert len(targets) > 40
    for target in targets:
        expected = catalog.registry.resolver().lookup(target).contents
        assert catalog._lookup(target) == expected, target


@pytest.mark.parametrize("uri", [
    "https://teamwire.dev/schemas/1.0/common.schema.json#/$defs/nothing-here",
    "https://teamwire.dev/schemas/1.0/common.schema.json#/$defs/version/0",
    "https://teamwire.dev/schemas/1.0/missing.schema.json",
    "https://elsewhere.example/x.schema.json#/a",
])
def test_unresolvable_targets_are_load_errors(uri: str) -> None:
    with pytest.raises(SchemaLoadError, match="does not resolve"):
        schemas.default_catalog()._lookup(uri)


def test_escaped_pointer_tokens_resolve_locally(tmp_path: Path) -> None:
    defs = {"a/b": {"type": "integer"}, "c~d": {"type": "string"}, "e f": {"type": "null"}}
    _write(tmp_path, "thing", _schema("thing", **{"$defs": defs}))
    catalog = SchemaCatalog(tmp_path)
    base = catalog.uri("thing")
    assert catalog._lookup(base + "#/$defs/a~1b") == {"type": "integer"}
    assert catalog._lookup(base + "#/$defs/c~0d") == {"type": "string"}
    assert catalog._lookup(base + "#/$defs/e%20f") == {"type": "null"}
    assert catalog.is_valid("thing#/$defs/a~1b", 3)


def test_inlined_schema_is_the_validators_schema() -> None:
    ref = "tools#/$defs/create_sub_agent.arguments"
    catalog = schemas.default_catalog()
    assert catalog.inlined(ref) is catalog.validator(ref).schema
    assert schemas.tool_arguments_schema("create_sub_agent") is \
        schemas.tool_arguments_validator("create_sub_agent").schema


@pytest.mark.parametrize("change", [
    lambda d: d.pop("leader"),
    lambda d: d.update(profile=7),
    lambda d: d["sub_agent"].append({"function": {}}),
    lambda d: d["base"].append(3),
    lambda d: d.update(removed="close_sub_agent"),
])
def test_malformed_tool_set_files_are_load_errors(tmp_path: Path, change: Any) -> None:
    import shutil

    from teamwire.schemas.tool_sets import ToolSets

    for path in SCHEMA_DIR.glob("*.schema.json"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "tools").mkdir()
    data = json.loads((SCHEMA_DIR / "tools" / "strict.json").read_text(encoding="utf-8"))
    change(data)
    (tmp_path / "tools" / "strict.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SchemaLoadError, match=r"strict\.json"):
        ToolSets(SchemaCatalog(tmp_path)).names("strict")


@pytest.mark.parametrize(("schema", "instance", "message"), [
    ({"type": "string"}, None, 'null is not of type "string"'),
    ({"type": ["string", "integer"]}, True, 'true is not of type "string", "integer"'),
    ({"enum": ["on", None]}, {"a": [1]}, '{"a": [1]} is not one of ["on", null]'),
    ({"const": False}, 0, "false was expected"),
])
def test_messages_quote_values_as_json(schema: dict[str, Any], instance: Any, message: str) -> None:
    from teamwire.schemas import json_message

    [error] = Draft202012Validator(schema).iter_errors(instance)
    assert json_message(error) == message


def test_the_schema_readme_lists_every_schema() -> None:
    """spec/schemas/README.md names every schema of the directory in one of its tables (the
    protocol's, or the implementation formats'), so that none is there unexplained."""
    readme = (SCHEMA_DIR / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", readme, flags=re.MULTILINE))
    present = {path.name.removesuffix(".schema.json")
               for path in SCHEMA_DIR.glob("*.schema.json")}
    assert present - listed == set()
    assert listed - present == set()
