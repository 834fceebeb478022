"""Message ids: their shape and a session-wide allocator that never collides."""

from __future__ import annotations

import re
from collections import defaultdict

from teamwire.envelope.names import abbreviation, parse_display_name
from teamwire.envelope.types import MessageType, Profile

# A counter value: from 1, zero-padded to three digits below 1000, unpadded above.
_COUNTER = r"(?:00[1-9]|0[1-9][0-9]|[1-9][0-9]{2,})"
STRICT_ID = re.compile(r"(?:task_(?P<task_n>" + _COUNTER + r")"
                       r"|(?P<prefix>out|ask|ans|msg)_(?P<abbr>[a-z0-9]+)_(?P<n>" + _COUNTER + r"))")
ASTRION_ID = re.compile(r"msg_[0-9a-f]{10}")
ASTRION_ASK_ID = re.compile(r"ask_(?:master|other)_[0-9a-f]{10}")
"""The ids astrion gives an Ask whose asker chose none (ask_master, ask_other_agent);
an Answer delivered as a user message reuses its question's (TW-PROF-027, TW-PROF-012)."""
_ASTRION_ASK_TYPES = (MessageType.ASK, MessageType.ANSWER)


def astrion_id(message_id: str, message_type: MessageType | None) -> bool:
    """Whether profile astrion accepts ``message_id`` on a message of ``message_type``
    whatever its shape: a ``msg_`` id on any type (TW-PROF-011), an astrion ask id on an Ask
    or an Answer (TW-PROF-027)."""
    return ASTRION_ID.fullmatch(message_id) is not None or (
        message_type in _ASTRION_ASK_TYPES and ASTRION_ASK_ID.fullmatch(message_id) is not None)
MESSAGE_ID = re.compile(r'[^\s<>"]+')
"""Any message id (TW-ID-001), matched whole: not empty, no white space, '<', '>' or '"'."""


def id_problem(message_id: str, message_type: MessageType | None = None,
               profile: Profile = Profile.STRICT) -> str | None:
    """Why ``message_id`` has the wrong shape (for ``message_type``), or None if it is fine."""
    if profile is Profile.ASTRION and astrion_id(message_id, message_type):
        return None
    match = STRICT_ID.fullmatch(message_id)
    if match is None:
        return (f"id {message_id!r} is not 'task_NNN' or '{{prefix}}_{{abbr}}_NNN'"
                " with a prefix out, ask, ans or msg")
    if message_type is not None:
        prefix = "task" if match.group("task_n") else match.group("prefix")
        if prefix != message_type.prefix:
            return (f"id {message_id!r} has prefix {prefix!r} but a {message_type.label} "
                    f"takes {message_type.prefix + '_'!r}")
    return None


class IdAllocator:
    """Allocates ids unique within one session.

    One counter per (prefix, abbreviation) for the whole session: two instances of
    one role, or two roles that abbreviate alike, draw from the same counter and
    so never collide. ``observe`` advances the counters past ids seen elsewhere
    (a restored session, ids chosen by agents).
    """

    def __init__(self) -> None:
        self._counters: defaultdict[tuple[str, str], int] = defaultdict(int)
        # A sender's counter key and id stem never change; parsing the display
        # name for every message would cost more than the rest of allocating.
        self._slots: dict[tuple[MessageType, str, str | None], tuple[tuple[str, str], str]] = {}

    def allocate(self, message_type: MessageType, sender: str, role_id: str | None = None) -> str:
        """The next id for a message of ``message_type`` sent by display name ``sender``."""
        slot = self._slots.get((message_type, sender, role_id))
        if slot is None:
            if message_type is MessageType.TASK:
                slot = (("task", ""), "task_")
            else:
                abbr = abbreviation(parse_display_name(sender).role_name, role_id)
                slot = ((message_type.prefix, abbr), f"{message_type.prefix}_{abbr}_")
            self._slots[(message_type, sender, role_id)] = slot
        key, stem = slot
        n = self._counters[key] + 1
        self._counters[key] = n
        return stem + (f"{n:03d}" if n < 1000 else str(n))

    def observe(self, message_id: str) -> None:
        """Make sure no later allocation returns ``message_id`` or an id below it."""
        match = STRICT_ID.fullmatch(message_id)
        if match is None:
            return
        if match.group("task_n"):
            key, n = ("task", ""), int(match.group("task_n"))
        else:
            key, n = (match.group("prefix"), match.group("abbr")), int(match.group("n"))
        if self._counters[key] < n:
            self._counters[key] = n
