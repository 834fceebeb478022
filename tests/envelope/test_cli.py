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
