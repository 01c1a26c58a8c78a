"""The core commands: park, resolve, gate, show, list, escalate, schema, sync (each a call into :mod:`parkbot.api`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, cast

import click

from parkbot.cli.common import State, backend_options, by_option, show, whole_scan
from parkbot.cli.params import MomentType
from parkbot.core.errors import InvalidInput
from parkbot.terminal import printable

if TYPE_CHECKING:
    from parkbot.api import Awaiting, ListState

MAX_INPUT_BYTES = 2 * 1024 * 1024


def read_input(source: str) -> bytes:
    """A result file, or stdin for ``-``; bounded so a runaway agent cannot exhaust memory."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise InvalidInput(f"cannot read {source}: {exc.strerror}") from exc
    if len(data) > MAX_INPUT_BYTES:
        raise InvalidInput(f"{source} is larger than {MAX_INPUT_BYTES} bytes")
    return data


@click.command()
@click.argument("result", metavar="RESULT.json|-")
@backend_options
def park(state: State, result: str) -> None:
    """File an agent's result: a needs_input result becomes a decision in the backlog.

    The decision's id is derived (<origin>-decision-<key>), so filing the same result again updates
    the same item (action "updated" or "unchanged") instead of creating another. A different title
    under the same id, or a decision that is already resolved, is refused (exit 3), and so is a
    re-filing that lowers "blocking" to false (blocking_lowered): blocking only goes up.

    A done_with_assumptions result becomes a non-blocking review item. A done/failed result carries
    the run's decision inventory; it is checked against the backlog (an empty list must say
    "none": true, since silence and a crash look the same). `parkbot schema` is the JSON Schema.

    \b
    Example:
      echo '{"status": "needs_input", "origin": "billing-42", "key": "refund",
             "question": "Refund the remaining three items or the full total?",
             "options": ["remaining_three: 412.00", "full_original: 690.00"],
             "work_so_far": {"verified": ["A-4471"]}, "blocking": true,
             "dependents": ["branch:agent/billing-42"]}' | parkbot park -
    """
    data = read_input(result)
    show(state, state.backlog.park(data))


@click.command()
@click.argument("decision_id", metavar="ID")
@click.option(
    "--answer", "-a", "answer", required=True, help="An option id, or free text where the decision allows it."
)
@by_option("answers")
@click.option(
    "--default",
    "as_default",
    is_flag=True,
    help="Answer with an explicit default, recorded and flagged as an assumption.",
)
@backend_options
def resolve(state: State, decision_id: str, answer: str, by: str | None, as_default: bool) -> None:
    """Answer a decision as one of its owners, and unblock what depends on it.

    Resolving records the answer, points every dependent at it, clears the blocking edges and only
    then closes the decision. If any step fails the decision stays open; running the same command
    again finishes the job. A different answer after one is recorded is refused (exit 3).

    \b
    Example:
      parkbot resolve billing-42-decision-refund --answer full_original
      parkbot resolve billing-42-decision-refund --answer remaining_three --default
    """
    show(state, state.backlog.resolve(decision_id, answer, by=by, default=as_default, source="cli"))


@click.command()
@click.argument("pull_request", required=False, metavar="[PR]")
@click.option(
    "--ref", "ref", default=None, help="A branch (or any ref) of the local repository: the git backlog's gate."
)
@backend_options
def gate(state: State, pull_request: str | None, ref: str | None) -> None:
    """May this pull request or branch merge? Exit 0 when no decision blocks it, 1 while any does.

    A branch depends on a decision through "Blocked-by: <decision-id>" trailers in its commits, or
    because the decision lists it among its dependents. On GitHub the result is also published on the
    pull request's head as the check run "parkbot/decisions" (a commit status too with gate.publish:
    status or both in .github/parkbot.yml).

    \b
    Example:
      git commit --allow-empty -m "wip" -m "Blocked-by: billing-42-decision-refund"
      parkbot gate --ref agent/billing-42            # exit 1 until the decision is resolved
      parkbot gate 17 --backend github               # pull request #17
    """
    show(state, state.backlog.gate(ref, pr=pull_request))


@click.command(name="show")
@click.argument("decision_id", metavar="ID")
@backend_options
def show_(state: State, decision_id: str) -> None:
    """Show one decision: question, options, state, owner, answer, dependents.

    \b
    Example:
      parkbot show billing-42-decision-refund --json
    """
    show(state, state.backlog.show(decision_id))


@click.command(name="list")
@click.option(
    "--state",
    "wanted",
    type=click.Choice(["open", "resolved", "abandoned", "all"]),
    default=None,
    help="Which decisions (default: open; with --answered-since, every answered one).",
)
@click.option("--owner", default=None, help="Only decisions this owner answers.")
@click.option("--origin", default=None, help="Only origins matching this glob, e.g. 'billing-*'.")
@click.option(
    "--answered-since",
    "answered_since",
    type=MomentType(),
    default=None,
    help="Only decisions answered since then (1h, 30m, 7d back from now, or an ISO date), in the order "
    "they were answered: the work that can continue.",
)
@click.option(
    "--awaiting",
    type=click.Choice(["planner", "review"]),
    default=None,
    help="planner: questions waiting for the planner (its work list); review: planner answers their owners "
    "have not reviewed yet.",
)
@backend_options
def list_(
    state: State,
    wanted: str | None,
    owner: str | None,
    origin: str | None,
    answered_since: datetime | None,
    awaiting: str | None,
) -> None:
    """List decisions, oldest first.

    \b
    Example:
      parkbot list --state all --origin 'billing-*'
      parkbot list --answered-since 1h --json       # a supervisor's loop: what can continue now
      parkbot list --awaiting planner --json        # the planner's loop: what waits for it
    """
    chosen = cast("ListState | None", wanted)
    with whole_scan():
        printed = state.backlog.list_printed(
            chosen,
            owner=owner,
            origin=origin,
            answered_since=answered_since,
            as_json=state.as_json,
            awaiting=cast("Awaiting | None", awaiting),
        )
    if state.as_json:
        echo_parts(printed.json_parts())
    else:
        click.echo(printable(printed.text()))


def echo_parts(parts: Iterable[str], *, batch: int = 1 << 16) -> None:
    """Print a long JSON output piece by piece, in writes of about ``batch`` characters (never all of it at
    once: one string of ten thousand decisions' JSON, and its bytes, would double what ``list`` holds).

    The pieces are written as bytes: given text, click searches all of it for terminal colour codes to
    strip, and JSON holds none (it escapes every control character)."""
    pending: list[str] = []
    size = 0
    for part in parts:
        pending.append(part)
        size += len(part)
        if size >= batch:
            click.echo("".join(pending).encode("utf-8"), nl=False)
            pending, size = [], 0
    pending.append("\n")
    click.echo("".join(pending).encode("utf-8"), nl=False)


@click.command()
@click.argument("decision_id", metavar="ID")
@click.option("--to", "to", default=None, help="The owner you expect above; anything but the next level up is refused.")
@by_option("escalates (an owner of the decision)")
@backend_options
def escalate(state: State, decision_id: str, to: str | None, by: str | None) -> None:
    """Hand a question exactly one level up the owner hierarchy, keeping its context.

    Questions only move up: sideways or downward hand-offs are refused (that is how questions bounce
    between agents forever), and at the top of the hierarchy the owner must answer or default.

    \b
    Example:
      parkbot escalate billing-42-decision-refund --by bob
    """
    show(state, state.backlog.escalate(decision_id, by=by, to=to))


@click.command()
@backend_options
def schema(state: State) -> None:
    """Print the JSON Schema of agent results, so agents can validate before they send.

    It is generated from the models `parkbot park` validates with, and is also the file
    schema/agent-result.schema.json in parkbot's repository. The few rules JSON Schema cannot state
    (unique option ids, a guess among the options, ...) are listed in its description.

    \b
    Example:
      parkbot schema > parkbot-result.schema.json
    """
    from parkbot.core.models import result_json_schema

    click.echo(json.dumps(result_json_schema(), indent=2))


@click.command()
@click.option("--remote", default="origin", show_default=True, help="The git remote to share the backlog with.")
@backend_options
def sync(state: State, remote: str) -> None:
    """Share the embedded backlog with a remote: fetch, merge, push (git backend only).

    Fast-forwards when one side is behind; when both changed, merges per decision (a resolved
    decision with a verified answer beats one without, a resolved decision beats an open one,
    otherwise the later update wins; log lines are united) and pushes
    with a lease, retrying if someone pushed meanwhile. Plain `git push origin refs/parkbot/backlog`
    works too when only one machine writes.

    No answer is lost: when two machines answered a decision differently, the earlier answer stands,
    the other is listed under "conflicts" (exit 3) and kept in the history, and `parkbot show` names
    it until an owner confirms the answer that stands by giving it again.

    \b
    Example:
      parkbot sync --remote origin        # prints up-to-date, fetched, pushed or merged
    """
    show(state, state.backlog.sync(remote))
