"""``teamwire view`` on the command line: files, exit codes, the terminal form."""

from __future__ import annotations

import json
import webbrowser
from pathlib import Path

import pytest
from click.testing import CliRunner

from teamwire.cli import main
from tests.view.helpers import demo_bundle, encoded


@pytest.fixture
def bundle_file(tmp_path: Path) -> Path:
    path = tmp_path / "bundle.json"
    path.write_bytes(encoded(demo_bundle()))
    return path


def test_the_page_is_written_beside_the_input_by_default(bundle_file: Path) -> None:
    result = CliRunner().invoke(main, ["view", str(bundle_file)])
    assert result.exit_code == 0, result.output
    page = bundle_file.with_suffix(".html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "tw-data" in page
    assert "50 messages, 3 lanes, 0 findings" in result.output


def test_output_to_a_file_or_standard_output(bundle_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "x.html"
    target.parent.mkdir()
    assert CliRunner().invoke(main, ["view", str(bundle_file), "-o", str(target)]).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    result = CliRunner().invoke(main, ["view", str(bundle_file), "-o", "-"])
    assert result.exit_code == 0 and result.stdout.startswith("<!DOCTYPE html>")


def test_open_hands_the_page_to_the_browser(bundle_file: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    def open_page(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", open_page)
    assert CliRunner().invoke(main, ["view", str(bundle_file), "--open"]).exit_code == 0
    assert opened == [bundle_file.with_suffix(".html").resolve().as_uri()]


def test_open_without_a_browser_says_so_and_exits_1(bundle_file: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    result = CliRunner().invoke(main, ["view", str(bundle_file), "--open"])
    assert result.exit_code == 1
    assert "no web browser could be started" in result.stderr
    assert bundle_file.with_suffix(".html").exists()  # the page is written all the same


def test_an_event_log_is_refused_with_what_to_view_instead(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"seq": 1, "time": 0, "event": "AgentCreated", "data": {}, '
                    '"actions": []}\n{"seq": 2, "time": 0, "event": "TurnStarted", '
                    '"data": {}, "actions": []}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["view", str(path)])
    assert result.exit_code == 2
    assert "is a teamwire event log" in result.stderr and "bundle.json" in result.stderr
    assert not path.with_suffix(".html").exists()


@pytest.mark.parametrize(("content", "message"), [
    ("[{\"name\": \"x\"}, {\"size\": 3}]", "a JSON array with no message in it"),
    ("{\"agents\": {", "bad.json:1:13: invalid JSON"),
    ("[1, 2", "bad.json:1:6: invalid JSON"),
    ("\"text\"", "the top level is a string"),
], ids=["no-message-in-the-array", "truncated-bundle", "truncated-array", "string"])
def test_input_that_is_no_session_exits_2_with_a_position(tmp_path: Path, content: str,
                                                           message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["view", str(path)])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output
    assert not path.with_suffix(".html").exists()


def test_missing_files_directories_and_bad_flags_exit_2(tmp_path: Path,
                                                         bundle_file: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["view", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read" in missing.stderr
    directory = runner.invoke(main, ["view", str(tmp_path)])
    assert directory.exit_code == 2 and "is a directory" in directory.stderr
    both = runner.invoke(main, ["view", str(bundle_file), "--terminal", "-o", "x.html"])
    assert both.exit_code == 2
    same = runner.invoke(main, ["view", str(bundle_file), "-o", str(bundle_file)])
    assert same.exit_code == 2 and "is the input" in same.stderr
    assert json.loads(bundle_file.read_bytes())["session"] == "teamwire-demo"


def test_terminal_prints_plain_bubbles_in_order_when_not_a_terminal(bundle_file: Path) -> None:
    result = CliRunner().invoke(main, ["view", str(bundle_file), "--terminal"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\x1b[" not in out  # plain: no colours, no pager
    ids = [line.rsplit("· ", 1)[1].strip(" ─╯") for line in out.splitlines() if "╯" in line]
    assert len(ids) == 17
    # sends come before their deliveries: the Tasks first, the final completion last
    assert ids[:2] == ["task_001", "task_002"] and ids[-1] in ("out_uio_005", "out_fse_002")
    assert ids.index("ask_fse_001") < ids.index("ans_tl_001")
    assert ids.index("ask_tl_001") < ids.index("ans_fse_002")
    assert "order against the message above is not known" in out


def test_terminal_pages_on_a_tty(bundle_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rich.pager
    from rich.console import Console

    from teamwire.view.session import load_session
    from teamwire.view.terminal import print_session

    paged: list[str] = []

    class Pager(rich.pager.Pager):
        def show(self, content: str) -> None:
            paged.append(content)

    console = Console(force_terminal=True, width=80)
    monkeypatch.setattr(console, "pager", lambda **kw: Console.pager(console, Pager(), **kw))
    print_session(load_session(bundle_file.read_bytes(), "bundle.json"), console)
    assert len(paged) == 1 and "task_001" in paged[0] and "\x1b[" in paged[0]
