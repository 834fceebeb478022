"""Reading certification reports in tests."""

from __future__ import annotations

from typing import Any


def what_failed(report: dict[str, Any]) -> str:
    """The failed checks of a report with their reasons, for an assertion's message (a run
    that should pass and fails says which scenario and why, not only the router's stderr)."""
    return "\n".join(
        f"{s['scenario']}: {c['check']} {c['requirements']}: {c.get('reason', '')}"
        for s in report.get("scenarios", []) for c in s.get("checks", [])
        if c["status"] == "fail")
