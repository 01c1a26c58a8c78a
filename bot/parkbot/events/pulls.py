"""``pull_request`` (``opened``, ``edited``, ``synchronize``, ``reopened``) -> the gate on that PR.

The gate is ``lifecycle.gate(tracker, "#N")``: the check run ``parkbot/decisions`` on the PR's
head, ``in_progress`` while any linked decision is open. An ``edited`` event that did not touch the body
cannot change the links (``Blocked by #N`` lines live in the body), so it costs no API call. A
``reopened`` pull request has its branch looked up in the branch index again (GitHub: see
``GitHubTracker.rescan_branch``).

A pull request from an agent branch of this repository (``agent_branches``) is also held to what
the push of that branch is held to (:mod:`parkbot.events.push`): its head commit must carry result
files or an inventory, readable and for its own origin. Both handlers judge the same commit the same
way, so whichever of the two events GitHub delivers last, the status on the head says the same
thing. The head commit is read from the local checkout; if the checkout lacks it (the default
checkout of a ``pull_request`` event is the merge commit), it is fetched once, and if that fails
the gate fails closed and says how to check the head out.
"""

from __future__ import annotations

from parkbot.core import lifecycle
from parkbot.core.errors import InvalidInput
from parkbot.core.filing import BranchFiles, Problem, branch_origin, gate_agent_head
from parkbot.core.tracker import BranchRescan, GateResult
from parkbot.events.base import Context, Event, Item, gate_item, ignored
from parkbot.events.push import failure_item, read_head
from parkbot.events.router import Router
from parkbot.trackers.git import CommitUnavailable

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
    files, unreadable = _read_agent_head(ctx, head_ref, head_sha)
    gate = gate_agent_head(
        ctx.tracker, config, target, branch=head_ref, sha=head_sha, files=files, unreadable=unreadable
    )
    if gate.failure is None:
        return [gate_item(gate.result)]
    return [_with_blocking(failure_item(gate.failure, sha=head_sha, target=target), gate.result)]


def _read_agent_head(ctx: Context, branch: str, sha: str) -> tuple[BranchFiles | None, Problem | None]:
    """The agent branch's head commit as filed, or why it cannot be read (which fails the gate closed)."""
    try:
        return read_head(ctx, sha, origin=branch_origin(branch, ctx.config), config=ctx.config), None
    except CommitUnavailable:
        return None, Problem(
            f"cannot read {sha[:12]} to check the agent's inventory: check out the pull request head "
            "(docs/github-actions.md)",
            reason="unreadable",
        )
    except InvalidInput as exc:
        return None, Problem(f"cannot check the agent's inventory: {exc.message}", reason="unreadable")


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
