"""``teamwire run`` end to end against an OpenAI-compatible server that is not teamwire's own:
fakellm (PyPI), a mock server that answers by rules and streams, started here on 127.0.0.1.

Its rules play a Team Leader that creates a UI Operator and answers once the operator has
reported, and refuse the model name ``default`` with HTTP 404, as real servers do. The test
runs the command as a user would, then lints the bundle it wrote.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

TASK = "Pick three colours for a weather app."
REPORT = "Palette ready: sky blue, storm grey, sun yellow."
ANSWER = "The weather app uses sky blue, storm grey and sun yellow."
RULES = {
    "version": 1,
    "rules": [
        {"name": "unknown-model", "when": {"model_matches": "default"},
         "respond": {"status": 404, "error": "The model `default` does not exist."}},
        {"name": "leader-delegates", "when": {"tools_include": "create_sub_agent", "turn": 1},
         "respond": {"tool_calls": [{"name": "create_sub_agent", "arguments": {
             "agent_id": 1, "role_id": "ui-operator", "task": TASK}}]}},
        {"name": "leader-answers",
         "when": {"tools_include": "create_sub_agent", "messages_contain": REPORT},
         "respond": {"content": ANSWER}},
        {"name": "leader-waits", "when": {"tools_include": "create_sub_agent"},
         "respond": {"content": "Waiting for the UI Operator."}},
        {"name": "operator-reports", "respond": {"content": REPORT}},
    ],
}
CLEAN = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TEAMWIRE_"))}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def fakellm(tmp_path: Path) -> Iterator[str]:
    """A fakellm server with RULES on a free port of 127.0.0.1: its base URL, once it answers."""
    config = tmp_path / "fakellm.yaml"
    config.write_text(json.dumps(RULES), encoding="utf-8")  # JSON is YAML
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "fakellm.cli", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--config", str(config)], cwd=tmp_path, env=CLEAN,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:  # ready once it answers; each try waits on the connection, not a timer
            if server.poll() is not None:
                said = server.stderr.read().decode() if server.stderr else ""
                pytest.fail(f"fakellm exited: {said}")
            try:
                with urllib.request.urlopen(f"{base}/_fakellm/stats", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("fakellm did not answer within 60 s")
                time.sleep(0.05)
        yield f"{base}/v1"
    finally:
        server.terminate()
        server.wait(timeout=30)


def _teamwire(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "teamwire", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=CLEAN, check=False)


@pytest.mark.parametrize("stream", ["--no-stream", "--stream"])
def test_a_session_against_fakellm_shows_the_answer_and_writes_a_bundle_that_lints(
        fakellm: str, tmp_path: Path, stream: str) -> None:
    result = _teamwire("run", "--model-url", fakellm, "--api-key", "not-checked", "--model",
                       "mock-1", stream, "Design a palette for a weather app", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "Team Leader → UI Operator_1 · user message · 任务发布 task_001" in lines
    assert f"    {TASK}" in lines
    assert f"    {REPORT}" in lines
    answer = lines.index("Team Leader · final answer:")
    assert lines[answer + 1] == ANSWER
    assert lines[-1].startswith("bundle: teamwire-run-")
    bundle = lines[-1].removeprefix("bundle: ")
    linted = _teamwire("lint", bundle, cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout
    assert linted.stdout.startswith("All checks passed")


def test_the_model_name_fakellm_refuses_is_named_with_a_hint_at_model(
        fakellm: str, tmp_path: Path) -> None:
    result = _teamwire("run", "--model-url", fakellm, "Design a palette", cwd=tmp_path)
    assert result.returncode == 3
    assert result.stdout == ""
    assert result.stderr == (
        f"error: HTTP 404 from {fakellm}/chat/completions: The model `default` does not "
        f"exist; the endpoint has no model 'default' or no chat-completions endpoint at that "
        f"URL: name the model with --model NAME, and check that --model-url ends in /v1\n")
