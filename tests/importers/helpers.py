"""Shared by the importer tests: the hand-written astrion data directory and a runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from teamwire.cli import main

DATA = Path(__file__).parent / "data" / "astrion"
CONVERSATION_ID = "conv_20261201_101500_ab12"
CONVERSATION = Path("conversations") / "default" / f"{CONVERSATION_ID}.json"
BUNDLE = f"default.{CONVERSATION_ID}.json"
UIO_TASK = Path("sub_agent_tasks") / "sub_1_1764583000" / "conversation.json"
FSE_TASK = Path("sub_agent_tasks") / "sub_2_1764583010" / "conversation.json"


def astrion_dir(tmp_path: Path) -> Path:
    """A fresh copy of the fixture data directory, free to change."""
    target = tmp_path / "astrion-data"
    shutil.copytree(DATA, target)
    return target


def run_import(source: Path | str, out: Path | str, *args: str) -> Result:
    """``teamwire import astrion SOURCE -o OUT ARGS...`` in this process."""
    return CliRunner().invoke(main, ["import", "astrion", str(source), "-o", str(out), *args])


def no_traceback(result: Result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")
