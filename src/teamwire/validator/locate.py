"""Where in a JSON file a value starts: JSON pointers to (line, column), for file annotations.

Only reporters that annotate files (SARIF, GitHub) need it. The text is split
into tokens by one regular expression, so a string of any length is one token,
and containers that lead to no wanted pointer are skipped without tracking keys.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os

from teamwire.json_text import TOKEN, locate_offsets
from teamwire.json_text import Lines as Lines
from teamwire.json_text import locate_pointers as locate_pointers
from teamwire.validator.findings import FileReport, Finding


def with_file_lines(reports: list[FileReport], stdin_name: str | None = None) -> None:
    """Give findings that point into a readable JSON file the line their value starts on.

    JSONL findings already carry their line. Standard input cannot be read again: its
    report is placed by the bytes it kept (``FileReport.source``), and the report named
    ``stdin_name`` is never placed by a file of that name (which holds what was saved, not
    what was linted).
    """
    for report in reports:
        source = report.source
        if report.error is not None or (source is None and (
                report.file == stdin_name or not os.path.isfile(report.file))):
            continue
        _record_columns(report)
        missing = {f.pointer for f in report.findings
                   if f.file_line is None and f.pointer is not None}
        if not missing:
            continue
        try:
            if source is None:
                with open(report.file, "rb") as handle:
                    source = handle.read()
        except OSError:
            continue
        # A byte order mark is no column of line 1, as editors and CI annotations show it.
        text = source.decode("utf-8", errors="replace").removeprefix("\ufeff")
        places = locate_offsets(text, missing)
        # A finding about a member that is missing is placed on the object that lacks it.
        absent = missing - places.keys()
        if absent:
            places.update(locate_offsets(text, {p[:i] for p in absent for i in range(len(p))
                                         if p[i] == "/"}))
        strings: dict[int, _RawString] = {}
        report.findings = [_placed(f, text, place, strings)
                           if f.file_line is None and (place := _nearest(places, f.pointer))
                           else f
                           for f in report.findings]


def _nearest(places: dict[str, tuple[int, int, int]],
             pointer: str | None) -> tuple[int, int, int] | None:
    """Where the value at ``pointer`` starts or, if it is missing, its nearest container."""
    while pointer is not None:
        place = places.get(pointer)
        if place is not None:
            return place
        pointer = pointer[:pointer.rfind("/")] if pointer else None
    return None


def _record_columns(report: FileReport) -> None:
    """Give JSON Lines findings, which carry their record's line, the column in that line of
    the value (or the position inside it) they point at. Reads the file once, line by line,
    up to the last line a finding names."""
    wanted: dict[int, set[str]] = {}
    for f in report.findings:
        if f.file_line is not None and f.file_column is None and f.pointer \
                and f.index is not None and f.pointer.startswith(f"/{f.index}/"):
            wanted.setdefault(f.file_line, set()).add(f.pointer[len(f"/{f.index}"):])
    if not wanted:
        return
    records: dict[int, str] = {}
    last = max(wanted)
    try:
        with (io.BytesIO(report.source) if report.source is not None
              else open(report.file, "rb")) as handle:
            for number, raw in enumerate(handle, 1):
                if number in wanted:
                    records[number] = raw.decode("utf-8", errors="replace")
                if number >= last:
                    break
    except OSError:
        return
    if 1 in records:
        records[1] = records[1].removeprefix("\ufeff")  # the line's columns start after a BOM
    places = {number: locate_offsets(text, wanted[number]) for number, text in records.items()}
    strings: dict[int, dict[int, _RawString]] = {number: {} for number in records}
    placed = []
    for f in report.findings:
        inner = f.pointer[len(f"/{f.index}"):] if f.pointer and f.index is not None else ""
        place = places.get(f.file_line or 0, {}).get(inner)
        if place is not None and f.file_column is None and f.file_line is not None:
            f = dataclasses.replace(_placed(f, records[f.file_line], place,
                                            strings[f.file_line]), file_line=f.file_line)
        placed.append(f)
    report.findings = placed


class _RawString:
    """One JSON string token of the file: where the raw text of each decoded character
    starts, counted from the opening quote. The token is decoded once and walked once,
    forward, as findings come in text order, so that many findings in one string cost one
    walk, not one each."""

    def __init__(self, token: str) -> None:
        self.token = token
        try:
            value = json.loads(token)
        except ValueError:
            value = None
        self.value: str | None = value if isinstance(value, str) else None
        self.starts = [0]
        if self.value is not None:
            at = self.value.find("\n")
            while at >= 0:
                self.starts.append(at + 1)
                at = self.value.find("\n", at + 1)
        self.at, self.decoded = 1, 0

    def offset(self, line: int, column: int) -> int | None:
        """The raw offset of the character at (``line``, ``column``) of the decoded string;
        None if the token is no string or has no such character."""
        value = self.value
        if value is None or line > len(self.starts):
            return None
        end = self.starts[line] - 1 if line < len(self.starts) else len(value)
        if column > end - self.starts[line - 1] + 1:
            return None
        wanted = self.starts[line - 1] + column - 1
        if wanted < self.decoded:  # an earlier position than the last one asked: walk again
            self.at, self.decoded = 1, 0
        token, at, decoded, stop = self.token, self.at, self.decoded, len(self.token) - 1
        while decoded < wanted and at < stop:
            if token[at] != "\\":
                # A run without escapes: one raw character each, skipped in one step.
                run_end = token.find("\\", at, stop)
                run = (stop if run_end < 0 else run_end) - at
                step = min(run, wanted - decoded)
                at += step
                decoded += step
                continue
            if token[at + 1] != "u":
                at += 2
            elif (0xD800 <= int(token[at + 2:at + 6], 16) < 0xDC00
                  and token.startswith("\\u", at + 6)
                  and 0xDC00 <= int(token[at + 8:at + 12], 16) < 0xE000):
                at += 12  # a surrogate pair spells one character
            else:
                at += 6
            decoded += 1
        self.at, self.decoded = at, decoded
        return at


def _placed(finding: Finding, text: str, place: tuple[int, int, int],
            strings: dict[int, _RawString] | None = None) -> Finding:
    line, column, offset = place
    if finding.line is not None and text.startswith('"', offset):
        # A position inside a string value: the string is one token on one line of the file
        # (JSON escapes line breaks), so the position moves right by the raw characters
        # that spell the decoded ones before it.
        raw_string = strings.get(offset) if strings is not None else None
        if raw_string is None:
            token = TOKEN.match(text, offset)
            raw_string = _RawString(token.group() if token else "")
            if strings is not None:
                strings[offset] = raw_string
        raw = raw_string.offset(finding.line, finding.column or 1)
        if raw is not None:
            column += raw
    return dataclasses.replace(finding, file_line=line, file_column=column)
