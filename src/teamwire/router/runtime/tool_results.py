"""Tool results as the model reads them: the success object and the common error result."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from teamwire.router.errors import STORE_FAILED, StoreFailure


@dataclass(frozen=True)
class ToolResult:
    """The text of a tool message; ``error`` holds the error object of a failed call.

    ``recorded``: the session already put the tool message into the
    conversation (an ask's result is recorded when the ask resolves).
    ``counted``: the call reached the routing core, which counted it.
    """

    text: str
    recorded: bool = False
    counted: bool = False
    error: dict[str, Any] | None = None

    @property
    def stored_nothing(self) -> bool:
        """True for the result of a call whose effects the store refused (TW-DUR-007)."""
        return self.error is not None and self.error.get("code") == STORE_FAILED


def error_object(code: str, message: str,
                 candidates: Iterable[tuple[int, str, str]] = ()) -> dict[str, Any]:
    """The ``error`` member of the common error result."""
    error: dict[str, Any] = {"code": code, "message": message}
    found = [{"agent_id": a, "role_id": r, "display_name": n} for a, r, n in candidates]
    if found:
        error["candidates"] = found
    return error


def error_result(code: str, message: str,
                 candidates: Iterable[tuple[int, str, str]] = ()) -> str:
    """The common error result as tool-message text."""
    return _failure_text(error_object(code, message, candidates))


def ok(*, counted: bool = False, **fields: Any) -> ToolResult:
    """A successful call's result with ``fields``."""
    return ToolResult(json.dumps({"success": True, **fields}, ensure_ascii=False),
                      counted=counted)


def error(code: str, message: str, candidates: Iterable[tuple[int, str, str]] = (), *,
          counted: bool = False) -> ToolResult:
    """A failed call's result: the common error result."""
    found = error_object(code, message, candidates)
    return ToolResult(_failure_text(found), counted=counted, error=found)


def store_failed(failure: StoreFailure) -> ToolResult:
    """The result of a call whose effects could not be stored: it did nothing (TW-DUR-007)."""
    return error(STORE_FAILED, f"{failure}; the call had no effect, it may be repeated")


def _failure_text(found: dict[str, Any]) -> str:
    return json.dumps({"success": False, "error": found}, ensure_ascii=False)
