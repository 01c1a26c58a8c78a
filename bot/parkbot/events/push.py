"""``push`` -> the decisions an agent filed from its branch before its workspace was torn down.

Every ``*.json`` file under ``config.paths.decisions`` (default ``.parkbot/decisions/``) and the
inventory file ``config.paths.inventory`` (default ``.parkbot/inventory.json``) are read **from the
pushed commit** (``payload.after``), never from the working tree
(:func:`parkbot.trackers.git.commits.read_filed`; in ``parkbot serve``, where there is no checkout, through
the API: :class:`parkbot.trackers.github.ApiCommitReader`), and filed by the rules of :mod:`parkbot.core.filing`:
result files are parked, the inventory is checked against the backlog, a branch may only speak for
its own origin, and on an agent branch (``agent_branches``, default ``agent/**``) a push with neither
result files nor an inventory fails the commit's gate, because silence is never taken for "no
questions". Branch deletions and tag pushes are ignored without any API call.
"""

from __future__ import annotations

from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.filing import (
    BranchFiles,
    CommitFailure,
    FilingReport,
    Problem,
    branch_origin,
    file_commit,
    parse_filed,
)
from parkbot.events.base import Context, Event, Item, gate_item, ignored
from parkbot.events.router import Router
from parkbot.trackers.git import COMMIT_ID, open_repo, read_filed

router = Router()

ZERO_SHA = "0" * 40


def read_head(ctx: Context, sha: str, *, origin: str | None, config: Config) -> BranchFiles:
    """What commit ``sha`` filed, parsed: through the context's reader where there is no checkout (the App
    reads it through the API), else from the checkout (fetched once if the checkout lacks it)."""
    if ctx.commit_reader is not None:
        filed = ctx.commit_reader(sha, results_folder=config.paths.decisions, inventory_path=config.paths.inventory)
        return parse_filed(filed, default_origin=origin)
    repo = open_repo(ctx.repo_path)
    try:
        filed = read_filed(repo, sha, results_folder=config.paths.decisions, inventory_path=config.paths.inventory)
    finally:
        repo.close()
    return parse_filed(filed, default_origin=origin)


def branch_of(event: Event) -> str | None:
    ref = event.get("ref", str)
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def problem_item(problem: Problem, branch: str) -> Item:
    return Item(
        "refused" if problem.exit_code == 3 else "error",
        problem.message,
        target=f"branch:{branch}",
        level="error",
        exit_code=problem.exit_code,
        data={"reason": problem.reason},
    )


def failure_item(failure: CommitFailure, *, sha: str, target: str) -> Item:
    """The failed gate of a commit, for the summary."""
    note = "" if failure.published else " (this backend has no commit statuses)"
    number = int(target[1:]) if target.startswith("#") else None
    return Item(
        "gate",
        f"{target.removeprefix('branch:')} @ {sha[:12]}: failure: {failure.summary}{note}",
        target=target,
        number=number,
        gate_state="failure",
        level="error",
        exit_code=failure.exit_code,
        data={"sha": sha, "reasons": list(failure.reasons), "published": failure.published},
    )


def filer(event: Event, config: Config) -> str | None:
    """Who filed a push's questions, for the rule that the planner never answers its own question.

    The pusher (the event's ``sender``, as GitHub authenticated it), unless the head commit states the
    planner as its author (``username`` or e-mail): a stated author only ever takes the planner's
    answer away, so it may be believed. Recorded only when a planner is configured, as on every path.
    """
    if config.planner is None:
        return None
    planner = config.planner.by.casefold()
    for stated in ("head_commit.author.username", "head_commit.author.email"):
        value = event.get(stated, str, default=None)
        if value and value.casefold() == planner:
            return str(value)
    pusher: str | None = event.get("sender.login", str, default=None)
    return pusher


@router.register("push")
def on_push(event: Event, ctx: Context) -> list[Item]:
    after = event.get("after", str)
    ref = event.get("ref", str)
    if event.get("deleted", bool, default=False) or after == ZERO_SHA:
        return ignored(f"{ref} was deleted: nothing to read")
    branch = branch_of(event)
    if branch is None:
        return ignored(f"{ref} is not a branch: parkbot reads decisions from branches only")
    if not COMMIT_ID.match(after):
        raise InvalidInput(f"malformed push payload: after should be a commit sha, not {after!r}")
    config = ctx.config
    agent = config.is_agent_branch(branch)
    origin = branch_origin(branch, config) if agent else None
    files = read_head(ctx, after, origin=origin, config=config)
    report = file_commit(
        ctx.tracker,
        config,
        files,
        branch=branch,
        agent=agent,
        origin=origin,
        now=ctx.now,
        filed_by=filer(event, config),
    )
    if report.empty:
        return ignored(f"{branch} @ {files.sha[:12]}: no result files and no inventory (not an agent branch)")
    return _items(report, branch)


def _items(report: FilingReport, branch: str) -> list[Item]:
    target = f"branch:{branch}"
    items: list[Item] = []
    for step in report.steps:
        if step.kind == "problem" and step.problem is not None:
            items.append(problem_item(step.problem, branch))
        elif step.kind == "already_resolved":
            items.append(
                Item("parked", step.message, decision_id=step.decision_id, action="already_resolved", target=target)
            )
        elif step.kind in ("not_a_question", "none_surfaced"):
            items.append(Item("ignored", step.message))
        elif step.outcome is not None:
            outcome, location = step.outcome, step.outcome.location
            items.append(
                Item(
                    "parked",
                    f"{outcome.action} {outcome.decision.id} ({step.path}, owner {outcome.decision.owner})",
                    decision_id=outcome.decision.id,
                    number=location.number,
                    url=location.url,
                    action=outcome.action,
                    target=target,
                    data={"path": step.path, "owner": outcome.decision.owner},
                    change=outcome.changed,
                )
            )
            items += [gate_item(g) for g in outcome.gates]
    if report.failure is not None:
        items.append(failure_item(report.failure, sha=report.sha, target=target))
    return items
