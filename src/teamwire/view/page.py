"""The interactive page of ``teamwire view``: one self-contained HTML file.

The session travels as JSON in a ``<script type="application/json">`` block; the page's one
script draws the rows in sight as the reader scrolls, so a session of ten thousand
messages opens as fast as a small one. Nothing is fetched when the page is read, and a
Content-Security-Policy lets only the page's own script and stylesheet run: whatever the
transcripts hold (markup, scripts, links) is shown as text and can run nothing.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape
from importlib import resources
from typing import Any

import orjson

from teamwire._version import __version__
from teamwire.view.diagram import Describer, edges, findings_by_row, session_order
from teamwire.view.order import Order
from teamwire.view.sequence import HOWS, KINDS, Geometry, kind_of, marker_defs, stylesheet
from teamwire.view.session import Session

PREVIEW_CHARS = 240
"""A card shows this much of a message; the full text is in the message's details."""


def _asset(name: str) -> str:
    return resources.files("teamwire.view").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def content_security_policy(script: str, style: str) -> str:
    """The page's policy: nothing loads, only this script and this stylesheet apply."""
    return (f"default-src 'none'; script-src '{_digest(script)}'; "
            f"style-src '{_digest(style)}'; img-src data:; base-uri 'none'; "
            "form-action 'none'")


def json_for_script(value: Any) -> str:
    """JSON that cannot end the ``<script>`` element it sits in or start markup: ``<``,
    ``>`` and ``&`` are written as escapes, as are the line separators."""
    text = orjson.dumps(value).decode()
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def page_data(session: Session, placed: Order | None = None) -> dict[str, Any]:
    """What the page's script draws, as JSON-ready data."""
    placed = placed if placed is not None else session_order(session)
    position = placed.position
    findings = findings_by_row(session)
    describe = Describer(session)
    rows: list[dict[str, Any]] = []
    for at, (lane, index) in enumerate(placed.sequence):
        row = session.lanes[lane].rows[index]
        shown = describe(row)
        entry: dict[str, Any] = {"l": lane, "i": index, "r": row.role, "k": list(shown.kinds),
                                 "t": shown.title, "p": shown.peer,
                                 "v": shown.text[:PREVIEW_CHARS]}
        if shown.text != row.text or len(row.text) > PREVIEW_CHARS:
            entry["x"] = row.text
        if row.calls:
            entry["c"] = [[c.call_id, c.name, c.arguments] for c in row.calls]
        if row.call_id is not None:
            entry["ci"] = row.call_id
        if row.envelope is not None:
            entry["e"] = [row.envelope.sender, row.envelope.id, row.envelope.question_id]
        if row.how is not None:
            entry["h"] = row.how.value
        if row.turn is not None:
            entry["tn"] = row.turn
        if not placed.known_after[at]:
            entry["u"] = 1
        if placed.clocks[at]:
            entry["vc"] = [value for pair in placed.clocks[at] for value in pair]
        rows.append(entry)
    arrows = []
    for k, (source, target) in enumerate(edges(session)):
        if source in position and target in position:
            link = session.links[k]
            receiver = session.lanes[target[0]].rows[target[1]]
            arrows.append([position[source], position[target],
                           kind_of(link.mtype), receiver.how.value if receiver.how else "",
                           link.call, 1 if k in placed.against else 0])
    turns = [[t.lane, position[(t.lane, t.first)], position[(t.lane, t.last)],
              t.first, t.last, 1 if t.ended else 0] for t in session.turns]
    pins = []
    for (lane, index), found in findings.items():
        for f in found:
            pins.append([position[(lane, index)], f.severity.value, f.rule, f.message,
                         f.pointer or ""])
    pinned = {id(f) for found in findings.values() for f in found}
    loose = [[-1, f.severity.value, f.rule, f.message, f.pointer or ""]
             for f in session.findings if id(f) not in pinned]
    return {
        "title": session.name, "file": session.file, "bundle": session.bundle,
        "profile": session.profile.value, "version": __version__,
        "geometry": Geometry().as_dict(),
        "kinds": {k.key: [k.label, k.gloss, k.colour] for k in KINDS.values()},
        "hows": HOWS,
        "lanes": [{"name": lane.name, "role": lane.role_id or ""} for lane in session.lanes],
        "rows": rows, "arrows": arrows, "turns": turns, "findings": loose + pins,
    }


def render_page(session: Session, placed: Order | None = None) -> str:
    """The whole page of ``session``."""
    script = _asset("view.js")
    style = stylesheet() + "\n" + _asset("view.css")
    data = json_for_script(page_data(session, placed))
    title = escape(f"{session.name} · teamwire view")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"Content-Security-Policy\" "
        f"content=\"{escape(content_security_policy(script, style))}\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<meta name=\"generator\" content=\"teamwire {escape(__version__)}\">"
        f"<title>{title}</title><style>{style}</style></head><body>"
        "<noscript><p class=\"noscript\">This page draws the session with its own script; "
        "allow scripts for this file to see it.</p></noscript>"
        f"<svg class=\"tws-defs\" width=\"0\" height=\"0\" aria-hidden=\"true\">{marker_defs()}</svg>"
        f"<script type=\"application/json\" id=\"tw-data\">{data}</script>"
        f"<script>{script}</script></body></html>\n")
