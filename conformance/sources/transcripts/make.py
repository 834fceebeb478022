"""Write conformance/transcripts/*.json from the cases beside this file, one module per file.

Run from the repository root: ``python -m conformance.sources.transcripts.make``

Expectations are written by hand, next to each input; the script refuses to write a file
when teamwire's linter disagrees with an expectation, so the vectors never just record what
the linter happens to do. The test suite checks that the committed files are what this
writes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.sources.transcripts import (
    astrion,
    envelope,
    flow,
    ids,
    inputs,
    placement,
    security,
    tools,
)
from conformance.sources.transcripts.vector_runner import expected, found, run_case

OUT = Path(__file__).resolve().parents[2] / "transcripts"
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "astrion" / "data"

FILES: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "input.json": inputs.input_cases,
    "envelope.json": envelope.envelope_cases,
    "placement.json": placement.placement_cases,
    "ids.json": ids.id_cases,
    "tools.json": tools.tool_cases,
    "flow.json": flow.flow_cases,
    "security.json": security.security_cases,
    "astrion.json": astrion.astrion_cases,
}


def main() -> int:
    """Check every case against the linter; write the files only if all agree."""
    failures = 0
    for name, make in FILES.items():
        cases = make()
        for c in cases:
            got, want = found(run_case(c)), expected(c)
            if got != want:
                failures += 1
                print(f"{name}: {c['description']}: expected {sorted(want, key=str)}, "
                      f"linter found {sorted(got, key=str)}", file=sys.stderr)
        if not failures:
            text = json.dumps(cases, ensure_ascii=False, indent=1) + "\n"
            (OUT / name).write_text(text, encoding="utf-8")
    if not failures:
        write_example()
    return 1 if failures else 0


def example_files() -> dict[str, str]:
    """The files of the worked example of docs/astrion.md: a session as astrion today keeps
    it, with the four breaches astrion's code makes, by path under its data directory."""
    session = astrion.team(astrion.TODAY, swallowed=True, plain_answer=True, injected=True,
                           notices=True)
    return {path: json.dumps(value, ensure_ascii=False, indent=1) + "\n"
            for path, value in session.data_dir().items()}


def write_example() -> None:
    for path, text in example_files().items():
        target = EXAMPLE / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
