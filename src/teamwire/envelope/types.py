"""The six message types of the protocol and what each may carry and where it may appear."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Profile(str, enum.Enum):
    """A dialect of the protocol that readers and writers agree on."""

    STRICT = "strict"
    """Specification 1.0 as written."""
    ASTRION = "astrion"
    """The public implementation's dialect (see the spec's compatibility profile chapter)."""


class Role(str, enum.Enum):
    """Which kind of agent may send or receive a message type."""

    LEADER = "leader"
    SUB_AGENT = "sub_agent"


class Placement(str, enum.Enum):
    """Where an envelope may be inserted into a receiver's conversation."""

    USER_MESSAGE = "user_message"
    TOOL_RESULT = "tool_result"


@dataclass(frozen=True)
class TypeInfo:
    """The fixed attributes of one message type."""

    label: str
    tag: str
    prefix: str
    senders: frozenset[Role]
    receivers: frozenset[Role]
    placement: Placement


_L = Role.LEADER
_S = Role.SUB_AGENT


class MessageType(enum.Enum):
    """The six message types: label ↔ tag ↔ id prefix ↔ who sends, who receives, where."""

    TASK = TypeInfo("任务发布", "Task", "task", frozenset({_L}), frozenset({_S}),
                    Placement.USER_MESSAGE)
    PROGRESS = TypeInfo("任务进度输出", "Output", "out", frozenset({_S}), frozenset({_L}),
                        Placement.USER_MESSAGE)
    COMPLETION = TypeInfo("任务完成汇报", "Output", "out", frozenset({_S}), frozenset({_L}),
                          Placement.USER_MESSAGE)
    ASK = TypeInfo("提问", "Ask", "ask", frozenset({_L, _S}), frozenset({_L, _S}),
                   Placement.USER_MESSAGE)
    MESSAGE = TypeInfo("消息", "Message", "msg", frozenset({_L, _S}), frozenset({_S}),
                       Placement.USER_MESSAGE)
    ANSWER = TypeInfo("回答", "Answer", "ans", frozenset({_L, _S}), frozenset({_L, _S}),
                      Placement.TOOL_RESULT)

    # Members are singletons, so identity hashing is correct, and much cheaper than
    # Enum's default (which hashes the name in Python code) in per-message lookups.
    __hash__ = object.__hash__

    @property
    def label(self) -> str:
        """The Chinese label of the header line, e.g. ``任务发布``."""
        return self.value.label

    @property
    def tag(self) -> str:
        """The inner tag name, e.g. ``Task``."""
        return self.value.tag

    @property
    def prefix(self) -> str:
        """The id prefix without its underscore, e.g. ``task``."""
        return self.value.prefix

    @property
    def senders(self) -> frozenset[Role]:
        """Kinds of agent that may send this type."""
        return self.value.senders

    @property
    def receivers(self) -> frozenset[Role]:
        """Kinds of agent that may receive this type."""
        return self.value.receivers

    @property
    def placement(self) -> Placement:
        """Where this type is inserted into the receiver's conversation."""
        return self.value.placement

    def label_in(self, profile: Profile = Profile.STRICT) -> str:
        """The label a writer of ``profile`` puts in the header."""
        if self is MessageType.COMPLETION and profile is Profile.ASTRION:
            return ASTRION_COMPLETION_LABEL
        return self.label

    @classmethod
    def from_label(cls, label: str, profile: Profile = Profile.STRICT) -> MessageType | None:
        """The type a header label names, or None for an unknown label."""
        if profile is Profile.ASTRION and label == ASTRION_COMPLETION_LABEL:
            return cls.COMPLETION
        return _BY_LABEL.get(label)

    @classmethod
    def for_tag(cls, tag: str) -> tuple[MessageType, ...]:
        """The types that use inner tag ``tag`` (two for ``Output``)."""
        return tuple(t for t in cls if t.tag == tag)


ASTRION_COMPLETION_LABEL = "任务结束汇报"
"""The astrion dialect's label for a completion report."""

ASTRION_SUBTYPES: dict[str, tuple[MessageType, bool | None]] = {
    "progress_output": (MessageType.PROGRESS, None),
    "completion_report": (MessageType.COMPLETION, None),
    "ask_master": (MessageType.ASK, True),
    "ask_other": (MessageType.ASK, False),
}
"""The astrion ``subtype`` values TW-PROF-008 checks: the type each requires, and whether
its envelope goes to the Team Leader (True), to another agent (False), or either (None)."""

_BY_LABEL: dict[str, MessageType] = {t.label: t for t in MessageType}

TAGS: frozenset[str] = frozenset(t.tag for t in MessageType)
"""The five inner tags."""

PREFIXES: frozenset[str] = frozenset(t.prefix for t in MessageType)
"""The five id prefixes."""
