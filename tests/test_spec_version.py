"""The specification version the tools implement (TW-VER-001, TW-VER-003, TW-VER-012): writers
write "1.1", readers read bundles of 1.0 and 1.1 alike and refuse another major version, and
the command line and the lint reports name the version."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from teamwire import schemas
from teamwire._version import __version__
from teamwire.router.demo import run_demo
from teamwire.router.store import MemoryStore
from teamwire.spec_version import SPEC_MAJOR, SPEC_VERSION
from teamwire.validator import lint_value


def _demo_bundle() -> dict[str, Any]:
    bundle: dict[str, Any] = asyncio.run(run_demo(MemoryStore())).bundle()
    return bundle


def test_the_version_is_1_1_and_its_major_is_1() -> None:
    assert (SPEC_VERSION, SPEC_MAJOR) == ("1.1", "1")


def test_the_router_writes_bundles_and_messages_of_1_1() -> None:
    session = asyncio.run(run_demo(MemoryStore()))
    assert session.bundle()["teamwire"] == "1.1"
    routed = [a["message"] for e in session.events for a in e["actions"]
              if a["action"] == "PersistMessage"]
    assert routed and {m["version"] for m in routed} == {"1.1"}
    assert all(schemas.validator("message").is_valid(m) for m in routed)


@pytest.mark.parametrize("version", ["1.0", "1.1", "1.7"])
def test_a_bundle_of_any_minor_version_of_1_is_read_alike(version: str) -> None:
    bundle = _demo_bundle()
    expected = lint_value(bundle).findings
    assert [f.rule for f in expected] == []
    assert lint_value({**bundle, "teamwire": version}).findings == expected
    assert schemas.validator("bundle").is_valid({**bundle, "teamwire": version})


def test_a_bundle_of_another_major_version_is_refused() -> None:
    found = lint_value({**_demo_bundle(), "teamwire": "2.0"}).findings
    assert [f.rule for f in found] == ["TW006"]


def test_the_command_line_names_the_spec_version() -> None:
    result = subprocess.run([sys.executable, "-m", "teamwire", "--version"],
                            capture_output=True, text=True, check=True)
    assert result.stdout.strip() == f"teamwire {__version__} (spec 1.1)"


def test_the_json_and_sarif_reports_name_the_spec_version(tmp_path: Path) -> None:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps({**_demo_bundle(), "teamwire": "1.0"}), encoding="utf-8")
    def json_spec(report: dict[str, Any]) -> Any:
        return report["spec"]

    def sarif_spec(report: dict[str, Any]) -> Any:
        return report["runs"][0]["tool"]["driver"]["properties"]["spec"]

    for form, read in (("json", json_spec),
                       ("sarif", sarif_spec)):
        result = subprocess.run([sys.executable, "-m", "teamwire", "lint", "--format", form,
                                 str(path)], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert read(report) == "1.1"
        if form == "json":
            assert schemas.validator("lint-findings").is_valid(report)
