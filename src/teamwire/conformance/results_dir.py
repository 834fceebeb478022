"""A results directory (``teamwire certify --results DIR``): for each scenario as it ends,
its checks, the router's standard output and standard error, and every model call the
router made with the answer it got, so that a failure can be read after the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.report import ScenarioResult

CHECKS_FILE = "checks.json"
CALLS_FILE = "calls.json"
STDOUT_FILE = "stdout.txt"
STDERR_FILE = "stderr.txt"


def _call_json(call: ModelCall, start: float) -> dict[str, Any]:
    if call.failure is not None:
        answer: dict[str, Any] = {"failed": call.failure}
    elif call.reply is not None:
        answer = {"reply": call.reply.message()}
    else:
        answer = {"abandoned" if call.abandoned else "unanswered": True}
    return {"agent": call.agent, "call": call.number, "life": call.life,
            "seconds": round(call.arrived - start, 3), "stream": call.stream,
            "tools": [t.get("function", {}).get("name") for t in call.tools
                      if isinstance(t, dict)],
            "messages": call.messages, **answer}


def write_scenario(result: ScenarioResult, directory: Path) -> Path:
    """Write one scenario's files into ``directory/<scenario>/`` and return that folder.
    OSError if it cannot be written. What the router sent may hold lone surrogates, written
    as JSON escapes."""
    run = result.run
    folder = directory / run.scenario.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CHECKS_FILE).write_text(
        json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8",
        errors="backslashreplace")
    start = min((c.arrived for c in run.calls), default=0.0)
    calls = sorted(run.calls, key=lambda c: c.arrived)
    (folder / CALLS_FILE).write_text(
        json.dumps([_call_json(c, start) for c in calls], ensure_ascii=False, indent=2)
        + "\n", encoding="utf-8", errors="backslashreplace")
    (folder / STDOUT_FILE).write_bytes(run.stdout)
    (folder / STDERR_FILE).write_bytes(run.stderr)
    return folder
