"""Commands for the supervision policy: wait, resume, return, accept, override (each a call into :mod:`parkbot.api`)."""

from __future__ import annotations

import signal
from types import FrameType
from typing import TYPE_CHECKING

import click

from parkbot.cli.common import State, backend_options, by_option, show
from parkbot.cli.params import DurationType

if TYPE_CHECKING:
    from parkbot.core.durations import Duration


class Interrupted(Exception):
    """SIGTERM or Ctrl-C while waiting: the agent should park and end its session."""


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted


@click.command()
@click.argument("decision_id", metavar="ID")
@click.option(
    "--timeout",
    type=DurationType(allow_zero=True),
    default="10m",
    show_default=True,
    help="How long to wait online: 90s, 10m, 1m30s, 2h (0s: look once and do not wait).",
)
@backend_options
def wait(state: State, decision_id: str, timeout: Duration) -> None:
    """Wait online for an answer; print it as JSON (exit 0), or exit 1 when the window passes.

    Waiting is for interactive runs that might get a quick answer. When the window passes (or the
    process is interrupted), the agent should end its session: the question stays parked, and
    `parkbot resume ID` later gives a fresh session everything it needs. What is printed is what
    `resume` prints (with "state": "open" and no answer when none came).

    The embedded backlog is read every half second, so an answer is seen within a second. On GitHub
    polls back off from 2s to one a minute, and each poll after the first is a conditional request:
    while the decision is unchanged GitHub answers 304, which costs no rate limit.

    \b
    Example:
      parkbot wait billing-42-decision-refund --timeout 10m || exit 0   # parked; resume later
    """
    backlog = state.backlog
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    click.echo(f"parkbot: waiting up to {timeout} for an answer to {decision_id}", err=True)
    try:
        context = backlog.wait(decision_id, timeout)
    except (Interrupted, KeyboardInterrupt):
        click.echo("parkbot: interrupted while waiting; the question stays parked", err=True)
        context = backlog.resume(decision_id)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if context.state == "open":
        click.echo(f"parkbot: no answer to {decision_id} yet; park and resume later", err=True)
    # The answer is for a machine either way: JSON, with or without --json.
    state.as_json = True
    show(state, context)


@click.command()
@click.argument("decision_id", metavar="ID")
@backend_options
def resume(state: State, decision_id: str) -> None:
    """Print what a fresh session needs to continue: the question, the answer and how it was given, the work.

    The answer says whether it was an explicit default ("assumption": true: treat it as one) or
    taken from a precedent, and work_so_far comes back verbatim. Exit 0 when answered, 1 while the
    question is still open (the context is printed either way).

    \b
    Example:
      parkbot resume billing-42-decision-refund --json > context.json
    """
    show(state, state.backlog.resume(decision_id))


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
    show(state, state.backlog.return_to_requester(decision_id, by=by))


@click.command()
@click.argument("decision_id", metavar="ID")
@by_option("acts")
@backend_options
def accept(state: State, decision_id: str, by: str | None) -> None:
    """Accept a review item: a task's stated assumptions (closing it), or a planner's answer.

    \b
    Example:
      parkbot accept billing-42-decision-assumptions
      parkbot accept billing-42-decision-refund      # keep the planner's answer
    """
    show(state, state.backlog.accept(decision_id, by=by))


@click.command()
@click.argument("decision_id", metavar="ID")
@click.argument("number", type=int, required=False)
@click.argument("text", required=False)
@click.option("--answer", "-a", "answer", default=None, help="Replace a planner's answer with this option.")
@click.option("--reason", default=None, help="Why the planner's answer is overridden (with --answer).")
@by_option("acts")
@backend_options
def override(
    state: State,
    decision_id: str,
    number: int | None,
    text: str | None,
    answer: str | None,
    reason: str | None,
    by: str | None,
) -> None:
    """Turn assumption NUMBER of a review item into a recorded answer, or replace a planner's answer.

    With --answer the owner's answer replaces the planner's (recorded as an override of it): dependents
    not merged are re-gated on it, dependents already merged are told to rework.

    \b
    Example:
      parkbot override billing-42-decision-assumptions 1 "Use USD, not EUR"
      parkbot override billing-42-decision-refund --answer remaining_three --reason "policy changed"
    """
    if answer is not None:
        if number is not None or text is not None:
            raise click.UsageError("give either NUMBER TEXT (an assumption) or --answer OPTION (a planner's answer)")
        show(state, state.backlog.override_planner(decision_id, answer, reason=reason, by=by, source="cli"))
        return
    if number is None or text is None:
        raise click.UsageError("give NUMBER TEXT (an assumption of a review item) or --answer OPTION")
    show(state, state.backlog.override(decision_id, number, text, by=by))
