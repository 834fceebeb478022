"""Settings a router must refuse (TW-ROUTE-032): started with one, it exits with a non-zero
status and calls no model (TW-CERT-020)."""

from __future__ import annotations

from typing import Any

from conformance.sources.scenarios.blocks import TL, agent, says, scenario


def refuses(name: str, title: str, knobs: dict[str, Any]) -> dict[str, Any]:
    return scenario(name, title, ["TW-ROUTE-032", "TW-CERT-020"], [agent(TL, says("Done."))],
                    [], [], knobs=knobs, refused=True)


def refuses_a_zero_ask_timeout() -> dict[str, Any]:
    return refuses("refuses-a-zero-ask-timeout",
                   "A router started with an ask timeout of 0 seconds refuses to start",
                   {"ask_timeout": 0})


def refuses_a_negative_ask_timeout() -> dict[str, Any]:
    return refuses("refuses-a-negative-ask-timeout",
                   "A router started with an ask timeout of -5 seconds refuses to start",
                   {"ask_timeout": -5})


def refuses_a_zero_round_limit() -> dict[str, Any]:
    return refuses("refuses-a-zero-round-limit",
                   "A router started with a round limit of 0 refuses to start",
                   {"round_limit": 0})


def refuses_a_zero_turn_timeout() -> dict[str, Any]:
    return refuses("refuses-a-zero-turn-timeout",
                   "A router started with a turn timeout of 0 seconds refuses to start",
                   {"turn_timeout": 0})


def refuses_a_negative_number_of_model_retries() -> dict[str, Any]:
    return refuses("refuses-a-negative-number-of-model-retries",
                   "A router started with -1 model-call retries refuses to start",
                   {"model_retries": -1})


def refuses_an_unknown_unanswered_asks_value() -> dict[str, Any]:
    return refuses("refuses-an-unknown-unanswered-asks-value",
                   "A router started with unanswered_asks set to neither wait nor fail "
                   "refuses to start",
                   {"unanswered_asks": "never"})


SCENARIOS = [refuses_a_zero_ask_timeout, refuses_a_negative_ask_timeout,
             refuses_a_zero_round_limit, refuses_a_zero_turn_timeout,
             refuses_a_negative_number_of_model_retries,
             refuses_an_unknown_unanswered_asks_value]
