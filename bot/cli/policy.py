"""Commands for the supervision policy: wait, resume, return, accept, override."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import click

from bot.cli.common import State, actor, backend_options, by_option, emit
from bot.core import lifecycle
from bot.core.config import Config
from bot.core.errors import ExitCode, InvalidInput
from bot.core.models import Decision
from bot.core.tracker import PollToken, Tracker

#: Polling starts quick and backs off, so a long wait costs few requests (and on GitHub,
#: conditional requests make an unchanged poll free of rate limit).
FIRST_POLL_SECONDS = 2.0
MAX_POLL_SECONDS = 60.0


def parse_duration(text: str) -> float:
    """``90s``, ``10m``, ``2h`` or plain seconds."""
    units = {"s": 1, "m": 60, "h": 3600}
    value = text.strip().lower()
    try:
        if value and value[-1] in units:
            return float(value[:-1]) * units[value[-1]]
        return float(value)
    except ValueError:
        raise InvalidInput(f"{text!r} is not a duration: use e.g. 90s, 10m or 2h") from None


class Interrupted(Exception):
    """SIGTERM or Ctrl-C while waiting: the agent should park and end its session."""


def wait_for_answer(
    poll: Callable[[], Decision],
    timeout: float,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    first: float = FIRST_POLL_SECONDS,
) -> Decision | None:
    """Poll with exponential backoff until the decision is resolved or the window passes."""
    deadline = clock() + timeout
    interval = first
    while True:
        decision = poll()
        if decision.state != "open":
            return decision
        remaining = deadline - clock()
        if remaining <= 0:
            return None
        sleep(min(interval, remaining))
        interval = min(interval * 2, MAX_POLL_SECONDS)


def poller(tracker: Tracker, config: Config, decision_id: str) -> Callable[[], Decision]:
    """One poll per call, each handing the backend what the previous one saw.

    On GitHub this makes every poll after the first a conditional request (``If-None-Match``), which
    costs no rate limit while the decision is unchanged; elsewhere each poll re-reads
    (:func:`bot.core.lifecycle.poll_answer`).
    """
    token: PollToken | None = None

    def poll() -> Decision:
        nonlocal token
        decision, token = lifecycle.poll_answer(tracker, config, decision_id, token)
        return decision

    return poll


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted


@click.command()
@click.argument("decision_id", metavar="ID")
@click.option("--timeout", default="10m", show_default=True, help="How long to wait online, e.g. 90s, 10m, 2h.")
@backend_options
def wait(state: State, decision_id: str, timeout: str) -> None:
    """Wait online for an answer; print it as JSON (exit 0), or exit 1 when the window passes.

    Waiting is for interactive runs that might get a quick answer. When the window passes (or the
    process is interrupted), the agent should end its session: the question stays parked, and
    `parkbot resume ID` later gives a fresh session everything it needs.

    Polls back off from 2s to one a minute. On GitHub each poll after the first is a conditional
    request: while the decision is unchanged GitHub answers 304, which costs no rate limit.

    \b
    Example:
      parkbot wait billing-42-decision-refund --timeout 10m || exit 0   # parked; resume later
    """
    seconds = parse_duration(timeout)
    tracker = state.backend.tracker
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    click.echo(f"parkbot: waiting up to {timeout} for an answer to {decision_id}", err=True)
    try:
        decision = wait_for_answer(poller(tracker, state.backend.config, decision_id), seconds)
    except (Interrupted, KeyboardInterrupt):
        decision = None
        click.echo("parkbot: interrupted while waiting; the question stays parked", err=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if decision is None:
        if state.as_json:
            click.echo(json.dumps({"id": decision_id, "state": "open", "answer": None}))
        click.echo(f"parkbot: no answer to {decision_id} yet; park and resume later", err=True)
        sys.exit(int(ExitCode.BLOCKED))
    click.echo(json.dumps(lifecycle.resume_context(decision), indent=2, default=str))


@click.command()
@click.argument("decision_id", metavar="ID")
@backend_options
def resume(state: State, decision_id: str) -> None:
    """Print what a fresh session needs to continue: question, answer (default? precedent?), work so far.

    Exit 0 when answered, 1 while the question is still open (the context is printed either way).

    \b
    Example:
      parkbot resume billing-42-decision-refund --json > context.json
    """
    decision = lifecycle.answer_of(state.backend.tracker, state.backend.config, decision_id)
    context = lifecycle.resume_context(decision)
    text = _resume_text(context)
    emit(state, context, text)
    if decision.state == "open":
        sys.exit(int(ExitCode.BLOCKED))


def _resume_text(context: dict[str, Any]) -> str:
    lines = [f"{context['id']} [{context['state']}]", f"question: {context['question']}"]
    if context["answer"] is None:
        lines.append("answer: none yet")
    else:
        how = " (explicit default: an assumption)" if context["assumption"] else ""
        if context["precedent"]:
            how = f" (from precedent {context['precedent']['decision']})"
        lines.append(f"answer: {context['answer']} by {context['answered_by']}{how}")
    lines.append("work_so_far: " + json.dumps(context["work_so_far"], indent=2, default=str))
    return "\n".join(lines)


@click.command(name="return")
@click.argument("decision_id", metavar="ID")
@by_option("acts")
@backend_options
def return_(state: State, decision_id: str, by: str | None) -> None:
    """Hand the question back to the requester of an interactive run (when the owner cannot answer).

    \b
    Example:
      parkbot return billing-42-decision-refund --by alice
    """
    outcome = lifecycle.return_to_requester(
        state.backend.tracker, state.backend.config, decision_id, actor(state, by, "acts")
    )
    emit(
        state,
        outcome.as_dict() | {"chain": outcome.decision.chain()},
        f"returned {outcome.decision.id} to {outcome.decision.owner}",
    )


@click.command()
@click.argument("decision_id", metavar="ID")
@by_option("acts")
@backend_options
def accept(state: State, decision_id: str, by: str | None) -> None:
    """Accept a review item's stated assumptions and close it.

    \b
    Example:
      parkbot accept billing-42-decision-assumptions
    """
    outcome = lifecycle.accept_review(
        state.backend.tracker, state.backend.config, decision_id, actor(state, by, "acts")
    )
    emit(state, outcome.as_dict(), f"{outcome.action} {outcome.decision.id}: assumptions accepted")


@click.command()
@click.argument("decision_id", metavar="ID")
@click.argument("number", type=int)
@click.argument("text")
@by_option("acts")
@backend_options
def override(state: State, decision_id: str, number: int, text: str, by: str | None) -> None:
    """Turn assumption NUMBER of a review item into a recorded answer; dependents are told to rework.

    \b
    Example:
      parkbot override billing-42-decision-assumptions 1 "Use USD, not EUR"
    """
    outcome = lifecycle.override_assumption(
        state.backend.tracker, state.backend.config, decision_id, number, text, actor(state, by, "acts")
    )
    emit(state, outcome.as_dict(), f"{outcome.action} {outcome.decision.id}: assumption {number} overridden")


POLICY_COMMANDS = [wait, resume, return_, accept, override]
