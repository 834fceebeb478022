"""The JSON forms of an envelope and of a parse error, and the message-type table behind them.

These are what `teamwire envelope parse` prints and `teamwire envelope render` reads, and the
shape the envelope vectors use (conformance/envelopes/README.md): exact members, exact values,
and a clear refusal of every malformed member. The type table is spelled out here from the
specification's message-type chapter (TW-TYPE-001), not read from the code under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from teamwire.envelope import Envelope, MessageType, ParseError, Profile, parse, render

# label, tag, id prefix, as chapter 3 lists them; the astrion profile's completion label.
TYPES = {
    MessageType.TASK: ("任务发布", "Task", "task"),
    MessageType.PROGRESS: ("任务进度输出", "Output", "out"),
    MessageType.COMPLETION: ("任务完成汇报", "Output", "out"),
    MessageType.ASK: ("提问", "Ask", "ask"),
    MessageType.MESSAGE: ("消息", "Message", "msg"),
    MessageType.ANSWER: ("回答", "Answer", "ans"),
}
ASTRION_COMPLETION = "任务结束汇报"

ANSWER_TEXT = ("来自 Team Leader 的回答\nid: ans_tl_001\n\n<Team Leader>\n"
               '<Answer question_id="ask_uio_001" note="x">\nuse main\n</Answer>\n</Team Leader>')


@pytest.mark.parametrize("mtype", list(MessageType))
def test_type_table(mtype: MessageType) -> None:
    label, tag, prefix = TYPES[mtype]
    assert (mtype.label, mtype.tag, mtype.prefix) == (label, tag, prefix)
    assert MessageType.from_label(label) is mtype
    assert MessageType.from_label(label, Profile.ASTRION) is mtype
    assert mtype in MessageType.for_tag(tag)


def test_completion_label_per_profile() -> None:
    assert MessageType.COMPLETION.label_in(Profile.STRICT) == "任务完成汇报"
    assert MessageType.COMPLETION.label_in(Profile.ASTRION) == ASTRION_COMPLETION
    assert MessageType.COMPLETION.label_in() == "任务完成汇报"
    for mtype in set(MessageType) - {MessageType.COMPLETION}:
        assert mtype.label_in(Profile.ASTRION) == TYPES[mtype][0]
    assert MessageType.from_label(ASTRION_COMPLETION) is None
    assert MessageType.from_label(ASTRION_COMPLETION, Profile.ASTRION) is MessageType.COMPLETION
    assert MessageType.for_tag("Output") == (MessageType.PROGRESS, MessageType.COMPLETION)
    assert MessageType.for_tag("Outputs") == ()


def test_envelope_message_type_follows_the_profile() -> None:
    envelope = Envelope("UI Operator_1", ASTRION_COMPLETION, "out_uio_001", "Output", "done")
    assert envelope.message_type() is None
    assert envelope.message_type(Profile.STRICT) is None
    assert envelope.message_type(Profile.ASTRION) is MessageType.COMPLETION
    assert Envelope("A_1", "提问", "ask_a_001", "Ask", "?").message_type() is MessageType.ASK


def test_to_json_has_every_member_in_order() -> None:
    data = parse(ANSWER_TEXT).to_json()
    assert data == {"sender": "Team Leader", "label": "回答", "id": "ans_tl_001", "tag": "Answer",
                    "attributes": {"question_id": "ask_uio_001", "note": "x"},
                    "content": "use main", "type": "answer"}
    assert list(data) == ["sender", "label", "id", "tag", "attributes", "content", "type"]
    assert list(data["attributes"]) == ["question_id", "note"]


def test_to_json_types_unknown_labels_as_null_and_keeps_the_receiver() -> None:
    data = Envelope("A_1", "闲聊", "msg_a_001", "Message", "hi", receiver="B_1").to_json()
    assert data["type"] is None
    assert data["receiver"] == "B_1"
    assert Envelope("A_1", ASTRION_COMPLETION, "out_a_001", "Output", "").to_json()["type"] \
        == "completion"


def test_from_json_inverts_to_json() -> None:
    envelope = parse(ANSWER_TEXT)
    again = Envelope.from_json(envelope.to_json())
    assert again == envelope
    assert render(again) == ANSWER_TEXT
    with_receiver = Envelope("A_1", "消息", "msg_a_001", "Message", "hi", receiver="B_1")
    assert Envelope.from_json(with_receiver.to_json()) == with_receiver


def _valid() -> dict[str, Any]:
    return {"sender": "A_1", "label": "提问", "id": "ask_a_001", "tag": "Ask", "content": "?"}


@pytest.mark.parametrize(("change", "message"), [
    ({"attributes": ["question_id"]}, "'attributes' must be an object"),
    ({"sender": None}, "'sender' must be a string, not null"),
    ({"label": 1}, "'label' must be a string, not int"),
    ({"id": None}, "'id' must be a string, not null"),
    ({"tag": ["Ask"]}, "'tag' must be a string, not list"),
    ({"content": None}, "'content' must be a string, not null"),
    ({"receiver": 7}, "'receiver' must be a string"),
    ({"attributes": {"question_id": 1}}, "attribute 'question_id' must be a string"),
])
def test_from_json_names_the_bad_member(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        Envelope.from_json({**_valid(), **change})
    assert str(caught.value) == message


def test_from_json_names_every_missing_member() -> None:
    data = _valid()
    del data["id"], data["tag"]
    with pytest.raises(ValueError) as caught:
        Envelope.from_json(data)
    assert str(caught.value) == ("missing 'id', 'tag': an envelope needs 'sender', 'label', "
                                 "'id', 'tag' and 'content'")


def test_from_json_defaults() -> None:
    envelope = Envelope.from_json({**_valid(), "attributes": None, "type": "ignored"})
    assert envelope.attributes == ()
    assert envelope.receiver is None
    assert Envelope.from_json({**_valid(), "receiver": None}).receiver is None


def test_parse_error_json_form() -> None:
    with pytest.raises(ParseError) as caught:
        parse("来自 A_1 的提问\nid: ask_a_001\n\n<A_1>\n<Ask>\n?\n</Ask>\n</B_1>")
    data = caught.value.to_json()
    assert list(data) == ["code", "message", "line", "column", "offset", "expected"]
    assert data["code"] == "name-mismatch"
    assert (data["line"], data["column"]) == (8, 3)
    assert data["offset"] == len("来自 A_1 的提问\nid: ask_a_001\n\n<A_1>\n<Ask>\n?\n</Ask>\n</")
    assert isinstance(data["expected"], list)
    assert data["message"] == caught.value.message
    assert str(caught.value).startswith(f"line 8, column 3: {caught.value.message}")


def test_invalid_utf8_is_an_encoding_error_at_its_character() -> None:
    head = "来自 A_1 的提问\nid: ask_a_001\n\n<A_1>\n<Ask>\nab".encode()
    with pytest.raises(ParseError) as caught:
        parse(head + b"\xff\n</Ask>\n</A_1>")
    error = caught.value
    assert error.code == "encoding"
    assert (error.line, error.column, error.offset) == (6, 3, len(head.decode()))
    assert error.message == f"invalid UTF-8 at byte {len(head)}: invalid start byte"


def test_bytes_parse_like_their_text() -> None:
    assert parse(ANSWER_TEXT.encode("utf-8")) == parse(ANSWER_TEXT)


HEAD = "来自 A_1 的提问\nid: ask_a_001\n"


@pytest.mark.parametrize(("text", "message", "where"), [
    (HEAD, "expected a line break, found the end of the message", (3, 1)),
    (HEAD + "\n<A_1>", "expected a line break, found the end of the message", (4, 6)),
    (HEAD + "\n<A_1>\n<Ask>", "expected a line break, found the end of the message", (5, 6)),
    (HEAD + "\n<A_1>\n<Ask>\n?\n</Ask>", "expected the content, then the two closing tag "
     "lines, found the end of the message", (7, 7)),
    (HEAD + "\n<A_1>\n<Ask>\n?\n</Ask >\n</A_1>", "expected '>', found ' >'", (7, 6)),
    (HEAD + "\n<A_1>\n<Ask>\n?\n</Ask>\n</A_1> ",
     "expected a line break or the end of the message, found ' '", (8, 7)),
    (HEAD + "\n" + "y" * 40, "expected '<', found '" + "y" * 40 + "'", (4, 1)),
    (HEAD + "\n" + "y" * 41, "expected '<', found '" + "y" * 40 + "'…", (4, 1)),
    (HEAD + "\n<A_1>\n<Ask x>\n?\n</Ask>\n</A_1>", "expected '=', found '>'", (5, 7)),
    (HEAD + '\n<A_1>\n<Ask\tx="1">\n?\n</Ask>\n</A_1>',
     "expected ' ' or '>', found '\\tx=\"1\">'", (5, 5)),
    (HEAD + '\n<A_1>\n<Ask x="1" >\n?\n</Ask>\n</A_1>', "expected an attribute name, found '>'",
     (5, 12)),
    # a header whose sender or receiver is empty: the name is due where its separator ends
    ("来自  的提问\nid: ask_a_001\n", "expected a display name, found '的提问'", (1, 5)),
    ("来自 A_1 向  的提问\nid: ask_a_001\n", "expected a display name, found '的提问'", (1, 11)),
    # a tag without its name, in each of the four tag lines
    (HEAD + "\n<>\n<Ask>\n?\n</Ask>\n</A_1>", "expected a display name, found '>'", (4, 2)),
    (HEAD + "\n<A_1>\n<1Ask>\n?\n</1Ask>\n</A_1>", "expected a tag name, found '1Ask>'",
     (5, 2)),
    (HEAD + "\n<A_1>\n<Ask>\n?\n</>\n</A_1>", "expected a tag name, found '>'", (7, 3)),
    (HEAD + "\n<A_1>\n<Ask>\n?\n</Ask>\n</>", "expected a display name, found '>'", (8, 3)),
])
def test_syntax_errors_say_what_was_expected_and_found(text: str, message: str,
                                                       where: tuple[int, int]) -> None:
    """The message a user reads: what the grammar wanted there, and what it met (the text is
    quoted from the error to the end of its line, up to 40 characters, then cut with an
    ellipsis)."""
    with pytest.raises(ParseError) as caught:
        parse(text)
    assert caught.value.code == "syntax"
    assert caught.value.message == message
    assert (caught.value.line, caught.value.column) == where


def _defect(text: str) -> dict[str, object]:
    with pytest.raises(ParseError) as caught:
        parse(text)
    data = caught.value.to_json()
    return {k: data[k] for k in ("code", "message", "line", "column", "expected")}


def test_name_and_attribute_errors_name_both_sides() -> None:
    """TW-ENV-007/008/017: each check after the grammar says what it found, what it wanted,
    and lists the name it wanted as ``expected``."""
    assert _defect(HEAD + "\n<B_1>\n<Ask>\n?\n</Ask>\n</A_1>") == {
        "code": "name-mismatch", "line": 4, "column": 2, "expected": ["A_1"],
        "message": "outer tag <B_1> does not match the header's sender 'A_1'"}
    assert _defect(HEAD + '\n<A_1>\n<Ask a="1" a="2">\n?\n</Ask>\n</A_1>') == {
        "code": "duplicate-attribute", "line": 5, "column": 12, "expected": [],
        "message": "attribute 'a' is given twice"}
    assert _defect(HEAD + "\n<A_1>\n<Ask>\n?\n</Task>\n</A_1>") == {
        "code": "name-mismatch", "line": 7, "column": 3, "expected": ["Ask"],
        "message": "closing tag </Task> does not match the open tag <Ask>"}
    assert _defect(HEAD + "\n<A_1>\n<Ask>\n?\n</Ask>\n</B_1>") == {
        "code": "name-mismatch", "line": 8, "column": 3, "expected": ["A_1"],
        "message": "closing tag </B_1> does not match the sender 'A_1'"}


def test_id_problems_say_what_shape_was_wanted() -> None:
    """TW-ID-002/003: the message names the id and the shape or prefix it should have."""
    from teamwire.envelope import id_problem

    assert id_problem("msg-tl-7") == ("id 'msg-tl-7' is not 'task_NNN' or '{prefix}_{abbr}_NNN' "
                                      "with a prefix out, ask, ans or msg")
    assert id_problem("ask_tl_001", MessageType.ANSWER) == (
        "id 'ask_tl_001' has prefix 'ask' but a 回答 takes 'ans_'")
    assert id_problem("task_001", MessageType.MESSAGE) == (
        "id 'task_001' has prefix 'task' but a 消息 takes 'msg_'")
    assert id_problem("ans_tl_001", MessageType.ANSWER) is None
    assert id_problem("msg_0123456789", profile=Profile.ASTRION) is None
    assert id_problem("msg_0123456789") is not None


def test_other_lark_failures_still_end_as_errors_with_a_position() -> None:
    """Should the definition of error positions find nothing wrong with a text Lark rejects (a
    disagreement the differential tests look for), Lark's failure is reported where Lark
    stopped. envelope.lark's LALR parser reports bad text as an unexpected token; the other
    failures a Lark version may raise must still give a syntax error at a position, not a
    traceback."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF

    from teamwire.envelope.lark_parser import _lark_error

    text = "来自 A_1 的提问\nid: ask_a_001\n"
    failure = UnexpectedCharacters(text, 3, 1, 4, allowed={"NL"})  # type: ignore[no-untyped-call]
    error = _lark_error(text, failure)
    assert (error.code, error.offset, error.line, error.column) == ("syntax", 3, 1, 4)
    assert error.message == "expected a line break, found 'A'"
    assert error.expected == ("a line break",)
    error = _lark_error(text, UnexpectedEOF(["NL"]))  # type: ignore[no-untyped-call]
    assert (error.offset, error.line, error.column) == (len(text), 3, 1)
    assert error.message == "expected a line break, found the end of the message"
    error = _lark_error(text, UnexpectedCharacters(text, 3, 1, 4))  # type: ignore[no-untyped-call]
    assert error.message == "expected nothing more, found 'A'"
    assert error.expected == ()


def test_a_lark_failure_names_each_expected_token_in_words_joined_by_or() -> None:
    """Where Lark's failure is reported, every token it expected is named for a reader: a
    terminal without a friendly name by the text it matches, a name the grammar does not
    know as it is; several are joined by "or", in sorted order."""
    from lark.exceptions import UnexpectedCharacters

    from teamwire.envelope.lark_parser import _lark_error

    text = "来自 A_1 的提问\nid: ask_a_001\n"
    failure = UnexpectedCharacters(  # type: ignore[no-untyped-call]
        text, 3, 1, 4, allowed={"NL", "LESSTHAN", "MYSTERY"})
    error = _lark_error(text, failure)
    assert error.message == "expected '<' or MYSTERY or a line break, found 'A'"
    assert error.expected == ("'<'", "MYSTERY", "a line break")
