"""``teamwire certify``: certify any router, black-box, by playing every model it calls."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from teamwire.cli.inputs import fail


def _shipped_scenarios() -> list[Path]:
    from teamwire._resources import data_path

    return sorted(data_path("conformance", "scenarios").glob("*.json"))


@click.command("certify")
@click.option("--router", "router", required=True, metavar="COMMAND",
              help="The command that starts the router under certification (a shell-like "
                   "string: 'node router.js --fast').")
@click.option("--scenario", "scenario_files", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False),
              help="Run this scenario vector only (repeatable); default: every shipped one "
                   "of the level.")
@click.option("--level", type=click.Choice(["core", "durable"]), default="core", show_default=True,
              help="The certification level: core, or durable (core and crash-restart).")
@click.option("-f", "--format", "output_format",
              type=click.Choice(["text", "json", "junit", "markdown"]), default="text",
              show_default=True, help="Report format.")
@click.option("--badge", metavar="FILE.svg", help="Also write an SVG badge of the verdict.")
@click.option("--baseline", metavar="FILE", type=click.Path(dir_okay=False),
              help="Expected failures (JSON): exit 0 when nothing else fails, 1 on a new "
                   "failure or on an entry that passes now.")
@click.option("--describe", metavar="FILE", type=click.Path(dir_okay=False),
              help="The router's capability declaration (JSON, schema router-capabilities): "
                   "its profile, the MAY features to check, the knobs it reads.")
@click.option("-o", "--output-file", metavar="FILE", help="Write the report to FILE.")
@click.option("--wait", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              metavar="SECONDS",
              help="How long to wait for an expected model call, or for the router to exit.")
def certify(router: str, scenario_files: tuple[str, ...], level: str, output_format: str,
            badge: str | None, baseline: str | None, describe: str | None,
            output_file: str | None, wait: float) -> None:
    """Certify the router COMMAND: serve a scripted OpenAI-compatible endpoint on
    127.0.0.1, start the router with OPENAI_BASE_URL, OPENAI_API_KEY, TEAMWIRE_STATE_DIR,
    TEAMWIRE_REQUEST and TEAMWIRE_ROLES set (and the knobs it declares), and check, scenario
    by scenario, what it appends to each agent's conversation. A scenario the declaration
    rules out is skipped and says why.

    Exit codes: 0 certified; 1 not certified (a check failed); 2 usage error, a scenario
    that cannot be read, or a router that cannot be started or breaks the harness contract.
    """
    from teamwire.conformance.capabilities import (
        Capabilities,
        CapabilitiesError,
        load_capabilities,
    )
    from teamwire.conformance.checks import check_run
    from teamwire.conformance.report import (
        Certification,
        ScenarioResult,
        badge_svg,
        load_baseline,
        write_json,
        write_junit,
        write_markdown,
        write_text,
    )
    from teamwire.conformance.runner import run_scenario
    from teamwire.conformance.scenario import LEVELS, ScenarioError, load_scenario

    try:
        command = shlex.split(router)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--router") from None
    if not command:
        raise click.BadParameter("no command given", param_hint="--router")
    paths = [Path(f) for f in scenario_files] or _shipped_scenarios()
    try:
        scenarios = [load_scenario(path) for path in paths]
    except ScenarioError as exc:
        fail(f"error: {exc}")
    allowed = LEVELS[:LEVELS.index(level) + 1]
    scenarios = [s for s in scenarios if s.level in allowed]
    if not scenarios:
        fail(f"error: no scenario of level {level} to run")
    expected: dict[str, dict[str, str]] = {}
    if baseline is not None:
        try:
            expected = load_baseline(Path(baseline))
        except (OSError, ValueError) as exc:
            fail(f"error: {baseline}: {exc}")
        unknown = sorted(set(expected) - {s.name for s in scenarios})
        if unknown:
            fail(f"error: {baseline}: no scenario of level {level} is called "
                 f"{', '.join(unknown)}")
    capabilities = Capabilities()
    if describe is not None:
        try:
            capabilities = load_capabilities(Path(describe))
        except CapabilitiesError as exc:
            fail(f"error: {exc}")
        if capabilities.unknown_features:
            click.echo(f"warning: {describe}: features the harness does not know, not checked: "
                       f"{', '.join(capabilities.unknown_features)}", err=True)
    if all(capabilities.skip_reason(s) for s in scenarios):
        fail(f"error: no scenario of level {level} can be run against the router as declared: "
             f"{capabilities.skip_reason(scenarios[0])}")
    certification = Certification(router, level, baseline=baseline, describe=describe)
    for scenario in scenarios:
        skipped = capabilities.skip_reason(scenario)
        if skipped is not None:
            certification.results.append(ScenarioResult.skip(scenario, skipped))
            continue
        run = run_scenario(scenario, command, wait=wait, capabilities=capabilities)
        certification.results.append(ScenarioResult(run, check_run(run, capabilities),
                                                     expected.get(scenario.name, {})))
        if not run.started:
            break  # the command cannot be started: every other scenario would say the same
    write = {"json": write_json, "junit": write_junit, "markdown": write_markdown}.get(
        output_format, write_text)
    if badge is not None:
        try:
            Path(badge).write_text(badge_svg(certification), encoding="utf-8")
        except OSError as exc:
            fail(f"error: cannot write {badge}: {exc.strerror or exc}")
    if output_file is not None:
        try:
            with open(output_file, "w", encoding="utf-8") as handle:
                write(certification, handle)
        except OSError as exc:
            fail(f"error: cannot write {output_file}: {exc.strerror or exc}")
    else:
        write(certification, sys.stdout)
    sys.exit(certification.exit_code())
