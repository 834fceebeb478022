"""The certification report as one self-contained HTML page.

Per scenario: its checks with their status and requirement ids; for a check that compares
messages, what the scenario expected beside what the router showed the model, the first
differing message marked; and the run drawn as a message sequence by the renderer of
``teamwire view`` (``teamwire.view.sequence``), so that a report, the session view and the
docs draw sequences alike. The page runs no script and loads nothing: everything it shows is
inline, and its Content-Security-Policy allows only its own two stylesheets.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from html import escape
from typing import Any, TextIO

from teamwire._version import __version__
from teamwire.conformance.checks import Status, Verdict
from teamwire.conformance.endpoint import ModelCall
from teamwire.conformance.report import Certification, ScenarioResult
from teamwire.conformance.runner import Run
from teamwire.envelope import LEADER_NAME, ParseError, is_envelope, parse
from teamwire.view.sequence import Arrow, Card, Diagram, Lane, kind_of, render_svg, stylesheet

_CSS = """
:root{--ink:#0f172a;--muted:#64748b;--line:#e2e8f0;--pass:#15803d;--fail:#b91c1c;
--warn:#b45309;--skip:#64748b;--xfail:#7c3aed}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",
sans-serif;color:var(--ink);background:#f8fafc}
header{background:#0f172a;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#cbd5e1}
main{padding:20px 28px;max-width:1400px}
.verdict{display:inline-block;padding:2px 10px;border-radius:999px;font-weight:600;
color:#fff;margin-left:10px;font-size:13px}
.v-certified{background:var(--pass)}.v-not{background:var(--fail)}
table{border-collapse:collapse;width:100%;background:#fff;margin:8px 0 16px}
th,td{border:1px solid var(--line);padding:5px 9px;text-align:left;vertical-align:top}
th{background:#f1f5f9;font-weight:600}
.s{font-weight:600;white-space:nowrap}
.s-pass{color:var(--pass)}.s-fail{color:var(--fail)}.s-warn{color:var(--warn)}
.s-skip{color:var(--skip)}.s-expected-fail{color:var(--xfail)}
details{background:#fff;border:1px solid var(--line);border-radius:8px;margin:10px 0;
padding:0 14px}
summary{cursor:pointer;padding:10px 0;font-weight:600}
summary .title{font-weight:400;color:var(--muted);margin-left:8px}
.req{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;color:var(--muted)}
.rid{white-space:nowrap}
.cmp{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:6px 0 14px}
.cmp h4{margin:4px 0;font-size:13px;color:var(--muted)}
pre{margin:0 0 6px;padding:8px 10px;background:#f8fafc;border:1px solid var(--line);
border-radius:6px;white-space:pre-wrap;word-break:break-word;
font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
pre.differs{border-color:var(--fail);background:#fef2f2}
pre.absent{color:var(--muted);font-style:italic}
.seq{overflow-x:auto;margin:8px 0 14px}
.note{color:var(--muted)}
footer{color:var(--muted);padding:0 28px 24px;font-size:12px}
"""

_ROLE_TITLES = {"user": "user", "tool": "tool result", "assistant": "assistant",
                "system": "system"}


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _ids(requirements: Iterable[str]) -> str:
    """Requirement ids for a cell: the cell wraps between ids, never inside one (after the
    hyphen of TW-ROUTE-008)."""
    return " ".join(f'<span class="rid">{escape(r)}</span>' for r in requirements)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


def _agents(run: Run) -> list[str]:
    """The run's agents in the scenario's order, the Team Leader first."""
    names = list(dict.fromkeys(run.scenario.tokens.values()))
    return [n for n in names if n == LEADER_NAME] + [n for n in names if n != LEADER_NAME]


def _how(messages: list[dict[str, Any]], index: int) -> str:
    """How the message at ``index`` reached the model: as a tool result, inline (the agent
    was mid-turn: its last reply called tools), or as a new turn."""
    message = messages[index]
    if message.get("role") == "tool":
        return "tool result"
    before = next((m for m in reversed(messages[:index]) if m.get("role") != "user"), None)
    if before is None or before.get("role") == "system":
        return "new turn"
    if before.get("role") == "tool" or (before.get("role") == "assistant"
                                        and before.get("tool_calls")):
        return "inline"
    return "new turn"


def run_diagram(run: Run, failed: set[tuple[str, int]] | None = None) -> Diagram:
    """The run as a message sequence: one lane per agent; for each model call in the order
    it arrived, an arrow for every envelope the router appended since that agent's previous
    call (from its sender, drawn by how it arrived), then a card for the call itself, marked
    when a check of that call failed; a restart of the router is a card of its own."""
    failed = failed or set()
    names = _agents(run)
    lanes = [Lane(name, name) for name in names]
    known = set(names)
    seen: dict[str, int] = {}
    arrows: list[Arrow] = []
    cards: list[Card] = []
    row = 0
    life = 0
    calls: list[ModelCall] = sorted(run.calls, key=lambda c: c.arrived)
    for call in calls:
        if call.life != life:
            life = call.life
            cards.append(Card(names[0], row, "router restarted",
                              f"killed and started again (life {life + 1})"))
            row += 1
        previous = seen.get(call.agent, 0)
        new = call.messages[previous:] if previous <= len(call.messages) else call.messages
        start = len(call.messages) - len(new)
        seen[call.agent] = len(call.messages)
        for offset, message in enumerate(new):
            content = message.get("content") if isinstance(message, dict) else None
            if message.get("role") not in ("user", "tool") or not isinstance(content, str):
                continue
            if not is_envelope(content):
                continue
            try:
                envelope = parse(content)
            except ParseError:
                continue
            sender = envelope.sender
            if sender not in known:
                known.add(sender)
                lanes.append(Lane(sender, sender, "not scripted"))
            arrows.append(Arrow(sender, call.agent, envelope.id,
                                kind_of(envelope.message_type()),
                                _how(call.messages, start + offset), row, row))
            row += 1
        appended = len(new)
        text = f"{appended} new message{'s' if appended != 1 else ''}"
        if call.abandoned:
            text += "; never answered (killed)"
        cards.append(Card(call.agent, row, f"model call {call.number}"
                          + (" · streamed" if call.stream else ""), text, "other",
                          "error" if (call.agent, call.number) in failed else ""))
        row += 1
    return Diagram(lanes, arrows, cards, title=f"scenario {run.scenario.name}")


def _message_block(message: Any, differs: bool) -> str:
    title = ""
    if isinstance(message, dict):
        title = _ROLE_TITLES.get(str(message.get("role")), str(message.get("role")))
    css = ' class="differs"' if differs else ""
    return (f"<pre{css} title=\"{escape(title)}\">{escape(_json(message))}</pre>")


def _comparison(verdict: Verdict) -> str:
    """Expected beside received; for two lists of messages, each message in its own block,
    the blocks from the first difference on marked."""
    expected, received = verdict.expected, verdict.received
    if expected is None and received is None:
        return ""
    if isinstance(expected, list) and isinstance(received, list):
        first = next((k for k, (a, b) in enumerate(zip(expected, received, strict=False))
                      if a != b), min(len(expected), len(received)))
        left = "".join(_message_block(m, k >= first) for k, m in enumerate(expected)) \
            or '<pre class="absent">nothing</pre>'
        right = "".join(_message_block(m, k >= first) for k, m in enumerate(received)) \
            or '<pre class="absent">nothing</pre>'
    else:
        left = ('<pre class="absent">nothing</pre>' if expected is None
                else f"<pre>{escape(_json(expected))}</pre>")
        right = ('<pre class="absent">nothing (no such call)</pre>' if received is None
                 else f"<pre>{escape(_json(received))}</pre>")
    return (f'<div class="cmp"><div><h4>expected</h4>{left}</div>'
            f'<div><h4>received</h4>{right}</div></div>')


def _failed_calls(result: ScenarioResult) -> set[tuple[str, int]]:
    out = set()
    for verdict in result.verdicts:
        if verdict.status is Status.FAIL and " call " in verdict.check:
            agent, _, number = verdict.check.rpartition(" call ")
            if number.isdigit():
                out.add((agent, int(number)))
    return out


def _scenario(result: ScenarioResult, number: int) -> str:
    """One scenario's section; ``number`` keeps the ids of its drawing its own."""
    run = result.run
    scenario = run.scenario
    if result.skipped:
        status = "skip"
    elif result.passed:
        status = "pass"
    else:
        status = "fail"
    parts = [f'<details id="{escape(scenario.name)}"{" open" if status == "fail" else ""}>'
             f'<summary><span class="s s-{status}">{status.upper()}</span> '
             f'{escape(scenario.name)}<span class="title">{escape(scenario.title)}</span>'
             f"</summary>",
             f'<p class="req">{_ids(scenario.requirements)} · level '
             f"{escape(scenario.level)} · {run.seconds:.2f} s"
             + (f" · {run.restarts} restart{'s' if run.restarts != 1 else ''}"
                if run.restarts else "")
             + (f" · router exit code {run.exit_code}" if run.exit_code is not None else "")
             + "</p>"]
    if result.skipped:
        parts.append(f'<p class="note">Not run: {escape(result.skipped)}</p></details>')
        return "".join(parts)
    rows = []
    for verdict in result.verdicts:
        shown = result.status(verdict)
        rows.append(f'<tr><td>{escape(verdict.check)}</td>'
                    f'<td class="s s-{escape(shown)}">{escape(shown)}</td>'
                    f'<td class="req">{_ids(verdict.requirements)}</td>'
                    f"<td>{escape(verdict.reason)}</td></tr>")
    parts.append("<table><tr><th>check</th><th>status</th><th>requirements</th>"
                 "<th>reason</th></tr>" + "".join(rows) + "</table>")
    for verdict in result.verdicts:
        if verdict.status in (Status.FAIL, Status.WARN):
            comparison = _comparison(verdict)
            if comparison:
                parts.append(f"<h4>{escape(verdict.check)}</h4>{comparison}")
    for title, items in (("Contract breaches", [f"{b.reason}: {b.request}"
                                                for b in run.breaches]),
                         ("Problems", [*run.problems, *([run.exit_problem] if run.exit_problem else [])]),
                         ("Missing model calls", run.missing)):
        if items:
            parts.append(f"<h4>{title}</h4><ul>"
                         + "".join(f"<li>{escape(item)}</li>" for item in items) + "</ul>")
    if run.calls:
        svg = render_svg(run_diagram(run, _failed_calls(result)), ids=f"tws{number}")
        parts.append(f'<div class="seq">{svg}</div>')
    if run.output.strip():
        parts.append("<h4>The end of the router's output</h4>"
                     f"<pre>{escape(run.output)}</pre>")
    parts.append("</details>")
    return "".join(parts)


def _failures_first(results: list[ScenarioResult]) -> list[ScenarioResult]:
    """New failures first, then failures the baseline expects, passes, and what was skipped;
    each group in the order it ran."""
    def rank(result: ScenarioResult) -> int:
        if result.skipped:
            return 3
        return 2 if result.passed else 0 if result.new_failures else 1
    return sorted(results, key=rank)


def render_html(certification: Certification) -> str:
    """The whole report as one HTML document."""
    verdict = "certified" if certification.certified else "not certified"
    css_class = "v-certified" if certification.certified else "v-not"
    policy = (f"default-src 'none'; style-src {_hash(_CSS)} {_hash(stylesheet())}; "
              "img-src data:; base-uri 'none'; form-action 'none'")
    summary = []
    results = _failures_first(certification.results)
    for result in results:
        status = "skip" if result.skipped else "pass" if result.passed else "fail"
        failed = [v for v in result.verdicts if v.status is Status.FAIL]
        requirements = sorted({r for v in failed for r in v.requirements})
        summary.append(f'<tr><td><a href="#{escape(result.run.scenario.name)}">'
                       f"{escape(result.run.scenario.name)}</a></td>"
                       f'<td class="s s-{status}">{status}</td>'
                       f"<td>{len(result.verdicts)}</td><td>{len(failed)}</td>"
                       f'<td class="req">{_ids(requirements)}</td>'
                       f'<td class="note">{escape(result.skipped)}</td>'
                       f"<td>{result.run.seconds:.2f}</td></tr>")
    counts = {s: sum(1 for r in certification.results
                     if (s == "skip" and r.skipped) or (s == "pass" and r.passed)
                     or (s == "fail" and not r.skipped and not r.passed))
              for s in ("pass", "fail", "skip")}
    return "".join([
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>teamwire certify: {escape(certification.router)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<header><h1>teamwire certify<span class=\"verdict {css_class}\">{verdict}</span>"
        f"</h1><p>{escape(certification.router)} · level {escape(certification.level)} · "
        f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped"
        + (f" · baseline {escape(certification.baseline)}" if certification.baseline else "")
        + f'</p><p class="verdict-line">{escape(certification.verdict_line())}</p>'
        "</header><main>",
        "<table><tr><th>level</th><th>verdict</th></tr>" + "".join(
            f'<tr><td>{escape(v.level)}</td><td class="s s-'
            f'{"pass" if v.certified else "fail" if v.judged else "skip"}">'
            + escape("certified" if v.certified else f"not certified: {v.reason}")
            + ("" if v.judged else " (not judged)") + "</td></tr>"
            for v in certification.levels) + "</table>",
        "<table><tr><th>scenario</th><th>status</th><th>checks</th><th>failed</th>"
        "<th>failed requirements</th><th>why not run</th><th>seconds</th></tr>"
        + "".join(summary) + "</table>",
        *(_scenario(result, k) for k, result in enumerate(results)),
        f"</main><footer>teamwire {escape(__version__)}</footer></body></html>\n",
    ])


def write_html(certification: Certification, stream: TextIO) -> None:
    """The HTML report."""
    stream.write(render_html(certification))
