"""Hostile input to the runtime and its stores: no traceback, a clear error, nothing lost.

Drivers that raise or return garbage, models that reuse tool call ids, endpoints that
send arguments as objects, and SQLite files that are not databases or fill their disk.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from teamwire.envelope import parse
from teamwire.router.demo import REQUEST, make_session
from teamwire.router.errors import STORE_FAILED, StoreFailure
from teamwire.router.runtime import (
    Reply,
    ScriptedAgent,
    Session,
    ToolCall,
    VirtualClock,
)
from teamwire.router.runtime.driver import AgentDriver
from teamwire.router.runtime.openai_chat import OpenAIChatDriver, parse_completion
from teamwire.router.store import MessageStatus, SQLiteStore
from tests.router.helpers import LEADER, UIO, ChatStub, chat_stub, resume_demo

ROOT = Path(__file__).resolve().parents[2]
CITED = ("TW-RES-009", "TW-DUR-003", "TW-DUR-004", "TW-DUR-007", "TW-TOOL-026", "TW-TOOL-032")
CREATE = {"agent_id": 1, "role_id": "ui-operator", "task": "Design the form."}


def test_cited_requirements_exist() -> None:
    known = {r["id"] for r in json.loads(
        (ROOT / "spec" / "requirements.json").read_text(encoding="utf-8"))["requirements"]}
    assert set(CITED) <= known


class _Replies:
    """A driver that answers each model call with the next item: a reply, an exception to
    raise, or anything else to return as it is (garbage)."""

    def __init__(self, *items: object) -> None:
        self.items = list(items)

    async def complete(self, agent: str, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]]) -> Any:
        item = self.items.pop(0) if self.items else Reply()
        if isinstance(item, BaseException):
            raise item
        return item


def _call(call_id: str, name: str, arguments: dict[str, Any] | str) -> ToolCall:
    return ToolCall(call_id, name, arguments if isinstance(arguments, str)
                    else json.dumps(arguments))


def _run(leader: AgentDriver, subs: dict[str, AgentDriver] | None = None) -> Session:
    clock = VirtualClock()
    found = subs or {}

    def drivers(name: str, role_id: str) -> AgentDriver:
        return found.get(name) or ScriptedAgent([], clock)

    session = Session(leader=leader, drivers=drivers, clock=clock)

    async def go() -> None:
        loop = asyncio.get_running_loop()
        errors: list[dict[str, Any]] = []
        loop.set_exception_handler(lambda _, context: errors.append(context))
        await session.start("Build a sign-up page.")
        await session.run_until_idle()
        assert errors == []  # no task died with an exception nobody retrieved

    asyncio.run(go())
    return session


def _tool_results(session: Session, agent: str) -> list[str]:
    return [m["content"] for m in session.conversations[agent] if m["role"] == "tool"]


def _reports(session: Session) -> list[str]:
    """The contents of the envelopes the leader received as user messages."""
    return [parse(m["content"]).content for m in session.conversations[LEADER][2:]
            if m["role"] == "user"]


# -- drivers ------------------------------------------------------------------------------------

GARBAGE: list[object] = [
    RuntimeError("boom"),
    KeyError("choices"),
    None,
    {"content": "a dict, not a Reply"},
    "plain text",
    Reply(5),  # type: ignore[arg-type]
    Reply(None, (ToolCall("c1", "ask_master", None),)),  # type: ignore[arg-type]
    Reply(None, ("ask_master",)),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("bad", GARBAGE, ids=lambda b: type(b).__name__)
def test_a_sub_agent_driver_that_raises_or_returns_garbage_reports_an_error(bad: object) -> None:
    """TW-RES-009: any failure of a model call, the driver's own bugs included, ends the turn
    at once with a run result of state error; nothing waits for the turn timeout."""
    session = _run(_Replies(Reply(None, (_call("c1", "create_sub_agent", CREATE),)),
                            Reply("Waiting for the report.")), {UIO: _Replies(bad)})
    [report] = _reports(session)
    assert report.startswith(f'<result agent="{UIO}" state="error">')
    assert session.clock.now() < 600
    assert {r.state.value for r in session.core.records()} == {"completed"}


def test_a_driver_bug_is_reported_with_its_text_cut_at_500_characters() -> None:
    """The run result names the exception and its text, cut so that a driver's long message
    (a whole response body, say) does not flood the leader's conversation."""
    session = _run(_Replies(Reply(None, (_call("c1", "create_sub_agent", CREATE),)),
                            Reply("Waiting for the report.")),
                   {UIO: _Replies(RuntimeError("x" * 1000))})
    [report] = _reports(session)
    problem = "the driver failed: RuntimeError: " + "x" * (500 - 33)
    assert report == f'<result agent="{UIO}" state="error">\n<error>\n{problem}\n</error>\n' \
                     "</result>"


@pytest.mark.parametrize("bad", GARBAGE, ids=lambda b: type(b).__name__)
def test_a_leader_driver_that_raises_or_returns_garbage_ends_its_turn(bad: object) -> None:
    session = _run(_Replies(bad))
    assert session.core.state(LEADER).value == "completed"
    assert session.conversations[LEADER][-1]["role"] == "user"  # nothing garbled recorded


def test_a_tool_call_id_repeated_in_one_reply_is_a_call_of_its_own() -> None:
    """TW-DUR-003 keys a call's stored result by its id: a second call with the same id must
    not get the first one's result (here a sub-agent without its TASK)."""
    session = _run(_Replies(Reply(None, (
        _call("c1", "create_sub_agent", CREATE),
        _call("c1", "create_sub_agent", {**CREATE, "agent_id": 2})))))
    results = [json.loads(r) for r in _tool_results(session, LEADER)]
    assert [r["task_id"] for r in results] == ["task_001", "task_002"]
    assert "UI Operator_2" in session.conversations
    assert any(m["role"] == "user" for m in session.conversations["UI Operator_2"])
    calls = [c["id"] for c in session.conversations[LEADER][2]["tool_calls"]]
    results_ids = [m["tool_call_id"] for m in session.conversations[LEADER]
                   if m["role"] == "tool"]
    assert len(set(calls)) == 2 and calls == results_ids


def test_tool_call_ids_reused_across_replies_lose_no_message() -> None:
    """An endpoint that numbers each reply's calls from zero (or sends no id): every
    send_message_to_sub_agent is delivered, none gets an earlier call's acknowledgment."""
    session = _run(_Replies(
        Reply(None, (_call("call_0", "create_sub_agent", CREATE),)),
        Reply(None, (_call("call_0", "send_message_to_sub_agent",
                           {"agent_id": 1, "message": "first"}),)),
        Reply(None, (_call("", "send_message_to_sub_agent",
                           {"agent_id": 1, "message": "second"}),
                     _call("", "send_message_to_sub_agent",
                           {"agent_id": 1, "message": "third"}))),
        Reply("Done.")))
    ids = [json.loads(r).get("message_id") for r in _tool_results(session, LEADER)[1:]]
    assert ids == ["msg_tl_001", "msg_tl_002", "msg_tl_003"]
    received = [parse(m["content"]).content for m in session.conversations[UIO]
                if m["role"] == "user"]
    assert received == ["Design the form.", "first", "second", "third"]
    calls = [c["id"] for m in session.conversations[LEADER] if m["role"] == "assistant"
             for c in m.get("tool_calls") or ()]
    assert len(calls) == len(set(calls)) == 4 and "" not in calls


def test_parse_completion_takes_arguments_sent_as_an_object_and_a_missing_id() -> None:
    reply = parse_completion({"choices": [{"message": {"content": None, "tool_calls": [
        {"type": "function", "function": {"name": "list_agents", "arguments": {"a": [1]}}},
        {"id": None, "function": {"name": "list_agents", "arguments": None}}]}}]})
    assert reply.tool_calls == (ToolCall("", "list_agents", '{"a": [1]}'),
                                ToolCall("", "list_agents", "{}"))


@pytest.fixture
def endpoint() -> Iterator[tuple[ChatStub, str]]:
    """A chat-completions stub that sends the queued bodies as they are, then 'done'."""
    with chat_stub(default=(200, {"choices": [{"message": {"content": "done"}}]})) as found:
        yield found


def _completion(*calls: tuple[str, Any]) -> bytes:
    return json.dumps({"choices": [{"message": {"content": None, "tool_calls": [
        {"id": "call_0", "type": "function", "function": {"name": n, "arguments": a}}
        for n, a in calls]}}]}).encode()


def test_an_endpoint_with_object_arguments_and_reused_ids(
        endpoint: tuple[ChatStub, str]) -> None:
    stub, url = endpoint
    stub.replies.extend((200, body) for body in [
        _completion(("create_sub_agent", CREATE)),
        _completion(("send_message_to_sub_agent", {"agent_id": 1, "message": "first"})),
        b"\xff\xfe not UTF-8",
    ])
    session = _run(OpenAIChatDriver(url, "stub"))
    results = [json.loads(r) for r in _tool_results(session, LEADER)]
    assert [r["success"] for r in results] == [True, True]
    assert results[1]["message_id"] == "msg_tl_001"
    assert session.core.state(LEADER).value == "completed"  # the non-UTF-8 reply ended it


def test_object_arguments_that_name_a_member_twice_are_refused(
        endpoint: tuple[ChatStub, str]) -> None:
    """TW-TOOL-038 for arguments an endpoint sends as an object: decoding the response must
    not quietly keep one of the two values."""
    stub, url = endpoint
    repeated = (b'{"choices": [{"message": {"content": null, "tool_calls": [{"id": "call_0", '
                b'"type": "function", "function": {"name": "create_sub_agent", "arguments": '
                b'{"agent_id": 1, "role_id": "ui-operator", "task": "A", "task": "B"}}}]}}]}')
    stub.replies.extend([(200, repeated), (200, _completion(("create_sub_agent", CREATE)))])
    session = _run(OpenAIChatDriver(url, "stub"))
    results = [json.loads(r) for r in _tool_results(session, LEADER)]
    assert results[0]["error"]["code"] == "invalid-arguments"
    assert "twice" in results[0]["error"]["message"]
    assert results[1]["success"] is True


# -- the SQLite store ---------------------------------------------------------------------------

def test_a_file_that_is_not_a_database_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "router.db"
    path.write_bytes(b"not a database at all " * 100)
    with pytest.raises(sqlite3.DatabaseError, match=str(path)):
        SQLiteStore(path)
    assert path.read_bytes() == b"not a database at all " * 100
    with pytest.raises(sqlite3.OperationalError, match="missing"):
        SQLiteStore(tmp_path / "missing" / "router.db")


def test_a_file_of_a_newer_layout_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "router.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(ValueError, match="another version"):
        SQLiteStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 99
    db.close()


def test_a_database_of_another_application_is_refused_as_such(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    db.close()
    with pytest.raises(ValueError) as refused:
        SQLiteStore(path)
    assert str(refused.value) == f"{path} is an SQLite database of something else, not of the router"
    with sqlite3.connect(path) as db:  # left alone
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]
    db.close()


def _limit(store: SQLiteStore, pages: int | None) -> None:
    """Make the database file unable to grow beyond ``pages`` more pages (a full disk)."""
    db = store._db
    size = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {size + pages if pages is not None else 2**30}")


def _finished(session: Session, store: SQLiteStore) -> None:
    delivered = [h.message_id for h in store.history() if h.status is MessageStatus.DELIVERED]
    assert len(delivered) == len(set(delivered))
    assert store.load().pending == ()
    assert {r.state.value for r in session.core.records()} == {"completed"}
    assert session.conversations == store.conversations()


def test_a_full_disk_reports_itself_and_the_session_resumes(tmp_path: Path) -> None:
    """TW-DUR-007: SQLite rolls a transaction back by itself on SQLITE_FULL; the store must
    say the disk is full (not that its own ROLLBACK failed) and keep its state, so that the
    session resumes from the file once there is room (TW-DUR-004)."""
    store = SQLiteStore(tmp_path / "router.db", synchronous="normal")
    session = make_session(store)

    async def first() -> None:
        await session.start(REQUEST)
        _limit(store, 1)
        await session.run_until_idle()

    with pytest.raises(StoreFailure, match="full") as failure:
        asyncio.run(first())
    assert isinstance(failure.value.__cause__, sqlite3.OperationalError)
    _limit(store, None)
    _finished(asyncio.run(resume_demo(store)), store)
    store.close()


def test_a_tool_call_refused_by_a_full_disk_returns_store_failed(tmp_path: Path) -> None:
    """TW-DUR-007, TW-TOOL-032: a refused tool call returns the common error result and the
    session goes on; no traceback from the store's rollback."""
    store = SQLiteStore(tmp_path / "router.db", synchronous="normal")
    _limit(store, 3)
    session = make_session(store)

    async def go() -> None:
        await session.start(REQUEST)
        await session.run_until_idle()

    asyncio.run(go())
    failed = [json.loads(r)["error"] for name in session.conversations
              for r in _tool_results(session, name) if STORE_FAILED in r]
    assert failed and {e["code"] for e in failed} == {STORE_FAILED}
    assert all("full" in e["message"] for e in failed)
    assert session.conversations == store.conversations()
    store.close()


def test_a_read_only_database_refuses_and_resume_continues(tmp_path: Path) -> None:
    """A store that refuses every write (read-only) stops the session at its first commit;
    what was stored before stays, and a writable store resumes it."""
    store = SQLiteStore(tmp_path / "router.db", synchronous="normal")
    session = make_session(store)

    async def first() -> None:
        await session.start(REQUEST)
        store._db.execute("PRAGMA query_only = ON")
        await session.run_until_idle()

    with pytest.raises(StoreFailure, match="readonly"):
        asyncio.run(first())
    store._db.execute("PRAGMA query_only = OFF")
    _finished(asyncio.run(resume_demo(store)), store)
    store.close()
