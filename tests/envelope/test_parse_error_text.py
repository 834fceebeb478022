"""A ParseError carries its text in its arguments too (TW-ENV-014, TW-ENV-017).

Tools that show an exception by ``repr`` (logs, test reports, ``traceback`` of an
exception group) or read ``args[0]`` must see the same text as ``str``: the line, the
column, the message and the caret context.
"""

from __future__ import annotations

import pytest

from teamwire.envelope import ParseError, parse


def test_the_arguments_and_the_repr_hold_the_error_text() -> None:
    text = "来自 UI Operator_1 的提问\nid: ask_uio_001\n\n<Other_1>\n<Ask>\nhi\n</Ask>\n</Other_1>"
    with pytest.raises(ParseError) as caught:
        parse(text)
    error = caught.value
    assert error.code == "name-mismatch"
    shown = ("line 4, column 2: outer tag <Other_1> does not match the header's sender "
             "'UI Operator_1'\n<Other_1>\n ^")
    assert str(error) == shown
    assert error.args == (shown,)
    assert repr(error) == f"ParseError({shown!r})"
