"""Commit statuses on an exact commit: the merge-queue commit, or a pushed commit with no inventory.

The ``Tracker`` protocol publishes a gate on a *dependent* (a pull request's head, through
``publish_gate``); two events need the same status on a commit that is not a pull request's head:

* ``merge_group``: the combined gate of the queued pull requests, on ``merge_group.head_sha``;
* ``push``: ``failure`` on the pushed commit when an agent branch filed neither result files nor an
  inventory (or filed broken ones).

Both go through the tracker's optional ``publish_status(sha, state, description, target_url=None,
*, context=...)`` capability (see :mod:`bot.tracker`): on GitHub one retried request under the
adapter's transport. Trackers without it (the git backlog, test doubles) have no commit statuses:
the call reports that nothing was published.
"""

from __future__ import annotations

from typing import Any, Literal

from bot.render import STATUS_CONTEXT
from bot.text import STATUS_DESCRIPTION_LIMIT, one_line

StatusState = Literal["pending", "success", "failure", "error"]


def publish_commit_status(
    tracker: Any,
    sha: str,
    state: StatusState,
    description: str,
    *,
    target_url: str | None = None,
    context: str = STATUS_CONTEXT,
) -> bool:
    """Set ``context`` on commit ``sha``; False when this tracker has no commit statuses."""
    publish = getattr(tracker, "publish_status", None)
    if not callable(publish):
        return False
    description = one_line(description, STATUS_DESCRIPTION_LIMIT)
    if context == STATUS_CONTEXT:
        publish(sha, state, description, target_url=target_url)
    else:
        publish(sha, state, description, target_url=target_url, context=context)
    return True
