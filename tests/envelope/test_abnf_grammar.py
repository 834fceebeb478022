"""grammar/envelope.abnf: the envelope language in portable ABNF (RFC 5234), equal to the Lark
grammar's.

The ABNF is loaded as it stands by an independent ABNF tool (the ``abnf`` package, which
parses RFC 5234 grammars and matches texts with full backtracking), and its verdict on every
envelope vector and on generated near-envelopes is compared with the Lark grammar's verdict
before the post-parse checks (names equal, attributes unique), which the ABNF leaves out.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from abnf.parser import Rule
from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Lark
from lark.exceptions import LarkError

from teamwire.envelope import Envelope, render
from teamwire.envelope.lark_parser import grammar_text
from tests.envelope.strategies import envelopes

ROOT = Path(__file__).resolve().parents[2]
ABNF = ROOT / "grammar" / "envelope.abnf"
VECTORS = ROOT / "conformance" / "envelopes"


class EnvelopeGrammar(Rule):
    """The rules of envelope.abnf (abnf keeps one rule table per subclass)."""


@cache
def _loaded() -> type[EnvelopeGrammar]:
    EnvelopeGrammar.from_file(ABNF)
    return EnvelopeGrammar


@cache
def _lark() -> Lark:
    return Lark(grammar_text(), parser="lalr", lexer="contextual")


def abnf_accepts(text: str) -> bool:
    try:
        _loaded()("envelope").parse_all(text)
    except Exception:  # the abnf package's ParseError, or a text it cannot take at all
        return False
    return True


def lark_accepts(text: str) -> bool:
    try:
        _lark().parse(text)
    except LarkError:
        return False
    return True


def _vector_texts() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for path in sorted(VECTORS.glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            for test in group["tests"]:
                if "text" in test:
                    found.append((f"{path.stem}: {test['description']}", test["text"]))
    return found


def test_the_grammar_loads_and_defines_every_rule_it_uses() -> None:
    grammar = _loaded()
    for name in ("envelope", "header", "receiver", "label", "id-line", "id", "outer-open",
                 "outer-close", "inner-open", "inner-close", "attribute", "tag", "attr-name",
                 "tag-name", "content", "header-name", "gap", "any-char", "line-char",
                 "word-char", "gap-start", "tag-name-char", "attr-char", "id-char"):
        assert grammar(name).definition is not None, name


@pytest.mark.parametrize(("description", "text"), _vector_texts())
def test_abnf_and_lark_agree_on_every_envelope_vector(description: str, text: str) -> None:
    assert abnf_accepts(text) is lark_accepts(text), description


# Pieces that sit on the edges of the grammar's classes: the delimiters of header names,
# white space inside ids, CR, tag characters, quotes, line breaks.
EDGES = [" ", "  ", " 的", " 向 ", " 向", "向 ", "的", "向", "\n", "\r", "\t", "\u3000", "\u00a0",
         "<", ">", '"', "=", "/", "a", "Z", "_", "-", ".", "0", "中", "\u2028", "x y"]


@st.composite
def near_envelopes(draw: st.DrawFn) -> str:
    """A rendered envelope with a few pieces inserted, deleted or replaced at random places."""
    envelope: Envelope = draw(envelopes())
    text = render(envelope)
    if draw(st.booleans()):
        text += "\n"
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(EDGES))
        if edit == "insert":
            text = text[:at] + piece + text[at:]
        elif edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 3)):]
        else:
            text = text[:at] + piece + text[at + len(piece):]
    return text


@settings(max_examples=300, deadline=None)
@given(near_envelopes())
def test_abnf_and_lark_accept_the_same_near_envelopes(text: str) -> None:
    assert abnf_accepts(text) is lark_accepts(text), repr(text)


HEADERS: list[tuple[str, Any]] = [
    ("来自 A 向 的x", False),       # a name cannot end in " 向" before a space
    ("来自 A 向x 的y", True),       # 向 inside a name, not followed by a space
    ("来自 的 的x", True),          # a name may start with 的 (it follows "来自 ", not itself)
    ("来自  的x", False),           # a name cannot start with " 的"
    ("来自   的x", True),           # a name of one space, then " 的"
    ("来自 A  的x", True),          # a name ending in a space
    ("来自 A 的", False),           # an empty label
    ("来自 A 向 B 向 C 的x", False),  # one receiver at most
]


@pytest.mark.parametrize(("header", "accepted"), HEADERS)
def test_header_names_on_the_edges(header: str, accepted: bool) -> None:
    text = f"{header}\nid: task_001\n\n<A>\n<Task>\nx\n</Task>\n</A>"
    assert lark_accepts(text) is accepted
    assert abnf_accepts(text) is accepted
