"""``merge_group`` (``checks_requested``) -> the gate on the merge-queue commit.

A merge queue tests a temporary commit, not the pull request's head, so the pull request's own
status does not count there: without this a blocked pull request could slip through the queue. The
queued pull request is named by ``merge_group.head_ref``
(``refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>``); the decisions linked to it are gathered and
the combined gate is published as ``parkbot/decisions`` on ``merge_group.head_sha``.

The rule (which decisions count, and that a blocked group gets ``failure``, not ``pending``) is the
core's :func:`parkbot.core.lifecycle.queue_gate`; this module reads the payload and publishes.
"""

from __future__ import annotations

import re

from parkbot.core import lifecycle
from parkbot.core.errors import InvalidInput
from parkbot.core.tracker import CommitGates
from parkbot.events.base import Context, Event, Item
from parkbot.events.router import Router

router = Router()

QUEUE_REF = re.compile(r"^(?:refs/heads/)?gh-readonly-queue/(?P<base>.+)/pr-(?P<number>\d+)-(?P<sha>[0-9a-f]{40})$")


def queued_pulls(head_ref: str) -> list[int]:
    """The pull request numbers a merge-queue branch names (one per queue entry)."""
    match = QUEUE_REF.match(head_ref)
    if match is None:
        raise InvalidInput(
            f"malformed merge_group payload: head_ref {head_ref!r} is not a merge-queue branch "
            "(gh-readonly-queue/<base>/pr-<N>-<sha>)"
        )
    return [int(match.group("number"))]


@router.register("merge_group", "checks_requested")
def on_merge_group(event: Event, ctx: Context) -> list[Item]:
    head_sha = event.get("merge_group.head_sha", str)
    head_ref = event.get("merge_group.head_ref", str)
    numbers = queued_pulls(head_ref)
    queued = lifecycle.queue_gate(ctx.tracker, ctx.config, head_sha, numbers)
    result, state, target = queued.result, queued.state, queued.result.target
    tracker = ctx.tracker
    published = isinstance(tracker, CommitGates)
    if isinstance(tracker, CommitGates):
        tracker.publish_commit_gate(head_sha, result, blocked_fails=True)
    pulls = ", ".join(f"#{n}" for n in numbers)
    blocking = [d.id for d in result.blocking]
    message = (
        f"merge queue {head_sha[:12]} ({pulls}): {'blocked by ' + ', '.join(blocking) if blocking else 'open'}"
        + ("" if published else " (this backend has no commit statuses)")
    )
    return [
        Item(
            "gate",
            message,
            target=target,
            number=numbers[0] if len(numbers) == 1 else None,
            gate_state="blocked" if blocking else "open",
            decision_id=blocking[0] if blocking else None,
            data={"sha": head_sha, "pulls": numbers, "blocking": blocking, "state": state},
        )
    ]
