"""mkdocs hook: the glossary, the quick reference, and an English gloss on every piece of
Chinese wire text the site shows.

The glosses have one source, ``spec/glossary.json``; the English terms are the terminology
table of ``spec/00-introduction.md``. The quick reference is assembled from the normative
sources themselves: the envelope template, the prefix, decision and error tables of the spec
chapters, the message types of ``teamwire.envelope.types``, and the tool definitions and
result schemas of ``spec/schemas/``. A source that is missing, or a section that is no
longer where this hook looks for it, fails the build.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
GLOSSARY = SPEC / "glossary.json"
_ROLE_NAMES = {"leader": "leader", "sub_agent": "sub-agent"}


def _read(path: Path) -> str:
    if not path.is_file():
        raise PluginError(f"{path.relative_to(ROOT)} is missing: the glossary pages read it")
    return path.read_text(encoding="utf-8")


def wire_entries() -> list[dict[str, str]]:
    """The entries of spec/glossary.json, checked for the members every page relies on."""
    entries = json.loads(_read(GLOSSARY)).get("wire")
    if not entries:
        raise PluginError("spec/glossary.json has no wire entries")
    for entry in entries:
        missing = {"text", "gloss", "kind", "use", "see"} - set(entry)
        if missing:
            raise PluginError(f"spec/glossary.json: {entry.get('text')!r} lacks "
                              + ", ".join(sorted(missing)))
    return list(entries)


def glosses() -> dict[str, str]:
    """Chinese wire text → its English gloss."""
    return {entry["text"]: entry["gloss"] for entry in wire_entries()}


def section(chapter: str, heading: str) -> str:
    """The body of one ``## heading`` section of a spec chapter (up to the next heading of
    the same or a higher level)."""
    text = _read(SPEC / chapter)
    match = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.MULTILINE)
    if match is None:
        raise PluginError(f"spec/{chapter} has no section '{heading}'")
    level = len(match.group(1))
    rest = text[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest[:end.start()] if end else rest


def first_table(chapter: str, heading: str) -> str:
    """The first Markdown table of a spec section, as written there."""
    lines: list[str] = []
    for line in section(chapter, heading).splitlines():
        if line.startswith("|"):
            lines.append(line)
        elif lines:
            break
    if len(lines) < 3:
        raise PluginError(f"spec/{chapter}, section '{heading}', has no table")
    return _fix_links("\n".join(lines))


def first_block(chapter: str, heading: str) -> str:
    """The first fenced code block of a spec section, fences included."""
    match = re.search(r"^```[a-z]*\n.*?^```$", section(chapter, heading),
                      re.MULTILINE | re.DOTALL)
    if match is None:
        raise PluginError(f"spec/{chapter}, section '{heading}', has no code block")
    return match.group(0)


def terms() -> list[tuple[str, str]]:
    """The terminology table of the introduction: (term, meaning) pairs."""
    rows = first_table("00-introduction.md", "Terminology").splitlines()[2:]
    found = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip().strip("|").split(" | ")]
        if len(cells) != 2:
            raise PluginError(f"spec/00-introduction.md: a terminology row is not two cells: "
                              f"{row}")
        found.append((cells[0], cells[1]))
    return found


def _anchor(term: str) -> str:
    return "term-" + re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _see(target: str) -> str:
    page, _, fragment = target.partition("#")
    if not (ROOT / page).is_file():
        raise PluginError(f"spec/glossary.json points at {target}, and {page} does not exist")
    return f"[{fragment or Path(page).stem}]({target})"


_KINDS = {"header": "header line", "label": "type label", "content": "inside content",
          "astrion": "astrion dialect", "retired": "retired, forbidden", "seed": "design term"}


def glossary_page() -> str:
    """The glossary: every piece of Chinese wire text, then every term of the spec."""
    lines = ["# Glossary", "",
             "The protocol's wire text is partly Chinese: the header line of every envelope, "
             "the six type labels and a few fixed phrases. This page gives each of them an "
             "English gloss, and defines every term the specification uses. The glosses are "
             "reading aids only: a router writes the Chinese text exactly as the spec gives it, "
             "and the English never appears on the wire. Across this site, hovering a piece of "
             "wire text shows its gloss.", "",
             "Reading the Chinese text needs a CJK font: Noto Sans CJK (Debian and Ubuntu: "
             "`fonts-noto-cjk`), Source Han Sans, PingFang (macOS) or Microsoft YaHei "
             "(Windows). The site fetches no fonts of its own.", "",
             "## Wire text", "",
             "| text | English gloss | where | what it does | defined in |",
             "|---|---|---|---|---|"]
    for entry in wire_entries():
        if entry["kind"] not in _KINDS:
            raise PluginError(f"spec/glossary.json: unknown kind {entry['kind']!r}")
        lines.append(f"| `{entry['text']}` | {_cell(entry['gloss'])} | {_KINDS[entry['kind']]} | "
                     f"{_cell(entry['use'])} | {_see(entry['see'])} |")
    lines += ["", "Read a header line left to right: `来自 UI Operator_1 的提问` is "
              "*from* (来自) *UI Operator_1's* (的) *question* (提问).", "",
              "## Terms", "",
              "The terminology of [the introduction](spec/00-introduction.md#terminology), "
              "each with a permalink.", "", "| term | meaning |", "|---|---|"]
    for term, meaning in terms():
        lines.append(f'| <span id="{_anchor(term)}"></span>{term} | '
                     f"{_fix_links(meaning)} |")
    return "\n".join(lines) + "\n"


def _fix_links(text: str) -> str:
    """Links of a spec chapter (``03-message-types.md``) made to work from the site root."""
    return re.sub(r"\]\((\d\d-[a-z-]+\.md[^)]*)\)", r"](spec/\1)", text)


def _tool_rows(tools: list[dict[str, Any]], results: dict[str, Any]) -> list[str]:
    rows = []
    for tool in tools:
        function = tool["function"]
        name = function["name"]
        parameters = function.get("parameters", {})
        required = set(parameters.get("required", []))
        shown = [f"`{p}`" if p in required else f"`{p}`?"
                 for p in parameters.get("properties", {})]
        rows.append(f"| [`{name}`](spec/06-tools.md#{name}) | {', '.join(shown) or '—'} | "
                    f"{_result_of(name, results)} |")
    return rows


def _result_of(tool: str, results: dict[str, Any]) -> str:
    if tool.startswith("ask_"):
        return "the ANSWER envelope, as text (`来自 … 的回答`)"
    definition = results.get(f"{tool}.result")
    if definition is None:
        raise PluginError(f"tool-results.schema.json has no {tool}.result")
    members = ["`success`"] + [f"`{m}`" for m in definition.get("required", [])
                               if m != "success"]
    for part in definition.get("allOf", []):
        ref = part.get("$ref", "")
        target = results.get(ref.removeprefix("#/$defs/"), {})
        members += [f"`{m}`" for m in target.get("required", []) if f"`{m}`" not in members]
    return "JSON: " + ", ".join(members)


def quick_reference_page() -> str:
    """One page of everything a reader looks up while writing or reading wire text."""
    from teamwire.envelope.types import PREFIXES, TAGS, MessageType, Role

    gloss = glosses()
    tools = json.loads(_read(SPEC / "schemas" / "tools" / "strict.json"))
    results = json.loads(_read(SPEC / "schemas" / "tool-results.schema.json"))["$defs"]
    lines = ["# Quick reference", "",
             "One page of the wire format, generated from the specification: see the linked "
             "chapters for the requirements. Chinese text has its English gloss beside it "
             "(the [glossary](glossary.md) has every one).", "",
             "## The envelope", "",
             "Every message a router inserts into a conversation has this text "
             "([Envelope](spec/01-envelope.md#text-form)):", "",
             first_block("01-envelope.md", "Text form"), "",
             "`来自` *from* · `的` *'s* · then the label of the type. For example:", "",
             "```text",
             "来自 Team Leader 的任务发布",
             "id: task_001",
             "",
             "<Team Leader>",
             "<Task>",
             "Design the colour palette.",
             "</Task>",
             "</Team Leader>",
             "```", "",
             "## The six message types", "",
             "| type | label (gloss) | tag | id prefix | from → to | arrives as |",
             "|---|---|---|---|---|---|"]
    for mtype in MessageType:
        if mtype.label not in gloss:
            raise PluginError(f"spec/glossary.json has no gloss for the label {mtype.label}")
        senders = " or ".join(_ROLE_NAMES[r.value] for r in Role if r in mtype.senders)
        receivers = " or ".join(_ROLE_NAMES[r.value] for r in Role if r in mtype.receivers)
        lines.append(f"| {mtype.name} | `{mtype.label}` *{gloss[mtype.label]}* | "
                     f"`{mtype.tag}` | `{mtype.prefix}_` | {senders} → {receivers} | "
                     f"{mtype.placement.value.replace('_', ' ')} |")
    lines += ["", f"{len(TAGS)} tags: " + ", ".join(f"`{t}`" for t in sorted(TAGS))
              + f"; PROGRESS and COMPLETION share `Output` and differ by label alone. "
              f"{len(PREFIXES)} id prefixes: " + ", ".join(f"`{p}_`" for p in sorted(PREFIXES))
              + ". Profile astrion also reads `任务结束汇报` (*task end report*) as a "
              "COMPLETION label and a receiver in the header, `来自 A 向 B 的…` (向 *to*).",
              "", "## Ids", "", "([Ids](spec/04-ids.md#prefix-table))", "",
              first_table("04-ids.md", "Prefix table"), "",
              "## Delivery by the receiver's state", "",
              "([Routing](spec/07-routing.md#decision-table))", "",
              first_table("07-routing.md", "Decision table"), "",
              "## Tools", "",
              "Parameters marked `?` are optional. Every failure returns "
              '`{"success": false, "error": {"code": …, "message": …}}` '
              "([Tools](spec/06-tools.md#results)).", "",
              "### Team Leader", "", "| tool | parameters | success result |", "|---|---|---|"]
    lines += _tool_rows(tools["leader"], results)
    lines += ["", "### Sub-agents", "", "| tool | parameters | success result |",
              "|---|---|---|"]
    lines += _tool_rows(tools["sub_agent"], results)
    lines += ["", "### Error codes", "", first_table("06-tools.md", "Results"), "",
              "## Chinese wire text", "", "| text | gloss |", "|---|---|"]
    for entry in wire_entries():
        lines.append(f"| `{entry['text']}` | {_cell(entry['gloss'])} |")
    return "\n".join(lines) + "\n"


_SKIP = ("svg", "script", "style", "textarea", "abbr", "title")
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(/?)>")


def add_glosses(content: str, table: dict[str, str]) -> str:
    """Wrap each piece of wire text in the page's text (not in tags, attributes, SVG or
    scripts) in an ``<abbr>`` whose title is its gloss; the longest match wins."""
    if not table:
        return content
    pattern = re.compile("|".join(re.escape(html.escape(text, quote=False))
                                  for text in sorted(table, key=len, reverse=True)))
    titles = {html.escape(text, quote=False): html.escape(gloss, quote=True)
              for text, gloss in table.items()}
    out: list[str] = []
    skipping: list[str] = []
    position = 0
    for tag in _TAG.finditer(content):
        out.append(_wrap(content[position:tag.start()], pattern, titles, bool(skipping)))
        out.append(tag.group(0))
        closing, name, self_closing = tag.group(1), tag.group(2).lower(), tag.group(3)
        if name in _SKIP and not self_closing:
            if closing:
                if skipping and skipping[-1] == name:
                    skipping.pop()
            else:
                skipping.append(name)
        position = tag.end()
    out.append(_wrap(content[position:], pattern, titles, bool(skipping)))
    return "".join(out)


def _wrap(text: str, pattern: re.Pattern[str], titles: dict[str, str], skip: bool) -> str:
    if skip or not text:
        return text
    return pattern.sub(
        lambda m: f'<abbr class="tw-gloss" title="{titles[m.group(0)]}">{m.group(0)}</abbr>',
        text)


def on_page_content(content: str, page: Any, config: Any, files: Files) -> str:
    """Gloss the wire text of every page but the glossary itself, which spells it out."""
    if page.file.src_uri == "glossary.md":
        return content
    return add_glosses(content, glosses())


def on_files(files: Files, config: Any) -> Files:
    """Add the glossary and the quick reference to the site."""
    files.append(File.generated(config, "glossary.md", content=glossary_page()))
    files.append(File.generated(config, "quick-reference.md", content=quick_reference_page()))
    return files
