"""Session.write: the session bundle and the event log as files a person and the linter read.

spec/00-introduction.md (session bundle, transcript), TW-ENV-016 (a reader decodes bytes as
UTF-8: so the files are UTF-8 whatever the writer's locale), docs/router.md (Recording:
``session.write("out/")`` writes ``out/bundle.json`` and ``out/events.jsonl``, one JSON
object per event), docs/lint.md (bundles minified or pretty-printed; JSON Lines records).
"""

from __future__ import annotations

import asyncio
import json
import locale
from collections.abc import Iterator
from pathlib import Path

import pytest

from teamwire import schemas
from teamwire.router.runtime import ScriptedAgent, Session, Step, VirtualClock
from teamwire.router.runtime.driver import AgentDriver
from tests.router.helpers import UIO

TASK = "设计注册表单，颜色用品牌蓝"


def _session() -> Session:
    clock = VirtualClock()

    def drivers(name: str, role_id: str) -> AgentDriver:
        return ScriptedAgent([Step("表单已完成。")], clock, tag="uio")

    session = Session(leader=ScriptedAgent([Step(None, (("create_sub_agent", {
        "agent_id": 1, "role_id": "ui-operator", "task": TASK}),))], clock, tag="tl"),
        drivers=drivers, clock=clock, session_id="会话-1")

    async def go() -> None:
        await session.start("做一个注册页面")
        await session.run_until_idle()

    asyncio.run(go())
    return session


@pytest.fixture
def ascii_locale() -> Iterator[None]:
    """The locale of a host whose default text encoding is ASCII (as a cp1252 or C locale is
    for Chinese): a file written in the default encoding could not hold the envelopes."""
    saved = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
    except locale.Error:  # pragma: no cover - every C library has the C locale
        pytest.skip("no C locale")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)


def _check_files(session: Session, bundle_path: Path, events_path: Path) -> None:
    bundle_text = bundle_path.read_bytes().decode("utf-8")
    bundle = json.loads(bundle_text)
    assert bundle == session.bundle() and schemas.is_valid("bundle", bundle)
    # readable as it is: the characters themselves, not \u escapes
    assert TASK in bundle_text and "来自 Team Leader 的任务发布" in bundle_text
    assert '"session": "会话-1"' in bundle_text and "\\u" not in bundle_text
    # pretty-printed, two spaces a level, and a complete last line
    lines = bundle_text.split("\n")
    assert lines[:3] == ["{", '  "teamwire": "1.1",', '  "session": "会话-1",']
    assert lines[3] == '  "agents": {' and lines[4].startswith('    "Team Leader": {')
    assert lines[-2:] == ["}", ""]
    # one JSON object per line, in order, each line complete
    events_text = events_path.read_bytes().decode("utf-8")
    assert events_text.endswith("\n")
    records = events_text.split("\n")[:-1]
    assert [json.loads(r) for r in records] == session.events
    assert all(r.startswith("{") and r.endswith("}") for r in records)
    assert TASK in events_text and "\\u" not in events_text


def test_write_makes_utf8_files_a_person_can_read(tmp_path: Path) -> None:
    session = _session()
    assert session.core.state(UIO).value == "completed"
    bundle_path, events_path = session.write(tmp_path)
    assert (bundle_path, events_path) == (tmp_path / "bundle.json", tmp_path / "events.jsonl")
    _check_files(session, bundle_path, events_path)


def test_write_creates_the_directory_and_its_parents(tmp_path: Path) -> None:
    session = _session()
    target = tmp_path / "runs" / "2024" / "first"
    bundle_path, events_path = session.write(str(target))
    assert bundle_path.parent == target and events_path.parent == target
    _check_files(session, bundle_path, events_path)
    session.write(target)  # again into the same directory: the files are replaced
    _check_files(session, bundle_path, events_path)


@pytest.mark.usefixtures("ascii_locale")
def test_write_is_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """TW-ENV-016: the files are UTF-8 also on a host whose locale encoding is not."""
    session = _session()
    bundle_path, events_path = session.write(tmp_path)
    _check_files(session, bundle_path, events_path)
