"""``workflow_run`` (``completed``) -> the gate on a pull request from a fork.

A pull request from a fork runs its workflows with a read-only token, so they can never publish the
gate. The fork-safe pattern (``docs/workflows/gate-fork-pull-requests.yml``) is a second workflow that
GitHub starts in the base repository when the pull request's workflow completes: it has the base
repository's token, never checks out the fork's code, and runs ``handle-event`` on this event.

The payload names the commit (``workflow_run.head_sha``), the fork (``head_repository.full_name``)
and its branch (``head_branch``). ``workflow_run.pull_requests`` is empty for a fork (GitHub leaves
it so), so the pull request is found by its head commit (:class:`FindsPullsByCommit`) and gated
exactly as a ``pull_request`` event gates it (:func:`parkbot.events.pulls.gate_head`).

Ignored without a request: runs of other events (a push, a schedule), and runs for a branch of this
repository, whose pull request is gated by its own ``pull_request`` event with the commit checked out.
"""

from __future__ import annotations

import re

from parkbot.core.errors import InvalidInput
from parkbot.core.tracker import FindsPullsByCommit
from parkbot.events.base import Context, Event, Item, ignored
from parkbot.events.pulls import gate_head
from parkbot.events.router import Router

router = Router()

#: The events whose workflow runs belong to a pull request.
PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
_FULL_NAME = re.compile(r"^[\w.-]+/[\w.-]+$")
_SHA = re.compile(r"^[0-9a-fA-F]{40}$")


@router.register("workflow_run", "completed")
def on_workflow_run(event: Event, ctx: Context) -> list[Item]:
    run_event = event.get("workflow_run.event", str)
    if run_event not in PULL_REQUEST_EVENTS:
        return ignored(f"a run of a {run_event} workflow belongs to no pull request")
    sha = event.get("workflow_run.head_sha", str)
    branch = event.get("workflow_run.head_branch", str)
    head_repo = event.get("workflow_run.head_repository.full_name", str)
    base_repo = event.get("repository.full_name", str)
    if not _SHA.match(sha):
        raise InvalidInput(f"malformed workflow_run payload: workflow_run.head_sha {sha!r} is not a commit sha")
    for name, value in (("workflow_run.head_repository.full_name", head_repo), ("repository.full_name", base_repo)):
        if not _FULL_NAME.match(value):
            raise InvalidInput(f"malformed workflow_run payload: {name} {value!r} is not owner/name")
    if head_repo.casefold() == base_repo.casefold():
        return ignored(f"{branch} is a branch of {base_repo}: its pull_request event gates it")
    tracker = ctx.tracker
    if not isinstance(tracker, FindsPullsByCommit):
        return ignored("this backend has no pull requests to gate")
    head = f"{head_repo.split('/', 1)[0]}:{branch}"
    numbers = tracker.open_pulls_at(sha, head=head)
    if not numbers:
        return ignored(f"no open pull request has {sha[:12]} ({head}) as its head")
    items: list[Item] = []
    for number in numbers:
        items += gate_head(ctx, f"#{number}", head_ref=branch, head_sha=sha, same_repo=False)
    return items
