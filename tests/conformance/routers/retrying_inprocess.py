"""The reference router, in process, making a set number of tries of each model call,
whatever the scenario sets (``model_retries``): ``three_tries`` as many as TW-ROUTE-031
allows, ``four_tries`` one too many.

``teamwire certify --in-process tests/conformance/routers/retrying_inprocess.py:four_tries``
"""

from __future__ import annotations

from dataclasses import replace

from teamwire.conformance.inprocess import InProcessSetup, reference_router


async def three_tries(setup: InProcessSetup) -> object:
    """The reference router, giving up on a model call after its third try."""
    return await reference_router(replace(setup, model_retries=2))


async def four_tries(setup: InProcessSetup) -> object:
    """The reference router, trying each model call a fourth time."""
    return await reference_router(replace(setup, model_retries=3))
