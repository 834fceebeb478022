"""The one header-line reader and the one run-result reader and writer of the envelope package.

The header patterns are checked against the grammar's definition of a name (TW-ENV-003: no
line break, no space that starts `` 向 `` or `` 的``), written here independently as a scan
over the characters; run results against their layout (TW-RES-001 to TW-RES-004) and the
result schema's states.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from teamwire import schemas
from teamwire.envelope import MessageType, is_envelope, render
from teamwire.envelope.header import (
    HEADER_LINE,
    LABELS,
    NAME_PATTERN,
    has_mark,
    header_line_offset,
    presents_as_header,
)
from teamwire.envelope.run_result import (
    OUTPUT_STATES,
    RUN_STATES,
    is_run_result,
    read_run_result,
    render_run_result,
)
from tests.envelope.strategies import display_names, envelopes

NAME_TEXT = st.text(st.sampled_from(["a", " ", "向", "的", "\n", "x", "来", "自"]), max_size=8)


def _is_name(text: str) -> bool:
    """TW-ENV-003 read literally: non-empty, one line, no space starting " 向 " or " 的"."""
    if not text or "\n" in text:
        return False
    return not any(text.startswith(" 向 ", i) or text.startswith(" 的", i)
                   for i in range(len(text)))


@given(NAME_TEXT)
def test_the_name_pattern_is_the_grammars_name(text: str) -> None:
    assert (re.fullmatch(NAME_PATTERN, text) is not None) is _is_name(text)


@given(envelopes())
def test_every_rendered_header_reads_as_one(envelope: object) -> None:
    text = render(envelope)  # type: ignore[arg-type]
    first = text.split("\n", 1)[0]
    assert presents_as_header(text) and is_envelope(text)
    known = first.rsplit(" 的", 1)[1] in LABELS
    assert (HEADER_LINE.fullmatch(first) is not None) is known
    assert (header_line_offset("prose\n" + text) == 6) is known


@given(display_names, st.sampled_from(LABELS), st.text(max_size=10))
def test_a_header_line_is_found_after_any_prose(name: str, label: str, prose: str) -> None:
    line = f"来自 {name} 的{label}"
    text = prose + "\n" + line + "\nmore"
    found = header_line_offset(text)
    assert found is not None and found <= len(prose) + 1
    assert has_mark(text)


def test_the_mark_alone_is_no_header() -> None:
    assert not presents_as_header("来自 nobody")
    assert header_line_offset("来自 Team Leader 的 weather report") is None
    assert not has_mark("plain ASCII text")
    assert {t.label for t in MessageType} <= set(LABELS)


def test_run_states_are_the_result_schemas() -> None:
    assert set(RUN_STATES) == set(schemas.schema("result#/properties/state")["enum"])


SUMMARIES = st.one_of(st.none(), st.text(st.characters(codec="utf-8",
                                                       exclude_characters="<>\n"), max_size=20))
TEXTS = st.text(st.characters(codec="utf-8"), max_size=40)


@given(display_names, st.sampled_from(RUN_STATES), TEXTS, SUMMARIES)
def test_a_written_run_result_reads_back(agent: str, state: str, text: str,
                                         summary: str | None) -> None:
    written = render_run_result(agent, state, text, summary)
    result = read_run_result(written)
    assert result is not None and is_run_result(written)
    assert [(n, v) for n, v, _ in result.attributes] == [("agent", agent), ("state", state)]
    assert all(written.startswith(v, at) for _n, v, at in result.attributes)
    assert result.body == ("output" if state in OUTPUT_STATES else "error")
    assert written.startswith(f"<{result.body}>", result.body_at)
    assert result.text == text
    assert result.summary == (None if summary is None else " ".join(summary.split()))
    assert result.attribute("state") == state and result.attribute("nope") is None


def test_what_is_not_a_run_result() -> None:
    good = render_run_result("UI Operator_1", "error", "boom")
    assert read_run_result(good + "\n") is not None  # one final line break
    for broken in (good + "\n\n", good.replace("</error>", "</output>"), "x" + good,
                   good.replace('agent="UI Operator_1"', "agent=UI"), ""):
        assert read_run_result(broken) is None
