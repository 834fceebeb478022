"""mkdocs hook: the catalog of certification scenarios and run checks, and a sample report.

The catalog is generated from the scenario vectors (``conformance/scenarios/``), the run
checks' registry (``teamwire.conformance.run_checks.RUN_CHECKS``) and the requirement
index, so every scenario and run check has a permalink (``scenarios/#batch-drain``,
``scenarios/#check-append-only``). The sample report is a real run of ``teamwire certify``,
made while the site is built, against a router that makes one mistake
(``docs/hooks/sample_router.py``): text on its page, and the HTML report beside it.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "conformance" / "scenarios"
SAMPLE_ROUTER = "docs/hooks/sample_router.py:forgets_inline_messages"
SAMPLE_REPORT = "certify-sample-report.html"
_LEVELS = ("core", "durable", "astrion")


def _requirements() -> dict[str, dict[str, Any]]:
    path = ROOT / "spec" / "requirements.json"
    if not path.is_file():
        raise PluginError(f"{path} is missing: the scenario catalog links every requirement")
    data = json.loads(path.read_text(encoding="utf-8"))
    return {req["id"]: req for req in data["requirements"]}


def _link(requirement: str, index: dict[str, dict[str, Any]]) -> str:
    """A requirement id as a link to its defining statement, from a page at the site's root."""
    if requirement not in index:
        raise PluginError(f"the scenario catalog names {requirement}, which "
                          "spec/requirements.json does not hold")
    chapter = str(index[requirement]["section"]).partition("#")[0]
    return f"[{requirement}](spec/{chapter}#{requirement})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def scenarios_page() -> str:
    """The Markdown of the catalog page: every scenario by level, then every run check."""
    from teamwire.conformance.run_checks import RUN_CHECKS

    index = _requirements()
    vectors = sorted(SCENARIOS.glob("*.json"))
    if not vectors:
        raise PluginError(f"no scenario vectors in {SCENARIOS}")
    by_level: dict[str, list[dict[str, Any]]] = {level: [] for level in _LEVELS}
    for path in vectors:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("level") not in by_level:
            raise PluginError(f"{path.name}: unknown level {data.get('level')!r}")
        data["_file"] = path.name
        by_level[data["level"]].append(data)
    lines = ["# Scenarios and run checks", "",
             "What `teamwire certify` plays against a router, generated from the scenario "
             "vectors in `conformance/scenarios/` (each a language-neutral JSON file: the "
             "request, each agent's scripted model replies, the schedule that interleaves "
             "them, and what every model call must have been shown). Every scenario and run "
             "check has a permalink here; [teamwire certify](certify.md) explains how a "
             "scenario is played and judged, and the [traceability matrix](traceability.md) "
             "shows which requirement each one checks.", "",
             f"{len(vectors)} scenarios: "
             + ", ".join(f"{len(by_level[level])} of level {level}" for level in _LEVELS)
             + f"; {len(RUN_CHECKS)} run checks made on every run.", ""]
    blurb = {"core": "routing, tools, ids and results: what every router must do",
             "durable": "crash and restart: nothing accepted is lost or doubled",
             "astrion": "the public dialect (profile astrion), run only against routers "
                        "that declare it"}
    for level in _LEVELS:
        lines += [f"## Level {level}", "", blurb[level].capitalize() + ".", "",
                  "| scenario | what it checks | requirements |", "|---|---|---|"]
        for data in by_level[level]:
            name = data["scenario"]
            requirements = ", ".join(_link(r, index) for r in sorted(data["requirements"]))
            lines.append(f"| [`{name}`](#{name}) | {_cell(data['title'])} | {requirements} |")
        lines.append("")
        for data in by_level[level]:
            lines += _scenario_section(data, index)
    lines += ["## Run checks", "",
              "Checks made on every scenario run, whatever the scenario: each fails the "
              "scenario it finds a fault in and cites these requirements.", ""]
    for check in RUN_CHECKS.values():
        anchor = "check-" + check.name.replace(" ", "-")
        lines += [f"### {check.name} {{#{anchor}}}", "", check.checks, ""]
        for requirement in check.requirements:
            summary = _cell(str(index[requirement]["summary"])) if requirement in index else ""
            lines.append(f"- {_link(requirement, index)}: {summary}")
        lines.append("")
    return "\n".join(lines) + "\n"


def _scenario_section(data: dict[str, Any], index: dict[str, dict[str, Any]]) -> list[str]:
    name = data["scenario"]
    agents = ", ".join(f"`{agent}`" for agent in data.get("agents", {}))
    facts = [f"profile `{data.get('profile', 'strict')}`", f"agents {agents}"]
    if data.get("knobs"):
        facts.append("knobs " + ", ".join(f"`{k}={json.dumps(v)}`"
                                          for k, v in data["knobs"].items()))
    if data.get("refused"):
        facts.append("the router must refuse it")
    return [f"### {name} {{#{name}}}", "", data["title"], "",
            "; ".join(facts) + ".", "",
            "Checks " + ", ".join(_link(r, index) for r in sorted(data["requirements"]))
            + f". Vector: `conformance/scenarios/{data['_file']}`.", ""]


def _certify(*arguments: str) -> tuple[int, str]:
    """Run ``teamwire certify`` in this process and return its exit code and output."""
    from click.testing import CliRunner

    from teamwire.cli import main

    result = CliRunner().invoke(main, ["certify", *arguments], catch_exceptions=False)
    return result.exit_code, result.output


def sample_reports() -> tuple[str, str]:
    """The text and HTML reports of the sample router's certification at level durable."""
    from teamwire.cli.run_cmd import CAPABILITIES

    with tempfile.TemporaryDirectory(prefix="teamwire-docs-") as scratch:
        describe = Path(scratch) / "capabilities.json"
        describe.write_text(json.dumps(CAPABILITIES), encoding="utf-8")
        html = Path(scratch) / "report.html"
        common = ("--in-process", str(ROOT / SAMPLE_ROUTER), "--level", "durable",
                  "--describe", str(describe))
        code, text = _certify(*common)
        html_code, _ = _certify(*common, "-f", "html", "-o", str(html))
        if code != 1 or html_code != 1 or "FAIL" not in text:
            raise PluginError("the sample router was expected to fail certification "
                              f"(exit 1), but certify exited {code}:\n{text}")
        # The reports name the router as given: the build machine's checkout is no news.
        return (text.replace(str(ROOT) + "/", ""),
                html.read_text(encoding="utf-8").replace(str(ROOT) + "/", ""))


def sample_page(text: str) -> str:
    """The Markdown of the page that shows the sample report."""
    failed = [line for line in text.splitlines() if line.startswith("FAIL ")]
    return "\n".join([
        "# A sample certification report", "",
        "What `teamwire certify` says about a router that makes one mistake. The router is "
        "the reference router with one change (`docs/hooks/sample_router.py`): a message that "
        "reaches a sub-agent while it is running is acknowledged as delivered inline, but "
        "never appended to the sub-agent's conversation, so a steer from the Team Leader is "
        "lost ([TW-ROUTE-008](spec/07-routing.md#TW-ROUTE-008)). The report below was made "
        "while this site was built, by", "",
        "```console",
        f"$ teamwire certify --in-process {SAMPLE_ROUTER} --level durable \\",
        "      --describe capabilities.json -f html -o report.html",
        "```", "",
        f"[Open the HTML report]({SAMPLE_REPORT}){{ .md-button .md-button--primary }}", "",
        "The HTML report draws each run as a sequence diagram, the failed calls marked, with "
        "the expected and received messages side by side. How to read it:", "",
        f"- {len(failed)} scenarios fail, each on the model call whose conversation differs "
        "from what the protocol says it must hold; the requirements in brackets are the ones "
        "that scenario checks.",
        "- `expected` is what a conforming router shows the model before that call; "
        "`received` is what this router showed. Here the sub-agent's call lacks the "
        "Team Leader's message.",
        "- `SKIP` lines say why a scenario was not run (a profile the router does not "
        "declare); a skipped scenario is never counted as passed.",
        "- The last line is the verdict; the exit code is 1 (not certified). See "
        "[exit codes](certify.md#exit-codes).", "",
        "## The text report", "",
        "```text", text.rstrip("\n"), "```", ""])


def on_files(files: Files, config: Any) -> Files:
    """Add the catalog, the sample report's page and the HTML report to the site."""
    files.append(File.generated(config, "scenarios.md", content=scenarios_page()))
    text, html = sample_reports()
    files.append(File.generated(config, "certify-sample.md", content=sample_page(text)))
    files.append(File.generated(config, SAMPLE_REPORT, content=html))
    return files
