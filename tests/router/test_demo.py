"""``teamwire demo``: the bundle must pass the schema and ``teamwire lint`` (strict)."""

from __future__ import annotations

import asyncio
import copy
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from teamwire.cli import main
from teamwire.cli.demo_cmd import validate_bundle
from teamwire.router.demo import run_demo
from teamwire.router.runtime import Session
from teamwire.router.store import MemoryStore
from tests.router.helpers import UIO


def _demo_bundle() -> dict[str, Any]:
    return asyncio.run(run_demo(MemoryStore())).bundle()


def test_demo_bundle_passes_lint_without_findings() -> None:
    assert validate_bundle(_demo_bundle()) == []


def test_a_lint_error_is_fatal() -> None:
    bundle = copy.deepcopy(_demo_bundle())
    messages = bundle["agents"][UIO]["messages"]
    task = next(m for m in messages if m["role"] == "user")
    task["content"] = task["content"].replace("<Task>", "<Tusk>", 1)
    problems = validate_bundle(bundle)
    assert any(p.fatal and p.text.startswith("lint error") for p in problems)


def test_a_schema_error_is_fatal() -> None:
    bundle = copy.deepcopy(_demo_bundle())
    bundle["teamwire"] = "2.0"
    problems = validate_bundle(bundle)
    assert any(p.fatal and p.text.startswith("schema:") for p in problems)


def test_demo_command_fails_when_lint_fails(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    original = Session.bundle

    def broken(self: Session) -> dict[str, Any]:
        bundle = original(self)
        for message in bundle["agents"][UIO]["messages"]:
            if message["role"] == "user":
                message["content"] = message["content"].replace("<Task>", "<Tusk>", 1)
        return bundle

    monkeypatch.setattr(Session, "bundle", broken)
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path), "--quiet"])
    assert result.exit_code == 1
    assert "lint error" in result.output


def test_demo_command_passes(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path), "--quiet",
                                       "--synchronous", "normal"])
    assert result.exit_code == 0, result.output
    assert "teamwire lint (strict) pass" in result.output
    assert (tmp_path / "bundle.json").is_file() and (tmp_path / "events.jsonl").is_file()


def test_demo_explains_its_deliberate_failure_and_where_it_wrote(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "out dir")])
    assert result.exit_code == 0, result.output
    failed = result.output.index("failed: ambiguous-agent-id")
    # the explanation follows the failure at once, before the next message (a plain line
    # "sender → receiver · ..." where the output is no terminal)
    after = result.output[failed:]
    assert after.index("(deliberate:") < after.index(" → ")
    flat = " ".join(result.output.split())
    assert f"files written to {tmp_path / 'out dir'}:" in flat
    assert f"next: teamwire view '{tmp_path / 'out dir' / 'bundle.json'}'" in flat


def test_demo_in_a_temporary_directory_says_so(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = CliRunner().invoke(main, ["demo", "--quiet"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert f"files written to {tmp_path}{os.sep}teamwire-demo-" in flat
    assert "(a new temporary directory; --dir DIR chooses one)" in flat
