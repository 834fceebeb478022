"""JSON text as written: the one tokenizer and JSON pointers (RFC 6901)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from teamwire.json_text import (
    TOKEN,
    escape_pointer_token,
    json_pointer,
    string_value,
    unescape_pointer_token,
)

JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              st.text()),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=10)


@given(JSON_VALUES, st.booleans())
def test_tokens_cover_the_text_but_its_white_space(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=1)
    tokens = [m.group() for m in TOKEN.finditer(text)]
    # Nothing but white space lies between tokens, and they alone give back the value.
    assert all(not text[a.end():b.start()].strip() for a, b in zip(
        TOKEN.finditer(text), list(TOKEN.finditer(text))[1:], strict=False))
    assert json.loads("".join(tokens)) == json.loads(text)


@given(st.text())
def test_a_string_token_stands_for_its_text(text: str) -> None:
    for ascii_only in (True, False):
        token = json.dumps(text, ensure_ascii=ascii_only)
        assert TOKEN.fullmatch(token) is not None
        assert string_value(token) == text


@given(st.text())
def test_pointer_tokens_round_trip(name: str) -> None:
    escaped = escape_pointer_token(name)
    assert "/" not in escaped
    assert unescape_pointer_token(escaped) == name


def test_the_rfc_6901_examples() -> None:
    assert json_pointer([]) == ""
    assert json_pointer(["a/b"]) == "/a~1b"
    assert json_pointer(["m~n"]) == "/m~0n"
    assert json_pointer(["foo", 0]) == "/foo/0"
    assert json_pointer(["~1"]) == "/~01"  # not "/~1": the tilde is escaped first
    assert unescape_pointer_token("~01") == "~1"


def test_value_kind_names_every_json_type() -> None:
    from teamwire.json_text import value_kind

    values: tuple[object, ...] = (None, True, 0, 1.5, "", [], {})
    assert [value_kind(v) for v in values] == [
        "null", "a boolean", "a number", "a number", "a string", "an array", "an object"]
