"""Run results in their text form: the envelope package writes them for the router."""

from __future__ import annotations

from teamwire.envelope.run_result import RUN_STATES as RUN_STATES
from teamwire.envelope.run_result import render_run_result

render_result = render_run_result
