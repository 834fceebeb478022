"""``teamwire envelope`` and ``teamwire --version`` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from teamwire import __version__
from teamwire.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ask_master.txt"


def run(*args: str, stdin: bytes | str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and __version__ in out


def test_parse_file_prints_json() -> None:
    code, out, _ = run("envelope", "parse", str(EXAMPLE))
    assert code == 0
    data = json.loads(out)
    assert (data["sender"], data["id"], data["tag"], data["type"]) == (
        "Full-Stack Engineer_1", "ask_fse_001", "Ask", "ask")


def test_parse_then_render_round_trips() -> None:
    _, out, _ = run("envelope", "parse", str(EXAMPLE))
    code, text, _ = run("envelope", "render", "-", stdin=out)
    assert code == 0
    assert text == EXAMPLE.read_text(encoding="utf-8").rstrip("\n")


def test_bad_envelope_exits_1_with_position() -> None:
    code, _, err = run("envelope", "parse", "-", stdin="来自 Team Leader 的消息\nid:x\n")
    assert code == 1
    assert "<stdin>:2:4: error[syntax]" in err  # the space 'id: ' wants (TW-ENV-031)


def test_invalid_utf8_exits_2() -> None:
    code, _, err = run("envelope", "parse", "-", stdin=b"\xff\xfe\x00")
    assert code == 2 and "invalid UTF-8" in err


def test_missing_file_exits_2(tmp_path: Path) -> None:
    code, _, err = run("envelope", "parse", str(tmp_path / "nope.txt"))
    assert code == 2 and "cannot read" in err


def test_render_bad_json_exits_2() -> None:
    code, _, err = run("envelope", "render", "-", stdin="{not json")
    assert code == 2 and "<stdin>:1:2" in err


def test_render_unrenderable_exits_1() -> None:
    bad = {"sender": "A<1", "label": "消息", "id": "m", "tag": "Message", "content": ""}
    code, _, err = run("envelope", "render", "-", stdin=json.dumps(bad))
    assert code == 1 and "error" in err


def test_render_wrong_shape_exits_1_or_2() -> None:
    assert run("envelope", "render", "-", stdin="[1, 2]")[0] == 2
    assert run("envelope", "render", "-", stdin='{"sender": 3}')[0] == 1


@given(st.binary(max_size=200))
def test_parse_never_crashes_on_bytes(data: bytes) -> None:
    code, _, _ = run("envelope", "parse", "-", stdin=data)
    assert code in (0, 1, 2)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c,
                                                                         max_size=3),
                    max_leaves=8))
def test_render_never_crashes_on_json(value: object) -> None:
    code, _, _ = run("envelope", "render", "-", stdin=json.dumps(value))
    assert code in (0, 1, 2)


def _text(label: str, id_: str, tag: str, sender: str = "Team Leader") -> str:
    return f"来自 {sender} 的{label}\nid: {id_}\n\n<{sender}>\n<{tag}>\nDo it.\n</{tag}>\n</{sender}>"


def test_parse_refuses_a_tag_of_another_type_than_the_label() -> None:
    """The grammar accepts 提问 with <Task>; the message type does not (TW105): exit 1 with
    the line of the tag, the JSON printed all the same; --grammar-only accepts it."""
    text = _text("提问", "ask_tl_001", "Task")
    code, out, err = run("envelope", "parse", "-", stdin=text)
    assert code == 1 and json.loads(out)["tag"] == "Task"
    assert err == "<stdin>:5: error: the inner tag <Task> is not <Ask>, the tag of 提问 (ask) " \
                  "(TW105)\n"
    assert run("envelope", "parse", "--grammar-only", "-", stdin=text)[0] == 0


def test_parse_refuses_a_router_id_of_another_type_and_warns_of_a_chosen_one() -> None:
    code, _, err = run("envelope", "parse", "-", stdin=_text("任务发布", "msg_tl_001", "Task"))
    assert code == 1 and "<stdin>:2: error: the id 'msg_tl_001' does not start with task_" in err
    # an ask's id is the asker's choice, whose prefix is a SHOULD (TW-ID-012): a warning
    code, _, err = run("envelope", "parse", "-", stdin=_text("提问", "task_001", "Ask"))
    assert code == 0 and "<stdin>:2: warning: the id 'task_001' does not start with ask_" in err


def test_render_names_what_is_missing() -> None:
    data = {"sender": "Team Leader", "label": "任务发布", "tag": "Task", "content": "x"}
    code, _, err = run("envelope", "render", "-", stdin=json.dumps(data))
    assert code == 1
    assert "missing 'id': an envelope needs 'sender', 'label', 'id', 'tag' and 'content'" in err
