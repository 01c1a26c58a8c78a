"""``pull_request`` (``opened``, ``edited``, ``synchronize``, ``reopened``) -> the gate on that PR.

The gate is ``lifecycle.gate(tracker, "#N")``: the commit status ``parkbot/decisions`` on the PR's
head, ``pending`` while any linked decision is open. An ``edited`` event that did not touch the body
cannot change the links (``Blocked by #N`` lines live in the body), so it costs no API call. A
``reopened`` pull request has its branch looked up in the branch index again (GitHub: see
``GitHubTracker.rescan_branch``).

A pull request from an agent branch of this repository (``agent_branches``) is also held to what
the push of that branch is held to (:mod:`bot.events.push`): its head commit must carry result
files or an inventory, readable and for its own origin. Both handlers judge the same commit the same
way, so whichever of the two events GitHub delivers last, the status on the head says the same
thing. The head commit is read from the local checkout; if the checkout lacks it (the default
checkout of a ``pull_request`` event is the merge commit), it is fetched once, and if that fails
the gate fails closed and says how to check the head out.
"""

from __future__ import annotations

from bot.core import lifecycle
from bot.core.errors import InvalidInput
from bot.core.models import Decision, NeedsInput
from bot.core.tracker import BranchRescan, GateResult
from bot.events.base import Context, Event, Item, gate_item, ignored
from bot.events.push import (
    BranchFiles,
    CommitUnavailable,
    Problem,
    branch_origin,
    collision_problems,
    fail_commit,
    missing_problems,
    open_repo,
    read_branch_files,
    static_problems,
)
from bot.events.router import Router

router = Router()


@router.register("pull_request", "opened", "edited", "synchronize", "reopened")
def on_pull_request(event: Event, ctx: Context) -> list[Item]:
    number = event.get("pull_request.number", int)
    state = event.get("pull_request.state", str, default="open")
    if event.action == "edited" and event.get("changes.body", dict, default=None) is None:
        return ignored(f"#{number}: only the title or base changed, which links no decision")
    if state != "open":
        return ignored(f"#{number} is {state}")
    head_ref = event.get("pull_request.head.ref", str)
    head_sha = event.get("pull_request.head.sha", str)
    head_repo = event.get("pull_request.head.repo.full_name", str, default=None)
    base_repo = event.get("repository.full_name", str, default=None)
    same_repo = head_repo is None or base_repo is None or head_repo.casefold() == base_repo.casefold()
    tracker = ctx.tracker
    if event.action == "reopened" and isinstance(tracker, BranchRescan):
        tracker.rescan_branch(number)  # decisions parked for its branch while it was closed did not find it
    return gate_head(ctx, f"#{number}", head_ref=head_ref, head_sha=head_sha, same_repo=same_repo)


def gate_head(ctx: Context, target: str, *, head_ref: str, head_sha: str, same_repo: bool = True) -> list[Item]:
    """Evaluate and publish the gate of ``target`` (``#N`` or ``branch:<name>``) whose head is
    ``head_ref`` at ``head_sha``, plus the agent-branch check on that commit."""
    config = ctx.config
    if not (same_repo and config.is_agent_branch(head_ref)):
        return [gate_item(lifecycle.gate(ctx.tracker, config, target))]
    files, problems = read_agent_head(ctx, head_ref, head_sha)
    linked = lifecycle.linked(ctx.tracker, config, target)
    linked += filed_from_branch(ctx, files, head_ref, known={d.id for d in linked})
    result = lifecycle.evaluate_gate(target, linked)
    if not problems:
        ctx.tracker.publish_gate(result)
        return [gate_item(result)]
    failed = fail_commit(ctx, problems, branch=head_ref, sha=head_sha, target=target)
    return [_with_blocking(failed, result)]


def read_agent_head(ctx: Context, branch: str, sha: str) -> tuple[BranchFiles | None, list[Problem]]:
    """The agent branch's head commit, and what :mod:`bot.events.push` would fail it for (nothing parked)."""
    config = ctx.config
    origin = branch_origin(branch, config)
    try:
        repo = open_repo(ctx.repo_path)
    except InvalidInput as exc:
        return None, [Problem(f"cannot check the agent's inventory: {exc.message}", reason="unreadable")]
    try:
        files = read_branch_files(repo, sha, config, default_origin=origin)
    except CommitUnavailable:
        return None, [
            Problem(
                f"cannot read {sha[:12]} to check the agent's inventory: check out the pull request head "
                "(docs/github-actions.md)",
                reason="unreadable",
            )
        ]
    finally:
        repo.close()
    problems = static_problems(files, config, agent=True, origin=origin)
    if files.empty:
        return files, problems
    return files, problems + collision_problems(ctx.tracker, files) + missing_problems(ctx.tracker, files)


def filed_from_branch(ctx: Context, files: BranchFiles | None, branch: str, *, known: set[str]) -> list[Decision]:
    """Open decisions the head commit filed for this branch that the tracker did not link yet.

    A pull request opened after its agent branch was pushed has no recorded link to the questions that
    push parked (they name the branch, and there was no pull request to label then). The head commit
    holds their result files, so the link is made here, durably (``block_dependents`` labels the PR).
    """
    if files is None:
        return []
    target = f"branch:{branch}"
    found: list[Decision] = []
    for _, result in files.results:
        if not isinstance(result, NeedsInput) or result.decision_id in known:
            continue
        decision = ctx.tracker.find(result.decision_id)
        if decision is None or decision.state == "resolved" or not decision.blocking:
            continue
        if target not in decision.dependents:
            continue
        ctx.tracker.block_dependents(decision)
        known.add(decision.id)
        found.append(decision)
    return found


def _with_blocking(item: Item, result: GateResult) -> Item:
    blocking = [d.id for d in result.blocking]
    return Item(
        item.kind,
        item.message + (f" (also blocked by {', '.join(blocking)})" if blocking else ""),
        decision_id=blocking[0] if blocking else None,
        number=item.number,
        target=item.target,
        gate_state=item.gate_state,
        level=item.level,
        exit_code=item.exit_code,
        data={**item.data, "blocking": blocking},
    )
