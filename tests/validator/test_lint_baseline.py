"""`teamwire lint --write-baseline` and `--baseline`: accepted findings are neither reported
nor counted, new ones still fail the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from teamwire import schemas
from teamwire.cli import main

OLD = '{"role": "user", "content": "[系统通知|x] y"}\n'
NEW = '{"role": "user", "content": "[系统通知|z] w"}\n'


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.jsonl").write_text(OLD, encoding="utf-8")
    return tmp_path


def test_written_baseline_lists_every_finding_and_matches_its_schema(work: Path) -> None:
    written = invoke("lint", "--write-baseline", "base.json", "old.jsonl")
    assert written.exit_code == 0 and written.stdout == ""
    assert "wrote base.json: 2 findings accepted" in written.stderr
    baseline = json.loads((work / "base.json").read_text(encoding="utf-8"))
    assert schemas.validate("lint-baseline", baseline) == []
    report = json.loads(invoke("lint", "-f", "json", "old.jsonl").stdout)
    assert sorted(e["fingerprint"] for e in baseline["findings"]) == \
        sorted(f["fingerprint"] for f in report["findings"])
    assert {(e["rule"], e["file"]) for e in baseline["findings"]} == \
        {("TW009", "old.jsonl"), ("TW113", "old.jsonl")}


def test_baseline_hides_accepted_findings_and_says_how_many(work: Path) -> None:
    assert invoke("lint", "old.jsonl").exit_code == 1
    invoke("lint", "--write-baseline", "base.json", "old.jsonl")
    result = invoke("lint", "--baseline", "base.json", "old.jsonl")
    assert result.exit_code == 0
    assert "TW113" not in result.stdout and "All checks passed" in result.stdout
    assert "2 findings accepted by the baseline base.json not reported" in result.stderr
    report = json.loads(invoke("lint", "-f", "json", "--baseline", "base.json",
                               "old.jsonl").stdout)
    assert report["findings"] == [] and report["summary"]["errors"] == 0


def test_a_new_finding_beside_accepted_ones_still_fails(work: Path) -> None:
    invoke("lint", "--write-baseline", "base.json", "old.jsonl")
    (work / "old.jsonl").write_text(OLD + NEW, encoding="utf-8")
    result = invoke("lint", "-f", "json", "--baseline", "base.json", "old.jsonl")
    assert result.exit_code == 1
    found = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["index"]) for f in found] == [("TW113", 1)]


@pytest.mark.parametrize("text, said", [
    ("{", "not JSON"),
    ('{"version": 1}', "not a lint baseline: (root): 'findings' is a required property"),
    ('{"version": 1, "findings": [{"fingerprint": "x"}]}',
     "not a lint baseline: /findings/0/fingerprint"),
])
def test_a_baseline_that_is_none_is_a_usage_error(work: Path, text: str, said: str) -> None:
    (work / "base.json").write_text(text, encoding="utf-8")
    result = invoke("lint", "--baseline", "base.json", "old.jsonl")
    assert result.exit_code == 2 and said in result.stderr and "Traceback" not in result.output


def test_no_baseline_is_written_when_an_input_is_unreadable(work: Path) -> None:
    result = invoke("lint", "--write-baseline", "base.json", "old.jsonl", "missing.json")
    assert result.exit_code == 2 and "base.json not written" in result.stderr
    assert not (work / "base.json").exists()


def test_entries_no_finding_matches_any_more_are_named_stale(work: Path) -> None:
    """A fixed finding leaves its entry in the baseline: lint says how many such entries
    the files it linted left unmatched, and entries of files it did not lint are not stale."""
    (work / "other.jsonl").write_text(NEW, encoding="utf-8")
    invoke("lint", "--write-baseline", "base.json", "old.jsonl", "other.jsonl")
    unchanged = invoke("lint", "--baseline", "base.json", "old.jsonl")
    assert unchanged.exit_code == 0 and "matched no finding" not in unchanged.stderr
    (work / "old.jsonl").write_text('{"role": "user", "content": "hello"}\n', encoding="utf-8")
    fixed = invoke("lint", "--baseline", "base.json", "old.jsonl")
    assert fixed.exit_code == 0
    # TW113 is fixed, TW009 (whose conversation) still stands and is still accepted
    assert "1 finding accepted" in fixed.stderr
    assert ("note: 1 entry of the baseline base.json matched no finding of the files "
            "linted; write it again (--write-baseline) to drop them") in fixed.stderr
    quiet = invoke("lint", "-q", "--baseline", "base.json", "old.jsonl")
    assert "matched no finding" not in quiet.stderr
