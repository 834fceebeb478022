"""The reference router asking for streamed replies (``teamwire run --stream``) is certified
as it is with plain ones: the harness streams every reply as server-sent events and the
router's driver puts them back together, tool calls and refused arguments included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
STREAMING = f"{sys.executable} -m teamwire run -q --stream"


@pytest.mark.parametrize("scenario", ["batch-drain", "refused-arguments", "model-call-retried",
                                      "restart-while-asking"])
def test_a_streaming_reference_router_is_certified(scenario: str, tmp_path: Path) -> None:
    declaration = tmp_path / "reference.json"
    declaration.write_text(subprocess.run(
        [sys.executable, "-m", "teamwire", "run", "--describe"], capture_output=True,
        text=True, timeout=60, check=True).stdout, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "teamwire", "certify", "--router", STREAMING,
         "--describe", str(declaration), "--scenario",
         str(SCENARIOS / f"{scenario}.json"), "-f", "json"],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    [report] = json.loads(result.stdout)["scenarios"]
    assert report["passed"] and all(c["status"] == "pass" for c in report["checks"])
