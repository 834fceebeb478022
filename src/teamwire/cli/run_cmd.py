"""``teamwire run``: the reference router against any OpenAI-compatible endpoint.

It is also the reference router as a command under the certification contract (the
specification's chapter on certifying routers): the endpoint, the key, the state directory,
the request and the knobs come from the environment when no option gives them, and the
command exits 0 once the session has ended.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from teamwire.cli.inputs import fail

# The environment contract (names fixed, so that routers built on the OpenAI SDKs need no
# change): where the model is, the key, the state directory, the user's request, the knobs.
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_STATE_DIR = "TEAMWIRE_STATE_DIR"
ENV_REQUEST = "TEAMWIRE_REQUEST"
ENV_MODEL = "TEAMWIRE_MODEL"
ENV_ASK_TIMEOUT = "TEAMWIRE_ASK_TIMEOUT"
ENV_ROUND_LIMIT = "TEAMWIRE_ROUND_LIMIT"
ENV_TURN_TIMEOUT = "TEAMWIRE_TURN_TIMEOUT"
ENV_MODEL_RETRIES = "TEAMWIRE_MODEL_RETRIES"
ENV_UNANSWERED_ASKS = "TEAMWIRE_UNANSWERED_ASKS"

CAPABILITIES = {
    "teamwire": "1.0",
    "router": "teamwire run",
    "profile": "strict",
    "features": ["send-delivery"],
    "knobs": {"ask_timeout": ENV_ASK_TIMEOUT, "turn_timeout": ENV_TURN_TIMEOUT,
              "round_limit": ENV_ROUND_LIMIT, "model_retries": ENV_MODEL_RETRIES,
              "unanswered_asks": ENV_UNANSWERED_ASKS},
}
"""The reference router's capability declaration (schema router-capabilities)."""

STORE_FILE = "router.db"
BUNDLE_FILE = "bundle.json"


def _number(name: str, value: str | None, default: float) -> float:
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except ValueError:
        fail(f"error: {name} must be a number of seconds, not {value!r}")
    if not number > 0 or number == float("inf"):
        fail(f"error: {name} must be a positive number of seconds, not {value!r}")
    return number


def _count(name: str, value: str | None, default: int, least: int = 1) -> int:
    if value is None or value == "":
        return default
    if not value.isascii() or not value.isdigit() or int(value) < least:
        fail(f"error: {name} must be a whole number of at least {least}, not {value!r}")
    return int(value)


def _model_map(values: tuple[str, ...]) -> dict[str, str]:
    models: dict[str, str] = {}
    for value in values:
        role, sep, model = value.partition("=")
        if not sep or not role or not model:
            raise click.BadParameter(f"{value!r}: write ROLE=MODEL", param_hint="--model-for")
        models[role] = model
    return models


@click.command("run")
@click.argument("request", required=False)
@click.option("--model-url", metavar="URL",
              help=f"Base URL of the chat-completions endpoint, ending in /v1 (default: "
                   f"${ENV_BASE_URL}).")
@click.option("--api-key", metavar="KEY", help=f"API key (default: ${ENV_API_KEY}).")
@click.option("--model", metavar="NAME",
              help=f"Model for every agent (default: ${ENV_MODEL}, else 'default').")
@click.option("--model-for", "model_for", multiple=True, metavar="ROLE=NAME",
              help="Model for the agents of one role (team-leader for the Team Leader). "
                   "Repeatable.")
@click.option("--state-dir", metavar="DIR",
              help=f"Keep the session in DIR (SQLite) and resume it from there after a "
                   f"crash (default: ${ENV_STATE_DIR}; without either, nothing is kept).")
@click.option("--ask-timeout", metavar="SECONDS",
              help=f"Seconds an ask waits for its answer (default: ${ENV_ASK_TIMEOUT}, else "
                   "the protocol's default).")
@click.option("--round-limit", metavar="N",
              help=f"Ask rounds between two agents (default: ${ENV_ROUND_LIMIT}, else the "
                   "protocol's default).")
@click.option("--turn-timeout", metavar="SECONDS",
              help=f"Seconds a sub-agent's turn may last when create_sub_agent gives no "
                   f"timeout_seconds (default: ${ENV_TURN_TIMEOUT}, else the protocol's default).")
@click.option("--model-retries", metavar="N",
              help=f"How many times a failed model call is made again before its turn ends "
                   f"(default: ${ENV_MODEL_RETRIES}, else 0).")
@click.option("--stream", is_flag=True,
              help="Ask the endpoint for streamed replies (server-sent events) and put each "
                   "one together before the router reads it.")
@click.option("--unanswered-asks", type=click.Choice(["wait", "fail"]), default=None,
              help=f"What happens to an ask whose answerer's turn ends without answering it: "
                   f"wait (spec 1.0's behaviour) or fail with 'unanswered' (TW-ROUTE-030) "
                   f"(default: ${ENV_UNANSWERED_ASKS}, else wait).")
@click.option("--describe", is_flag=True,
              help="Print the router's capability declaration (JSON, for teamwire certify "
                   "--describe) and exit.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def run(request: str | None, model_url: str | None, api_key: str | None, model: str | None,
        model_for: tuple[str, ...], state_dir: str | None, ask_timeout: str | None,
        round_limit: str | None, turn_timeout: str | None, model_retries: str | None,
        stream: bool, unanswered_asks: str | None, describe: bool, quiet: bool) -> None:
    """Run a session of the protocol: the Team Leader gets REQUEST (default:
    $TEAMWIRE_REQUEST) and every agent's model is called at the endpoint.

    With a state directory that holds a session, the session is resumed instead (after a
    crash: every queue, pending ask and deadline as it was). A turn ended by a failed model
    call is reported on standard error. Exit codes: 0 the session ended; 2 bad usage, an
    endpoint no model call succeeded at, or a state directory that cannot be used.
    """
    if describe:
        click.echo(json.dumps(CAPABILITIES, indent=2))
        return
    from teamwire.router.core import DEFAULT_MAX_ASK_ROUNDS, UNANSWERED_ASKS
    from teamwire.router.runtime import Session
    from teamwire.router.runtime.openai_chat import OpenAIChatDriver
    from teamwire.router.runtime.session import DEFAULT_ASK_TIMEOUT
    from teamwire.router.runtime.turns import DEFAULT_TURN_TIMEOUT
    from teamwire.router.store import MemoryStore, SQLiteStore, Store

    base_url = model_url or os.environ.get(ENV_BASE_URL)
    if not base_url:
        fail(f"error: no endpoint: give --model-url or set {ENV_BASE_URL}")
    key = api_key or os.environ.get(ENV_API_KEY)
    default_model = model or os.environ.get(ENV_MODEL) or "default"
    models = _model_map(model_for)
    timeout = _number("the ask timeout", ask_timeout or os.environ.get(ENV_ASK_TIMEOUT),
                      DEFAULT_ASK_TIMEOUT)
    rounds = _count("the round limit", round_limit or os.environ.get(ENV_ROUND_LIMIT),
                    DEFAULT_MAX_ASK_ROUNDS)
    turn_limit = _number("the turn timeout", turn_timeout or os.environ.get(ENV_TURN_TIMEOUT),
                         DEFAULT_TURN_TIMEOUT)
    retries = _count("the number of model-call retries",
                     model_retries or os.environ.get(ENV_MODEL_RETRIES), 0, least=0)
    unanswered = unanswered_asks or os.environ.get(ENV_UNANSWERED_ASKS) or UNANSWERED_ASKS[0]
    if unanswered not in UNANSWERED_ASKS:
        fail(f"error: {ENV_UNANSWERED_ASKS} must be 'wait' or 'fail', not {unanswered!r}")
    directory = state_dir or os.environ.get(ENV_STATE_DIR)
    store: Store
    if directory:
        path = Path(directory)
        try:
            path.mkdir(parents=True, exist_ok=True)
            store = SQLiteStore(path / STORE_FILE)
        except Exception as exc:  # an unusable directory or database, said plainly
            fail(f"error: cannot keep the session in {path}: {exc}")
    else:
        store = MemoryStore()

    def driver(role_id: str) -> OpenAIChatDriver:
        return OpenAIChatDriver(base_url, models.get(role_id, default_model), api_key=key,
                                retries=retries, stream=stream)

    def drivers(name: str, role_id: str) -> OpenAIChatDriver:
        return driver(role_id)

    failed: list[str] = []

    def show(kind: str, data: dict[str, Any]) -> None:
        if kind == "turn-failed":
            failed.append(f"{data['agent']}: {data['problem']}")
            click.echo(f"warning: a turn of {data['agent']} ended by {data['state']}: "
                       f"{data['problem']}", err=True)
            return
        if quiet:
            return
        if kind == "deliver":
            message = data["message"]
            click.echo(f"{message.sender} → {data['receiver']} ({data['placement']}): "
                       f"{message.kind.label} {message.id}")

    resuming = bool(store.load().agents)
    text = request or os.environ.get(ENV_REQUEST)
    if not resuming and not text:
        fail(f"error: no request: give REQUEST or set {ENV_REQUEST}")

    async def go() -> Session:
        listener = show
        if resuming:
            session = await Session.resume(store, leader=driver("team-leader"), drivers=drivers,
                                           ask_timeout=timeout, max_ask_rounds=rounds,
                                           listener=listener, turn_timeout=turn_limit,
                                           unanswered_asks=unanswered)
        else:
            session = Session(leader=driver("team-leader"), drivers=drivers, store=store,
                              ask_timeout=timeout, max_ask_rounds=rounds, listener=listener,
                              turn_timeout=turn_limit, unanswered_asks=unanswered)
            assert text is not None
            await session.start(text)
        await session.run_until_idle()
        return session

    try:
        session = asyncio.run(go())
    except KeyboardInterrupt:
        fail("interrupted: the state directory keeps the session; run again to resume it")
    if directory:
        bundle = json.dumps(session.bundle(), ensure_ascii=False, indent=1)
        try:
            (Path(directory) / BUNDLE_FILE).write_text(bundle + "\n", encoding="utf-8")
        except OSError as exc:
            fail(f"error: cannot write {Path(directory) / BUNDLE_FILE}: {exc.strerror or exc}")
    replied = any(m.get("role") == "assistant" for c in session.conversations.values() for m in c)
    if failed and not replied:
        # Not one model call succeeded: the endpoint cannot be used, whatever the session did.
        fail(f"error: no model call succeeded; the first failure: {failed[0]}")
    if not quiet:
        click.echo(f"session ended: {sum(len(c) for c in session.conversations.values())} "
                   f"messages in {len(session.conversations)} conversations")
    sys.exit(0)
