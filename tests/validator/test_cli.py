"""The lint and rule commands: inputs, options, configuration, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire.cli import main
from teamwire.validator.runner import batches


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_clean_file_exits_zero(files: dict[str, Path]) -> None:
    code, out = run("lint", str(files["clean"]))
    assert code == 0
    assert "All checks passed" in out


def test_errors_exit_one_and_exit_zero_overrides(files: dict[str, Path]) -> None:
    assert run("lint", str(files["broken"]))[0] == 1
    assert run("lint", "--exit-zero", str(files["broken"]))[0] == 0


def test_missing_path_exits_two_with_a_finding(files: dict[str, Path]) -> None:
    code, out = run("lint", "-f", "json", str(files["clean"]), "nope.json")
    assert code == 2
    assert '"TW010"' in out


def test_usage_errors_exit_two(files: dict[str, Path]) -> None:
    assert run("lint")[0] == 2
    assert run("lint", "--select", "XX9", str(files["clean"]))[0] == 2
    assert run("lint", "--agent", "Bad<Name>", str(files["clean"]))[0] == 2
    assert run("lint", "--severity", "TW101", str(files["clean"]))[0] == 2


def test_directory_is_searched_recursively(tmp_path: Path, files: dict[str, Path]) -> None:
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    (sub / "conv.jsonl").write_text('{"role": "user", "content": "[系统通知|x] y"}\n',
                                    encoding="utf-8")
    (sub / "notes.txt").write_text("not linted", encoding="utf-8")
    code, out = run("lint", "-f", "json", str(tmp_path))
    data = json.loads(out)
    assert code == 1
    assert data["summary"]["files"] == 3
    assert any(f["rule"] == "TW113" and f["file"].endswith("conv.jsonl") for f in data["findings"])


def test_stdin_bundle_and_jsonl(clean_bundle: dict[str, object]) -> None:
    code, out = run("lint", "-", stdin=json.dumps(clean_bundle).encode())
    assert code == 0, out
    jsonl = b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    code, out = run("lint", "--agent", "UI Operator_1", "-", stdin=jsonl)
    assert code == 0, out
    code, out = run("lint", "-f", "json", "--stdin-filename", "x.jsonl", "-",
                    stdin=b'{"role": "robot"}\n')
    assert json.loads(out)["findings"][0]["file"] == "x.jsonl"


def test_stdin_findings_get_the_file_lines_a_file_gets(files: dict[str, Path]) -> None:
    # Standard input cannot be read again: its bytes place the findings instead.
    data = files["broken"].read_bytes()
    for fmt in ("text", "github", "sarif", "gitlab"):
        named = run("lint", "-f", fmt, str(files["broken"]))[1]
        piped = run("lint", "-f", fmt, "--stdin-filename", str(files["broken"]), "-",
                    stdin=data)[1]
        assert piped == named, fmt
    text = run("lint", "-", stdin=data)[1]
    assert text.startswith("<stdin>:") and text.split(":")[1].strip().isdigit()
    assert run("lint", "--stdin-filename", " ", "-", stdin=data)[1] == text


def test_select_ignore_and_severity(files: dict[str, Path]) -> None:
    path = str(files["broken"])
    def codes(out: str) -> set[str]:
        return {f["rule"] for f in json.loads(out)["findings"]}

    assert codes(run("lint", "-f", "json", "--select", "TW4", path)[1]) == {"TW401", "TW403"}
    assert "TW403" not in codes(run("lint", "-f", "json", "--ignore", "leader-tool-by-sub-agent",
                                    path)[1])
    code, _ = run("lint", "--select", "TW403", "--severity", "TW403=warning", path)
    assert code == 0


def test_parallel_jobs_keep_the_order(files: dict[str, Path]) -> None:
    paths = [str(files["broken"]), str(files["clean"]), str(files["broken"])]
    one = json.loads(run("lint", "-f", "json", *paths)[1])
    two = json.loads(run("lint", "-f", "json", "-j", "2", *paths)[1])
    assert one == two


def test_parallel_batches_of_small_files_keep_order_and_options(
        tmp_path: Path, files: dict[str, Path]) -> None:
    # Many small files travel to the workers in batches; the options reach every worker.
    paths = []
    for n in range(40):
        path = tmp_path / f"{n:02d}.json"
        path.write_bytes(files["broken" if n % 3 else "clean"].read_bytes())
        paths.append(str(path))
    for flags in ([], ["--ignore", "TW102", "--profile", "astrion"]):
        one = json.loads(run("lint", "-f", "json", *flags, *paths)[1])
        two = json.loads(run("lint", "-f", "json", "-j", "2", *flags, *paths)[1])
        assert one == two
        assert [f["file"] for f in one["findings"]] == sorted(f["file"] for f in one["findings"])
    assert "TW102" not in {f["rule"] for f in two["findings"]}


@settings(max_examples=200)
@given(st.lists(st.integers(0, 3 << 20), max_size=60), st.integers(1, 8))
def test_batches_cover_every_file_once_in_order(sizes: list[int], workers: int) -> None:
    pending = list(range(len(sizes)))
    cut = batches(pending, sizes, workers)
    assert [entry for batch in cut for entry in batch] == pending
    assert all(cut)
    for batch in cut:
        held = sum(sizes[i] for i in batch)
        assert len(batch) == 1 or held <= 1 << 20
    if sum(sizes) >= workers * 8 << 20:  # large input: every worker gets work
        assert len(cut) >= workers


def test_pyproject_configuration(tmp_path: Path, files: dict[str, Path],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.teamwire]\nprofile = "strict"\n\n[tool.teamwire.lint]\nignore = ["TW1"]\n'
        'severity = { TW403 = "warning" }\n[tool.teamwire.lint.per-file-ignores]\n'
        '"broken.json" = ["TW401"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _code, out = run("lint", "-f", "json", str(files["broken"]))
    data = json.loads(out)
    rules = {f["rule"]: f["severity"] for f in data["findings"]}
    assert "TW102" not in rules and "TW401" not in rules
    assert rules.get("TW403") == "warning"


def test_teamwire_toml_and_flags_override(tmp_path: Path, files: dict[str, Path]) -> None:
    config = tmp_path / "teamwire.toml"
    config.write_text('[lint]\nselect = ["TW6"]\n', encoding="utf-8")
    code, _ = run("lint", "--config", str(config), str(files["broken"]))
    assert code == 0
    code, _ = run("lint", "--config", str(config), "--select", "ALL", str(files["broken"]))
    assert code == 1
    code, _ = run("lint", "--config", str(config), "--isolated", str(files["broken"]))
    assert code == 1


def test_bad_configuration_exits_two(tmp_path: Path, files: dict[str, Path]) -> None:
    config = tmp_path / "teamwire.toml"
    config.write_text('[lint]\nselct = ["TW6"]\n', encoding="utf-8")
    code, out = run("lint", "--config", str(config), str(files["clean"]))
    assert code == 2 and "unknown lint setting" in out and "did you mean 'select'?" in out
    config.write_text("[lint\n", encoding="utf-8")
    assert run("lint", "--config", str(config), str(files["clean"]))[0] == 2


def test_stray_top_level_settings_warn(tmp_path: Path, files: dict[str, Path]) -> None:
    # A plain value beside the tables that is no lint setting is most likely misspelt: the run
    # goes on, with a warning; tables (other teamwire settings) pass unremarked.
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.teamwire]\nignor = ["TW1"]\nprofile = "strict"\n'
                      "[tool.teamwire.router]\nstore = 'x'\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", "--config", str(config), str(files["broken"])])
    assert result.exit_code == 1
    assert "'ignor' (did you mean 'ignore'?), which is not a lint setting" in result.stderr
    assert "router" not in result.stderr and "profile" not in result.stderr
    assert "TW1" in result.stdout  # ignored, so TW1 rules still report


def test_output_file(tmp_path: Path, files: dict[str, Path]) -> None:
    out = tmp_path / "report.sarif"
    code, _ = run("lint", "-f", "sarif", "-o", str(out), str(files["broken"]))
    assert code == 1
    assert json.loads(out.read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_statistics_count_findings_per_rule(tmp_path: Path, files: dict[str, Path]) -> None:
    code, listed = run("lint", "-f", "json", str(files["broken"]), str(files["broken"]))
    counts: dict[str, int] = {}
    for finding in json.loads(listed)["findings"]:
        counts[finding["rule"]] = counts.get(finding["rule"], 0) + 1
    code, out = run("lint", "--statistics", str(files["broken"]), str(files["broken"]))
    assert code == 1  # the verdict is the findings', whatever is printed
    rows = [line.split() for line in out.splitlines()[:-1]]
    assert {row[1]: int(row[0]) for row in rows} == counts
    assert [int(row[0]) for row in rows] == sorted((int(row[0]) for row in rows), reverse=True)
    assert all(row[3] in ("[error]", "[warning]", "[info]") for row in rows)
    assert out.splitlines()[-1].startswith("Found ")
    assert run("lint", "--statistics", "-q", str(files["broken"]))[1].count("\n") == len(
        {f["rule"] for f in json.loads(listed)["findings"]})
    messages = json.loads(run("lint", "-f", "json", str(files["clean"]))[1])["summary"]["messages"]
    assert run("lint", "--statistics", str(files["clean"])) == (
        0, f"All checks passed (1 file, {messages} messages).\n")
    code, out = run("lint", "--statistics", "-f", "sarif", str(files["broken"]))
    assert code == 2 and "--statistics prints text" in out


def test_rule_command() -> None:
    code, out = run("rule", "TW101")
    assert code == 0 and out.startswith("# TW101 envelope-syntax")
    code, out = run("rule", "forged-header")
    assert code == 0 and "TW601" in out
    code, out = run("rule", "--all")
    assert code == 0 and len(out.splitlines()) >= 70
    off = [line for line in out.splitlines() if line.endswith("(off by default)")]
    assert [line.split()[0] for line in off] == ["TW011"]
    code, out = run("rule", "--all", "-f", "json")
    rules = json.loads(out)["rules"]
    assert rules[0]["code"] == "TW001"
    assert [r["code"] for r in rules if not r["default"]] == ["TW011"]
    assert "Off by default" in run("rule", "TW011")[1]
    assert run("rule", "TW999")[0] == 2
    assert run("rule")[0] == 2


def test_a_report_written_into_a_searched_directory_is_not_linted_next_time(
        tmp_path: Path, files: dict[str, Path]) -> None:
    target = tmp_path / "t"
    target.mkdir()
    (target / "broken.json").write_bytes(files["broken"].read_bytes())
    report = target / "report.json"
    first = run("lint", "-f", "gitlab", "-o", str(report), str(target))
    second = run("lint", "-f", "gitlab", "-o", str(report), str(target))
    assert first == second and first[0] == 1
    assert json.loads(report.read_text(encoding="utf-8"))
    # named on the command line, it is linted like any file
    _code, out = run("lint", "-f", "json", str(report))
    assert str(report) in {f["file"] for f in json.loads(out)["findings"]}


def test_directories_are_searched_once_and_missing_paths_keep_their_place(
        tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import teamwire.validator.runner as runner

    walked: list[str] = []
    walk = runner._walk

    def counted(root: str, *args: Any) -> list[runner.Input]:
        walked.append(root)
        return walk(root, *args)

    monkeypatch.setattr(runner, "_walk", counted)
    sub = tmp_path / "in"
    sub.mkdir()
    (sub / "a.json").write_bytes(files["clean"].read_bytes())
    report = tmp_path / "report.json"
    code, _ = run("lint", "-f", "json", "-o", str(report), str(sub), "gone.json",
                  str(files["broken"]))
    assert walked == [str(sub)]
    assert code == 2
    order = [f["file"] for f in json.loads(report.read_text(encoding="utf-8"))["findings"]]
    assert order.count("gone.json") == 1
    assert order.index("gone.json") < order.index(str(files["broken"]))


def test_every_file_excluded_says_so(tmp_path: Path, files: dict[str, Path],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fx").mkdir()
    (tmp_path / "fx" / "a.json").write_bytes(files["clean"].read_bytes())
    result = CliRunner().invoke(main, ["lint", "--exclude", "fx/**", "fx"])
    assert result.exit_code == 2  # nothing linted: a CI job that checks nothing fails
    assert "every *.json and *.jsonl file in fx matches an exclude glob" in result.stderr
    result = CliRunner().invoke(main, ["lint", "--allow-empty", "--exclude", "fx/**", "fx"])
    assert result.exit_code == 0
    result = CliRunner().invoke(main, ["lint", str(tmp_path / "nothing-here")])
    assert result.exit_code == 2


def test_an_unknown_profile_names_where_it_was_set(tmp_path: Path,
                                                   files: dict[str, Path]) -> None:
    config = tmp_path / "teamwire.toml"
    config.write_text('profile = "astrio"\n', encoding="utf-8")
    code, out = run("lint", "--config", str(config), str(files["clean"]))
    assert code == 2 and str(config) in out and "did you mean 'astrion'?" in out


def test_mistyped_rules_get_a_hint(files: dict[str, Path]) -> None:
    assert "'teamwire rule --all' lists every rule" in run("rule", "ALL")[1]
    assert "did you mean 'id-shape'?" in run("rule", "id-shap")[1]
    code, out = run("rule", "TW10")
    assert code == 2 and "TW101, TW102" in out
    assert "'teamwire rule --all' lists them" in run("rule", "qqq")[1]
    code, out = run("lint", "--select", "envelop-syntax", str(files["clean"]))
    assert code == 2 and "did you mean 'envelope-syntax'?" in out


def test_progress_bar_advances_by_bytes() -> None:
    from teamwire.cli.lint_cmd import _progress_bar
    from teamwire.validator import FileReport

    with _progress_bar(100, True) as progress:
        assert progress is not None
        progress(FileReport("a.json"), 60)
        progress(FileReport("b.json"), 40)
    with _progress_bar(100, False) as progress:
        assert progress is None


def test_the_reference_routers_demo_bundle_lints_clean(tmp_path: Path) -> None:
    demo = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path), "--quiet"])
    bundle = tmp_path / "bundle.json"
    if demo.exit_code != 0 or not bundle.exists():
        pytest.skip("the demo did not produce a bundle")
    for profile in ("strict", "astrion"):
        code, out = run("lint", "--profile", profile, str(bundle))
        assert code == 0 and "All checks passed" in out, out


_IMPORTS_OF_A_RUN = """
import sys
from teamwire.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
heavy = sorted(m for m in ("lark", "jsonschema", "referencing") if m in sys.modules)
print(code, " ".join(heavy) or "-")
"""


def _heavy_imports(*args: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _IMPORTS_OF_A_RUN, *args], capture_output=True,
                          text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def test_linting_clean_input_loads_neither_lark_nor_jsonschema(files: dict[str, Path]) -> None:
    # They would add a large share to the start of every run (a pre-commit hook runs on each
    # commit): the fast paths decide clean input without them.
    assert _heavy_imports("lint", "-q", str(files["clean"])) == "0 -"



def test_findings_that_need_jsonschema_load_it_and_a_malformed_envelope_needs_no_lark(
        tmp_path: Path) -> None:
    # Where a malformed envelope is wrong is the spec's definition, found without the Lark
    # parser (teamwire.envelope.syntax_error).
    cut_short = {"role": "user", "content": "来自 Team Leader 的任务发布\nid: task_001\n\n"
                 "<Team Leader>\n<Task>\nDesign the palette."}
    path = tmp_path / "sub.json"
    path.write_text(json.dumps([cut_short]), encoding="utf-8")
    assert _heavy_imports("lint", "-q", "--agent", "UI Operator_1", str(path)) == "1 -"
    wrong_type = {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function", "function": {
            "name": "create_sub_agent", "arguments": json.dumps({"role_id": 5})}}]}
    path.write_text(json.dumps([wrong_type]), encoding="utf-8")
    assert _heavy_imports("lint", "-q", "--agent", "Team Leader", str(path)) \
        == "1 jsonschema referencing"


def test_python_dash_m_teamwire_runs_the_command() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "teamwire", "--version"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0
    assert done.stdout.startswith("teamwire")


def run_json(*args: str) -> tuple[int, Any]:
    result = CliRunner().invoke(main, ["lint", "-f", "json", *args])
    return result.exit_code, json.loads(result.stdout)


def test_report_keeps_the_order_of_the_inputs_missing_ones_included(
        files: dict[str, Path]) -> None:
    code, report = run_json(str(files["clean"]), "nope.json", str(files["broken"]))
    assert code == 2
    order = list(dict.fromkeys(f["file"] for f in report["findings"]))
    assert order == ["nope.json", str(files["broken"])]  # the clean file has no findings
    missing = next(f for f in report["findings"] if f["file"] == "nope.json")
    assert missing["message"] == "cannot read nope.json: No such file or directory"


def test_exclude_globs_match_paths_relative_to_the_configuration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "fixtures" / "a").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    faulty = '[{"role": "robot", "content": "x"}]'  # a conversation with a TW004 finding
    (tmp_path / "fixtures" / "a" / "x.json").write_text(faulty, encoding="utf-8")
    (tmp_path / "sub" / "x.json").write_text(faulty, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.teamwire.lint]\nexclude = ["fixtures/**"]\n',
                                             encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for target in (".", str(tmp_path), "./"):
        linted = {f["file"] for f in run_json(target)[1]["findings"]}
        assert linted and all("fixtures" not in name for name in linted), (target, linted)
    monkeypatch.chdir(tmp_path / "sub")
    found = run_json("--config", "../pyproject.toml", "..")[1]["findings"]
    assert found and all("fixtures" not in f["file"] for f in found)
    found = run_json("--isolated", "--exclude", "fixtures/**", "..")[1]["findings"]
    assert any("fixtures" in f["file"] for f in found)  # relative to the working directory


def test_a_bad_severity_flag_is_blamed_on_the_flag(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.teamwire.lint]\n", encoding="utf-8")
    (tmp_path / "s.json").write_text("[]", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["lint", "--severity", "TW1=fatal", "s.json"])
    assert result.exit_code == 2
    assert "--severity: severity 'fatal' of 'TW1'" in result.output
    (tmp_path / "pyproject.toml").write_text(
        '[tool.teamwire.lint.severity]\nTW1 = "fatal"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", "s.json"])
    assert "pyproject.toml: severity 'fatal'" in result.output


def test_a_directory_without_transcripts_warns(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["lint", str(tmp_path)])
    assert result.exit_code == 2
    assert "warning: no *.json or *.jsonl files found in" in result.output
    assert "error: nothing was linted (no file found); --allow-empty accepts that" \
        in result.output
    assert "All checks passed" not in result.output
    assert CliRunner().invoke(main, ["lint", "--allow-empty", str(tmp_path)]).exit_code == 0


def test_a_directory_of_files_that_are_no_transcripts_is_no_pass(tmp_path: Path) -> None:
    """A data directory in another tool's format: every JSON file found is skipped, so the
    run checked nothing and must not pass as clean."""
    (tmp_path / "workspaces.json").write_text('{"workspaces": ["default"]}', encoding="utf-8")
    (tmp_path / "settings.json").write_text('{"theme": "dark"}', encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", str(tmp_path)])
    assert result.exit_code == 2
    assert "nothing was linted (2 files found, none a transcript)" in result.stderr
    allowed = CliRunner().invoke(main, ["lint", "--allow-empty", str(tmp_path)])
    assert allowed.exit_code == 0


def test_a_reader_that_stops_early_leaves_the_verdict(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "many.json"
    path.write_text(json.dumps([{"role": "nobody", "content": "x"}] * 3000), encoding="utf-8")
    for flags, verdict in ((["--exit-zero"], 0), ([], 1)):
        run_ = subprocess.Popen([sys.executable, "-m", "teamwire", "lint", *flags, str(path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert run_.stdout is not None and run_.stderr is not None
        run_.stdout.read(1)
        run_.stdout.close()  # the reader goes away with most of the report unread
        errors = run_.stderr.read()
        assert run_.wait() == verdict
        assert b"Traceback" not in errors and b"Broken pipe" not in errors


def test_show_settings_reports_the_merged_configuration(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.teamwire]\nprofile = "astrion"\n[tool.teamwire.lint]\nignore = ["TW111"]\n'
        'exclude = ["fixtures/**"]\nseverity = { TW509 = "error" }\n'
        'per-file-ignores = { "legacy/**" = ["TW113"] }\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out = run("lint", "--show-settings", "--ignore", "TW112", ".")
    rows = dict(line.split(None, 1) for line in out.splitlines() if line.strip())
    assert code == 0
    assert rows["config"] == str(tmp_path / "pyproject.toml")
    assert rows["profile"] == "astrion"
    assert rows["off"] == "TW011, TW111, TW112"  # TW011 is off by default
    assert rows["severity"] == "TW509=error (default warning)"
    assert rows["per-file-ignores"] == "legacy/** -> TW113"
    assert rows["exclude"] == "fixtures/**"
    assert "All checks passed" not in out  # nothing was linted


def test_show_files_lists_what_a_run_would_lint(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    tmp_path = tmp_path / "show"
    for name in ("b.json", "a.jsonl", "skip/c.json", ".hidden/d.json", "e.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("[]", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out = run("lint", "--isolated", "--show-files", "--exclude", "skip/**", ".", "b.json",
                    "-", "--stdin-filename", "in.jsonl")
    assert code == 0
    assert out.splitlines() == ["./a.jsonl", "./b.json", "in.jsonl"]
    code, out = run("lint", "--isolated", "--show-files", "gone.json", "b.json")
    assert code == 2
    assert "b.json" in out.splitlines()
    assert "cannot read gone.json" in out
