"""Display names (``Team Leader``, ``{Role Name}_{n}``), role ids and role abbreviations."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

LEADER_NAME = "Team Leader"
"""The display name of the one leader of a session (reserved for it)."""

LEADER_ROLE_ID = "team-leader"
"""The role id bundles record for the leader."""

ROLE_ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")

# Characters a display name may never hold: they would break the envelope's
# lines and tags or hide text from a reader.
_FORBIDDEN = re.compile(r'[\x00-\x1f\x7f-\x9f<>"\u2028\u2029]')
_INSTANCE = re.compile(r"(?P<role>.+)_(?P<n>[1-9][0-9]*)")


class InvalidNameError(ValueError):
    """A display name or role id that the protocol does not allow."""


@dataclass(frozen=True)
class DisplayName:
    """A parsed display name: the leader, or one instance of a role."""

    role_name: str
    agent_id: int | None
    """Instance number within the role; None for the leader."""

    @property
    def is_leader(self) -> bool:
        """True for ``Team Leader``."""
        return self.agent_id is None

    def __str__(self) -> str:
        return format_display_name(self.role_name, self.agent_id)


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid display name, or None if it is."""
    if not name:
        return "display name is empty"
    bad = _FORBIDDEN.search(name)
    if bad:
        return f"display name holds a forbidden character {bad.group()!r}"
    if name != name.strip():
        return "display name has leading or trailing whitespace"
    if " 的" in name or " 向 " in name:
        return "display name holds ' 的' or ' 向 ', which delimit it in the header"
    if name == LEADER_NAME:
        return None
    match = _INSTANCE.fullmatch(name)
    if match is None:
        return "display name is neither 'Team Leader' nor '{Role Name}_{n}' with n >= 1"
    role = match.group("role")
    if role == LEADER_NAME:
        return "'Team Leader' is reserved and cannot be a role name"
    if role != role.strip():
        return "role name has leading or trailing whitespace"
    return None


def parse_display_name(name: str) -> DisplayName:
    """Split a display name into role name and instance number.

    Raises ``InvalidNameError`` (a ``ValueError``) for a name the protocol does not allow.
    """
    problem = name_problem(name)
    if problem is not None:
        raise InvalidNameError(f"{problem}: {name!r}")
    if name == LEADER_NAME:
        return DisplayName(LEADER_NAME, None)
    match = _INSTANCE.fullmatch(name)
    assert match is not None  # name_problem accepted it
    return DisplayName(match.group("role"), int(match.group("n")))


def format_display_name(role_name: str, agent_id: int | None) -> str:
    """``Team Leader`` for the leader (agent_id None), else ``{role_name}_{agent_id}``."""
    if agent_id is None:
        if role_name != LEADER_NAME:
            raise InvalidNameError("only the leader has no instance number")
        return LEADER_NAME
    if agent_id < 1:
        raise InvalidNameError(f"instance number must be >= 1, got {agent_id}")
    name = f"{role_name}_{agent_id}"
    problem = name_problem(name)
    if problem is not None:
        raise InvalidNameError(f"{problem}: {name!r}")
    return name


def is_role_id(text: str) -> bool:
    """True if ``text`` is a valid role id (``^[a-z0-9][a-z0-9_-]{0,63}$``)."""
    return ROLE_ID_PATTERN.fullmatch(text) is not None


def abbreviation(role_name: str, role_id: str | None = None) -> str:
    """The short form of a role used in ids: ``UI Operator`` → ``uio``.

    The ASCII capitals of the role name, lowercased; failing those, the initials
    of the role id's ``-``/``_`` segments; failing those, ``a``.
    """
    capitals = "".join(ch for ch in role_name if "A" <= ch <= "Z").lower()
    if capitals:
        return capitals
    if role_id:
        initials = "".join(part[0] for part in re.split(r"[-_]", role_id) if part)
        initials = "".join(ch for ch in initials if ch.isascii() and ch.isalnum())
        if initials:
            return initials
    return "a"


def astrion_lookup(name: str, names: Iterable[str]) -> str | None:
    """The display name among ``names`` that an astrion call naming ``name`` means
    (TW-PROF-026): ``name`` itself if present, else the first that differs from it only in
    letter case; None when none does."""
    listed = list(names)
    if name in listed:
        return name
    lowered = name.lower()
    return next((other for other in listed if other.lower() == lowered), None)
