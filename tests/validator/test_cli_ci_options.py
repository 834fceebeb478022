"""The lint command's newer options, driven the way a CI job drives them: the gitlab format,
--statistics, -j with many small files, configuration warnings and mistyped rule names."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from teamwire import schemas
from teamwire.cli import main

GITLAB_SEVERITIES = {"info", "minor", "major"}
STAT_ROW = re.compile(r"^(\d+)  (TW\d{3})  (\S+) +\[(error|warning|info)\]$")
JSONL = '{"role": "user", "content": "[系统通知|x] y"}\n'


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    result = CliRunner().invoke(main, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def gitlab(*args: str, stdin: bytes | None = None) -> tuple[int, list[dict[str, Any]]]:
    """Run lint in the gitlab format; check every issue has the Code Quality shape."""
    result = invoke("lint", "-f", "gitlab", *args, stdin=stdin)
    issues = json.loads(result.stdout)
    assert isinstance(issues, list)
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["description"] and re.fullmatch(r"TW\d{3}", issue["check_name"])
        assert issue["severity"] in GITLAB_SEVERITIES
        assert isinstance(issue["fingerprint"], str) and issue["fingerprint"]
        location = issue["location"]
        assert isinstance(location["path"], str) and "\\" not in location["path"]
        assert isinstance(location["lines"]["begin"], int) and location["lines"]["begin"] >= 1
    fingerprints = [issue["fingerprint"] for issue in issues]
    assert len(set(fingerprints)) == len(fingerprints)
    return result.exit_code, issues


@pytest.fixture()
def corpus(tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of inputs of every kind, made the current directory."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("clean.json", "broken.json"):
        (work / name).write_bytes((tmp_path / name).read_bytes())
    (work / "invalid.json").write_text('{"teamwire": "1.0", "agents": {', encoding="utf-8")
    (work / "empty.json").write_bytes(b"")
    (work / "latin1.json").write_bytes(b'{"teamwire": "1.0", "session": "caf\xe9"}')
    (work / "conv.jsonl").write_text(JSONL, encoding="utf-8")
    (work / "my file 100% ü.json").write_bytes(files["broken"].read_bytes())
    (work / "sub" / "deeper").mkdir(parents=True)
    (work / "sub" / "deeper" / "b.json").write_bytes(files["broken"].read_bytes())
    monkeypatch.chdir(work)
    return work


INPUTS = [("clean.json", 0), ("broken.json", 1), ("invalid.json", 1), ("empty.json", 1),
          ("latin1.json", 1), ("conv.jsonl", 1), ("missing.json", 2), ("sub", 1),
          ("my file 100% ü.json", 1)]


@pytest.mark.parametrize(("name", "expected"), INPUTS)
def test_gitlab_report_for_every_kind_of_input(corpus: Path, name: str, expected: int) -> None:
    code, issues = gitlab(name)
    assert code == expected
    assert bool(issues) == (expected != 0)
    assert code == invoke("lint", name).exit_code  # the format does not change the verdict
    assert gitlab(name) == (code, issues)  # fingerprints stay put between runs
    assert gitlab("-q", name) == (code, issues)
    out = invoke("lint", "-f", "gitlab", "-o", "report.json", name)
    assert out.exit_code == code and out.stdout == ""
    assert json.loads(Path("report.json").read_text(encoding="utf-8")) == issues
    assert gitlab("--exit-zero", name)[0] == (2 if expected == 2 else 0)
    for issue in issues:
        path = issue["location"]["path"]
        assert path == name or path.startswith(name + "/"), path


def test_gitlab_whole_directory_paths_and_unique_fingerprints(corpus: Path) -> None:
    code, issues = gitlab(".", "missing.json")
    assert code == 2
    paths = {issue["location"]["path"] for issue in issues}
    assert {"broken.json", "sub/deeper/b.json", "conv.jsonl", "missing.json"} <= paths
    assert not any(p.startswith("./") or os.path.isabs(p) for p in paths)
    _, issues_abs = gitlab(str(corpus / "sub"))
    assert {issue["location"]["path"] for issue in issues_abs} == {"sub/deeper/b.json"}


def test_gitlab_path_outside_the_working_directory_is_absolute(corpus: Path) -> None:
    outside = corpus.parent / "broken.json"
    for given in ("../broken.json", str(outside)):
        code, issues = gitlab(given)
        assert code == 1 and issues
        assert {issue["location"]["path"] for issue in issues} == {outside.as_posix()}


@pytest.mark.parametrize("stdin_name", [None, "piped.json", "dir/piped.jsonl"])
def test_gitlab_standard_input(corpus: Path, stdin_name: str | None) -> None:
    source = "conv.jsonl" if stdin_name and stdin_name.endswith(".jsonl") else "broken.json"
    flags = ["--stdin-filename", stdin_name] if stdin_name else []
    code, issues = gitlab(*flags, "-", stdin=(corpus / source).read_bytes())
    assert code == 1 and issues
    assert {i["location"]["path"] for i in issues} == {stdin_name or "<stdin>"}
    assert gitlab(*flags, "-", stdin=b"\xff\xfe not json")[0] == 1
    # No records is an empty conversation (a note at most); no JSON value is an error.
    assert gitlab(*flags, "-", stdin=b"")[0] == (0 if source == "conv.jsonl" else 1)


def statistics(*args: str) -> tuple[int, list[tuple[int, str, str, str]], list[str]]:
    result = invoke("lint", "--statistics", *args)
    lines = result.stdout.splitlines()
    rows = [STAT_ROW.match(line) for line in lines]
    parsed = [(int(m[1]), m[2], m[3], m[4]) for m in rows if m]
    return result.exit_code, parsed, [line for line, m in zip(lines, rows, strict=True)
                                      if not m]


def test_statistics_rows_agree_with_the_json_report(corpus: Path) -> None:
    code, rows, rest = statistics(".")
    assert code == 1 and rows
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), reverse=True)
    assert len(rest) == 1 and rest[0].startswith("Found ")
    data = json.loads(invoke("lint", "-f", "json", ".").stdout)
    counted = Counter((f["rule"], f["severity"]) for f in data["findings"])
    assert {(code_, sev): n for n, code_, _, sev in rows} == dict(counted)
    names = {f["rule"]: f["name"] for f in data["findings"]}
    assert all(names[code_] == name for _, code_, name, _ in rows)
    assert statistics("-q", ".")[1:] == (rows, [])
    assert statistics("-q", "clean.json") == (0, [], [])
    result = invoke("lint", "--statistics", "-o", "stats.txt", ".")
    assert result.exit_code == 1 and result.stdout == ""
    assert Path("stats.txt").read_text(encoding="utf-8") == invoke(
        "lint", "--statistics", ".").stdout
    assert statistics(".", "missing.json")[0] == 2
    assert statistics("--exit-zero", ".")[0] == 0


def test_statistics_show_severity_overrides(corpus: Path) -> None:
    code, rows, _ = statistics("--severity", "TW1=warning", "--severity",
                               "invalid-arguments-json=info", "broken.json")
    levels = {code_: sev for _, code_, _, sev in rows}
    assert levels["TW102"] == "warning" and levels["TW401"] == "info"
    assert levels["TW403"] == "error" and code == 1
    code, rows, _ = statistics("--select", "TW1", "--severity", "TW1=info", "broken.json")
    assert code == 0 and {sev for *_, sev in rows} == {"info"}


@pytest.mark.parametrize("fmt", ["json", "gitlab", "sarif", "github", "junit"])
def test_statistics_with_another_format_is_a_usage_error(corpus: Path, fmt: str) -> None:
    result = invoke("lint", "--statistics", "-f", fmt, "broken.json")
    assert result.exit_code == 2
    assert "--statistics" in result.output and fmt in result.output


def test_statistics_with_per_file_ignores_still_add_up(corpus: Path) -> None:
    Path("teamwire.toml").write_text(
        '[lint]\nseverity = { TW403 = "warning" }\n'
        '[lint.per-file-ignores]\n"sub/**" = ["TW102"]\n"my file*" = ["TW4"]\n',
        encoding="utf-8")
    _, rows, rest = statistics(".")
    data = json.loads(invoke("lint", "-f", "json", ".").stdout)
    assert sum(r[0] for r in rows) == len(data["findings"])
    summary, notes = data["summary"], sum(r[0] for r in rows if r[3] == "info")
    assert summary["notes"] == notes
    assert summary["errors"] + summary["warnings"] + notes == len(data["findings"])
    assert rest == [f"Found {summary['errors']} errors, {summary['warnings']} warnings, "
                    f"{notes} note{'s' * (notes != 1)} ({summary['files']} files, "
                    f"{summary['messages']} messages)."]
    by_rule = Counter(f["rule"] for f in data["findings"])
    assert by_rule["TW102"] == 2 and by_rule["TW403"] == 2  # sub/ drops TW102, 'my file' drops TW4
    assert {sev for _, code_, _, sev in rows if code_ == "TW403"} == {"warning"}


def many_inputs(corpus: Path) -> list[str]:
    broken = (corpus / "broken.json").read_bytes()
    clean = (corpus / "clean.json").read_bytes()
    bulk = corpus / "bulk"
    (bulk / "legacy").mkdir(parents=True)
    for n in range(50):
        (bulk / f"b{n:02d}.json").write_bytes(broken)
    for n in range(6):
        (bulk / "legacy" / f"c{n}.json").write_bytes(clean if n % 2 else broken)
    return ["bulk", "conv.jsonl", "missing.json", "invalid.json", "empty.json", "latin1.json"]


@pytest.mark.parametrize("flags", [
    [], ["--select", "TW1,TW4", "--ignore", "TW401"],
    ["--severity", "TW4=info", "--profile", "astrion"], ["--config", "teamwire.toml"]])
def test_jobs_give_the_same_report_as_one_process(corpus: Path, flags: list[str]) -> None:
    Path("teamwire.toml").write_text('[lint]\nignore = ["TW512"]\n[lint.per-file-ignores]\n'
                                     '"bulk/legacy/**" = ["name-mismatch"]\n', encoding="utf-8")
    paths = many_inputs(corpus)
    one = invoke("lint", "-f", "json", *flags, *paths)
    assert one.exit_code == 2
    report = json.loads(one.stdout)
    for jobs in ("2", "0"):
        other = invoke("lint", "-f", "json", "-j", jobs, *flags, *paths)
        assert other.exit_code == 2 and json.loads(other.stdout) == report
    rules = Counter(f["rule"] for f in report["findings"])
    assert "TW512" not in rules
    legacy = [f for f in report["findings"] if "legacy" in f["file"]]
    assert legacy and not any(f["rule"] == "TW102" for f in legacy)
    if "--select" in flags:
        assert set(rules) <= {"TW102", "TW403", "TW113", "TW010", "TW001", "TW002"}
    if "--severity" in flags:
        assert {f["severity"] for f in report["findings"] if f["rule"].startswith("TW4")} \
            == {"info"}


@pytest.mark.parametrize(("name", "text"), [
    ("pyproject.toml", '[tool.teamwire.lint]\nper-file-ignore = {}\n'),
    ("teamwire.toml", '[lint]\nselcet = ["TW1"]\n')])
def test_misspelt_lint_setting_stops_the_run(corpus: Path, name: str, text: str) -> None:
    Path(name).write_text(text, encoding="utf-8")
    result = invoke("lint", "broken.json")
    assert result.exit_code == 2
    assert "did you mean" in result.stderr and result.stdout == ""


@pytest.mark.parametrize(("name", "text"), [
    ("pyproject.toml", '[tool.teamwire]\nignroe = ["TW1"]\nprofile = "strict"\n'
                       '[tool.teamwire.router]\ntimeout = 3\n[tool.teamwire.lint]\n'),
    ("teamwire.toml", 'ignroe = ["TW1"]\n[router]\ntimeout = 3\n')])
def test_stray_plain_value_warns_and_the_run_goes_on(corpus: Path, name: str,
                                                      text: str) -> None:
    Path(name).write_text(text, encoding="utf-8")
    result = invoke("lint", "-f", "json", "broken.json")
    assert result.exit_code == 1
    assert any(f["rule"] == "TW102" for f in json.loads(result.stdout)["findings"])
    assert "warning:" in result.stderr and "'ignroe' (did you mean 'ignore'?)" in result.stderr
    assert "router" not in result.stderr and "timeout" not in result.stderr
    Path(name).write_text(text.replace("ignroe", "ignore"), encoding="utf-8")
    clean = invoke("lint", "broken.json")
    assert clean.exit_code == 1 and clean.stderr == ""
    assert "TW102" not in clean.stdout


@pytest.mark.parametrize(("typed", "hint"), [
    ("name-mismach", "did you mean 'name-mismatch'?"), ("NAME-MISMATCH", "'name-mismatch'"),
    ("TW1022", "did you mean 'TW102'?"), ("TW10", "TW101, TW102"), ("tw40", "TW401"),
    ("xyzzy", "teamwire rule --all")])
def test_rule_with_a_mistyped_name_hints(typed: str, hint: str) -> None:
    result = invoke("rule", typed)
    assert result.exit_code == 2 and hint in result.stderr and result.stdout == ""
    assert invoke("rule", "-f", "json", typed).exit_code == 2


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_near_miss_selector_is_a_usage_error_with_a_hint(corpus: Path, option: str) -> None:
    result = invoke("lint", option, "leader-tool-by-subagent", "broken.json")
    assert result.exit_code == 2
    assert "did you mean 'leader-tool-by-sub-agent'?" in result.output


def test_one_file_named_two_ways_is_linted_once(corpus: Path) -> None:
    _, issues = gitlab("broken.json", "./broken.json")
    once = gitlab("broken.json")[1]
    assert len(issues) == len(once)


def test_gitlab_fingerprint_does_not_depend_on_how_the_path_was_given(corpus: Path) -> None:
    named = {i["fingerprint"] for i in gitlab("broken.json")[1]}
    walked = {i["fingerprint"] for i in gitlab(".")[1] if i["location"]["path"] == "broken.json"}
    assert named == walked


@pytest.mark.parametrize(("typed", "meant"), [("TW1O2", "TW102"), ("TW4O1", "TW401")])
def test_code_typed_with_letter_o_hints_the_right_rule(typed: str, meant: str) -> None:
    result = invoke("rule", typed)
    assert result.exit_code == 2 and f"did you mean {meant!r}?" in result.stderr


def test_misspelt_inline_table_setting_warns(corpus: Path) -> None:
    Path("pyproject.toml").write_text('[tool.teamwire]\nseverty = { TW1 = "info" }\n',
                                      encoding="utf-8")
    result = invoke("lint", "broken.json")
    assert "did you mean 'severity'?" in result.stderr


def test_json_findings_carry_the_gitlab_and_sarif_fingerprints(corpus: Path) -> None:
    data = json.loads(invoke("lint", "-f", "json", ".").stdout)
    prints = [f["fingerprint"] for f in data["findings"]]
    assert prints and all(re.fullmatch("[0-9a-f]{32}", p) for p in prints)
    assert len(set(prints)) == len(prints)
    assert prints == [issue["fingerprint"] for issue in gitlab(".")[1]]
    assert schemas.validate("lint-findings", data) == []
    data["findings"][0]["fingerprint"] = "ABC"
    assert schemas.validate("lint-findings", data) != []
    sarif = json.loads(invoke("lint", "-f", "sarif", ".").stdout)
    assert prints == [r["partialFingerprints"]["teamwireFinding/v1"]
                      for r in sarif["runs"][0]["results"]]


def test_json_report_lists_the_files_a_search_skipped(corpus: Path) -> None:
    (corpus / "package.json").write_text('{"name": "x"}', encoding="utf-8")
    data = json.loads(invoke("lint", "-f", "json", ".").stdout)
    assert data["skipped"] == [{"file": "./package.json",
                                "reason": "a JSON object with no 'agents' or 'teamwire' member"}]
    assert all(f["file"] != "./package.json" for f in data["findings"])
    assert schemas.validate("lint-findings", data) == []
    named = json.loads(invoke("lint", "-f", "json", "package.json").stdout)
    assert "skipped" not in named and named["findings"][0]["rule"] == "TW003"
    bad = {**data, "skipped": [{"file": "x.json", "reason": ""}]}
    assert schemas.validate("lint-findings", bad) != []
