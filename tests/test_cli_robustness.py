"""Bad input to ``teamwire envelope``, ``schema``, ``rule`` and ``demo`` never produces a
traceback: a clear error with a position, exit 1 for input that breaks the protocol, exit 2
for usage errors and unreadable input, and nothing accepted is silently dropped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from teamwire.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ask_master.txt"
ENVELOPE = {"sender": "A_1", "label": "提问", "id": "ask_a_001", "tag": "Ask", "content": "x"}


def run(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


def teamwire(*args: str) -> subprocess.CompletedProcess[bytes]:
    """The real command, as a user runs it (``python -m teamwire``)."""
    return subprocess.run([sys.executable, "-m", "teamwire", *args], input=b"",
                          capture_output=True, timeout=60, check=False)


def no_traceback(result: Result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def envelope_json(**changes: object) -> str:
    return json.dumps({**ENVELOPE, **changes}, ensure_ascii=False)


# ------------------------------------------------------------------ JSON input: render, validate

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("args", [("envelope", "render", "-"), ("schema", "validate", "bundle", "-")])
@pytest.mark.parametrize(("text", "column", "reason"), [
    (DEEP, 1026, "depth limit exceeded"),
    ('{"a": NaN}', 7, "NaN is not a JSON value"),
    ('{"a": -Infinity}', 8, "Infinity is not a JSON value"),
    ('{"a": "\\ud800"}', 8, "surrogate"),
    ('{"a": 1e999}', 7, "infinity"),
    ('{"a": 1, "b": {"a": 2, "a": 3}}', 24, 'duplicate key "a"'),
    ('{"sender": "A_1", "sender": "B_1"}', 19, 'duplicate key "sender"'),
])
def test_json_that_is_not_strict_json_exits_2_with_its_position(
        args: tuple[str, ...], text: str, column: int, reason: str) -> None:
    result = run(*args, stdin=text)
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"<stdin>:1:{column}: error: invalid JSON: ")
    assert reason in result.stderr


def test_duplicate_key_position_counts_lines() -> None:
    text = '{\n  "x": [{"k": 1}, {"k": 2}],\n  "y": {"k": 1,\n        "k": 2}\n}'
    result = run("schema", "validate", "common", "-", stdin=text)
    assert result.exit_code == 2
    assert result.stderr.startswith('<stdin>:4:9: error: invalid JSON: duplicate key "k"')


@pytest.mark.parametrize("args", [("envelope", "render", "-"), ("schema", "validate", "bundle", "-")])
@pytest.mark.parametrize("stdin", [b"", b"  \n\r\n\t", b"\xef\xbb\xbf"],
                         ids=["empty", "white-space", "byte-order-mark"])
def test_empty_json_input_says_so(args: tuple[str, ...], stdin: bytes) -> None:
    result = run(*args, stdin=stdin)
    assert result.exit_code == 2
    assert result.stderr == "<stdin>:1:1: error: invalid JSON: the input is empty\n"


def test_render_accepts_a_byte_order_mark_like_schema_validate() -> None:
    result = run("envelope", "render", "-", stdin=b"\xef\xbb\xbf" + envelope_json().encode())
    assert result.exit_code == 0
    assert result.stdout.startswith("来自 A_1 的提问\n")


def test_big_integers_keep_their_digits() -> None:
    result = run("schema", "validate", "--format", "json", "tool-results", "-",
                 stdin='{"success": 123456789012345678901234567890}')
    assert result.exit_code == 1
    assert "123456789012345678901234567890" in result.stdout


@pytest.mark.parametrize(("changes", "message"), [
    ({"atributes": {"question_id": "ask_a_001"}}, 'unknown key "atributes"'),
    ({"type": float("nan")}, "NaN is not a JSON value"),
    ({"attributes": []}, "'attributes' must be an object"),
    ({"attributes": False}, "'attributes' must be an object"),
    ({"attributes": {"a": {"b": None}}}, "attribute 'a' must be a string"),
    ({"content": None}, "'content' must be a string"),
    ({"sender": 1}, "'sender' must be a string"),
])
def test_render_drops_nothing_silently(changes: dict[str, object], message: str) -> None:
    result = run("envelope", "render", "-", stdin=envelope_json(**changes))
    no_traceback(result)
    assert result.exit_code in (1, 2)
    assert result.stdout == ""
    assert message in result.stderr


def test_render_of_a_lone_surrogate_is_a_json_error_not_a_codec_message() -> None:
    result = run("envelope", "render", "-", stdin='{"content": "\\udc00"}')
    assert result.exit_code == 2
    assert "codec" not in result.stderr
    assert result.stderr.startswith("<stdin>:1:14: error: invalid JSON:")


@pytest.mark.parametrize("name", ["bundle", "conversation"])
def test_validate_a_document_too_deep_for_the_validator(name: str) -> None:
    depth = 1010
    document = ('{"teamwire": "1.0", "agents": {"Team Leader": {"role_id": "team-leader", '
                '"messages": [{"role": "user", "content": ' + "[" * depth + "]" * depth
                + "}]}}}")
    if name == "conversation":
        document = "[" * 1020 + "]" * 1020
    result = run("schema", "validate", name, "-", stdin=document)
    no_traceback(result)
    assert result.exit_code in (1, 2)


# ------------------------------------------------------------------------------ schema names

@pytest.mark.parametrize(("command", "name", "message"), [
    ("show", "#", "unknown schema '#'; known: bundle,"),
    ("validate", "#", "unknown schema '#'; known: bundle,"),
    ("show", "tools#/nope", "unknown schema 'tools#/nope'; known: bundle,"),
    ("show", "tools#nope", "unknown schema 'tools#nope'; known: bundle,"),
    ("show", "tools#nope", "(a pointer is '#' followed by /-separated keys"),
    ("path", "tools#/$defs", "'schema path' takes a schema name without a '#' pointer"),
    ("path", "nope#/x", "unknown schema 'nope#/x'"),
])
def test_unknown_schema_names_echo_what_was_given(command: str, name: str, message: str) -> None:
    args = ("schema", command, name) + (("-",) if command == "validate" else ())
    result = run(*args, stdin="{}")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert message in result.stderr


def test_empty_pointer_is_the_whole_schema() -> None:
    assert json.loads(run("schema", "show", "tools#").stdout) == json.loads(
        run("schema", "show", "tools").stdout)


# ------------------------------------------------------------------------------ envelope parse

def test_parse_error_on_a_huge_line_is_short() -> None:
    result = run("envelope", "parse", "-", stdin="x" * 2_000_000)
    assert result.exit_code == 1
    assert len(result.stderr) < 1000
    assert result.stderr.startswith("<stdin>:1:1: error[syntax]: expected '来自 ', found 'xxx")


def test_parse_error_shows_no_terminal_control_sequences() -> None:
    result = run("envelope", "parse", "-", stdin="\x1b]0;title\x07\x1b[2J\u202e")
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "\u202e" not in result.stderr
    snippet, caret = result.stderr.splitlines()[1:3]
    assert snippet == "␛]0;title␇␛[2J\ufffd"
    assert caret == "^"


def test_parse_error_names_a_byte_order_mark() -> None:
    result = run("envelope", "parse", "-", stdin=b"\xef\xbb\xbf" + EXAMPLE.read_bytes())
    assert result.exit_code == 1
    assert "byte order mark" in result.stderr


def test_file_names_cannot_drive_the_terminal() -> None:
    result = run("envelope", "parse", "\x1b[2J")
    assert result.exit_code == 2
    assert result.stderr == "error: cannot read ␛[2J: No such file or directory\n"


@pytest.mark.parametrize("args", [
    ("envelope", "parse", "-"), ("envelope", "render", "-"),
    ("schema", "validate", "bundle", "-"),
])
def test_closed_standard_input_is_an_unreadable_input(args: tuple[str, ...]) -> None:
    proc = subprocess.run([sys.executable, "-m", "teamwire", *args], capture_output=True,
                          stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0), timeout=60,
                          check=False)
    assert proc.returncode == 2
    assert proc.stderr == b"error: cannot read standard input: it is closed\n"


@pytest.mark.parametrize(("args", "code"), [
    (("envelope", "parse", "/nonexistent"), 2),
    (("envelope", "parse", "/"), 2),
    (("envelope", "render", "/"), 2),
    (("schema", "validate", "bundle", "/"), 2),
])
def test_unreadable_paths_exit_2(args: tuple[str, ...], code: int) -> None:
    result = run(*args)
    no_traceback(result)
    assert result.exit_code == code
    assert result.stderr.startswith("error: cannot read ")


# ----------------------------------------------------------------------------------- demo

def test_demo_dir_below_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    result = run("demo", "--quiet", "--dir", str(tmp_path / "file" / "sub"))
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot create ")


def test_demo_dir_that_cannot_be_created() -> None:
    result = run("demo", "--quiet", "--dir", "/proc/teamwire-demo")
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot create /proc/teamwire-demo")


def test_demo_dir_that_cannot_be_written() -> None:
    result = run("demo", "--quiet", "--dir", "/proc/self")
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot write the demo's files in /proc/self")


@pytest.mark.parametrize("name", ["bundle.json", "events.jsonl", "router.db"])
def test_demo_does_not_overwrite_files_it_did_not_write(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("mine")
    result = run("demo", "--quiet", "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert f"already holds {name}" in result.stderr
    assert (tmp_path / name).read_text() == "mine"


def test_demo_reruns_in_its_own_directory_and_prints_paths_verbatim(tmp_path: Path) -> None:
    directory = tmp_path / "x[" / "]y[red]z"  # the path holds the markup "[/]" and "[red]"
    directory.mkdir(parents=True)
    (directory / "notes.txt").write_text("keep")
    for _ in range(2):
        result = run("demo", "--quiet", "--dir", str(directory))
        no_traceback(result)
        assert result.exit_code == 0, result.output
        assert f"bundle: {directory / 'bundle.json'}" in result.stdout
    assert (directory / "notes.txt").read_text() == "keep"


def test_demo_with_its_reader_gone_still_writes_its_files(tmp_path: Path) -> None:
    # Like `teamwire demo | head -c1`: the pipe closes while the conversation is printed.
    read, write = os.pipe()
    os.close(read)
    proc = subprocess.run([sys.executable, "-m", "teamwire", "demo", "--dir", str(tmp_path)],
                          stdout=write, stderr=subprocess.PIPE, timeout=60, check=False)
    os.close(write)
    assert b"Traceback" not in proc.stderr
    assert proc.stderr == b""
    assert proc.returncode == 0
    assert (tmp_path / "bundle.json").is_file()


# ------------------------------------------------------------------------- help and options

SUBCOMMANDS = [(), ("envelope",), ("envelope", "parse"), ("envelope", "render"), ("schema",),
               ("schema", "list"), ("schema", "show"), ("schema", "path"),
               ("schema", "validate"), ("rule",), ("demo",), ("lint",)]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_is_plain_text(command: tuple[str, ...]) -> None:
    for flag in ("--help", "-h"):
        result = run(*command, flag)
        assert result.exit_code == 0
        assert "``" not in result.stdout and ":func:" not in result.stdout
        assert result.stdout.startswith("Usage: ")


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_unknown_option_is_a_usage_error(command: tuple[str, ...]) -> None:
    result = run(*command, "--no-such-option")
    no_traceback(result)
    assert result.exit_code == 2
    assert "No such option" in result.stderr


def test_version_through_python_m() -> None:
    proc = teamwire("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith(b"teamwire ") and proc.stdout.endswith(b" (spec 1.1)\n")


def _read_one_byte_then_leave(*args: str) -> tuple[int, bytes]:
    process = subprocess.Popen([sys.executable, "-m", "teamwire", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(1)
    process.stdout.close()
    errors = process.stderr.read()
    return process.wait(), errors


# Outputs larger than a pipe's buffer, so that the writer meets the closed pipe.
@pytest.mark.parametrize("args", [("schema", "show", "tools"), ("schema", "show", "tool-results")])
def test_a_reader_that_leaves_early_is_no_failure(args: tuple[str, ...]) -> None:
    code, errors = _read_one_byte_then_leave(*args)
    assert (code, errors) == (0, b"")


def test_schema_validate_keeps_its_verdict_when_the_reader_leaves(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"teamwire": "1.0", "agents": {f"A{i}": 5 for i in range(3000)}}),
                    encoding="utf-8")
    code, errors = _read_one_byte_then_leave("schema", "validate", "bundle", str(path))
    assert (code, errors) == (1, b"")
