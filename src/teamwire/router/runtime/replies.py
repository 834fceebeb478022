"""A driver's reply, checked and made safe to record: pure functions over conversations."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from teamwire.router.runtime.driver import Reply, ToolCall

SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: text that no store or file can hold."""


def checked_reply(answer: object) -> tuple[Reply | None, str]:
    """(the driver's answer as a Reply, "") or (None, why it is not one)."""
    if not isinstance(answer, Reply):
        return None, f"the driver returned {type(answer).__name__}, not a Reply"
    if answer.content is not None and not isinstance(answer.content, str):
        return None, "the driver returned a reply whose content is not text"
    calls = answer.tool_calls
    if not isinstance(calls, (tuple, list)) or not all(
            isinstance(c, ToolCall) and isinstance(c.id, str) and isinstance(c.name, str)
            and isinstance(c.arguments, str) for c in calls):
        return None, "the driver returned tool calls that are not ToolCalls of text fields"
    return (answer if isinstance(calls, tuple) else Reply(answer.content, tuple(calls))), ""


def without_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD."""
    return SURROGATE.sub("\ufffd", text)


def valid_unicode(reply: Reply) -> Reply:
    """``reply`` with every lone surrogate (a model's ``"\\ud800"``, which no store or file can
    hold) replaced by U+FFFD; the same object when there is none, which is the usual case."""
    texts = [reply.content or ""]
    for call in reply.tool_calls:
        texts.extend((call.id, call.name, call.arguments))
    if not any(SURROGATE.search(text) for text in texts):
        return reply
    clean = without_surrogates
    return Reply(None if reply.content is None else clean(reply.content),
                 tuple(ToolCall(clean(c.id), clean(c.name), clean(c.arguments))
                       for c in reply.tool_calls))


def unique_call_ids(reply: Reply, conversation: Iterable[dict[str, Any]]) -> Reply:
    """``reply`` with a fresh id for every tool call whose id is empty or already used.

    A tool call id is the key of the call's stored result (TW-DUR-003): a
    reused one would make the core return the earlier call's result and
    drop the new call's message. Some endpoints number every reply's calls
    from zero, or give no id at all; the conversation records the new ids,
    so the model still sees each result next to its call.
    """
    if not reply.tool_calls:
        return reply
    used: set[str] = set()
    for message in conversation:
        for call in message.get("tool_calls") or ():
            used.add(call["id"])
    renamed: list[ToolCall] = []
    for call in reply.tool_calls:
        call_id = call.id
        if not call_id or call_id in used:
            base = call_id[:64] or "call"
            n = 2
            while f"{base}_{n}" in used:
                n += 1
            call_id = f"{base}_{n}"
        used.add(call_id)
        renamed.append(call if call_id == call.id else ToolCall(call_id, call.name,
                                                                call.arguments))
    if all(a is b for a, b in zip(renamed, reply.tool_calls, strict=True)):
        return reply
    return Reply(reply.content, tuple(renamed))


def unfinished_calls(conversation: list[dict[str, Any]]) -> list[ToolCall]:
    """The tool calls of the conversation's last assistant message that have no result yet."""
    for index in range(len(conversation) - 1, -1, -1):
        message = conversation[index]
        if message.get("role") != "assistant":
            continue
        answered = {m.get("tool_call_id") for m in conversation[index + 1:]
                    if m.get("role") == "tool"}
        return [ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                for c in message.get("tool_calls") or () if c["id"] not in answered]
    return []
