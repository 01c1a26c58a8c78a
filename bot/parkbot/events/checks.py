"""``check_run`` (``rerequested``) and ``status`` on parkbot's own context -> evaluate again.

* Someone pressed "Re-run" on parkbot's check (a check run whose name starts with ``parkbot``, as the
  example workflows name their job): the pull requests the check run belongs to
  (``check_run.pull_requests``) are gated again.
* A ``status`` event for the ``parkbot/decisions`` context set by someone who is not a bot: a
  person (or a script with a person's token) overwrote the gate, so it is evaluated again and the
  truthful status published on the branches whose head is that commit (the event names ten branches at
  most: with ten, GitHub is asked for every branch at the commit). Statuses set by bots are
  presumed to be parkbot's own publications and are ignored, which also keeps parkbot from reacting
  to itself in a loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from parkbot.core.errors import InvalidInput
from parkbot.events.base import Context, Event, Item, ignored, is_bot
from parkbot.events.pulls import gate_head
from parkbot.events.router import Router
from parkbot.trackers.github import STATUS_CONTEXT

router = Router()

#: The most branches a ``status`` event names (GitHub's documented cap): a full list may leave some out.
STATUS_EVENT_BRANCHES = 10


@runtime_checkable
class BranchesAtCommit(Protocol):
    """A backend that can name every branch whose head is a commit."""

    def branches_at(self, sha: str) -> list[str]: ...


def is_parkbot_check(name: str) -> bool:
    return name == STATUS_CONTEXT or name.casefold().startswith("parkbot")


@router.register("check_run", "rerequested")
def on_check_run(event: Event, ctx: Context) -> list[Item]:
    name = event.get("check_run.name", str)
    if not is_parkbot_check(name):
        return ignored(f"check run {name!r} is not parkbot's")
    pulls = event.get("check_run.pull_requests", list, default=[])
    if not pulls:
        return ignored(f"check run {name!r} belongs to no pull request of this repository")
    items: list[Item] = []
    for index, pull in enumerate(pulls):
        if not isinstance(pull, Mapping):
            raise InvalidInput(f"malformed check_run payload: check_run.pull_requests[{index}] is not an object")
        sub = Event(event.name, {"pull": pull})
        number = sub.get("pull.number", int)
        head_ref = sub.get("pull.head.ref", str)
        head_sha = sub.get("pull.head.sha", str)
        items += gate_head(ctx, f"#{number}", head_ref=head_ref, head_sha=head_sha)
    return items


@router.register("status")
def on_status(event: Event, ctx: Context) -> list[Item]:
    context = event.get("context", str)
    sha = event.get("sha", str)
    if context != STATUS_CONTEXT:
        return ignored(f"status {context!r} is not parkbot's")
    sender = event.get("sender", dict, default=None)
    if is_bot(sender):
        return ignored(f"status on {sha[:12]} was set by a bot ({(sender or {}).get('login')}): parkbot's own")
    branches = event.get("branches", list, default=[])
    names: list[str] = []
    for index, branch in enumerate(branches):
        if not isinstance(branch, Mapping):
            raise InvalidInput(f"malformed status payload: branches[{index}] is not an object")
        sub = Event(event.name, {"branch": branch})
        if sub.get("branch.commit.sha", str, default=None) == sha:
            names.append(sub.get("branch.name", str))
    tracker = ctx.tracker if len(branches) >= STATUS_EVENT_BRANCHES else None
    if isinstance(tracker, BranchesAtCommit):
        # The event's list is full: the branch whose head this is may be left off it, so ask GitHub.
        names = list(dict.fromkeys([*names, *tracker.branches_at(sha)]))
    if not names:
        return ignored(f"no branch has {sha[:12]} as its head: nothing to re-evaluate")
    items: list[Item] = []
    for name in names:
        items += gate_head(ctx, f"branch:{name}", head_ref=name, head_sha=sha)
    return items
