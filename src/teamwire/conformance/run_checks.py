"""The run checks: the checks ``teamwire certify`` makes on every scenario run, whatever the
scenario, each declared once with the requirements it may cite and what it checks. The
checks (``conformance.checks``), the traceability matrix, the reports and the docs' catalog
of run checks all read this registry, so that they cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from teamwire.conformance.verdict import Status, Verdict


@dataclass(frozen=True)
class RunCheck:
    """One run check: its name (the ``check`` of its verdicts), every requirement a verdict
    of it may cite, and what it checks, in a sentence for the docs."""

    name: str
    requirements: tuple[str, ...]
    checks: str
    judges: bool = True
    """Whether a verdict of it can fail; one that cannot says what was left unchecked (a
    skip with the reason), so that nothing is passed in silence."""

    def verdict(self, status: Status, cites: tuple[str, ...] | None = None, reason: str = "",
                expected: Any = None, received: Any = None) -> Verdict:
        """A verdict of this check citing ``cites`` (default: all its requirements), which
        must be among the requirements it declares: a failure names what its difference
        breaks, and nothing the registry does not know."""
        cited = self.requirements if cites is None else cites
        unknown = [r for r in cited if r not in self.requirements]
        if unknown or not cited:
            raise ValueError(f"run check {self.name} cites {unknown or 'nothing'}, not among "
                             f"its requirements {list(self.requirements)}")
        if status is Status.FAIL and not self.judges:
            raise ValueError(f"run check {self.name} reports what was not checked; it "
                             "cannot fail")
        return Verdict(self.name, status, cited, reason, expected, received)


def _declare(*checks: RunCheck) -> dict[str, RunCheck]:
    return {check.name: check for check in checks}


RUN_CHECKS: dict[str, RunCheck] = _declare(
    RunCheck("contract", ("TW-CERT-001", "TW-CERT-004"),
             "The router can be run as the harness contract says (it starts, uses the "
             "endpoint as an OpenAI client does, makes only calls the scenario expects) and "
             "exits with status 0 once the session has ended."),
    RunCheck("conversation-opening", ("TW-TOOL-043", "TW-TOOL-044", "TW-CERT-002",
                                      "TW-CERT-006"),
             "Every conversation opens with one system message, then the user's request (the "
             "Team Leader) or the sub-agent's Task envelope."),
    RunCheck("append-only", ("TW-CERT-007", "TW-ROUTE-031"),
             "Each model call of an agent begins with everything its previous call held and "
             "the reply to it; after a failed call, the next begins with what the failed one "
             "held."),
    RunCheck("one-result-per-tool-call", ("TW-CERT-008", "TW-PROF-035"),
             "Every tool call of a reply has exactly one result before the agent's next model "
             "call (profile astrion: but for the places its stops leave open)."),
    RunCheck("tool-set", ("TW-CERT-009", "TW-TOOL-001", "TW-TOOL-002", "TW-TOOL-003",
                          "TW-TOOL-004", "TW-TOOL-005"),
             "The Team Leader is offered exactly the profile's leader tools and each "
             "sub-agent exactly the sub-agent tools, beside any tools of the router's own."),
    RunCheck("no-duplicates", ("TW-DEL-002",),
             "No conversation holds one message id twice."),
    RunCheck("restored-conversation", ("TW-DUR-004", "TW-DUR-005"),
             "After a restart, a model call made again begins with the very conversation the "
             "call before the crash held, and no agent asks again for a reply it had got "
             "past."),
    RunCheck("dropped-replies", ("TW-PROF-037",),
             "A reply whose model call was in flight when a stop ended the turn leaves no "
             "trace: not kept, not run, not delivered."),
    RunCheck("astrion-result-texts", ("TW-CERT-034",),
             "A scenario of profile strict run against a router of profile astrion says "
             "which parts of its expected results astrion's result texts do not carry, and so "
             "were not compared.", judges=False),
    RunCheck("feature send-delivery", ("TW-TOOL-012", "TW-CERT-016"),
             "A router that declares send-delivery says in every send_message_to_sub_agent "
             "result how the message was delivered."),
)
"""Every run check, by name, in the order the docs list them."""
