"""``teamwire run``: the reference router as a command; what it refuses before it starts.

Sessions it runs are tested through certification (tests/conformance/test_certify.py), which
starts it as any router is started; here, the usage errors of the contract's variables and
options, each an error with exit 2 and never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith(("OPENAI_", "TEAMWIRE_"))}


def _run(args: list[str], cwd: Path | None = None,
         **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "teamwire", "run", *args], capture_output=True,
                          text=True, timeout=60, env={**CLEAN, **env}, check=False, cwd=cwd)


@pytest.mark.parametrize(("args", "env", "message"), [
    (["hello"], {}, "error: no endpoint: give --model-url or set OPENAI_BASE_URL"),
    ([], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
     "error: no request: give REQUEST or set TEAMWIRE_REQUEST"),
    (["hi", "--ask-timeout", "soon"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
     "error: the ask timeout must be a number of seconds, not 'soon'"),
    (["hi"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TEAMWIRE_ASK_TIMEOUT": "-1"},
     "error: the ask timeout must be a positive number of seconds, not '-1'"),
    (["hi"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TEAMWIRE_ROUND_LIMIT": "0"},
     "error: the round limit must be a whole number of at least 1, not '0'"),
    (["hi", "--turn-timeout", "0"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
     "error: the turn timeout must be a positive number of seconds, not '0'"),
    (["hi"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TEAMWIRE_MODEL_RETRIES": "-1"},
     "error: the number of model-call retries must be a whole number of at least 0, not '-1'"),
    (["hi", "--model-retries", "²"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
     "error: the number of model-call retries must be a whole number of at least 0, not '²'"),
    (["hi"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "TEAMWIRE_UNANSWERED_ASKS": "later"},
     "error: TEAMWIRE_UNANSWERED_ASKS must be 'wait' or 'fail', not 'later'"),
], ids=["no-endpoint", "no-request", "timeout-not-a-number", "timeout-negative", "no-rounds",
        "turn-timeout-zero", "retries-negative", "retries-not-ascii", "unanswered-asks-unknown"])
def test_bad_usage_is_exit_2_with_the_reason(args: list[str], env: dict[str, str],
                                             message: str) -> None:
    result = _run(args, None, **env)
    assert result.returncode == 2
    assert result.stderr.strip() == message


def test_a_state_directory_that_cannot_be_used_is_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    result = _run(["hi", "--state-dir", str(blocker / "state")],
                  OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: cannot keep the session in {blocker / 'state'}")
    assert "Traceback" not in result.stderr


def test_a_model_for_a_role_is_written_role_equals_model() -> None:
    result = _run(["hi", "--model-for", "coder"], OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert result.returncode == 2
    assert "'coder': write ROLE=MODEL" in result.stderr


def test_an_endpoint_that_cannot_be_reached_is_exit_3_in_one_line(tmp_path: Path) -> None:
    result = _run(["hi"], cwd=tmp_path, OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert result.returncode == 3
    assert result.stderr.startswith("error: cannot reach the model endpoint at "
                                    "http://127.0.0.1:9/v1/chat/completions (")
    assert result.stderr.strip().endswith("check --model-url (or $OPENAI_BASE_URL) and that "
                                          "the server is running")
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_describe_prints_a_declaration_of_the_knobs_it_reads() -> None:
    """``teamwire run --describe`` needs no endpoint, and names every knob with the variable
    this command reads it from."""
    import json

    from teamwire import schemas
    from teamwire.cli import run_cmd

    result = _run(["--describe"])
    assert result.returncode == 0, result.stderr
    declared = json.loads(result.stdout)
    assert schemas.validate("router-capabilities", declared) == []
    assert declared["knobs"] == {"ask_timeout": "TEAMWIRE_ASK_TIMEOUT",
                                 "turn_timeout": "TEAMWIRE_TURN_TIMEOUT",
                                 "round_limit": "TEAMWIRE_ROUND_LIMIT",
                                 "model_retries": "TEAMWIRE_MODEL_RETRIES",
                                 "unanswered_asks": "TEAMWIRE_UNANSWERED_ASKS"}
    assert declared["knobs"]["model_retries"] == run_cmd.ENV_MODEL_RETRIES
    assert declared["knobs"]["unanswered_asks"] == run_cmd.ENV_UNANSWERED_ASKS


def test_a_failed_model_call_is_made_again_as_many_times_as_the_retries_say(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from teamwire.router.runtime.driver import DriverError, Reply
    from teamwire.router.runtime.openai_chat import OpenAIChatDriver

    reply = Reply("ok")

    def driver(retries: int, failures: int) -> tuple[OpenAIChatDriver, list[int]]:
        made: list[int] = []

        def post(body: object, piece: object = None) -> object:
            made.append(1)
            if len(made) <= failures:
                raise DriverError("HTTP 500")
            return reply

        chat = OpenAIChatDriver("http://127.0.0.1:9/v1", "m", retries=retries)
        monkeypatch.setattr(chat, "_post", post)
        return chat, made

    chat, made = driver(retries=2, failures=2)
    assert asyncio.run(chat.complete("Team Leader", [], [])).content == "ok"
    assert len(made) == 3
    chat, made = driver(retries=1, failures=2)
    with pytest.raises(DriverError):
        asyncio.run(chat.complete("Team Leader", [], []))
    assert len(made) == 2
    chat, made = driver(retries=0, failures=1)
    with pytest.raises(DriverError):
        asyncio.run(chat.complete("Team Leader", [], []))
    assert len(made) == 1


@pytest.mark.parametrize(("args", "env", "message"), [
    (["--ask-timeout", "0"], {}, "the ask timeout must be a positive number of seconds, not '0'"),
    ([], {"TEAMWIRE_ASK_TIMEOUT": "0"},
     "the ask timeout must be a positive number of seconds, not '0'"),
    ([], {"TEAMWIRE_ASK_TIMEOUT": "-0.0"},
     "the ask timeout must be a positive number of seconds, not '-0.0'"),
    (["--ask-timeout", "nan"], {},
     "the ask timeout must be a positive number of seconds, not 'nan'"),
    (["--ask-timeout", "inf"], {},
     "the ask timeout must be a positive number of seconds, not 'inf'"),
    (["--turn-timeout", "0"], {},
     "the turn timeout must be a positive number of seconds, not '0'"),
    ([], {"TEAMWIRE_TURN_TIMEOUT": "0.0"},
     "the turn timeout must be a positive number of seconds, not '0.0'"),
    ([], {"TEAMWIRE_ROUND_LIMIT": "0"},
     "the round limit must be a whole number of at least 1, not '0'"),
], ids=["ask-option-0", "ask-variable-0", "ask-minus-0", "ask-nan", "ask-inf", "turn-option-0",
        "turn-variable-0", "rounds-variable-0"])
def test_a_knob_out_of_range_is_refused_before_anything_runs(
        args: list[str], env: dict[str, str], message: str) -> None:
    """TW-ROUTE-032 at the command line, in this process (CliRunner): a zero, negative or
    infinite timeout and a zero round limit are refused with exit 2 (the documented code of
    bad usage) and the reason, no traceback, and no model call is tried (the endpoint would
    refuse the connection and the error would be another)."""
    from click.testing import CliRunner

    from teamwire.cli import main

    clean = {k: None for k in os.environ if k.startswith(("OPENAI_", "TEAMWIRE_"))}
    result = CliRunner().invoke(main, ["run", "hi", *args],
                                env={**clean, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", **env})
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2
    assert result.stderr == f"error: {message}\n"
    assert result.stdout == ""
