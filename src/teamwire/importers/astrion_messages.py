"""astrion's stored chat messages -> the chat messages of a session bundle.

astrion stores OpenAI-style messages with additions: ``timestamp``, ``message_id`` and
``metadata`` on the leader's messages, ``reasoning_content`` on assistant messages, and
on the leader's tool messages the text the model was shown as ``content`` with the raw
result in ``metadata.tool_payload``. A bundle's tool message carries the raw result (what
the protocol's tool results are) as its content; what the model saw, when it differs, and
astrion's ids stay beside it in an ``astrion`` member (the extension rule, TW-VER-004).
Messages that cannot be carried over are left out and reported, never guessed at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from teamwire.importers.files import JsonFile, Problem
from teamwire.json_members import json_type
from teamwire.json_text import locate_pointers

EXTENSION = "astrion"
"""The member that keeps what astrion recorded beyond the bundle format."""

_ROLES = frozenset({"system", "user", "assistant", "tool"})
_SUB_AGENT_TOOL_NOTES_SHOWN = 5


@dataclass
class Notes:
    """Problems found while converting, kept per file until their places are known."""

    items: list[Problem] = field(default_factory=list)

    def add(self, file: str, message: str, pointer: str = "") -> None:
        """Note ``message`` about the value at ``pointer`` in ``file``."""
        self.items.append(Problem(file, message, pointer))

    def located(self, files: list[JsonFile]) -> list[Problem]:
        """The notes, each with the line and column of its value where its file is known."""
        texts = {file.name: file.text for file in files}
        wanted: dict[str, set[str]] = {}
        for item in self.items:
            if item.pointer and item.file in texts:
                wanted.setdefault(item.file, set()).add(item.pointer)
        places = {name: locate_pointers(texts[name], pointers) for name, pointers in wanted.items()}
        result = []
        for item in self.items:
            place = places.get(item.file, {}).get(item.pointer)
            result.append(item.located(*place) if place else item)
        return result


def convert(messages: Any, file: str, base: str, notes: Notes, *, leader: bool) -> list[dict[str, Any]]:
    """The bundle messages for astrion's ``messages`` (at ``base`` in ``file``)."""
    if not isinstance(messages, list):
        notes.add(file, f"\"messages\" is {json_type(messages)}, not an array; no message "
                        "imported", base)
        return []
    out: list[dict[str, Any]] = []
    formatted: list[str] = []
    for index, message in enumerate(messages):
        pointer = f"{base}/{index}"
        converted = _message(message, file, pointer, notes, leader)
        if converted is None:
            continue
        if converted["role"] == "tool" and not leader:
            formatted.append(pointer)
        out.append(converted)
    if formatted:
        count = len(formatted)
        others = formatted[1:_SUB_AGENT_TOOL_NOTES_SHOWN]
        listed = f" (also {', '.join(others)}" if others else ""
        if count > _SUB_AGENT_TOOL_NOTES_SHOWN:
            listed += f" and {count - _SUB_AGENT_TOOL_NOTES_SHOWN} more"
        listed += ")" if others else ""
        subject = "this tool result is" if count == 1 else f"{count} tool results are"
        notes.add(file, f"{subject} astrion's formatted text, not the raw result{listed}: "
                        "astrion does not keep a sub-agent's raw tool results", formatted[0])
    return out


def _message(message: Any, file: str, pointer: str, notes: Notes,
             leader: bool) -> dict[str, Any] | None:
    if not isinstance(message, dict):
        notes.add(file, f"message is {json_type(message)}, not an object; left out", pointer)
        return None
    role = message.get("role")
    if role not in _ROLES:
        shown = json.dumps(role, ensure_ascii=False) if isinstance(role, str) else json_type(role)
        notes.add(file, f"message has role {shown}, not system, user, assistant or tool; "
                        "left out", pointer)
        return None
    content = _text(message.get("content"), file, f"{pointer}/content", notes)
    if content is _LEFT_OUT:
        notes.add(file, f"{role} message left out: its content is "
                        f"{json_type(message.get('content'))}, not text", pointer)
        return None
    out: dict[str, Any] = {"role": role}
    extension: dict[str, Any] = {}
    if role == "assistant":
        calls = _tool_calls(message.get("tool_calls"), file, f"{pointer}/tool_calls", notes)
        out["content"] = content if content is not None or calls else ""
        if calls:
            out["tool_calls"] = calls
        reasoning = message.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            out["reasoning_content"] = reasoning
    elif role == "tool":
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            notes.add(file, "tool message without a tool_call_id (the call it answers is "
                            "unknown); left out", pointer)
            return None
        out["tool_call_id"] = call_id
        if isinstance(message.get("name"), str):
            out["name"] = message["name"]
        seen = "" if content is None else content
        raw = _raw_result(message, file, pointer, notes) if leader else None
        out["content"] = seen if raw is None else raw
        if raw is not None and raw != seen:
            extension["content"] = seen
    else:
        out["content"] = "" if content is None else content
        if content is None:
            notes.add(file, f"{role} message has no content; written as empty text",
                      f"{pointer}/content" if "content" in message else pointer)
    for key in ("message_id", "timestamp"):
        if isinstance(message.get(key), str):
            extension[key] = message[key]
    if extension:
        out[EXTENSION] = extension
    return out


class _LeftOut:
    pass


_LEFT_OUT = _LeftOut()


def _text(content: Any, file: str, pointer: str, notes: Notes) -> str | _LeftOut | None:
    """A message's content as text: a string as it is, a list of parts as its text parts
    (other parts, images and videos, are reported), null as None."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return _LEFT_OUT
    texts: list[str] = []
    dropped = 0
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part, str):
            texts.append(part)
        else:
            dropped += 1
    if dropped:
        parts = "1 content part that is" if dropped == 1 else f"{dropped} content parts that are"
        notes.add(file, f"{parts} not text (images, videos) cannot be carried in a bundle; "
                        "only the text parts are kept", pointer)
    return "\n".join(texts)


def _tool_calls(calls: Any, file: str, pointer: str, notes: Notes) -> list[dict[str, Any]]:
    if calls is None:
        return []
    if not isinstance(calls, list):
        notes.add(file, f"tool_calls is {json_type(calls)}, not an array; left out", pointer)
        return []
    out = []
    for index, call in enumerate(calls):
        converted = _tool_call(call, file, f"{pointer}/{index}", notes)
        if converted is not None:
            out.append(converted)
    return out


def _tool_call(call: Any, file: str, pointer: str, notes: Notes) -> dict[str, Any] | None:
    if not isinstance(call, dict):
        notes.add(file, f"tool call is {json_type(call)}, not an object; left out", pointer)
        return None
    call_id = call.get("id")
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
        what = "id" if not isinstance(call_id, str) or not call_id else "function name"
        notes.add(file, f"tool call without an {what}; left out", pointer)
        return None
    kind = call.get("type", "function")
    if kind != "function":
        notes.add(file, f"tool call of type {json.dumps(kind, ensure_ascii=False)}, not a "
                        "function call; left out", pointer)
        return None
    assert isinstance(function, dict)
    arguments = function.get("arguments")
    if isinstance(arguments, dict):
        # astrion builds arguments as text; an object here is older data: the same
        # arguments, written as the JSON text a model produces.
        text = _dumps(arguments)
        if text is None:
            notes.add(file, "tool call arguments hold a number JSON cannot write; left out",
                      f"{pointer}/function/arguments")
            return None
        notes.add(file, "tool call arguments stored as an object, written as JSON text",
                  f"{pointer}/function/arguments")
        arguments = text
    elif not isinstance(arguments, str):
        notes.add(file, f"tool call arguments are {json_type(arguments)}, not text; left out",
                  f"{pointer}/function/arguments" if "arguments" in function else pointer)
        return None
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _raw_result(message: dict[str, Any], file: str, pointer: str, notes: Notes) -> str | None:
    """The raw result of a leader's tool message, as JSON text, from metadata.tool_payload;
    None (reported) when astrion did not keep it."""
    metadata = message.get("metadata")
    if not isinstance(metadata, dict) or "tool_payload" not in metadata:
        notes.add(file, "tool message without metadata.tool_payload: the raw result is not "
                        "stored, the content is astrion's formatted text", pointer)
        return None
    payload = metadata["tool_payload"]
    if not isinstance(payload, dict):
        notes.add(file, f"metadata.tool_payload is {json_type(payload)}, not a result object; "
                        "the content is astrion's formatted text", f"{pointer}/metadata/tool_payload")
        return None
    text = _dumps(payload)
    if text is None:
        notes.add(file, "metadata.tool_payload holds NaN or Infinity, which JSON cannot "
                        "write; the content is astrion's formatted text",
                  f"{pointer}/metadata/tool_payload")
    return text


def _dumps(value: Any) -> str | None:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return None
