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
from collections.abc import Iterable

from teamwire.json_text import TOKEN, escape_pointer_token, string_value
from teamwire.validator.findings import FileReport, Finding


class Lines:
    """Turns increasing offsets into (line, column) without rescanning the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line = 1
        self.line_start = 0
        self.scanned = 0

    def at(self, offset: int) -> tuple[int, int]:
        text = self.text
        self.line += text.count("\n", self.scanned, offset)
        newline = text.rfind("\n", self.scanned, offset)
        if newline >= 0:
            self.line_start = newline + 1
        self.scanned = offset
        return self.line, offset - self.line_start + 1


def locate_pointers(text: str, pointers: Iterable[str]) -> dict[str, tuple[int, int]]:
    """1-based (line, column) in ``text`` where the value at each pointer starts, if it exists."""
    return {pointer: (line, column) for pointer, (line, column, _offset)
            in _locate(text, pointers).items()}


def _locate(text: str, pointers: Iterable[str]) -> dict[str, tuple[int, int, int]]:
    """(line, column, offset in ``text``) where the value at each pointer starts."""
    wanted = set(pointers)
    found: dict[str, tuple[int, int, int]] = {}
    if not wanted:
        return found
    prefixes = {p[:i] for p in wanted for i in range(len(p) + 1) if i == len(p) or p[i] == "/"}
    lines = Lines(text)
    # Each frame: [path of the container, is an array, next index, key awaiting its value]
    stack: list[list[object]] = []
    expect_key = False
    skipping = 0
    # Once every pointer is found, read on only until the objects holding them have closed:
    # a duplicated member (the decoder keeps the last) can only come before that. ``depth``
    # is the stack depth of the shallowest such object still open.
    depth: int | None = None
    for match in TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if skipping:
            if first in "{[":
                skipping += 1
            elif first in "}]":
                skipping -= 1
            continue
        if first == ":":
            continue
        if first == ",":
            expect_key = bool(stack) and not stack[-1][1]
            continue
        if first in "}]":
            if stack:
                stack.pop()
            expect_key = False
            if depth is not None and len(stack) < depth:
                depth = None  # every object holding a found member has closed
                if len(found) == len(wanted):
                    break
            continue
        if expect_key:
            if first == '"':
                stack[-1][3] = string_value(token)
            expect_key = False
            continue
        if stack:
            frame = stack[-1]
            if frame[1]:
                index = frame[2]
                assert isinstance(index, int)
                frame[2] = index + 1
                current = f"{frame[0]}/{index}"
            else:
                current = f"{frame[0]}/{escape_pointer_token(str(frame[3]))}"
        else:
            current = ""
        if current in wanted:
            found[current] = (*lines.at(match.start()), match.start())
            if stack and not stack[-1][1]:
                depth = len(stack) if depth is None else min(depth, len(stack))
            if len(found) == len(wanted) and depth is None:
                break
        if first in "{[":
            if current in prefixes:
                stack.append([current, first == "[", 0, None])
                expect_key = first == "{"
            else:
                skipping = 1
    return found


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
        places = _locate(text, missing)
        # A finding about a member that is missing is placed on the object that lacks it.
        absent = missing - places.keys()
        if absent:
            places.update(_locate(text, {p[:i] for p in absent for i in range(len(p))
                                         if p[i] == "/"}))
        report.findings = [_placed(f, text, place)
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
    places = {number: _locate(text, wanted[number]) for number, text in records.items()}
    placed = []
    for f in report.findings:
        inner = f.pointer[len(f"/{f.index}"):] if f.pointer and f.index is not None else ""
        place = places.get(f.file_line or 0, {}).get(inner)
        if place is not None and f.file_column is None and f.file_line is not None:
            f = dataclasses.replace(_placed(f, records[f.file_line], place),
                                    file_line=f.file_line)
        placed.append(f)
    report.findings = placed


def _placed(finding: Finding, text: str, place: tuple[int, int, int]) -> Finding:
    line, column, offset = place
    if finding.line is not None and text.startswith('"', offset):
        # A position inside a string value: the string is one token on one line of the file
        # (JSON escapes line breaks), so the position moves right by the raw characters
        # that spell the decoded ones before it.
        token = TOKEN.match(text, offset)
        raw = _raw_offset(token.group(), finding.line, finding.column or 1) if token else None
        if raw is not None:
            column += raw
    return dataclasses.replace(finding, file_line=line, file_column=column)


def _raw_offset(token: str, line: int, column: int) -> int | None:
    """Where, counted from the opening quote of the JSON string ``token``, the raw text of
    the character at (``line``, ``column``) of the decoded string starts; None if the token
    is not a string or has no such character."""
    try:
        value = json.loads(token)
    except ValueError:
        return None
    if not isinstance(value, str):
        return None
    lines = value.split("\n")
    if line > len(lines) or column > len(lines[line - 1]) + 1:
        return None
    wanted = sum(len(part) + 1 for part in lines[:line - 1]) + column - 1
    at, decoded, end = 1, 0, len(token) - 1
    while decoded < wanted and at < end:
        if token[at] != "\\":
            at += 1
        elif token[at + 1] != "u":
            at += 2
        elif (0xD800 <= int(token[at + 2:at + 6], 16) < 0xDC00
              and token.startswith("\\u", at + 6)
              and 0xDC00 <= int(token[at + 8:at + 12], 16) < 0xE000):
            at += 12  # a surrogate pair spells one character
        else:
            at += 6
        decoded += 1
    return at
