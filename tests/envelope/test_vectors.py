"""Run the language-neutral envelope vectors in conformance/envelopes/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from teamwire.envelope import ParseError, parse, render

VECTOR_DIR = Path(__file__).resolve().parents[2] / "conformance" / "envelopes"


def cases() -> list[Any]:
    found = []
    for path in sorted(VECTOR_DIR.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for case in group["tests"]:
                found.append(pytest.param(case, id=f"{path.stem}: {case['description']}"))
    return found


def test_there_are_vectors() -> None:
    assert len(cases()) >= 25


@pytest.mark.parametrize("case", cases())
def test_vector(case: dict[str, Any]) -> None:
    if case["valid"]:
        envelope = parse(case["text"])
        got = envelope.to_json()
        got.pop("type")
        assert got == case["envelope"]
        if case.get("canonical", True):
            assert render(envelope) == case["text"]
    else:
        with pytest.raises(ParseError) as info:
            parse(case["text"])
        err = info.value
        assert {"code": err.code, "line": err.line, "column": err.column} == case["error"]
