"""The specification's requirement ids: well-formed, unique, indexed, and levelled correctly.

Every normative statement in ``spec/*.md`` starts with ``**[TW-FAMILY-NNN]**`` and holds one
BCP 14 key word; ``spec/requirements.json`` indexes each id exactly once with that key word as its
level and the chapter heading it sits under as its section, except the statements that bind the
specification's editors, which ``spec/editorial.json`` lists in the same form. The checks are
plain functions that return a list of problems, so they are tested both against the real text
(no problems) and against small broken samples (problems found).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"
INDEX_PATH = SPEC_DIR / "requirements.json"
EDITORIAL_PATH = SPEC_DIR / "editorial.json"
INDEX_MEMBERS = {"id", "level", "section", "summary", "subject", "tested_by"}
"""Members of every index entry; an untested one (``tested_by`` ``not-testable`` or
``not-yet``) adds ``reason``."""

FAMILIES = ("ENV", "NAME", "TYPE", "ID", "MSG", "TOOL", "ROUTE", "DEL", "DUR", "RES", "VER",
            "SEC", "PROF", "CERT")
LEVELS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")

MARKER = re.compile(r"\*\*\[(?P<id>[^\]]*)\]\*\*")
# Anything that looks like an attempt at a requirement id, well-formed or not.
LOOSE_MARKER = re.compile(r"\*\*\[TW[^\]]*\]\*\*")
WELL_FORMED_ID = re.compile(r"TW-(?P<family>[A-Z]+)-(?P<number>[0-9]{3})")
KEYWORD = re.compile(r"\b(MUST NOT|SHOULD NOT|MUST|SHOULD|MAY)\b")
UNUSED_KEYWORD = re.compile(r"\b(SHALL NOT|SHALL|REQUIRED|RECOMMENDED|NOT RECOMMENDED|OPTIONAL)\b")
CODE_SPAN = re.compile(r"`[^`]*`")
# A line that starts a new block ends the statement running before it.
BLOCK_START = re.compile(r"^\s*(?:[-*+] |[0-9]+\. |#|\|)")
# Where a marker may stand: at the start of a line or bullet, or after the end of a sentence.
MARKER_POSITION = re.compile(r"(?:^\s*(?:[-*+] |[0-9]+\. |> )?|[.:;] )$")


@dataclass(frozen=True)
class Statement:
    """One normative statement as written in a chapter."""

    id: str
    file: str
    line: int
    anchor: str
    text: str
    prefix: str
    """The text on the marker's line before the marker."""

    @property
    def section(self) -> str:
        return f"{self.file}#{self.anchor}"

    @property
    def keywords(self) -> set[str]:
        return set(KEYWORD.findall(CODE_SPAN.sub("", self.text)))


def slugify(heading: str) -> str:
    """The anchor mkdocs (Python-Markdown toc) gives a heading."""
    text = CODE_SPAN.sub(lambda m: m.group(0)[1:-1], heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    out: list[tuple[int, str]] = []
    in_code = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            out.append((number, ""))
            continue
        out.append((number, "" if in_code else line))
    return out


def headings(text: str) -> list[str]:
    """Anchors of the ATX headings of a chapter, with mkdocs' suffixes for repeats."""
    anchors: list[str] = []
    for _, line in prose_lines(text):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slugify(match.group(1))
            anchor, n = base, 0
            while anchor in anchors:
                n += 1
                anchor = f"{base}_{n}"
            anchors.append(anchor)
    return anchors


def parse_statements(text: str, file: str) -> list[Statement]:
    """Every statement of a chapter: from its marker to the next marker, blank line or block."""
    statements: list[Statement] = []
    current: dict[str, Any] | None = None
    anchor = ""
    seen_anchors: list[str] = []

    def flush() -> None:
        nonlocal current
        if current is not None:
            statements.append(Statement(**current))
        current = None

    for number, line in prose_lines(text):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            flush()
            base = slugify(heading.group(1))
            anchor, n = base, 0
            while anchor in seen_anchors:
                n += 1
                anchor = f"{base}_{n}"
            seen_anchors.append(anchor)
            continue
        if not line.strip():
            flush()
            continue
        markers = list(MARKER.finditer(line))
        if current is not None and (markers or BLOCK_START.match(line)):
            if markers and not BLOCK_START.match(line) and markers[0].start() > 0:
                # The marker is inside this line: the text before it ends the running statement.
                current["text"] += " " + line[: markers[0].start()].strip()
            flush()
        if not markers:
            if current is not None:
                current["text"] += " " + line.strip()
            continue
        for i, marker in enumerate(markers):
            end = markers[i + 1].start() if i + 1 < len(markers) else len(line)
            if i + 1 < len(markers):
                flush()
            prefix = line[: marker.start()] if i == 0 else line[markers[i - 1].end(): marker.start()]
            current = {"id": marker.group("id"), "file": file, "line": number, "anchor": anchor,
                       "text": line[marker.end(): end], "prefix": prefix}
    flush()
    return statements


def load_chapters(spec_dir: Path = SPEC_DIR) -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(spec_dir.glob("*.md"))}


def all_statements(chapters: dict[str, str]) -> list[Statement]:
    return [s for name, text in chapters.items() for s in parse_statements(text, name)]


# --- checks: each returns a list of problems ------------------------------------------------


def id_problems(statements: list[Statement]) -> list[str]:
    problems: list[str] = []
    for s in statements:
        match = WELL_FORMED_ID.fullmatch(s.id)
        if match is None:
            problems.append(f"{s.file}:{s.line}: malformed id {s.id!r}")
        elif match.group("family") not in FAMILIES:
            problems.append(f"{s.file}:{s.line}: unknown family in {s.id}")
        elif match.group("number") == "000":
            problems.append(f"{s.file}:{s.line}: numbers start at 001: {s.id}")
    return problems


def uniqueness_problems(statements: list[Statement]) -> list[str]:
    first: dict[str, Statement] = {}
    problems: list[str] = []
    for s in statements:
        if s.id in first:
            other = first[s.id]
            problems.append(f"{s.id} appears twice: {other.file}:{other.line} and {s.file}:{s.line}")
        else:
            first[s.id] = s
    return problems


def numbering_problems(statements: list[Statement]) -> list[str]:
    """Ids of a family run 001..N without gaps: an id is never deleted, so a gap is a mistake."""
    numbers: dict[str, set[int]] = {}
    for s in statements:
        match = WELL_FORMED_ID.fullmatch(s.id)
        if match:
            numbers.setdefault(match.group("family"), set()).add(int(match.group("number")))
    problems = []
    for family, found in numbers.items():
        missing = sorted(set(range(1, max(found) + 1)) - found)
        if missing:
            problems.append(f"TW-{family}: numbers missing: {missing}")
    return problems


def level_problems(statements: list[Statement]) -> list[str]:
    problems = []
    for s in statements:
        kws = s.keywords
        if len(kws) != 1:
            problems.append(f"{s.id} ({s.file}:{s.line}) must hold exactly one key word, has "
                            f"{sorted(kws) or 'none'}")
    return problems


def placement_problems(statements: list[Statement]) -> list[str]:
    return [f"{s.id} ({s.file}:{s.line}) does not start its sentence or bullet"
            for s in statements if not MARKER_POSITION.search(s.prefix)]


def stray_keyword_problems(chapters: dict[str, str]) -> list[str]:
    """Upper-case key words belong to statements; elsewhere they must be in code spans."""
    problems = []
    for name, text in chapters.items():
        statement_lines: set[int] = set()
        for s in parse_statements(text, name):
            statement_lines.add(s.line)
        in_statement = False
        for number, line in prose_lines(text):
            if not line.strip() or re.match(r"^#{1,6}\s", line):
                in_statement = False
                continue
            if MARKER.search(line):
                in_statement = True
                continue
            if BLOCK_START.match(line):
                in_statement = False
            bare = CODE_SPAN.sub("", line)
            if UNUSED_KEYWORD.search(bare):
                problems.append(f"{name}:{number}: key word outside the five this spec uses: "
                                f"{line.strip()}")
            if not in_statement and KEYWORD.search(bare):
                problems.append(f"{name}:{number}: key word outside a statement: {line.strip()}")
    return problems


def loose_marker_problems(chapters: dict[str, str]) -> list[str]:
    """Bracketed TW markers that the statement parser would not read (e.g. in code blocks)."""
    problems = []
    for name, text in chapters.items():
        for number, line in enumerate(text.split("\n"), start=1):
            for match in LOOSE_MARKER.finditer(line):
                if WELL_FORMED_ID.fullmatch(match.group(0)[3:-3]) is None:
                    problems.append(f"{name}:{number}: malformed marker {match.group(0)}")
        in_code = False
        for number, line in enumerate(text.split("\n"), start=1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            elif in_code and LOOSE_MARKER.search(line):
                problems.append(f"{name}:{number}: requirement marker inside a code block")
    return problems


def index_shape_problems(index: Any) -> list[str]:
    if not isinstance(index, dict):
        return ["index is not a JSON object"]
    problems = []
    if index.get("version") != "1.1":
        problems.append(f"index version is {index.get('version')!r}, expected '1.1'")
    entries = index.get("requirements")
    if not isinstance(entries, list):
        return [*problems, "index has no 'requirements' array"]
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            problems.append(f"entry {i} is not an object")
            continue
        if set(entry) - {"reason"} != INDEX_MEMBERS:
            problems.append(f"entry {i} ({entry.get('id')}) has members {sorted(entry)}")
        if entry.get("level") not in LEVELS:
            problems.append(f"{entry.get('id')}: level {entry.get('level')!r} is not one of {LEVELS}")
        summary = entry.get("summary")
        if not isinstance(summary, str) or not summary.strip() or "\n" in summary:
            problems.append(f"{entry.get('id')}: summary must be one non-empty line")
        section = entry.get("section")
        if not isinstance(section, str) or not re.fullmatch(r"[0-9a-z-]+\.md#[0-9a-z_-]+", section):
            problems.append(f"{entry.get('id')}: section {section!r} is not 'file.md#anchor'")
    return problems


def agreement_problems(statements: list[Statement], index: dict[str, Any]) -> list[str]:
    """Text and index list the same ids, once each, with the same level and section."""
    problems = []
    entries = index.get("requirements", [])
    by_id: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if entry.get("id") in by_id:
            problems.append(f"{entry.get('id')} is indexed twice")
        by_id[entry.get("id")] = entry
    text_ids = {s.id for s in statements}
    for missing in sorted(text_ids - set(by_id)):
        problems.append(f"{missing} is in the text but not in the index")
    for extra in sorted(set(by_id) - text_ids):
        problems.append(f"{extra} is in the index but not in the text")
    for s in statements:
        entry = by_id.get(s.id)
        if entry is None:
            continue
        kws = s.keywords
        if len(kws) == 1 and entry.get("level") not in kws:
            problems.append(f"{s.id}: index level {entry.get('level')!r} but the text says "
                            f"{next(iter(kws))!r}")
        if entry.get("section") != s.section:
            problems.append(f"{s.id}: index section {entry.get('section')!r} but the statement "
                            f"is under {s.section!r}")
    return problems


def section_problems(index: dict[str, Any], chapters: dict[str, str]) -> list[str]:
    problems = []
    for entry in index.get("requirements", []):
        section = str(entry.get("section", ""))
        file, _, anchor = section.partition("#")
        if file not in chapters:
            problems.append(f"{entry.get('id')}: section file {file!r} does not exist")
        elif anchor not in headings(chapters[file]):
            problems.append(f"{entry.get('id')}: no heading with anchor {anchor!r} in {file}")
    return problems


def family_must_problems(index: dict[str, Any]) -> list[str]:
    has_must = {f: False for f in FAMILIES}
    for entry in index.get("requirements", []):
        match = WELL_FORMED_ID.fullmatch(str(entry.get("id")))
        if match and match.group("family") in has_must and entry.get("level") == "MUST":
            has_must[match.group("family")] = True
    return [f"family TW-{f} has no MUST requirement" for f, ok in has_must.items() if not ok]


def link_problems(chapters: dict[str, str]) -> list[str]:
    """Links between chapters point at an existing chapter and, if given, an existing heading."""
    problems = []
    for name, text in chapters.items():
        for number, line in prose_lines(text):
            for match in re.finditer(r"\]\((?P<file>[^)#\s]*)(?:#(?P<anchor>[^)\s]+))?\)", line):
                file = match.group("file") or name
                if not file.endswith(".md") or "/" in file:
                    continue
                if file not in chapters:
                    problems.append(f"{name}:{number}: link to missing chapter {file}")
                elif match.group("anchor") and match.group("anchor") not in headings(chapters[file]):
                    problems.append(f"{name}:{number}: link to missing heading "
                                    f"{file}#{match.group('anchor')}")
    return problems


# --- the real specification -------------------------------------------------------------------


@pytest.fixture(scope="module")
def chapters() -> dict[str, str]:
    found = load_chapters()
    assert found, f"no chapters in {SPEC_DIR}"
    return found


@pytest.fixture(scope="module")
def statements(chapters: dict[str, str]) -> list[Statement]:
    return all_statements(chapters)


@pytest.fixture(scope="module")
def index() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(INDEX_PATH.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def every_statement(index: dict[str, Any]) -> dict[str, Any]:
    """The index and the editorial list together: every id of the text, once."""
    editorial = json.loads(EDITORIAL_PATH.read_text(encoding="utf-8"))
    return {"version": index["version"],
            "requirements": index["requirements"] + editorial["statements"]}


def test_spec_has_statements(statements: list[Statement]) -> None:
    assert len(statements) > 100


def test_ids_are_well_formed(statements: list[Statement]) -> None:
    assert id_problems(statements) == []


def test_markers_are_well_formed_and_outside_code(chapters: dict[str, str]) -> None:
    assert loose_marker_problems(chapters) == []


def test_ids_are_unique_in_text(statements: list[Statement]) -> None:
    assert uniqueness_problems(statements) == []


def test_ids_are_numbered_without_gaps(statements: list[Statement]) -> None:
    assert numbering_problems(statements) == []


def test_each_statement_has_one_level(statements: list[Statement]) -> None:
    assert level_problems(statements) == []


def test_markers_start_statements(statements: list[Statement]) -> None:
    assert placement_problems(statements) == []


def test_no_key_words_outside_statements(chapters: dict[str, str]) -> None:
    assert stray_keyword_problems(chapters) == []


def test_index_shape(index: dict[str, Any]) -> None:
    assert index_shape_problems(index) == []


def test_text_and_index_agree(statements: list[Statement],
                              every_statement: dict[str, Any]) -> None:
    assert agreement_problems(statements, every_statement) == []


def test_sections_exist(every_statement: dict[str, Any], chapters: dict[str, str]) -> None:
    assert section_problems(every_statement, chapters) == []


def test_every_family_has_a_must(index: dict[str, Any]) -> None:
    assert family_must_problems(index) == []


def test_index_is_ordered_by_family_and_number(index: dict[str, Any]) -> None:
    def key(entry: dict[str, Any]) -> tuple[int, int]:
        match = WELL_FORMED_ID.fullmatch(entry["id"])
        assert match is not None
        return FAMILIES.index(match.group("family")), int(match.group("number"))

    ids = [e["id"] for e in index["requirements"]]
    assert ids == [e["id"] for e in sorted(index["requirements"], key=key)]


def test_links_between_chapters_resolve(chapters: dict[str, str]) -> None:
    assert link_problems(chapters) == []


def test_link_check_finds_broken_links() -> None:
    problems = link_problems({"a.md": "# A\n\nSee [b](b.md#nowhere) and [c](c.md).\n",
                              "b.md": "# B\n"})
    assert len(problems) == 2


def test_readme_lists_every_chapter(chapters: dict[str, str]) -> None:
    readme = chapters["README.md"]
    missing = [name for name in chapters if name != "README.md" and f"({name})" not in readme]
    assert missing == []


# --- the checks catch broken text -------------------------------------------------------------

SAMPLE = """# Sample

## First part

- **[TW-ENV-001]** A writer MUST do one thing.
- **[TW-ENV-003]** A writer MUST do a thing and MUST NOT do another.
- **[TW-ENV-003]** A reader SHOULD do a third thing.
- **[TW-BOGUS-001]** A reader MAY do anything.
- **[TW-ENV-4]** A reader MUST do a fourth thing.
- **[TW-ENV-005]** A reader does something without a key word.

Loose prose that says MUST outside a statement, and SHALL too.
Before the marker **[TW-ENV-006]** A reader MUST act.
"""


def test_checks_find_broken_ids() -> None:
    statements = parse_statements(SAMPLE, "sample.md")
    problems = id_problems(statements)
    assert any("TW-BOGUS-001" in p for p in problems)
    assert any("TW-ENV-4" in p for p in problems)


def test_checks_find_duplicates_and_gaps() -> None:
    statements = parse_statements(SAMPLE, "sample.md")
    assert any("TW-ENV-003 appears twice" in p for p in uniqueness_problems(statements))
    assert any("missing: [2, 4]" in p for p in numbering_problems(statements))


def test_checks_find_level_mix_and_missing_level() -> None:
    problems = level_problems(parse_statements(SAMPLE, "sample.md"))
    assert any(p.startswith("TW-ENV-003") and "MUST NOT" in p for p in problems)
    assert any(p.startswith("TW-ENV-005") and "none" in p for p in problems)


def test_checks_find_stray_key_words_and_misplaced_markers() -> None:
    stray = stray_keyword_problems({"sample.md": SAMPLE})
    assert any("outside a statement" in p for p in stray)
    assert any("outside the five" in p for p in stray)
    placement = placement_problems(parse_statements(SAMPLE, "sample.md"))
    assert any(p.startswith("TW-ENV-006") for p in placement)


def test_checks_find_index_disagreement() -> None:
    statements = parse_statements(
        "# S\n\n## Part\n\n- **[TW-ENV-001]** A writer MUST do it.\n"
        "- **[TW-ENV-002]** A reader SHOULD do it.\n", "s.md")
    index = {"version": "1.0", "requirements": [
        {"id": "TW-ENV-001", "level": "SHOULD", "section": "s.md#part", "summary": "x"},
        {"id": "TW-ENV-009", "level": "MUST", "section": "s.md#nowhere", "summary": "y"},
    ]}
    problems = agreement_problems(statements, index)
    assert any("TW-ENV-002 is in the text but not in the index" in p for p in problems)
    assert any("TW-ENV-009 is in the index but not in the text" in p for p in problems)
    assert any("TW-ENV-001: index level 'SHOULD'" in p for p in problems)
    sections = section_problems(index, {"s.md": "# S\n\n## Part\n"})
    assert any("nowhere" in p for p in sections)
    assert section_problems({"requirements": [{"id": "TW-ENV-001", "section": "x.md#a"}]},
                            {}) != []


def test_checks_find_family_without_must_and_bad_index_shape() -> None:
    index = {"version": "1.1", "requirements": [
        {"id": "TW-ENV-001", "level": "MUST", "section": "a.md#b", "summary": "s"}]}
    assert "family TW-NAME has no MUST requirement" in family_must_problems(index)
    bad = {"version": "2.0", "requirements": [
        {"id": "TW-ENV-001", "level": "must", "section": "a.md", "summary": "two\nlines",
         "subject": "writer", "tested_by": ["envelope-vector"]},
        {"id": "TW-ENV-002", "level": "MUST", "section": "a.md#b", "summary": "s"}]}
    problems = index_shape_problems(bad)
    assert len(problems) == 5
    assert any(p.startswith("entry 1 (TW-ENV-002) has members") for p in problems)


def test_slugify_matches_mkdocs() -> None:
    assert slugify("Answers first") == "answers-first"
    assert slugify("create_sub_agent") == "create_sub_agent"
    assert slugify("Appendix A: Seed conflicts") == "appendix-a-seed-conflicts"
    assert slugify("Well-formed and valid") == "well-formed-and-valid"
