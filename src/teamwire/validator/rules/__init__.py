"""The rule definitions, one module per family; importing this package fills the registry.

A rule module holds each rule's metadata (``registry.rule``: code, name, severity, docs and
examples) and its checks beside it, of what one message says, of what the engine finds in
the input file, or of what the session checker finds across a bundle's conversations::

    TRAILING_NEWLINE = rule("TW115", "trailing-newline", ...)

    @check(TRAILING_NEWLINE, EnvelopeText, suffixes=("\\n",))
    def _trailing_newline(fact: EnvelopeText, report: Report[EnvelopeText]) -> None:
        ...

A check takes one kind of fact (``facts``) and reports only its own rule. Its trigger
(``prefixes``, ``suffixes``, ``mark``, ``content_prefixes``, or ``always``) says what a text
needs for the check to have anything to say, and a check of envelopes says with ``quiet``
which heads it never reports; the conversation pass derives what its fast paths may skip
from those alone, so adding such a rule touches its module and its vectors only
(docs/rules.md is regenerated from the registry). Emitting a rule that is not registered
raises.
"""

from __future__ import annotations

from teamwire.validator.registry import REGISTRY, Rule
from teamwire.validator.rules import (  # noqa: F401  (each module registers its rules)
    envelope_rules,
    flow_rules,
    id_rules,
    input_rules,
    placement_rules,
    security_rules,
    tool_rules,
)

__all__ = ["REGISTRY", "Rule"]
