"""The rule definitions, one module per family; importing this package fills the registry."""

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
