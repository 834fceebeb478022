"""Test-wide settings: hypothesis profiles sized for a small shared machine."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Deadlines measure wall time, which this shared machine makes noisy; a slow
# example is not a failure. CI runs a few more examples than local runs.
settings.register_profile("default", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
# Mutation runs (tools/mutation.py): the same examples every run, so a mutant's verdict
# does not depend on the draw; fewer examples, since every mutant reruns them.
settings.register_profile("mutation", max_examples=40, deadline=None, derandomize=True,
                          database=None, suppress_health_check=list(HealthCheck))
settings.register_profile("thorough", max_examples=3000, deadline=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("TEAMWIRE_HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") else "default"))
