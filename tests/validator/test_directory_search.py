"""What a directory search lints: transcripts, and not the other JSON a repository holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire.cli import main
from teamwire.validator import Severity, lint_bytes, lint_file, lint_paths
from teamwire.validator.runner import Found, find_inputs

OTHERS = {
    "package.json": {"name": "web", "version": "1.0.0"},
    "tsconfig.json": {"compilerOptions": {"strict": True}},
    "data/numbers.json": [1, 2, 3],
    "data/rows.json": [{"id": 1}, {"id": 2}],
    "data/title.json": "a string",
}


@pytest.fixture()
def repo(tmp_path: Path, files: dict[str, Path]) -> Path:
    """A repository with two transcripts, a broken JSON file and JSON of other kinds."""
    root = tmp_path / "repo"
    for name, value in OTHERS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(value), encoding="utf-8")
    (root / "runs").mkdir()
    (root / "runs" / "clean.json").write_bytes(files["clean"].read_bytes())
    (root / "runs" / "broken.json").write_bytes(files["broken"].read_bytes())
    (root / "runs" / "events.jsonl").write_text(
        '{"seq": 1, "event": "enqueued", "message": {}}\n{"seq": 2, "event": "consumed"}\n',
        encoding="utf-8")
    (root / "runs" / "cut.json").write_text('{"teamwire": "1.0", "agents": {', encoding="utf-8")
    return root


def invoke(*args: str) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(main, ["lint", "-f", "json", *args])
    return result.exit_code, json.loads(result.stdout), result.stderr


def test_other_json_found_in_a_directory_is_skipped_with_a_note(repo: Path) -> None:
    code, report, err = invoke(str(repo))
    linted = {Path(f["file"]).name for f in report["findings"]}
    assert code == 1
    assert report["summary"]["files"] == 3  # clean, broken, cut
    assert linted == {"broken.json", "cut.json"}
    assert "6 files found in directories are no transcripts, skipped" in err
    assert "package.json: a JSON object with no 'agents' or 'teamwire' member" in err
    assert "numbers.json: a JSON array with no message in it" in err
    assert "and 1 more" in err  # five are named, the rest counted
    err = invoke(str(repo / "runs"))[2]
    assert "1 file found in directories is no transcript" in err
    assert "events.jsonl: a teamwire event log; lint the session bundle instead" in err


def test_a_file_named_on_the_command_line_is_linted_whatever_its_shape(repo: Path) -> None:
    package = str(repo / "package.json")
    code, report, err = invoke(str(repo), package)
    assert code == 1
    rules = {(Path(f["file"]).name, f["rule"]) for f in report["findings"]}
    assert ("package.json", "TW003") in rules
    assert "package.json" not in err
    # Named, it keeps the place the search gave it, ahead of the runs/ directory.
    order = [Path(f["file"]).name for f in report["findings"]]
    assert order.index("package.json") < order.index("broken.json")


def test_quiet_drops_the_note_and_jobs_skip_alike(repo: Path) -> None:
    one = invoke("-q", str(repo))
    two = invoke("-q", "-j", "2", str(repo))
    assert one[2] == two[2] == ""
    assert one[:2] == two[:2]


def test_skipped_files_are_apart_from_the_report(repo: Path) -> None:
    inputs = find_inputs([str(repo), str(repo / "tsconfig.json")])
    assert len(inputs) == 9
    assert [i for i in inputs if not isinstance(i, Found)] == [str(repo / "tsconfig.json")]
    report = lint_paths([str(repo)])
    assert len(report.files) == 3 and len(report.skipped) == 6
    assert all(r.skipped and not r.findings for r in report.skipped)


@pytest.mark.parametrize(("text", "jsonl", "skipped"), [
    ("[]", False, False),                           # an empty conversation
    ('{"role": "user", "content": "x"}', False, False),  # one message: TW003 says so
    ('{"agents": 3}', False, False),                # a broken bundle
    ('{"teamwire": "1.0"}', False, False),
    ('[{"role": "user", "content": "x"}, 5]', False, False),
    ('[{"id": 1}]', False, True),
    ("null", False, True),
    ('{"agent": {}}', False, True),
    ('{"x": 1}\n{"y": 2}\n', True, True),           # JSON Lines of something else
    ("[1]\n", True, True),
    ('{"role": "user", "content": "x"}\n', True, False),
    ("\n{not json\n", True, False),                 # TW001 says so
    ("", True, False),
    ('{"x":', False, False),                        # TW001 says so
])
def test_what_counts_as_plainly_no_transcript(tmp_path: Path, text: str, jsonl: bool,
                                              skipped: bool) -> None:
    path = tmp_path / ("f.jsonl" if jsonl else "f.json")
    path.write_text(text, encoding="utf-8")
    searched = lint_file(str(path), searched=True)
    assert (searched.skipped is not None) is skipped
    if not skipped:
        assert searched == lint_file(str(path))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["role", "agents", "teamwire", "content", "x"]), inner,
                      max_size=3),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_only_input_that_would_fail_is_skipped(value: Any) -> None:
    data = orjson.dumps(value)
    searched = lint_bytes(data, "f.json", jsonl=False, searched=True)
    named = lint_bytes(data, "f.json", jsonl=False)
    if searched.skipped is None:
        assert searched == named
    else:
        assert not searched.findings
        assert any(f.severity is Severity.ERROR for f in named.findings)


@pytest.fixture()
def work_tree(tmp_path: Path) -> Path:
    """A git work tree whose .gitignore files, and .git/info/exclude, ignore some JSON."""
    root = tmp_path / "tree"
    files = {
        ".gitignore": "node_modules/\n*.tmp.json\n!keep.tmp.json\n",
        ".git/info/exclude": "secret.json\n",
        "sub/.gitignore": "local.json\n",
        "node_modules/pkg/run.json": "[]",
        "a.tmp.json": "[]",
        "keep.tmp.json": "[]",
        "secret.json": "[]",
        "sub/local.json": "[]",
        "sub/run.json": "[]",
        "local.json": "[]",  # ignored only below sub/
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def shown(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["lint", "--isolated", "--show-files", *args])
    return result.exit_code, sorted(result.stdout.split())


def test_a_search_passes_over_what_git_ignores(work_tree: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work_tree)
    assert shown(".") == (0, ["./keep.tmp.json", "./local.json", "./sub/run.json"])
    assert shown("sub") == (0, ["sub/run.json"])
    everything = shown("--no-respect-gitignore", ".")[1]
    assert len(everything) == 7 and "./node_modules/pkg/run.json" in everything
    # A file named on the command line is read whatever git ignores, and so is a directory.
    assert shown("secret.json", "sub/local.json") == (0, ["secret.json", "sub/local.json"])
    assert shown("node_modules") == (0, ["node_modules/pkg/run.json"])


def test_respect_gitignore_is_a_setting(work_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (work_tree / "teamwire.toml").write_text("[lint]\nrespect-gitignore = false\n",
                                             encoding="utf-8")
    monkeypatch.chdir(work_tree)
    result = CliRunner().invoke(main, ["lint", "--show-files", "--show-settings", "."])
    assert "respect-gitignore  false" in result.stdout
    assert "./secret.json" in result.stdout
    (work_tree / "teamwire.toml").write_text('[lint]\nrespect-gitignore = "no"\n',
                                             encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", "."])
    assert result.exit_code == 2
    assert "respect-gitignore must be true or false" in result.stderr


def test_outside_a_work_tree_gitignore_files_mean_nothing(work_tree: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    for item in sorted((work_tree / ".git").rglob("*"), reverse=True):
        item.unlink() if item.is_file() else item.rmdir()
    (work_tree / ".git").rmdir()
    monkeypatch.chdir(work_tree)
    assert len(shown(".")[1]) == 7


def tree(root: Path, files: dict[str, str], repos: tuple[str, ...] = (".",)) -> Path:
    """``files`` under ``root``; each of ``repos`` a git work tree (a .git directory)."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    for repo in repos:
        (root / repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    return root


def test_contents_patterns_leave_the_directory_and_take_back_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # keep/** names what is inside keep, not keep: !*.json takes keep/a.json back, while
    # keep/sub is ignored, and nothing below an ignored directory can be taken back.
    tree(tmp_path, {".gitignore": "keep/**\n!*.json\n", "keep/a.json": "[]",
                    "keep/sub/b.json": "[]"})
    monkeypatch.chdir(tmp_path)
    assert shown(".")[1] == ["./keep/a.json"]


def test_what_git_ignores_below_a_named_ignored_directory_is_passed_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path, {".gitignore": "out/\n*.tmp.json\n", "out/.gitignore": "a.json\n",
                    "out/a.json": "[]", "out/b.tmp.json": "[]", "out/c.json": "[]",
                    "out/x/out/d.json": "[]", "out/x/e.json": "[]"})
    monkeypatch.chdir(tmp_path)
    assert shown("out")[1] == ["out/c.json", "out/x/e.json"]
    assert shown("out/x")[1] == ["out/x/e.json"]
    assert shown(".")[1] == []


def test_each_work_tree_keeps_its_own_rules(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path, {
        "repo/.gitignore": "node_modules/\n", "repo/a.json": "[]",
        "repo/node_modules/x.json": "[]",
        ".gitignore": "gen/\nout/\n", "inner/gen/x.json": "[]", "inner/out/o.json": "[]",
        "inner/a.json": "[]", "inner/b.json": "[]", "inner/.git/info/exclude": "a.json\n",
    }, repos=(".", "repo", "inner"))
    monkeypatch.chdir(tmp_path)
    # The outer tree's gen/ and out/ mean nothing inside inner/, which has rules of its own.
    expected = ["./inner/b.json", "./inner/gen/x.json", "./inner/out/o.json", "./repo/a.json"]
    assert shown(".")[1] == expected
    assert shown("inner")[1] == ["inner/b.json", "inner/gen/x.json", "inner/out/o.json"]
    # A search that starts above a work tree still reads that tree's rules.
    monkeypatch.chdir(tmp_path / "repo")
    assert shown("..")[1] == [p.replace("./", "../") for p in expected]


def test_no_files_to_show_prints_nothing(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["lint", "--isolated", "--show-files", str(tmp_path)])
    assert result.exit_code == 0 and result.stdout == ""


def test_a_search_git_empties_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path, {".gitignore": "*.json\n", "a.json": "[]"})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["lint", "--isolated", "."])
    assert result.exit_code == 2  # nothing linted
    assert "git ignores every *.json and *.jsonl file in ." in result.stderr
    assert "--no-respect-gitignore" in result.stderr


@pytest.mark.parametrize(("pattern", "path", "is_dir", "names"), [
    ("out/", "out", True, True), ("out/", "a/out", True, True), ("out/", "out", False, False),
    ("out/", "out/x.json", False, False),      # inside out/, not out/ itself
    ("keep/**", "keep", True, False), ("keep/**", "keep/a.json", False, True),
    ("keep/**", "keep/sub", True, True),
    ("*.json", "a/b.json", False, True), ("*.json", "b.json/c", False, False),
    ("/top.json", "top.json", False, True), ("/top.json", "a/top.json", False, False),
    ("a/**/b", "a/x/y/b", True, True), ("**", "x", False, True), ("*", "x", True, True),
])
def test_a_pattern_names_the_entry_itself(pattern: str, path: str, is_dir: bool,
                                          names: bool) -> None:
    from pathspec import GitIgnoreSpec

    from teamwire.validator.gitignore import _names

    compiled = next(iter(GitIgnoreSpec.from_lines([pattern]).patterns))
    assert _names(compiled, path, is_dir) is names


def test_an_event_log_named_on_its_own_is_one_finding_and_no_message(repo: Path) -> None:
    # The router's events.jsonl is not a conversation: TW003 at its first line says what to
    # lint instead, and none of its records counts as a message checked.
    code, report, _err = invoke(str(repo / "runs" / "events.jsonl"))
    assert code == 1
    assert [(f["rule"], f["message"]) for f in report["findings"]] == [
        ("TW003", "this is a teamwire event log (records with seq and event), not a "
                  "conversation; lint the session bundle instead")]
    assert report["summary"]["messages"] == 0
