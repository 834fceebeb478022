"""``teamwire run`` as a person uses it, in this process (CliRunner) against a fake endpoint:
the conversation and the final answer it prints, the bundle it always writes, the state
directory it refuses for another request and resumes with ``--resume``, the one line it
prints for an endpoint that cannot be used (exit 3), the streamed text it shows as it arrives.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from teamwire.cli import main
from teamwire.cli.run_state import new_state_dir
from teamwire.validator import lint_value
from tests.run.fake_endpoint import ANSWER, REPORT, TASK, Fake, fake_endpoint

CLEAN = {k: None for k in os.environ if k.startswith(("OPENAI_", "TEAMWIRE_"))}


def _run(url: str, *args: str, **env: str) -> Result:
    return CliRunner().invoke(main, ["run", "--model-url", url, *args],
                              env={**CLEAN, **env}, catch_exceptions=False)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default state directory is made in the working one


def test_the_conversation_and_the_final_answer_are_printed_as_plain_lines() -> None:
    with fake_endpoint() as (_, url):
        result = _run(url, "Make a palette")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:4] == ["Team Leader → UI Operator_1 · user message · 任务发布 task_001",
                         f"    {TASK}",
                         "UI Operator_1 → Team Leader · user message · 任务完成汇报 out_uio_001",
                         f"    {REPORT}"]
    assert lines[4:6] == ["Team Leader · final answer:", ANSWER]
    assert lines[6] == "session ended: 10 messages in 2 conversations"


def test_without_a_state_directory_the_bundle_goes_to_a_new_one_and_its_path_is_printed(
        tmp_path: Path) -> None:
    with fake_endpoint() as (_, url):
        result = _run(url, "Make a palette")
    made = list(tmp_path.glob("teamwire-run-*"))
    assert len(made) == 1
    assert result.stdout.splitlines()[-1] == f"bundle: {made[0].name}/bundle.json"
    bundle = json.loads((made[0] / "bundle.json").read_text(encoding="utf-8"))
    assert lint_value(bundle, "bundle.json").findings == []
    assert (made[0] / "router.db").exists()


def test_a_new_state_directory_never_takes_an_existing_one(tmp_path: Path) -> None:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    (tmp_path / "teamwire-run-20260102T030405Z").mkdir()
    (tmp_path / "teamwire-run-20260102T030405Z-2").mkdir()
    assert new_state_dir(tmp_path, now).name == "teamwire-run-20260102T030405Z-3"


def test_quiet_prints_nothing_and_still_writes_the_bundle_where_o_says(tmp_path: Path) -> None:
    with fake_endpoint() as (_, url):
        result = _run(url, "-q", "-o", str(tmp_path / "out.json"), "--state-dir", "st",
                      "Make a palette")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == ""
    assert set(json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["agents"]) == \
        {"Team Leader", "UI Operator_1"}
    assert not (tmp_path / "st" / "bundle.json").exists()


def test_the_state_directory_of_a_session_is_refused_for_another_request(
        tmp_path: Path) -> None:
    with fake_endpoint() as (fake, url):
        assert _run(url, "--state-dir", "st", "Make a palette").exit_code == 0
        calls = len(fake.calls)
        result = _run(url, "--state-dir", "st", "Something else")
        assert result.exit_code == 2
        assert result.stderr == ("error: st holds a session of another request; run with "
                                 "--resume to continue it, or give another --state-dir for a "
                                 "new session\n")
        assert len(fake.calls) == calls  # no model call was made for the refused request


def test_the_same_request_again_or_resume_continues_the_kept_session(tmp_path: Path) -> None:
    with fake_endpoint() as (fake, url):
        assert _run(url, "--state-dir", "st", "Make a palette").exit_code == 0
        calls = len(fake.calls)
        again = _run(url, "--state-dir", "st", "Make a palette")
        resumed = _run(url, "--state-dir", "st", "--resume",
                       TEAMWIRE_REQUEST="a request left in the environment")
    for result in (again, resumed):
        assert result.exit_code == 0, result.output
        assert f"Team Leader · final answer:\n{ANSWER}\n" in result.stdout
    assert len(fake.calls) == calls  # the session had ended: nothing is asked again


@pytest.mark.parametrize(("args", "message"), [
    (["--resume", "hi"], "error: --resume continues the kept session with its own request; "
                         "give no REQUEST"),
    (["--resume"], "error: --resume needs the state directory of the session: give "
                   "--state-dir or set TEAMWIRE_STATE_DIR"),
    (["--resume", "--state-dir", "empty"], "error: nothing to resume: empty holds no session"),
], ids=["with-a-request", "without-a-state-directory", "in-an-empty-directory"])
def test_resume_without_a_session_to_resume_is_bad_usage(args: list[str], message: str) -> None:
    result = _run("http://127.0.0.1:9/v1", *args)
    assert result.exit_code == 2
    assert result.stderr == message + "\n"


def _only_line(result: Result) -> str:
    assert result.exit_code == 3, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_an_unknown_model_names_it_and_the_models_the_server_offers() -> None:
    fake = Fake(status=404, error={"error": {"message": "model 'default' not found"}},
                models=["qwen2.5:14b", "llama3.1"])
    with fake_endpoint(fake) as (_, url):
        line = _only_line(_run(url, "Make a palette"))
    assert line == (f"error: the endpoint has no model 'default' (HTTP 404 from "
                    f"{url}/chat/completions); name one with --model: it offers qwen2.5:14b, "
                    f"llama3.1")


def test_a_404_without_a_list_of_models_hints_model_and_the_url() -> None:
    fake = Fake(status=404, error={"error": {"message": "model 'default' not found"}})
    with fake_endpoint(fake) as (_, url):
        line = _only_line(_run(url, "--model", "gpt-x", "Make a palette"))
    assert line == (f"error: HTTP 404 from {url}/chat/completions: model 'default' not found; "
                    f"the endpoint has no model 'gpt-x' or no chat-completions endpoint at "
                    f"that URL: name the model with --model NAME, and check that --model-url "
                    f"ends in /v1")


@pytest.mark.parametrize(("status", "end"), [
    (401, "bad key; check the key (--api-key or $OPENAI_API_KEY)"),
    (500, "bad key"),
])
def test_another_error_status_is_one_line_with_the_servers_words(status: int, end: str) -> None:
    with fake_endpoint(Fake(status=status, error={"error": "bad key"})) as (_, url):
        line = _only_line(_run(url, "Make a palette"))
    assert line == f"error: HTTP {status} from {url}/chat/completions: {end}"


def test_a_session_no_call_succeeded_at_is_not_kept_so_the_same_command_starts_again(
        tmp_path: Path) -> None:
    with fake_endpoint(Fake(status=500)) as (fake, url):
        assert _run(url, "--state-dir", "st", "Make a palette").exit_code == 3
        assert (tmp_path / "st" / "bundle.json").exists()
        fake.status = 200
        result = _run(url, "--state-dir", "st", "Make a palette")
    assert result.exit_code == 0, result.output
    assert f"final answer:\n{ANSWER}" in result.stdout


def test_streamed_replies_are_asked_for_and_put_together() -> None:
    with fake_endpoint() as (fake, url):
        result = _run(url, "--stream", "Make a palette")
    assert result.exit_code == 0, result.output
    assert all(call.get("stream") is True for call in fake.calls)
    assert "Team Leader · final answer:\nThe palette: sky blue, storm grey, sun yellow. \n" \
        in result.stdout
    assert "▸" not in result.stdout  # not a terminal: no text piece by piece


def test_streamed_text_shows_as_it_arrives_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from teamwire.cli import run_cmd
    from teamwire.cli.session_show import PipeConsole

    monkeypatch.setattr(run_cmd, "PipeConsole",
                        lambda **kw: PipeConsole(force_terminal=True, color_system=None,
                                                 width=100, **kw))
    with fake_endpoint() as (_, url):
        result = _run(url, "--stream", "Make a palette")
    assert result.exit_code == 0, result.output
    assert f"UI Operator_1 ▸ {REPORT} \n" in result.stdout
    assert "Team Leader ▸ The palette: sky blue, storm grey, sun yellow. \n" in result.stdout
    assert "╭─ Team Leader 任务发布" in result.stdout
