"""The ``text`` format: one line per finding with a snippet and a caret, then a summary."""

from __future__ import annotations

import unicodedata
from typing import TextIO

import click

from teamwire.validator.findings import Finding, LintReport, Severity
from teamwire.validator.rules import REGISTRY

_COLORS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}

# What a transcript holds reaches the terminal: characters a terminal acts on (escape
# sequences, bells, cursor moves) or that reorder or break the line are shown as one
# visible character each, so that carets stay aligned. C0 controls and DEL become their
# control pictures (U+2400...), C1 controls, line and paragraph separators and bidi
# controls U+FFFD, and so do lone surrogates (file names that are not UTF-8), which
# cannot be written at all.
_VISIBLE = {code: 0x2400 + code for code in range(0x20)}
_VISIBLE[0x7F] = 0x2421
_VISIBLE.update(dict.fromkeys(
    [*range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F),
     *range(0x2066, 0x206A), *range(0xD800, 0xE000)], 0xFFFD))


def visible(text: str) -> str:
    """``text`` safe to print on a terminal: no control, separator, bidi or surrogate
    characters."""
    return text if text.isprintable() else text.translate(_VISIBLE)


def _snippet_width(ch: str) -> int:
    # The width the snippet's caret was laid out with (wide characters take two columns).
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _display_width(ch: str) -> int:
    # Combining marks and format characters (zero-width space, joiners) take no column.
    if ch != "\xad" and unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return _snippet_width(ch)


def where(finding: Finding) -> str:
    """The agent and message a finding is about, e.g. ``UI Operator_1 #4 3:2``."""
    parts: list[str] = []
    if finding.pointer is not None:
        if finding.agent is not None or finding.index is not None:
            parts.append(finding.agent if finding.agent is not None else "?")
        if finding.index is not None:
            parts.append(f"#{finding.index}")
        if finding.line is not None:
            parts.append(f"{finding.line}:{finding.column or 1}")
    return " ".join(parts)


def location(finding: Finding) -> str:
    """``file:line:col`` for positions in the file, else ``file[:line]: agent #index line:col``
    where the optional line is the file line the message starts on."""
    if finding.pointer is None:
        if finding.line is not None:
            return f"{finding.file}:{finding.line}:{finding.column or 1}"
        return finding.file
    head = finding.file if finding.file_line is None else f"{finding.file}:{finding.file_line}"
    if _in_file(finding):
        head += f":{finding.file_column}"
    place = where(finding)
    return f"{head}: {place}" if place else head


def caret_under(source: str, caret: str) -> tuple[str, str]:
    """The source line made visible and the caret moved under the same character.

    ``caret`` was laid out under ``source`` with wide characters two columns wide and every
    other character one (``ParseError.context``); on a terminal combining marks take none.
    """
    indent = len(caret) - len(caret.lstrip(" "))
    if caret.strip(" ") != "^":
        return visible(source), caret
    at = columns = 0
    while at < len(source) and columns < indent:
        columns += _snippet_width(source[at])
        at += 1
    shown = visible(source)
    # One character of the source is one of what is shown (see visible()).
    return shown, " " * sum(_display_width(ch) for ch in shown[:at]) + "^"


def _in_file(finding: Finding) -> bool:
    """Whether the finding's snippet is of the file itself: a position in the file text
    outside any string (a repeated member name), not inside the string at its pointer."""
    return finding.line is None and bool(finding.snippet) and finding.file_line is not None \
        and finding.file_column is not None


def _snippet(finding: Finding) -> list[str]:
    if not finding.snippet or (finding.line is None and not _in_file(finding)):
        return []
    source, _, caret = finding.snippet.partition("\n")
    source, caret = caret_under(source, caret)
    number = str(finding.line if finding.line is not None else finding.file_line)
    pad = " " * len(number)
    return [f" {pad} |", f" {number} | {source}", f" {pad} | {caret}"]


def line(finding: Finding, color: bool = False) -> str:
    """The one-line form of a finding."""
    rule = REGISTRY.get(finding.rule)
    name = rule.name if rule is not None else ""
    code = finding.rule
    severity = finding.severity.value
    if color:
        code = click.style(code, fg=_COLORS[finding.severity], bold=True)
        severity = click.style(severity, fg=_COLORS[finding.severity])
    return (f"{visible(location(finding))}: {code} [{severity}] {visible(finding.message)} "
            f"({name})")


def summary(report: LintReport) -> str:
    """The closing line: counts, or that all checks passed."""
    errors = report.count(Severity.ERROR)
    warnings = report.count(Severity.WARNING)
    infos = report.count(Severity.INFO)
    scope = f"{len(report.files)} file{'s' * (len(report.files) != 1)}, " \
            f"{report.messages} message{'s' * (report.messages != 1)}"
    if not (errors or warnings or infos):
        return f"All checks passed ({scope})."
    return f"Found {errors} error{'s' * (errors != 1)}, {warnings} warning" \
           f"{'s' * (warnings != 1)}, {infos} note{'s' * (infos != 1)} ({scope})."


def statistics(report: LintReport, color: bool = False) -> list[str]:
    """One row per rule with findings: count, code, name and severity, the most frequent
    first (a rule whose severity differs by file shows each severity on a row of its own)."""
    counts: dict[tuple[str, Severity], int] = {}
    for finding in report.findings:
        key = (finding.rule, finding.severity)
        counts[key] = counts.get(key, 0) + 1
    if not counts:
        return []
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0][0], item[0][1].value))
    number_width = len(str(ranked[0][1]))
    names = {code: (REGISTRY[code].name if code in REGISTRY else "") for (code, _), _ in ranked}
    name_width = max(len(name) for name in names.values())
    rows = []
    for (code, severity), count in ranked:
        shown_code, shown_severity = code, severity.value
        if color:
            shown_code = click.style(code, fg=_COLORS[severity], bold=True)
            shown_severity = click.style(shown_severity, fg=_COLORS[severity])
        rows.append(f"{count:>{number_width}}  {shown_code}  {names[code]:<{name_width}}  "
                    f"[{shown_severity}]")
    return rows


def write_statistics(report: LintReport, stream: TextIO, color: bool = False,
                     quiet: bool = False) -> None:
    """The statistics rows, then (unless quiet) the summary."""
    for row in statistics(report, color):
        stream.write(row + "\n")
    if not quiet:
        stream.write(summary(report) + "\n")


def write(report: LintReport, stream: TextIO, color: bool = False) -> None:
    """Every finding with its snippet, then the summary."""
    for finding in report.findings:
        stream.write(line(finding, color) + "\n")
        for row in _snippet(finding):
            stream.write(row + "\n")
    stream.write(summary(report) + "\n")
