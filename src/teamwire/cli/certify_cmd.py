"""``teamwire certify``: certify any router, black-box, by playing every model it calls;
or a Python router in this process (``--in-process``); and fuzz it against the reference
router (``--fuzz``)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from teamwire.cli.inputs import fail, tolerant_stdout
from teamwire.near_names import did_you_mean

if TYPE_CHECKING:
    from teamwire.conformance.capabilities import Capabilities
    from teamwire.conformance.report import FuzzSummary, ScenarioResult
    from teamwire.conformance.runner import Run
    from teamwire.conformance.scenario import Scenario

REFERENCE_IN_PROCESS = "teamwire.conformance.inprocess:reference_router"


def _shipped_scenarios() -> list[Path]:
    from teamwire._resources import data_path

    return sorted(data_path("conformance", "scenarios").glob("*.json"))


@click.command("certify")
@click.option("--router", "router", metavar="COMMAND",
              help="The command that starts the router under certification (a shell-like "
                   "string: 'node router.js --fast').")
@click.option("--in-process", "in_process", is_flag=False, flag_value=REFERENCE_IN_PROCESS,
              metavar="[MODULE:FACTORY]",
              help="Certify a Python router in this process on virtual time, instead of a "
                   "command: the reference router, or the factory MODULE:FACTORY (a module or "
                   "a .py file).")
@click.option("--scenario", "scenario_files", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False),
              help="Run this scenario vector only (repeatable); default: every shipped one "
                   "of the level.")
@click.option("--level", type=click.Choice(["core", "durable", "astrion"]), default=None,
              help="Judge the router up to this level only: core, durable (core and "
                   "crash-restart), or astrion (both, and the scenarios of profile astrion; "
                   "they run only against a router that declares profile astrion, which "
                   "runs the strict scenarios in astrion's forms). Default: every level with "
                   "a scenario for the router's profile (core and durable for profile strict, "
                   "all three for profile astrion).")
@click.option("-f", "--format", "output_format",
              type=click.Choice(["text", "json", "junit", "markdown", "html"]), default="text",
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
              help="How long to wait for an expected model call, or for the router to exit "
                   "(virtual seconds in process).")
@click.option("--results", "results_dir", metavar="DIR", type=click.Path(file_okay=False),
              help="Also write, per scenario as it ends, DIR/SCENARIO/ with checks.json (its "
                   "checks, as in the JSON report), calls.json (every model call: the "
                   "messages and tools sent, the answer given), stdout.txt and stderr.txt "
                   "(what the router wrote).")
@click.option("--list", "list_only", is_flag=True,
              help="List the scenarios the options select (name, level, profile, knobs, "
                   "title) and exit; no router is started.")
@click.option("-x", "--exitfirst", is_flag=True,
              help="Stop after the first scenario that fails; the report covers what ran.")
@click.option("--fuzz", "fuzz_count", type=click.IntRange(min=1), metavar="N",
              help="Also run N generated scenarios, whose expectations are what the reference "
                   "router shows; the first one the router fails is shrunk and written out.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The seed of the generated scenarios.")
@click.option("--fuzz-out", "fuzz_out", metavar="DIR", default="teamwire-fuzz",
              show_default=True, type=click.Path(file_okay=False),
              help="Where the minimal failing generated scenario is written.")
def certify(router: str | None, in_process: str | None, scenario_files: tuple[str, ...],
            level: str | None, output_format: str, badge: str | None, baseline: str | None,
            describe: str | None, output_file: str | None, wait: float,
            results_dir: str | None, list_only: bool, exitfirst: bool,
            fuzz_count: int | None, seed: int, fuzz_out: str) -> None:
    """Certify the router COMMAND: serve a scripted OpenAI-compatible endpoint on
    127.0.0.1, start the router with OPENAI_BASE_URL, OPENAI_API_KEY, TEAMWIRE_STATE_DIR,
    TEAMWIRE_REQUEST and TEAMWIRE_ROLES set (and the knobs it declares), and check, scenario
    by scenario, what it appends to each agent's conversation. A scenario the declaration
    rules out is skipped and says why, as is, black-box, a scenario that answers a call at
    a timer's instant (only an in-process run keeps the router's clock).

    Each level is judged on its own and reported ("certified at level core; level
    durable: not certified, ..."): a level is certified when a scenario of it ran and every
    scenario up to it passed. Without --level, every level with a scenario for the router's
    profile is judged (core and durable for profile strict).

    With --in-process, the router runs in this process on virtual time (no process, no
    socket); with --fuzz N, N generated scenarios follow the scenario set.

    Exit codes: 0 certified at every level judged; 1 not certified (a check failed, or no
    scenario of a judged level ran); 2 usage error, a scenario that cannot be read, or a
    router that cannot be started or breaks the harness contract.
    """
    tolerant_stdout()
    from teamwire.conformance.capabilities import (
        Capabilities,
        CapabilitiesError,
        capabilities_from_json,
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
        write_text_result,
        write_text_verdict,
    )
    from teamwire.conformance.scenario import LEVELS, ScenarioError, load_scenario

    if (router is None) == (in_process is None) and not list_only:
        raise click.UsageError("give either --router COMMAND or --in-process [MODULE:FACTORY]")
    paths = [Path(f) for f in scenario_files] or _shipped_scenarios()
    try:
        scenarios = [load_scenario(path) for path in paths]
    except ScenarioError as exc:
        fail(f"error: {exc}")
    requested = level is not None
    capabilities = Capabilities()
    if describe is None and in_process == REFERENCE_IN_PROCESS:
        from teamwire.cli.run_cmd import CAPABILITIES

        capabilities = capabilities_from_json(CAPABILITIES)  # the reference router's own
    if describe is not None:
        try:
            capabilities = load_capabilities(Path(describe))
        except CapabilitiesError as exc:
            fail(f"error: {exc}")
        if capabilities.unknown_features:
            click.echo(f"warning: {describe}: features the harness does not know, not checked: "
                       f"{', '.join(capabilities.unknown_features)}", err=True)
    if fuzz_count is not None and capabilities.profile != "strict":
        # Generated scenarios expect what the reference router, of profile strict, showed
        # each model, message by message: they are not rewritten in astrion's forms.
        fail(f"error: --fuzz draws scenarios of profile strict, which are not run against a "
             f"router of profile {capabilities.profile}; certify it without --fuzz")
    if level is None:
        # Every level a scenario is written for the router's profile at (TW-CERT-024).
        own = [s.level for s in scenarios if s.profile == capabilities.profile]
        level = max(own or [s.level for s in scenarios], key=LEVELS.index, default="core")
    allowed = LEVELS[:LEVELS.index(level) + 1]
    scenarios = [s for s in scenarios if s.level in allowed]
    if not scenarios:
        fail(f"error: no scenario of level {level} to run")
    if list_only:
        _list(scenarios, capabilities)
        return
    expected: dict[str, dict[str, str]] = {}
    if baseline is not None:
        try:
            expected = load_baseline(Path(baseline))
        except (OSError, ValueError) as exc:
            fail(f"error: {baseline}: {exc}")
        unknown = sorted(set(expected) - {s.name for s in scenarios})
        if unknown:
            names = [s.name for s in scenarios]
            fail(f"error: {baseline}: no scenario of level {level} is called "
                 f"{', '.join(unknown)}{did_you_mean(unknown[0], names)}")
    run_target, label = _target(router, in_process, wait, capabilities)
    from teamwire.conformance.runner import clock_skip_reason

    def skip_reason(scenario: Scenario) -> str | None:
        # What the declaration rules out first; then what a router run as a process cannot
        # be given (TW-CERT-021, TW-CERT-031).
        return capabilities.skip_reason(scenario) or (
            None if in_process is not None else clock_skip_reason(scenario, wait))

    if all(skip_reason(s) for s in scenarios):
        fail(f"error: no scenario of level {level} can be run against the router as declared: "
             f"{skip_reason(scenarios[0])}")
    certification = Certification(label, level, baseline=baseline, describe=describe,
                                  profile=capabilities.profile, requested=requested)
    # The text report to standard output is written as each scenario ends; any other
    # report is written at the end, with one line per scenario on standard error meanwhile.
    streamed = output_format == "text" and output_file is None
    progress = _Progress(len(scenarios), streamed,
                         None if results_dir is None else _results_folder(results_dir))
    try:
        for scenario in scenarios:
            skipped = skip_reason(scenario)
            if skipped is not None:
                certification.results.append(ScenarioResult.skip(scenario, skipped))
                progress.show(certification.results[-1])
                continue
            run = run_target(capabilities.scenario_for(scenario))
            certification.results.append(ScenarioResult(run, check_run(run, capabilities),
                                                         expected.get(scenario.name, {})))
            progress.show(certification.results[-1])
            if not run.started:
                break  # the command cannot be started: every other scenario would say the same
            if exitfirst and certification.results[-1].new_failures:
                left = len(scenarios) - len(certification.results)
                click.echo(f"stopped after the first failure (-x): {left} scenarios not run",
                           err=True)
                break
        if fuzz_count is not None and all(r.run.started for r in certification.results):
            how = f"--router {shlex.quote(router)}" if router is not None \
                else f"--in-process {shlex.quote(in_process or '')}"
            certification.fuzz, found = _fuzz(run_target, fuzz_count, seed, level,
                                              Path(fuzz_out), capabilities, how, wait,
                                              at_timers=in_process is not None)
            if found is not None:
                certification.results.append(found)
                progress.keep(found)
    except KeyboardInterrupt:
        # Every run stops its router and removes its state directory on the way out (the
        # runner's finally), so nothing is left behind; there is no verdict to report.
        fail("interrupted: the router was stopped and its state directory removed; no verdict")
    from teamwire.conformance.report_html import write_html

    write = {"json": write_json, "junit": write_junit, "markdown": write_markdown,
             "html": write_html}.get(output_format, write_text)
    if badge is not None:
        try:
            Path(badge).write_text(badge_svg(certification), encoding="utf-8")
        except OSError as exc:
            fail(f"error: cannot write {badge}: {exc.strerror or exc}")
    if output_file is not None:
        try:
            with open(output_file, "w", encoding="utf-8", errors="backslashreplace") as handle:
                write(certification, handle)
        except OSError as exc:
            fail(f"error: cannot write {output_file}: {exc.strerror or exc}")
        click.echo(certification.verdict_line(), err=True)
    elif streamed:
        if len(certification.results) > progress.shown:  # the fuzz result, found at the end
            for result in certification.results[progress.shown:]:
                write_text_result(result, sys.stdout)
        write_text_verdict(certification, sys.stdout)
    else:
        write(certification, sys.stdout)
    sys.exit(certification.exit_code())


def _results_folder(path: str) -> Path:
    """The results directory, made now: a directory that cannot be written is a usage error
    before any router is started."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"error: cannot make the results directory {path}: {exc.strerror or exc}")
    return folder


class _Progress:
    """Say each scenario's result as it ends: its whole text report on standard output when
    that is the report, else one line on standard error."""

    def __init__(self, total: int, streamed: bool, results: Path | None = None) -> None:
        self.total = total
        self.streamed = streamed
        self.shown = 0
        self.results = results
        """The results directory (--results), if one was asked for."""

    def keep(self, result: ScenarioResult) -> None:
        """Write the scenario's files into the results directory, if there is one."""
        if self.results is None:
            return
        from teamwire.conformance.results_dir import write_scenario

        try:
            write_scenario(result, self.results)
        except OSError as exc:
            fail(f"error: cannot write into {self.results}: {exc.strerror or exc}")

    def show(self, result: ScenarioResult) -> None:
        from teamwire.conformance.report import write_text_result

        self.keep(result)
        self.shown += 1
        if self.streamed:
            write_text_result(result, sys.stdout)
            sys.stdout.flush()
            return
        mark = "SKIP" if result.skipped else "PASS" if result.passed else \
            "FAIL" if result.new_failures else "XFAIL"
        click.echo(f"[{self.shown}/{self.total}] {mark} {result.run.scenario.name}", err=True)


def _list(scenarios: list[Scenario], capabilities: Capabilities) -> None:
    """One line per scenario: name, level, profile, the knobs it sets, its title; and, for a
    scenario the declaration rules out, why it would be skipped."""
    for scenario in scenarios:
        knobs = ",".join(f"{k}={v}" for k, v in scenario.knobs.items()) or "-"
        click.echo(f"{scenario.name}\t{scenario.level}\t{scenario.profile}\t{knobs}\t"
                   f"{scenario.title}")
        skipped = capabilities.skip_reason(scenario)
        if skipped:
            click.echo(f"  would be skipped: {skipped}")


def _target(router: str | None, in_process: str | None, wait: float,
            capabilities: Capabilities) -> tuple[Callable[[Scenario], Run], str]:
    """How to run one scenario against the router the options name, and its name in reports."""
    if router is not None:
        from teamwire.conformance.runner import run_scenario

        try:
            command = shlex.split(router)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--router") from None
        if not command:
            raise click.BadParameter("no command given", param_hint="--router")
        return (lambda scenario: run_scenario(scenario, command, wait=wait,
                                             capabilities=capabilities)), router
    from teamwire.conformance.inprocess import FactoryError, InProcessRouter, load_factory
    from teamwire.conformance.runner import play

    assert in_process is not None
    try:
        factory = load_factory(in_process)
    except FactoryError as exc:
        raise click.BadParameter(str(exc), param_hint="--in-process") from None

    def run(scenario: Scenario) -> Run:
        return play(scenario, InProcessRouter(scenario, factory, in_process), wait=wait)

    return run, f"in-process {in_process}"


def _fuzz(run_target: Callable[[Scenario], Run], count: int, seed: int, level: str,
          out: Path, capabilities: Capabilities, how: str, wait: float, *, at_timers: bool
          ) -> tuple[FuzzSummary, ScenarioResult | None]:
    """Fuzz the router: what was found, and the result of the failing scenario, if any.
    What was done goes to standard error as well, so that a report on standard output stays
    whole. ``at_timers``: the harness keeps the router's clock (in process), so steps may
    answer at a timer's instant."""
    from teamwire.conformance.fuzz import FuzzUnavailable, fuzz
    from teamwire.conformance.report import FuzzSummary, ScenarioResult

    try:
        outcome = fuzz(run_target, examples=count, seed=seed, level=level, out=out,
                       capabilities=capabilities, wait=wait, at_timers=at_timers)
    except FuzzUnavailable as exc:
        fail(f"error: {exc}")
    except OSError as exc:
        fail(f"error: cannot write into {out}: {exc.strerror or exc}")
    if outcome.failing is None or outcome.run is None:
        summary = FuzzSummary(outcome.examples, seed, level)
        click.echo(summary.line(), err=True)
        return summary, None
    summary = FuzzSummary(outcome.examples, seed, level, outcome.failing["scenario"],
                          str(outcome.written) if outcome.written else None, outcome.shrunk)
    click.echo(f"{summary.line()}\n"
               f"replay: teamwire certify {how} --level {level} --scenario {outcome.written}",
               err=True)
    return summary, ScenarioResult(outcome.run, outcome.verdicts)
