"""Black-box checks of `teamwire lint`: what a directory search lints (other JSON, what git
ignores), --show-settings / --show-files, the json format's fingerprints and skipped files, and
how bundles with a terminated sub-agent or a peer's notification are judged."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from conformance.sources.transcripts.builders import Agent, SessionBuilder, small_session

from teamwire.cli import main
from teamwire.envelope import MessageType

ROOT = Path(__file__).resolve().parents[2]
CLEAN = json.dumps(small_session(), ensure_ascii=False, indent=1)
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def lint(*args: str) -> Any:
    return CliRunner().invoke(main, ["lint", "--isolated", *args])


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def git(root: Path, *args: str, stdin: str = "") -> str:
    return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True,
                          text=True, check=False).stdout


def shown(*args: str) -> list[str]:
    result = lint("--show-files", *args)
    assert result.exit_code == 0, result.output
    return [line for line in result.stdout.splitlines() if line]


# -- JSON that is no transcript ------------------------------------------------------------------

OTHERS = {
    "package.json": '{"name": "web", "version": "1.0.0"}',
    "rows.json": '[1, {"id": 2}]',
    "title.json": '"a string"',
    "none.json": "null",
    "events.jsonl": '{"seq": 1, "time": 0.0, "event": "TurnStarted", "data": {}}\n',
    "log.jsonl": '{"level": "info"}\n{"role": "user", "content": "hi"}\n',
}
MAYBE = {
    "empty.json": "[]",
    "broken.json": "{bad",
    "lone.json": '{"role": "user", "content": "hi"}',
    "bundle.json": '{"teamwire": "1.0"}',
}


def test_search_skips_other_json_with_a_note_and_lists_it(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"run.json": CLEAN, **OTHERS, **MAYBE})
    monkeypatch.chdir(tmp_path)
    result = lint("-f", "json", ".")
    report = json.loads(result.stdout)
    skipped = sorted(entry["file"] for entry in report["skipped"])
    assert skipped == sorted(f"./{name}" for name in OTHERS)
    assert all(entry["reason"] for entry in report["skipped"])
    linted = {finding["file"] for finding in report["findings"]}
    assert linted.isdisjoint(skipped)
    assert {"./broken.json", "./lone.json", "./bundle.json"} <= linted
    assert report["summary"]["files"] == 1 + len(MAYBE)
    assert "no transcript" in result.stderr and "./package.json" in result.stderr
    # --show-files lists what the search finds, before the shape is read.
    assert len(shown(".")) == 1 + len(OTHERS) + len(MAYBE)
    quiet = lint("-q", ".")
    assert "package.json" not in quiet.stderr


def test_skip_note_names_five_then_counts(tmp_path: Path) -> None:
    write(tmp_path, {f"p{n}.json": '{"name": "x"}' for n in range(7)})
    result = lint(str(tmp_path))
    assert result.exit_code == 2  # every file found was skipped: nothing was linted
    assert result.stderr.count("p") >= 5 and "and 2 more" in result.stderr
    assert "p5.json" not in result.stderr


@pytest.mark.parametrize("name", ["package.json", "title.json", "none.json"])
def test_named_file_of_another_shape_is_tw003(tmp_path: Path, name: str) -> None:
    write(tmp_path, {name: OTHERS[name]})
    report = json.loads(lint("-f", "json", str(tmp_path / name)).stdout)
    assert [f["rule"] for f in report["findings"]] == ["TW003"]
    assert "skipped" not in report


def test_named_router_event_log_is_one_tw003(tmp_path: Path) -> None:
    log = "".join(json.dumps({"seq": n, "time": 0.0, "event": "TurnStarted", "data": {}}) + "\n"
                  for n in range(1, 6))
    write(tmp_path, {"events.jsonl": log})
    report = json.loads(lint("-f", "json", str(tmp_path / "events.jsonl")).stdout)
    assert [f["rule"] for f in report["findings"]] == ["TW003"]


def test_stdin_is_linted_beside_a_directory(tmp_path: Path) -> None:
    write(tmp_path, {"run.json": CLEAN, "package.json": OTHERS["package.json"]})
    result = CliRunner().invoke(main, ["lint", "--isolated", "-f", "json", "-j", "2", "-",
                                       str(tmp_path)], input=OTHERS["package.json"])
    report = json.loads(result.stdout)
    assert [(f["file"], f["rule"]) for f in report["findings"]] == [("<stdin>", "TW003")]
    assert [entry["file"] for entry in report["skipped"]] == [str(tmp_path / "package.json")]
    assert report["summary"]["files"] == 2


# -- what git ignores ----------------------------------------------------------------------------

TREE = ["a.json", "node_modules/x.json", "build/out.json", "keep/build/y.json", "sub/a.json",
        "sub/b.json", "sub/deep/c.json", "sub/deep/keep.json", "docs/x.jsonl", "logs/1.json",
        "logs/important/2.json", "sp ace/f.json", "neg/a.json", "neg/b.json", "star/q.json",
        "excl/x.json", "nested/inner/z.json", "out/a.b.json"]
ROOT_IGNORE = "node_modules/\n/build\nlogs/*\n!logs/important/\n*.jsonl\nneg/*.json\n" \
              "!neg/b.json\nstar/**\n*.b.json\n"


@pytest.fixture()
def work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", ".")
    write(root, dict.fromkeys(TREE, "[]"))
    write(root, {".gitignore": ROOT_IGNORE, "sub/.gitignore": "b.json\ndeep/*\n!deep/keep.json\n",
                 ".git/info/exclude": "excl/\n"})
    monkeypatch.chdir(root)
    return root


def git_kept(root: Path, files: list[str]) -> list[str]:
    ignored = set(git(root, "check-ignore", "--stdin", stdin="\n".join(files)).split())
    return sorted(name for name in files if name not in ignored)


@needs_git
def test_search_passes_over_what_git_ignores(work_tree: Path) -> None:
    expected = git_kept(work_tree, TREE)
    assert "logs/important/2.json" in expected and "sub/deep/keep.json" in expected
    assert sorted(name.removeprefix("./") for name in shown(".")) == expected
    assert sorted(shown(str(work_tree))) == [str(work_tree / name) for name in expected]
    assert shown("sub") == ["sub/a.json", "sub/deep/keep.json"]
    assert shown("./sub/") == ["./sub/a.json", "./sub/deep/keep.json"]


@needs_git
def test_search_from_a_subdirectory_uses_the_ignores_above(work_tree: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work_tree / "sub")
    assert shown(".") == ["./a.json", "./deep/keep.json"]
    assert shown("../neg") == ["../neg/b.json"]


@needs_git
def test_respect_gitignore_off(work_tree: Path) -> None:
    everything = sorted(f"./{name}" for name in TREE)
    assert sorted(shown("--no-respect-gitignore", ".")) == everything
    (work_tree / "teamwire.toml").write_text("[lint]\nrespect-gitignore = false\n")
    result = CliRunner().invoke(main, ["lint", "--show-files", "--show-settings", "."])
    assert "respect-gitignore  false" in result.stdout
    assert sorted(line for line in result.stdout.splitlines() if line.startswith("./")) \
        == everything
    (work_tree / "teamwire.toml").write_text("[lint]\nrespect-gitignore = 'no'\n")
    bad = CliRunner().invoke(main, ["lint", "--show-files", "."])
    assert bad.exit_code == 2 and "respect-gitignore must be true or false" in bad.stderr


@needs_git
def test_named_paths_inside_ignored_directories(work_tree: Path) -> None:
    assert shown("node_modules", "./node_modules/") == ["node_modules/x.json"]
    assert shown("build") == ["build/out.json"]
    assert shown("logs/1.json", "docs/x.jsonl") == ["logs/1.json", "docs/x.jsonl"]
    report = json.loads(lint("-f", "json", "logs/1.json").stdout)
    assert report["summary"]["files"] == 1


@needs_git
def test_exclude_globs_and_gitignore_together(work_tree: Path) -> None:
    assert all(not name.startswith("./sub/") for name in shown("--exclude", "sub/**", "."))
    assert shown("--exclude", "sub/**", "sub") == []
    assert "./node_modules/x.json" not in shown("--no-respect-gitignore", "--exclude",
                                                 "node_modules", ".")


def test_gitignore_counts_only_inside_a_work_tree(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.json\n", "a.json": "[]"})
    assert shown(str(tmp_path)) == [str(tmp_path / "a.json")]


@needs_git
def test_a_link_to_an_ignored_file_is_linted_once(work_tree: Path) -> None:
    (work_tree / "link.json").symlink_to(work_tree / "node_modules" / "x.json")
    (work_tree / "linked-dir").symlink_to(work_tree / "node_modules")
    files = shown(".", "node_modules/x.json")
    assert "./link.json" in files and "node_modules/x.json" not in files
    assert not any("linked-dir" in name for name in files)


# -- --show-settings and --show-files ------------------------------------------------------------

def test_show_settings_reports_the_merged_configuration(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.teamwire]\nprofile = 'strict'\n\n"
                                       "[tool.teamwire.lint]\nignore = ['TW111']\n"
                                       "exclude = ['fixtures/**']\n"
                                       "[tool.teamwire.lint.severity]\nTW509 = 'error'\n"
                                       "[tool.teamwire.lint.per-file-ignores]\n"
                                       "'legacy/**' = ['TW113', 'TW114']\n",
                     "transcripts/run-1.json": CLEAN, "transcripts/run-2.jsonl": "",
                     "fixtures/f.json": CLEAN})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["lint", "--show-settings", "--show-files",
                                       "transcripts/"])
    assert result.exit_code == 0
    rows = dict(line.split(None, 1) for line in result.stdout.splitlines() if "  " in line)
    assert rows["config"] == str(tmp_path / "pyproject.toml")
    assert rows["profile"] == "strict" and rows["off"] == "TW011, TW111"
    assert rows["rules"].endswith("on") and rows["severity"] == "TW509=error (default warning)"
    assert rows["per-file-ignores"] == "legacy/** -> TW113, TW114"
    assert rows["respect-gitignore"] == "true" and rows["exclude"] == "fixtures/**"
    files = result.stdout.split("\n\n", 1)[1].split()
    assert files == ["transcripts/run-1.json", "transcripts/run-2.jsonl"]
    for args, expected in ((["."], ["./transcripts/run-1.json", "./transcripts/run-2.jsonl"]),
                           (["fixtures"], [])):
        listed = CliRunner().invoke(main, ["lint", "--show-files", *args])
        assert listed.stdout.split() == expected
    flags = CliRunner().invoke(main, ["lint", "--show-settings", "--profile", "astrion",
                                      "--no-respect-gitignore", "--ignore", "TW1", "."])
    rows = dict(line.split(None, 1) for line in flags.stdout.splitlines() if "  " in line)
    assert rows["profile"] == "astrion" and rows["respect-gitignore"] == "false"
    assert "TW101" in rows["off"]


def test_show_options_exit_2_for_a_missing_path(tmp_path: Path) -> None:
    write(tmp_path, {"a.json": CLEAN})
    for option in ("--show-settings", "--show-files"):
        result = lint(option, str(tmp_path / "missing"), str(tmp_path))
        assert result.exit_code == 2


# -- the json format: fingerprints and schema ----------------------------------------------------

def flawed_bundle() -> dict[str, Any]:
    bundle = small_session()
    messages = bundle["agents"]["Team Leader"]["messages"]
    for message in messages:
        if message["role"] == "user" and "</Output>" in message["content"]:
            message["content"] = message["content"].replace("</Output>", "</Outptu>")
            break
    messages.append(dict(messages[-1]))
    return bundle


def test_fingerprints_match_gitlab_and_sarif(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = flawed_bundle()
    write(tmp_path, {"t/pretty.json": json.dumps(bundle, indent=2),
                     "t/package.json": OTHERS["package.json"]})
    monkeypatch.chdir(tmp_path)
    reports = {fmt: json.loads(lint("-f", fmt, "t").stdout) for fmt in ("json", "sarif", "gitlab")}
    report = reports["json"]
    schema = json.loads((ROOT / "spec/schemas/lint-findings.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(report)
    prints = [finding["fingerprint"] for finding in report["findings"]]
    assert len(prints) >= 3 and len(set(prints)) == len(prints)
    sarif = [result["partialFingerprints"]["teamwireFinding/v1"]
             for result in reports["sarif"]["runs"][0]["results"]]
    assert sarif == prints
    assert [issue["fingerprint"] for issue in reports["gitlab"]] == prints
    assert report["skipped"] == [{"file": "t/package.json",
                                  "reason": "a JSON object with no 'agents' or 'teamwire' member"}]
    # Reformatting the file and naming it otherwise (same path) keeps every fingerprint.
    (tmp_path / "t/pretty.json").write_text(json.dumps(bundle, separators=(",", ":")))
    again = json.loads(lint("-f", "json", "t/pretty.json").stdout)
    assert [finding["fingerprint"] for finding in again["findings"]] == prints
    assert "skipped" not in again


# -- bundles: a terminated sub-agent's open calls, a peer's notification -------------------------

def base() -> tuple[SessionBuilder, Agent, Agent]:
    b = SessionBuilder()
    ui = b.create("ui-operator", "UI Operator", 1, "Design the palette.")
    fse = b.create("full-stack-engineer", "Full-Stack Engineer", 1, "Build the API.")
    return b, ui, fse


def rules_of(tmp_path: Path, b: SessionBuilder) -> list[tuple[str, str, int]]:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(b.bundle(), ensure_ascii=False), encoding="utf-8")
    report = json.loads(lint("-f", "json", str(path)).stdout)
    return sorted((f["rule"], f["agent"], f["index"]) for f in report["findings"]
                  if f["rule"] != "TW509")


def open_ask_other(b: SessionBuilder, ui: Agent, target_id: int, role_id: str) -> None:
    message_id = b.ids.allocate(MessageType.ASK, ui.name, ui.role_id)
    b.call(ui, "ask_other_agent", {"target_agent_id": target_id, "role_id": role_id,
                                   "content": "Which fields?", "message_id": message_id})


@pytest.mark.parametrize(("target_id", "role_id", "rule"),
                         [(1, "ui-operator", "TW415"), (7, "ui-operator", "TW408")])
def test_open_call_of_a_terminated_sub_agent_is_not_judged_as_run(
        tmp_path: Path, target_id: int, role_id: str, rule: str) -> None:
    b, ui, _ = base()
    open_ask_other(b, ui, target_id, role_id)
    assert rules_of(tmp_path, b) == [(rule, "UI Operator_1", 2)]
    b.terminate(ui)
    assert rules_of(tmp_path, b) == []


def test_a_failed_termination_changes_nothing(tmp_path: Path) -> None:
    b, ui, _ = base()
    open_ask_other(b, ui, 7, "ui-operator")
    call = b.call(b.leader, "terminate_sub_agent", {"agent_id": 1, "role_id": "ui-operator"})
    b.result(b.leader, call, {"success": False,
                              "error": {"code": "unknown-agent", "message": "no such agent"}})
    assert rules_of(tmp_path, b) == [("TW408", "UI Operator_1", 2)]


def test_open_answer_of_a_terminated_answerer_expects_no_return(tmp_path: Path) -> None:
    b, ui, fse = base()
    ask = b.ask_other(fse, ui, "Which colours?", "Asking UI Operator_1.")
    b.call(ui, "answer_other_agent", {"source_agent_id": 1, "role_id": "full-stack-engineer",
                                      "message_id": ask.question_id, "answer": "Blue."})
    assert rules_of(tmp_path, b) == [("TW508", "UI Operator_1", 3)]
    b.terminate(ui)
    b.result(fse, ask.call_id, {"success": False, "error": {
        "code": "agent-terminated", "message": "UI Operator_1 was terminated"}})
    assert rules_of(tmp_path, b) == []


def test_what_a_terminated_sub_agent_sent_still_matches(tmp_path: Path) -> None:
    b, ui, fse = base()
    message_id = b.ids.allocate(MessageType.ASK, ui.name, ui.role_id)
    b.call(ui, "ask_other_agent", {"target_agent_id": 1, "role_id": "full-stack-engineer",
                                   "content": "Which fields?", "message_id": message_id})
    b.deliver(fse, b._envelope(MessageType.ASK, ui, "Which fields?", message_id))
    b.deliver(fse, b._envelope(MessageType.ASK, ui, "Which fields?", message_id))
    b.terminate(ui)
    assert ("TW302", "Full-Stack Engineer_1", 3) in rules_of(tmp_path, b)


def notification(answered: bool, said_again: bool) -> SessionBuilder:
    b, ui, fse = base()
    message_id = b.ids.allocate(MessageType.MESSAGE, fse.name, fse.role_id)
    call = b.call(fse, "ask_other_agent", {"target_agent_id": 1, "role_id": "ui-operator",
                                           "content": "The API is up.",
                                           "message_id": message_id}, "Telling UI Operator_1.")
    b.deliver(b.leader, b._envelope(MessageType.PROGRESS, fse, "Telling UI Operator_1."))
    b.deliver(ui, b._envelope(MessageType.MESSAGE, fse, "The API is up.", message_id))
    ui.messages.append({"role": "assistant", "content": "Thanks, noted."})
    if answered:
        b.result(fse, call, b._envelope(MessageType.ANSWER, ui, "Thanks, noted.",
                                        question_id=message_id))
    if said_again:
        b.say(ui, "Thanks, noted.")
    return b


def test_output_answering_a_notification_is_no_report(tmp_path: Path) -> None:
    assert rules_of(tmp_path, notification(answered=True, said_again=False)) == []
    assert rules_of(tmp_path, notification(answered=True, said_again=True)) == []
    assert rules_of(tmp_path, notification(answered=False, said_again=False)) \
        == [("TW512", "UI Operator_1", 3)]
