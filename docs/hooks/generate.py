"""mkdocs hook: build pages from the normative sources so the site never drifts from them.

Spec chapters are taken from spec/*.md as they are; the
requirement index and the traceability matrix get a generated page, and
the demo session is drawn by ``teamwire view`` (a figure and the interactive page).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
_REQUIREMENT = re.compile(r"\*\*\[(TW-[A-Z]+-[0-9]{3})\]\*\*")


def _page(config: Any, uri: str, content: str) -> File:
    return File.generated(config, uri, content=content)


_BRACKETS = re.compile(r"(`+).*?\1|\[([^\]\n]*)\]\[([^\]\n]*)\]")


def literal_brackets(markdown: str) -> str:
    """``markdown`` with every ``[x][y]`` outside code spans escaped: in a summary such as
    ``^[a-z0-9][a-z0-9_-]{0,63}$`` it is a character class, not a reference link, and
    mkdocs-autorefs would take it for a cross-reference it cannot find."""
    def escape(match: re.Match[str]) -> str:
        if match.group(1):
            return match.group(0)
        return f"\\[{match.group(2)}\\]\\[{match.group(3)}\\]"

    return _BRACKETS.sub(escape, markdown)


def _requirements_page() -> str:
    path = ROOT / "spec" / "requirements.json"
    if not path.exists():
        return "# Requirements\n\nThe requirement index is not written yet.\n"
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = ["# Requirement index", "",
             f"Every requirement of specification {data.get('version', '1.0')} that binds an "
             "implementation, generated from `spec/requirements.json`: its subject (the class of "
             "implementation it binds) and how it is tested (the artefacts that name it, or why "
             "nothing does; `spec/README.md` defines both).", "",
             "| id | level | subject | tested by | section | summary |",
             "|---|---|---|---|---|---|"]
    for req in data.get("requirements", []):
        lines.append(_requirement_row(req, tested=True))
    editorial = ROOT / "spec" / "editorial.json"
    if editorial.exists():
        lines += ["", "## Editorial statements", "",
                  "Statements that bind the editors of the specification, not implementations, "
                  "listed apart in `spec/editorial.json`.", "",
                  "| id | level | section | summary |", "|---|---|---|---|"]
        for req in json.loads(editorial.read_text(encoding="utf-8")).get("statements", []):
            lines.append(_requirement_row(req, tested=False))
    return "\n".join(lines) + "\n"


def _requirement_row(req: dict[str, Any], tested: bool) -> str:
    file = str(req.get("section", "")).partition("#")[0]
    link = f"[{file}](spec/{file}#{req['id']})" if file else ""
    summary = str(req.get("summary", "")).replace("|", "\\|")
    if not tested:
        return f"| `{req['id']}` | {req.get('level', '')} | {link} | {summary} |"
    how = ", ".join(req.get("tested_by", []))
    if req.get("reason"):
        how += ": " + str(req["reason"]).replace("|", "\\|")
    return (f"| `{req['id']}` | {req.get('level', '')} | {req.get('subject', '')} | {how} | "
            f"{link} | {summary} |")


def _traceability_page() -> str:
    from teamwire.conformance.traceability import matrix_markdown, traces

    return matrix_markdown(traces(ROOT / "spec" / "requirements.json",
                                  ROOT / "conformance" / "scenarios",
                                  ROOT / "spec" / "certification" / "exclusions.json"))


_FIGURE = "<!-- teamwire-view: demo sequence -->"


def _demo_session() -> Any:
    """The session of ``teamwire demo`` (in memory, on virtual time), loaded for drawing."""
    import asyncio

    from teamwire.router.demo import run_demo
    from teamwire.router.store import MemoryStore
    from teamwire.view.session import load_session

    bundle = asyncio.run(run_demo(MemoryStore())).bundle()
    return load_session(json.dumps(bundle, ensure_ascii=False).encode(), "bundle.json")


def _demo_figure() -> str:
    """The demo drawn by ``teamwire.view.sequence``, the renderer of the view itself."""
    from teamwire.view.diagram import session_diagram
    from teamwire.view.sequence import render_svg

    svg = render_svg(session_diagram(_demo_session(), protocol_only=True))
    return f'<div class="tw-figure" style="overflow-x:auto">{svg}</div>'


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Give every requirement statement a stable anchor, ``#TW-ENV-001``; draw the demo
    session where the view's page asks for it."""
    if _FIGURE in markdown:
        return markdown.replace(_FIGURE, _demo_figure())
    if not page.file.src_uri.startswith("spec/"):
        return markdown
    return _REQUIREMENT.sub(
        lambda m: f'<span id="{m.group(1)}"></span>**[{m.group(1)}](#{m.group(1)})**', markdown)


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages to the site."""
    for path in sorted((ROOT / "spec").glob("*.md")):
        files.append(_page(config, f"spec/{path.name}", path.read_text(encoding="utf-8")))
    files.append(_page(config, "requirements.md", literal_brackets(_requirements_page())))
    files.append(_page(config, "traceability.md", literal_brackets(_traceability_page())))
    from teamwire.view.page import render_page

    files.append(_page(config, "view-demo.html", render_page(_demo_session())))
    return files
