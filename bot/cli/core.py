"""The core commands: park, resolve, gate, show, list, escalate, schema."""

from __future__ import annotations

import fnmatch
import json
import sys
from typing import Any

import click

from bot.cli.common import State, actor, backend_options, by_option, emit
from bot.core import lifecycle
from bot.core.errors import ExitCode, InvalidInput, NotFound
from bot.core.lifecycle import gate_dict
from bot.core.models import Decision, Done, DoneWithAssumptions, Failed, NeedsInput, parse_result, result_json_schema
from bot.core.tracker import BacklogHints, GateResult, Syncing

MAX_INPUT_BYTES = 2 * 1024 * 1024


def _read_result(source: str) -> Any:
    """Read a result file, or stdin for ``-``; bounded so a runaway agent cannot exhaust memory."""
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
    return parse_result(data)


def _where(location: dict[str, Any]) -> str:
    if "url" in location:
        return f"#{location.get('number')} {location['url']}"
    return f"{location.get('ref', '')}:{location.get('path', '')}"


def _gate_lines(gates: list[dict[str, Any]]) -> str:
    return "".join(f"\n  {g['target']}: {g['state']}" for g in gates)


@click.command()
@click.argument("result", metavar="RESULT.json|-")
@backend_options
def park(state: State, result: str) -> None:
    """File an agent's result: a needs_input result becomes a decision in the backlog.

    The decision's id is derived (<origin>-decision-<key>), so filing the same result again updates
    the same item (action "updated" or "unchanged") instead of creating another. A different title
    under the same id, or a decision that is already resolved, is refused (exit 3).

    A done/failed result carries the run's decision inventory; it is checked against the backlog
    (an empty list must say "none": true, since silence and a crash look the same).

    \b
    Example:
      echo '{"status": "needs_input", "origin": "billing-42", "key": "refund",
             "question": "Refund the remaining three items or the full total?",
             "options": ["remaining_three: 412.00", "full_original: 690.00"],
             "work_so_far": {"verified": ["A-4471"]}, "blocking": true,
             "dependents": ["branch:agent/billing-42"]}' | parkbot park -
    """
    parsed = _read_result(result)
    backend = state.backend
    if isinstance(parsed, NeedsInput):
        outcome = lifecycle.park(backend.tracker, parsed, backend.config)
        data = outcome.as_dict()
        emit(
            state,
            data,
            f"{outcome.action} {outcome.decision.id} (owner {outcome.decision.owner}) "
            f"at {_where(outcome.location.as_dict())}{_gate_lines(data['gates'])}",
        )
        return
    if isinstance(parsed, Done | Failed):
        _check_inventory(state, parsed)
        return
    if isinstance(parsed, DoneWithAssumptions):
        outcome = lifecycle.park_review(backend.tracker, parsed, backend.config)
        emit(
            state,
            outcome.as_dict(),
            f"{outcome.action} review item {outcome.decision.id} "
            f"({len(parsed.assumptions)} assumption(s), owner {outcome.decision.owner}, "
            f"non-blocking) at {_where(outcome.location.as_dict())}",
        )


def _check_inventory(state: State, result: Done | Failed) -> None:
    """A finished run's inventory must match the backlog: every listed decision must have been parked."""
    tracker = state.backend.tracker
    if result.none:
        emit(
            state,
            {"origin": result.origin, "status": result.status, "none": True, "missing": []},
            f"{result.origin}: {result.status}, no decisions surfaced (stated explicitly)",
        )
        return
    ids = result.decision_ids()
    missing = [did for did in ids if tracker.find(did) is None]
    data = {"origin": result.origin, "status": result.status, "decisions": ids, "missing": missing}
    if missing:
        state_text = ", ".join(missing)
        if state.as_json:
            emit(state, {**data, "error": "missing"}, "")
        raise NotFound(
            f"{result.origin}: the inventory lists decisions that are not in the backlog: {state_text}; "
            "park their needs_input results first"
        )
    emit(state, data, f"{result.origin}: {result.status}, {len(ids)} decision(s) surfaced, all in the backlog")


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
    backend = state.backend
    outcome = lifecycle.resolve(
        backend.tracker,
        backend.config,
        decision_id,
        answer,
        actor(state, by, "answers"),
        command="default" if as_default else "auto",
        source="cli",
    )
    note = " (explicit default, flagged as an assumption)" if outcome.answer.assumption else ""
    emit(
        state,
        outcome.as_dict(),
        f"{outcome.action} {outcome.decision.id}: {outcome.answer.value!r} by {outcome.answer.by}{note}"
        f"{_gate_lines(outcome.as_dict()['gates'])}",
    )


@click.command()
@click.argument("pull_request", required=False, metavar="[PR]")
@click.option(
    "--ref", "ref", default=None, help="A branch (or any ref) of the local repository: the git backlog's gate."
)
@backend_options
def gate(state: State, pull_request: str | None, ref: str | None) -> None:
    """May this pull request or branch merge? Exit 0 when no decision blocks it, 1 while any does.

    A branch depends on a decision through "Blocked-by: <decision-id>" trailers in its commits, or
    because the decision lists it among its dependents. On GitHub the result is also published as the
    commit status "parkbot/decisions" on the pull request's head.

    \b
    Example:
      git commit --allow-empty -m "wip" -m "Blocked-by: billing-42-decision-refund"
      parkbot gate --ref agent/billing-42            # exit 1 until the decision is resolved
      parkbot gate 17 --backend github               # pull request #17
    """
    if (pull_request is None) == (ref is None):
        raise InvalidInput("name exactly one thing to gate: a pull request number, or --ref BRANCH")
    if pull_request is not None:
        number = pull_request.lstrip("#")
        if not number.isdigit():
            raise InvalidInput(f"{pull_request!r} is not a pull request number")
        if state.backend_name != "github":
            raise InvalidInput("pull requests live on GitHub: add --backend github, or gate a branch with --ref")
        target = f"#{int(number)}"
    else:
        target = f"branch:{ref}"
    result = lifecycle.gate(state.backend.tracker, state.backend.config, target)
    emit(state, gate_dict(result), _gate_text(result))
    if result.blocking:
        sys.exit(int(ExitCode.BLOCKED))


def _gate_text(result: GateResult) -> str:
    if not result.blocking:
        return f"{result.target}: open (no open decision blocks it)"
    lines = [f"{result.target}: blocked by {len(result.blocking)} open decision(s)"]
    lines += [f"  {d.id}  {d.title}  (owner {d.owner})" for d in result.blocking]
    return "\n".join(lines)


@click.command()
@click.argument("decision_id", metavar="ID")
@backend_options
def show(state: State, decision_id: str) -> None:
    """Show one decision: question, options, state, owner, answer, dependents.

    \b
    Example:
      parkbot show billing-42-decision-refund --json
    """
    tracker, config = state.backend.tracker, state.backend.config
    decision = lifecycle.answer_of(tracker, config, decision_id)
    answer = decision.answer or (
        lifecycle.recorded_answer(tracker, config, decision) if decision.state == "open" else None
    )
    data = decision_dict(decision) | tracker.location(decision).as_dict()
    if answer is not None:
        data["answer"] = answer.model_dump(mode="json", exclude_none=True)
    emit(state, data, _decision_text(decision, answer))


def decision_dict(decision: Decision) -> dict[str, Any]:
    data = decision.model_dump(mode="json", exclude_none=True)
    data["chain"] = decision.chain()
    if decision.problems:
        data["problems"] = list(decision.problems)
    return data


def _decision_text(decision: Decision, answer: Any) -> str:
    lines = [f"{decision.id}  [{decision.state}]  {decision.title}", f"owner: {' -> '.join(decision.chain())}"]
    lines.append(f"question: {decision.question}")
    for option in decision.options:
        mark = "  (agent's guess)" if option.id == decision.guess else ""
        lines.append(f"  - {option.id}: {option.label}{mark}")
    if decision.dependents:
        lines.append(
            f"blocks: {', '.join(decision.dependents)}"
            if decision.blocking
            else f"dependents (non-blocking): {', '.join(decision.dependents)}"
        )
    lines += [f"problem: {problem}" for problem in decision.problems]
    if answer is not None:
        flag = " [explicit default: an assumption]" if answer.assumption else ""
        pending = " (recorded; resolution not finished, re-run resolve)" if decision.state == "open" else ""
        lines.append(f"answer: {answer.value} by {answer.by} at {answer.at.isoformat()}{flag}{pending}")
    return "\n".join(lines)


@click.command(name="list")
@click.option(
    "--state", "wanted", type=click.Choice(["open", "resolved", "abandoned", "all"]), default="open", show_default=True
)
@click.option("--owner", default=None, help="Only decisions this owner answers.")
@click.option("--origin", default=None, help="Only origins matching this glob, e.g. 'billing-*'.")
@backend_options
def list_(state: State, wanted: str, owner: str | None, origin: str | None) -> None:
    """List decisions, oldest first.

    \b
    Example:
      parkbot list --state all --origin 'billing-*'
    """
    tracker, config = state.backend.tracker, state.backend.config
    stored = tracker.iter_decisions(None if wanted == "all" else wanted)
    decisions = [
        d
        for d in (lifecycle.verify(tracker, config, d) for d in stored)
        if (wanted in ("all", d.state))
        and (owner is None or d.owner.casefold() == owner.casefold())
        and (origin is None or fnmatch.fnmatchcase(d.origin, origin.lower()))
    ]
    decisions.sort(key=lambda d: (d.created_at, d.id))
    rows = [f"{d.state:<9} {d.id}  {d.title}  (owner {d.owner})" for d in decisions]
    hint = tracker.missing_hint() if not decisions and isinstance(tracker, BacklogHints) else None
    empty = f"no {wanted if wanted != 'all' else ''} decisions".replace("  ", " ") + (f"; {hint}" if hint else "")
    data = {"decisions": [decision_dict(d) for d in decisions], "count": len(decisions)}
    emit(state, {**data, "hint": hint} if hint else data, "\n".join(rows) if rows else empty)


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
    backend = state.backend
    outcome = lifecycle.escalate(backend.tracker, backend.config, decision_id, actor(state, by, "escalates"), to=to)
    emit(
        state,
        outcome.as_dict() | {"chain": outcome.decision.chain()},
        f"escalated {outcome.decision.id}: {' -> '.join(outcome.decision.chain())}",
    )


@click.command()
@backend_options
def schema(state: State) -> None:
    """Print the JSON Schema of agent results, so agents can validate before they send.

    \b
    Example:
      parkbot schema > parkbot-result.schema.json
    """
    click.echo(json.dumps(result_json_schema(), indent=2))


@click.command()
@click.option("--remote", default="origin", show_default=True, help="The git remote to share the backlog with.")
@backend_options
def sync(state: State, remote: str) -> None:
    """Share the embedded backlog with a remote: fetch, merge, push (git backend only).

    Fast-forwards when one side is behind; when both changed, merges per decision (a resolved
    decision beats an open one, otherwise the later update wins; log lines are united) and pushes
    with a lease, retrying if someone pushed meanwhile. Plain `git push origin refs/parkbot/backlog`
    works too when only one machine writes.

    \b
    Example:
      parkbot sync --remote origin        # prints up-to-date, fetched, pushed or merged
    """
    backend = state.backend
    tracker = backend.tracker
    if not isinstance(tracker, Syncing):
        raise InvalidInput("sync shares the embedded git backlog; on GitHub the issues are already shared")
    result = tracker.sync(remote)
    emit(
        state,
        {"remote": remote, "action": result.action, "ignored": list(result.ignored)},
        f"{backend.config.backlog_ref} <-> {remote}: {result.summary()}",
    )


COMMANDS = [park, resolve, gate, show, list_, escalate, schema, sync]
