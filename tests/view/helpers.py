"""Sessions for the view's tests: the demo's bundle, and hand-written ones."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

from teamwire.router.demo import run_demo
from teamwire.router.store import MemoryStore

UIO = "UI Operator_1"
FSE = "Full-Stack Engineer_1"
TL = "Team Leader"


def demo_bundle() -> dict[str, Any]:
    """The bundle `teamwire demo` writes (run in memory, on virtual time)."""
    return copy.deepcopy(asyncio.run(run_demo(MemoryStore())).bundle())


def encoded(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def with_lost_message(bundle: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The demo bundle with the dark-mode Message never delivered to UI Operator_1; returns
    the bundle and the index of the Team Leader's message that sent it."""
    messages = bundle["agents"][UIO]["messages"]
    at = next(i for i, m in enumerate(messages)
              if m["role"] == "user" and "dark-mode" in m["content"])
    del messages[at:]
    leader = bundle["agents"][TL]["messages"]
    sent = next(i for i, m in enumerate(leader) if m["role"] == "assistant"
                and "dark-mode" in json.dumps(m.get("tool_calls") or []))
    # the report of the dark-mode work is gone with it
    bundle["agents"][TL]["messages"] = [m for m in leader
                                        if "Dark-mode variant added" not in str(m.get("content"))]
    return bundle, sent
