"""``teamwire run``: the reference router against any OpenAI-compatible endpoint.

It is also the reference router as a command under the certification contract (the
specification's chapter on certifying routers): the endpoint, the key, the state directory,
the request and the knobs come from the environment when no option gives them, and the
command exits 0 once the session has ended. Started again with the same request and state
directory it resumes the session there; another request for that directory is refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from teamwire.cli.inputs import fail
from teamwire.cli.run_endpoint import EXIT_ENDPOINT, CallWatch, failure_line
from teamwire.cli.run_state import BUNDLE_FILE, STORE_FILE, forget, kept_request, new_state_dir
from teamwire.cli.session_show import PipeConsole, SessionShow, final_answer

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

__all__ = ["BUNDLE_FILE", "CAPABILITIES", "STORE_FILE", "run"]


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
              help=f"Model for every agent (default: ${ENV_MODEL}, else 'default', which most "
                   f"servers refuse: name the model).")
@click.option("--model-for", "model_for", multiple=True, metavar="ROLE=NAME",
              help="Model for the agents of one role (team-leader for the Team Leader). "
                   "Repeatable.")
@click.option("--state-dir", metavar="DIR",
              help=f"Keep the session in DIR (router.db, SQLite) and resume it from there "
                   f"after a crash (default: ${ENV_STATE_DIR}; without either, a new directory "
                   "teamwire-run-<UTC time> in the working directory).")
@click.option("--resume", is_flag=True,
              help="Continue the session kept in the state directory (no REQUEST: it goes on "
                   "with the one it started with).")
@click.option("-o", "--bundle", "bundle_path", metavar="FILE",
              type=click.Path(dir_okay=False, path_type=Path),
              help=f"Write the session bundle to FILE (default: {BUNDLE_FILE} in the state "
                   "directory), when the session ends or is interrupted.")
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
@click.option("--stream/--no-stream", default=False, show_default=True,
              help="Ask the endpoint for streamed replies (server-sent events): on a terminal "
                   "each reply's text shows as it arrives.")
@click.option("--unanswered-asks", type=click.Choice(["wait", "fail"]), default=None,
              help=f"What happens to an ask whose answerer's turn ends without answering it: "
                   f"wait (spec 1.0's behaviour) or fail with 'unanswered' (TW-ROUTE-030) "
                   f"(default: ${ENV_UNANSWERED_ASKS}, else wait).")
@click.option("--describe", is_flag=True,
              help="Print the router's capability declaration (JSON, for teamwire certify "
                   "--describe) and exit.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors and warnings.")
def run(request: str | None, model_url: str | None, api_key: str | None, model: str | None,
        model_for: tuple[str, ...], state_dir: str | None, resume: bool,
        bundle_path: Path | None, ask_timeout: str | None, round_limit: str | None,
        turn_timeout: str | None, model_retries: str | None, stream: bool,
        unanswered_asks: str | None, describe: bool, quiet: bool) -> None:
    """Run a session of the protocol: the Team Leader gets REQUEST (default:
    $TEAMWIRE_REQUEST) and every agent's model is called at the endpoint.

    Shows the conversation as it goes (chat bubbles on a terminal, plain lines otherwise),
    then the Team Leader's final answer and where the session bundle was written (for
    `teamwire lint` and `teamwire view`). The session is kept in the state directory: run
    with the same REQUEST (or --resume) to continue it after a crash (every queue, pending
    ask and deadline as it was); a directory that holds a session of another request is
    refused. A turn ended by a failed model call is a warning on standard error.

    Exit codes: 0 the session ended; 2 bad usage, a state directory that cannot be used or
    holds a session of another request; 3 the endpoint could not be used: no model call
    succeeded (unreachable, an unknown model, a refused key).
    """
    if describe:
        click.echo(json.dumps(CAPABILITIES, indent=2))
        return
    from teamwire.router.core import DEFAULT_MAX_ASK_ROUNDS, UNANSWERED_ASKS
    from teamwire.router.runtime import Session
    from teamwire.router.runtime.driver import AgentDriver
    from teamwire.router.runtime.openai_chat import OpenAIChatDriver
    from teamwire.router.runtime.session import DEFAULT_ASK_TIMEOUT
    from teamwire.router.runtime.turns import DEFAULT_TURN_TIMEOUT
    from teamwire.router.store import SQLiteStore

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
    if resume and request is not None:
        fail("error: --resume continues the kept session with its own request; give no REQUEST")
    # With --resume the request is the kept one: a $TEAMWIRE_REQUEST left set changes nothing.
    text = request if resume or request is not None else os.environ.get(ENV_REQUEST) or None
    directory = state_dir or os.environ.get(ENV_STATE_DIR)
    if directory:
        path = Path(directory)
        try:
            path.mkdir(parents=True, exist_ok=True)
            store = SQLiteStore(path / STORE_FILE)
            kept = kept_request(store)
        except Exception as exc:  # an unusable directory or database, said plainly
            fail(f"error: cannot keep the session in {path}: {exc}")
    else:
        if resume:
            fail(f"error: --resume needs the state directory of the session: give --state-dir "
                 f"or set {ENV_STATE_DIR}")
        if not text:
            fail(f"error: no request: give REQUEST or set {ENV_REQUEST}")
        try:
            path = new_state_dir(Path())
            store = SQLiteStore(path / STORE_FILE)
        except Exception as exc:
            fail(f"error: cannot create a state directory in {Path.cwd()}: {exc}")
        kept = None
    if kept is None:
        if resume:
            fail(f"error: nothing to resume: {path} holds no session")
        if not text:
            fail(f"error: no request: give REQUEST or set {ENV_REQUEST}")
    elif text is not None and text != kept:
        # A restart with the same request resumes (the certification contract's crash and
        # restart); another request would be silently ignored, so it is refused.
        fail(f"error: {path} holds a session of another request; run with --resume to "
             f"continue it, or give another --state-dir for a new session")
    resuming = kept is not None
    bundle_file = bundle_path or path / BUNDLE_FILE

    console = PipeConsole(highlight=False)
    show = None if quiet else SessionShow(console, turn_failures=False)
    watch = CallWatch(None if show is None else show.reply_done)
    on_text = show.text_piece if show is not None and stream and show.bubbles else None

    def driver(role_id: str) -> AgentDriver:
        return watch.wrap(OpenAIChatDriver(base_url, models.get(role_id, default_model),
                                           api_key=key, retries=retries, stream=stream,
                                           on_text=on_text))

    def drivers(name: str, role_id: str) -> AgentDriver:
        return driver(role_id)

    def listener(kind: str, data: dict[str, Any]) -> None:
        if kind == "turn-failed":
            watch.turn_failed(data)
        if show is not None:
            show(kind, data)

    running: list[Session] = []

    async def go() -> Session:
        if resuming:
            session = await Session.resume(store, leader=driver("team-leader"), drivers=drivers,
                                           ask_timeout=timeout, max_ask_rounds=rounds,
                                           listener=listener, turn_timeout=turn_limit,
                                           unanswered_asks=unanswered)
            running.append(session)
        else:
            session = Session(leader=driver("team-leader"), drivers=drivers, store=store,
                              ask_timeout=timeout, max_ask_rounds=rounds, listener=listener,
                              turn_timeout=turn_limit, unanswered_asks=unanswered)
            running.append(session)
            assert text is not None
            await session.start(text)
        await session.run_until_idle()
        return session

    try:
        session = asyncio.run(go())
    except KeyboardInterrupt:
        if running:
            _write_bundle(running[0], bundle_file)
        fail(f"interrupted: {path} keeps the session; run again with --resume --state-dir "
             f"{path} to continue it")
    replied = any(m.get("role") == "assistant" for c in session.conversations.values() for m in c)
    if watch.failed_turns and not replied:
        # Not one model call succeeded: the endpoint cannot be used, whatever the session did.
        # Nothing is worth resuming either: the same command, corrected, starts afresh.
        _write_bundle(session, bundle_file)
        store.close()
        forget(path)
        fail(failure_line(watch.first_error, watch.failed_turns[0], base_url, key),
             EXIT_ENDPOINT)
    watch.flush()
    _write_bundle(session, bundle_file)
    if show is not None:
        show.final_answer(final_answer(session.conversations))
        # Paths are printed whole (never wrapped) and never read as markup.
        console.print(Text(f"session ended: {sum(len(c) for c in session.conversations.values())} "
                           f"messages in {len(session.conversations)} conversations\n"
                           f"bundle: {bundle_file}"), soft_wrap=True)
    sys.exit(0)


def _write_bundle(session: Any, path: Path) -> None:
    bundle = json.dumps(session.bundle(), ensure_ascii=False, indent=1)
    try:
        path.write_text(bundle + "\n", encoding="utf-8")
    except OSError as exc:
        fail(f"error: cannot write {path}: {exc.strerror or exc}")
