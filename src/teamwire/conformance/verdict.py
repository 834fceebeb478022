"""A check's verdict on one scenario run: its outcome and the requirements it cites."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Status(str, Enum):
    """A check's outcome. A MUST that fails fails the run; a SHOULD that fails warns."""

    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"


@dataclass(frozen=True)
class Verdict:
    """One check of one scenario run."""

    check: str
    status: Status
    requirements: tuple[str, ...]
    reason: str = ""
    expected: Any = None
    received: Any = None
