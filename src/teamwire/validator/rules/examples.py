"""Small builders for the examples in rule documentation."""

from __future__ import annotations


def env(sender: str, label: str, message_id: str, tag: str, content: str, attrs: str = "",
        header: str | None = None) -> str:
    """An envelope's text (not validated: examples show broken ones too)."""
    first = header if header is not None else f"来自 {sender} 的{label}"
    return (f"{first}\nid: {message_id}\n\n<{sender}>\n<{tag}{attrs}>\n{content}\n</{tag}>\n"
            f"</{sender}>")


def user(text: str, where: str = "") -> str:
    """A user message carrying ``text``, with a note on whose conversation it is in."""
    note = f"# in the conversation of {where}\n" if where else ""
    return f"{note}role: user\n{text}"


def call(name: str, arguments: str, where: str = "") -> str:
    """An assistant tool call, shown compactly."""
    note = f"# in the conversation of {where}\n" if where else ""
    return f"{note}assistant calls {name}({arguments})"
