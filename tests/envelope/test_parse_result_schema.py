"""The shape of a parse result (TW-ENV-035 to TW-ENV-037) and its schema, parse-result.

The envelope vectors state each case's expected outcome as a parse result (``valid`` with
``envelope`` or ``error``); every one must validate against the schema, and so must what the
library and ``teamwire envelope parse`` produce for the same texts. The schema must also reject
results that break the chapter's rules, so that it can fail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from teamwire import schemas
from teamwire.cli import main
from teamwire.envelope import ParseError, parse

VECTORS = Path(__file__).resolve().parents[2] / "conformance" / "envelopes"
RESULT_MEMBERS = ("valid", "envelope", "error")


def vector_cases() -> list[Any]:
    return [pytest.param(case, id=f"{path.stem}: {case['description']}")
            for path in sorted(VECTORS.glob("*.json"))
            for group in json.loads(path.read_text(encoding="utf-8")) for case in group["tests"]]


def expected_result(case: dict[str, Any]) -> dict[str, Any]:
    """The parse result a vector expects: its members other than the text and its notes."""
    return {key: case[key] for key in RESULT_MEMBERS if key in case}


def library_result(text: str | bytes) -> dict[str, Any]:
    """The parse result the library gives for ``text``, in its JSON forms."""
    try:
        envelope = parse(text)
    except ParseError as exc:
        return {"valid": False, "error": exc.to_json()}
    return {"valid": True, "envelope": envelope.to_json()}


@pytest.mark.parametrize("case", vector_cases())
def test_every_vector_states_its_outcome_as_a_parse_result(case: dict[str, Any]) -> None:
    assert schemas.validate("parse-result", expected_result(case)) == []
    # And the vectors hold nothing but a text, notes and a parse result.
    assert set(case) <= {"description", "text", "canonical", *RESULT_MEMBERS}


@pytest.mark.parametrize("case", vector_cases())
def test_the_library_gives_each_vector_a_result_of_that_shape(case: dict[str, Any]) -> None:
    result = library_result(case["text"])
    assert schemas.validate("parse-result", result) == []
    # The members a vector compares are the ones it states (extra ones are ignored).
    expected = expected_result(case)
    part = "envelope" if expected["valid"] else "error"
    assert {key: result[part][key] for key in expected[part]} == expected[part]


@given(st.text(st.sampled_from([*"来自 的向id:<>/\"=\n\rAa_1"]), max_size=60))
def test_any_text_gives_a_result_of_that_shape(text: str) -> None:
    assert schemas.validate("parse-result", library_result(text)) == []


@given(st.binary(max_size=40))
def test_any_bytes_give_a_result_of_that_shape(data: bytes) -> None:
    assert schemas.validate("parse-result", library_result(data)) == []


def test_envelope_parse_prints_the_envelope_of_a_parse_result() -> None:
    text = ('来自 Team Leader 向 UI Operator_1 的回答\nid: ans_tl_001\n\n<Team Leader>\n'
            '<Answer question_id="ask_uio_001">\nYes.\n</Answer>\n</Team Leader>')
    result = CliRunner().invoke(main, ["envelope", "parse", "-"], input=text.encode())
    assert result.exit_code == 0
    printed = json.loads(result.stdout)
    assert schemas.validate("parse-result#/$defs/envelope", printed) == []
    assert schemas.validate("parse-result", {"valid": True, "envelope": printed}) == []


@pytest.mark.parametrize("result,path", [
    ({"valid": True}, ""),
    ({"valid": False}, ""),
    ({"valid": False, "error": {"code": "syntax", "line": 1, "column": 1},
      "envelope": {"sender": "A_1", "label": "提问", "id": "x", "tag": "Ask", "attributes": {},
                   "content": ""}}, "/envelope"),
    ({"valid": False, "error": {"code": "syntax", "line": 0, "column": 1}}, "/error/line"),
    ({"valid": False, "error": {"code": "syntax", "line": 1, "column": 1.5}}, "/error/column"),
    ({"valid": False, "error": {"code": "bad", "line": 1, "column": 1}}, "/error/code"),
    ({"valid": False, "error": {"line": 1, "column": 1}}, "/error"),
    ({"valid": True, "envelope": {"sender": "A_1", "label": "提问", "id": "x", "tag": "Ask",
                                  "attributes": {"a": 1}, "content": ""}},
     "/envelope/attributes/a"),
    ({"valid": True, "envelope": {"sender": "A_1", "label": "提问", "id": "x", "tag": "1Ask",
                                  "attributes": {}, "content": ""}}, "/envelope/tag"),
    ({"valid": True, "envelope": {"sender": "A_1", "label": "提问", "id": "x", "tag": "Ask",
                                  "attributes": {}}}, "/envelope"),
])
def test_the_schema_rejects_results_that_break_the_rules(result: dict[str, Any], path: str) -> None:
    assert path in {error.path for error in schemas.validate("parse-result", result)}
