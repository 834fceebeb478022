"""The run-result grammar of the specification (chapter 09) and the one run-result reader
agree: the ABNF block of spec/09-results.md, loaded with envelope.abnf by an independent ABNF
reader, accepts a text with matching body tags exactly when ``read_run_result`` reads it."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from abnf.parser import Rule
from hypothesis import given, settings
from hypothesis import strategies as st

from teamwire.envelope.run_result import RUN_STATES, read_run_result, render_run_result

ROOT = Path(__file__).resolve().parents[2]


class RunResultGrammar(Rule):
    """envelope.abnf's rules and the run-result rules of chapter 09."""


@cache
def _grammar() -> type[RunResultGrammar]:
    chapter = (ROOT / "spec" / "09-results.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```abnf\n(.*?)```", chapter, re.DOTALL)
    envelope = (ROOT / "grammar" / "envelope.abnf").read_text(encoding="utf-8")
    RunResultGrammar.load_grammar((envelope + "\n" + block).replace("\n", "\r\n"))
    return RunResultGrammar


def _abnf_reads(text: str) -> bool:
    try:
        _grammar()("run-result").parse_all(text)
    except Exception:  # the abnf package's ParseError
        return False
    match = re.match(r"<result[^\n]*>\n(?:<summary>[^\n]*</summary>\n)?<(\w+)>\n", text)
    closing = re.search(r"\n</(\w+)>\n</result>\n?\Z", text)
    return bool(match and closing and match[1] == closing[1])  # TW-RES-016's condition


PIECES = ["\n", "<", ">", '"', " ", "x", "</error>", "</output>", "<summary>", "</summary>",
          "\r", "中", "state=", ' extra="1"']


@st.composite
def near_results(draw: st.DrawFn) -> str:
    text = render_run_result(draw(st.sampled_from(["UI Operator_1", "Coder_2"])),
                             draw(st.sampled_from(RUN_STATES)),
                             draw(st.text(max_size=12)),
                             draw(st.one_of(st.none(), st.text(max_size=8))))
    if draw(st.booleans()):
        text += "\n"
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(PIECES)) + text[at + draw(st.integers(0, 2)):]
    return text


@settings(max_examples=300, deadline=None)
@given(near_results())
def test_the_chapters_grammar_and_the_reader_agree(text: str) -> None:
    assert _abnf_reads(text) is (read_run_result(text) is not None), repr(text)


def test_a_summary_line_is_told_from_the_body_open_line() -> None:
    with_summary = render_run_result("UI Operator_1", "completed", "done", "short")
    assert _abnf_reads(with_summary) and read_run_result(with_summary) is not None
    mismatched = with_summary.replace("</output>", "</error>")
    assert not _abnf_reads(mismatched) and read_run_result(mismatched) is None
