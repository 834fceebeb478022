"""The glossary, the quick reference and the glosses on every page come from the spec."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from teamwire.envelope.types import ASTRION_COMPLETION_LABEL, MessageType
from teamwire.router.runtime.tools import ACCEPTANCE_HEADING
from tests.docs.hook_modules import load

ROOT = Path(__file__).resolve().parents[2]
glossary = load("glossary_pages")
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")


def test_every_label_and_fixed_phrase_of_the_wire_has_a_gloss() -> None:
    table = glossary.glosses()
    wire = {t.label for t in MessageType} | {ASTRION_COMPLETION_LABEL, ACCEPTANCE_HEADING,
                                              "来自", "的", "向", "系统通知"}
    assert wire - set(table) == set()


def test_every_chinese_text_result_of_astrion_has_a_gloss() -> None:
    tool_section = glossary.section("12-profile-astrion.md", "Tool differences")
    spans = [span for span in re.findall(r"`([^`]+)`", tool_section) if _CJK.search(span)]
    assert spans, "the astrion chapter's tool results were not found"
    table = glossary.glosses()
    for span in spans:
        for run in _CJK.findall(span):
            assert any(run in text or text in run for text in table), run


def test_the_glossary_lists_every_wire_entry_and_every_term_of_the_introduction() -> None:
    page = glossary.glossary_page()
    for entry in json.loads((ROOT / "spec" / "glossary.json").read_text("utf-8"))["wire"]:
        assert f"| `{entry['text']}` | {entry['gloss']} |" in page
    terms = glossary.terms()
    assert ("Team Leader", terms[[t for t, _ in terms].index("Team Leader")][1]) in terms
    assert len(terms) > 30
    for term, _ in terms:
        assert f'<span id="{glossary._anchor(term)}"></span>{term} |' in page
    assert "](spec/03-message-types.md)" in page  # chapter links made to work from the root


def test_the_quick_reference_has_every_type_tool_and_error_code() -> None:
    page = glossary.quick_reference_page()
    for mtype in MessageType:
        assert f"| {mtype.name} | `{mtype.label}` *" in page
    tools = json.loads((ROOT / "spec" / "schemas" / "tools" / "strict.json").read_text("utf-8"))
    for tool in tools["leader"] + tools["sub_agent"]:
        assert f"[`{tool['function']['name']}`](spec/06-tools.md#" in page
    assert "| `unanswered` |" in page and "| `waiting` |" in page
    create = next(line for line in page.splitlines() if "`create_sub_agent`]" in line)
    assert "`task_id`" in create and "`agent_id`" in create and "`acceptance`?" in create
    ask = next(line for line in page.splitlines() if "`ask_master`]" in line)
    assert "ANSWER envelope" in ask


def test_a_section_that_moved_fails_the_build() -> None:
    with pytest.raises(PluginError, match="no section 'Prefix tables'"):
        glossary.first_table("04-ids.md", "Prefix tables")
    with pytest.raises(PluginError, match="has no table"):
        glossary.first_table("01-envelope.md", "Text form")


def test_a_glossary_entry_pointing_nowhere_fails_the_build() -> None:
    with pytest.raises(PluginError, match="does not exist"):
        glossary._see("spec/99-nothing.md#x")


def test_glosses_go_on_text_never_into_tags_svg_or_scripts() -> None:
    table = {"提问": "question", "的": "'s", "的回答：": "'s answer:"}
    content = ('<p title="提问">来自 A 的提问</p><svg><text>提问</text></svg>'
               '<script>var s = "提问";</script><code>B 的回答：x</code><br/>提问')
    out = glossary.add_glosses(content, table)
    assert out.startswith('<p title="提问">来自 A <abbr class="tw-gloss" title="&#x27;s">的</abbr>'
                          '<abbr class="tw-gloss" title="question">提问</abbr></p>')
    assert "<svg><text>提问</text></svg>" in out
    assert '<script>var s = "提问";</script>' in out
    assert '<code>B <abbr class="tw-gloss" title="&#x27;s answer:">的回答：</abbr>x</code>' in out
    assert out.endswith('<br/><abbr class="tw-gloss" title="question">提问</abbr>')
