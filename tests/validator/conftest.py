"""Fixtures of the validator tests: a clean bundle and a broken one on disk."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conformance.sources.transcripts.builders import small_session


@pytest.fixture()
def clean_bundle() -> dict[str, Any]:
    return small_session()


@pytest.fixture()
def broken_bundle(clean_bundle: dict[str, Any]) -> dict[str, Any]:
    """The clean session with one malformed report and one bad tool call."""
    bundle = copy.deepcopy(clean_bundle)
    leader = bundle["agents"]["Team Leader"]["messages"]
    for message in leader:
        if message["role"] == "user" and "的任务完成汇报" in message["content"]:
            message["content"] = message["content"].replace("</Output>", "</Outptu>")
            break
    ui = bundle["agents"]["UI Operator_1"]["messages"]
    ui.append({"role": "assistant", "content": None, "tool_calls": [
        {"id": "x1", "type": "function",
         "function": {"name": "create_sub_agent", "arguments": '{"agent_id": 1,}'}}]})
    ui.append({"role": "tool", "tool_call_id": "x1",
               "content": json.dumps({"success": False, "error": {
                   "code": "forbidden-tool", "message": "not offered"}})})
    return bundle


@pytest.fixture()
def files(tmp_path: Path, clean_bundle: dict[str, Any],
          broken_bundle: dict[str, Any]) -> dict[str, Path]:
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(clean_bundle, ensure_ascii=False), encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(broken_bundle, ensure_ascii=False, indent=1), encoding="utf-8")
    return {"clean": clean, "broken": broken}
