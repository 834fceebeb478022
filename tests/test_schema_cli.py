"""``teamwire schema``: list, show, path, validate, and their exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from teamwire import schemas
from teamwire.cli import main

EXAMPLES = schemas.path("bundle").parent / "examples"


def run(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["schema", *args], input=stdin)


def test_list_prints_every_name_with_its_title() -> None:
    result = run("list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == schemas.names()
    for line, name in zip(lines, schemas.names(), strict=True):
        assert line.endswith(schemas.title(name))
    assert any(line.startswith("bundle ") and "Session bundle" in line for line in lines)


def test_show_prints_the_schema_as_json() -> None:
    result = run("show", "message")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == schemas.schema("message")
    assert "\n  " in result.stdout  # indented


def test_show_a_subschema() -> None:
    result = run("show", "tools#/$defs/ask_master.arguments")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["required"] == ["question", "question_id"]


def test_path_prints_the_file() -> None:
    result = run("path", "role")
    assert result.exit_code == 0
    path = Path(result.stdout.strip())
    assert path.name == "role.schema.json"
    assert path.is_file()


@pytest.mark.parametrize(
    "args",
    [
        ("show", "mesage"),
        ("path", "mesage"),
        ("validate", "mesage", "-"),
        ("show", "tools#/$defs/nothing"),
        ("validate", "tools#/$defs/nothing", "-"),
    ],
)
def test_unknown_name_exits_2_listing_known_names(args: tuple[str, ...]) -> None:
    result = run(*args, stdin="{}")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "unknown schema" in result.stderr
    assert "bundle, certification-report, chat-message" in result.stderr


def test_validate_valid_file_exits_0() -> None:
    path = EXAMPLES / "bundle" / "landing-page-session.json"
    result = run("validate", "bundle", str(path))
    assert result.exit_code == 0
    assert "valid against bundle" in result.stdout


def test_validate_invalid_file_exits_1_with_pointers() -> None:
    path = EXAMPLES / "message" / "invalid" / "progress-from-leader.json"
    result = run("validate", "message", str(path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert f'{path}: /receiver: error[const]: "Team Leader" was expected' in lines
    assert any(line.startswith(f"{path}: /sender: error[pattern]: ") for line in lines)
    assert lines[-1] == f"{path}: 2 errors against message"


def test_validate_root_error_is_labelled() -> None:
    result = run("validate", "role", "-", stdin='{"role_id": "ui-operator"}')
    assert result.exit_code == 1
    assert "<stdin>: (root): error[required]: 'name' is a required property" in result.stdout


def test_validate_reads_standard_input() -> None:
    arguments = {"agent_id": 1, "role_id": "ui-operator", "task": "Design the palette."}
    result = run("validate", "tools#/$defs/create_sub_agent.arguments", "-", stdin=json.dumps(arguments))
    assert result.exit_code == 0
    assert result.stdout.startswith("<stdin>: valid")


def test_validate_json_format() -> None:
    result = run(
        "validate",
        "--format",
        "json",
        "result",
        "-",
        stdin='{"agent": "UI Operator_1", "state": "completed"}',
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["valid"] is False
    assert report["errors"][0]["path"] == ""
    assert {e["keyword"] for e in report["errors"]} <= {"anyOf", "required"}
    ok = run(
        "validate",
        "--format",
        "json",
        "result",
        "-",
        stdin='{"agent": "UI Operator_1", "state": "completed", "output": "Done."}',
    )
    assert ok.exit_code == 0
    assert json.loads(ok.stdout) == {"valid": True, "errors": []}


def test_validate_malformed_json_exits_2_with_line_and_column() -> None:
    result = run("validate", "bundle", "-", stdin='{\n  "teamwire": "1.0",\n  "agents": }\n')
    assert result.exit_code == 2
    assert result.stderr.startswith("<stdin>:3:13: error: invalid JSON")
    assert result.stdout == ""


def test_validate_rejects_non_standard_constants() -> None:
    result = run("validate", "result", "-", stdin='{"agent": NaN}')
    assert result.exit_code == 2
    assert "invalid JSON" in result.stderr


def test_validate_invalid_utf8_exits_2() -> None:
    result = run("validate", "role", "-", stdin=b'{"name": "\xff"}')
    assert result.exit_code == 2
    assert "<stdin>:1:11: error: invalid UTF-8" in result.stderr


def test_validate_missing_file_exits_2(tmp_path: Path) -> None:
    result = run("validate", "bundle", str(tmp_path / "absent.json"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def test_validate_accepts_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "role.json"
    role = {"role_id": "ui-operator", "name": "UI Operator", "description": "d", "prompt": "p"}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(role).encode())
    assert run("validate", "role", str(path)).exit_code == 0


def test_missing_arguments_are_usage_errors() -> None:
    assert run("validate", "bundle").exit_code == 2
    assert run("show").exit_code == 2


def test_validate_reads_json_lines_record_by_record(tmp_path: Path) -> None:
    """event-log describes one line of the log: each record is validated, an error names its
    line, and a malformed record is exit 2 with the file's line and column."""
    good = {"seq": 1, "time": 0.0, "event": "AgentCreated",
            "data": {"agent": "Team Leader", "role_id": "team-leader"}, "actions": []}
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({"seq": 2}) + "\n", encoding="utf-8")
    result = run("validate", "event-log", str(path))
    assert result.exit_code == 1
    assert f"{path}:3: (root): error[required]: 'event' is a required property" in result.stdout
    assert not any(line.startswith(f"{path}:1:") for line in result.stdout.splitlines())
    report = json.loads(run("validate", "event-log", str(path), "--format", "json").stdout)
    assert report["records"] == 2 and {e["line"] for e in report["errors"]} == {3}
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert run("validate", "event-log", str(path)).stdout.endswith("(1 records)\n")
    path.write_text(json.dumps(good) + "\n{\"seq\": x}\n", encoding="utf-8")
    broken = run("validate", "event-log", str(path))
    assert broken.exit_code == 2 and f"{path}:2:9: error: invalid JSON" in broken.stderr
    # --document reads the file as one document, which JSON Lines of two records is not
    assert run("validate", "event-log", "--document", str(path)).exit_code == 2


def test_a_jsonl_file_name_does_not_make_a_document_schema_read_by_line(tmp_path: Path) -> None:
    """Only the schema decides: a conversation (one JSON array) in a .jsonl file is one
    document unless --lines asks for records."""
    path = tmp_path / "conversation.jsonl"
    path.write_text('[{"role": "user", "content": "hi"}]\n', encoding="utf-8")
    assert run("validate", "conversation", str(path)).exit_code == 0
    path.write_text('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "ok"}\n',
                    encoding="utf-8")
    assert run("validate", "chat-message", "--lines", str(path)).exit_code == 0
    assert run("validate", "chat-message", str(path)).exit_code == 2


@pytest.mark.parametrize(("given", "hint"), [
    ("session-bundle", "(did you mean 'bundle'?)"), ("bundel", "(did you mean 'bundle'?)"),
    ("tool_result", "(did you mean 'tool-results'?)"), ("zzz", None)])
def test_an_unknown_name_suggests_the_nearest_known_one(given: str, hint: str | None) -> None:
    result = run("show", given)
    assert result.exit_code == 2
    assert (hint in result.stderr) if hint else "did you mean" not in result.stderr
