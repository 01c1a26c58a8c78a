"""Commit statuses on an exact commit: the merge-queue commit, or a pushed commit with no inventory.

The ``Tracker`` protocol publishes a gate on a *dependent* (a pull request's head, through
``publish_gate``); two events need the same status on a commit that is not a pull request's head:

* ``merge_group``: the combined gate of the queued pull requests, on ``merge_group.head_sha``;
* ``push``: ``failure`` on the pushed commit when an agent branch filed neither result files nor an
  inventory (or filed broken ones).

A tracker that offers ``publish_status(sha, state, description, target_url=None)`` is used as is.
Otherwise the status is posted through the GitHub client the tracker already holds, under the same
retry policy and redaction (``client.transport``), so the request still goes through the adapter's
transport and never leaks the token. Trackers without either (the git backlog, test doubles) have no
commit statuses: the call reports that nothing was published.
"""

from __future__ import annotations

from typing import Any, Literal

from github import GithubException

from bot.render import STATUS_CONTEXT
from bot.text import STATUS_DESCRIPTION_LIMIT, one_line
from bot.trackers.github_client import backend_failure

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
    description = one_line(description, STATUS_DESCRIPTION_LIMIT)
    own = getattr(tracker, "publish_status", None)
    if callable(own):
        own(sha, state, description, target_url=target_url)
        return True
    client = getattr(tracker, "client", None)
    transport = getattr(client, "transport", None)
    github = getattr(client, "github", None)
    if client is None or transport is None or github is None:
        return False
    data: dict[str, Any] = {"state": state, "context": context, "description": description}
    if target_url:
        data["target_url"] = target_url
    url = f"{client.settings.api_url}/repos/{client.repository}/statuses/{sha}"
    what = f"set the {context} status of {sha[:12]}"
    try:
        transport.run(what, lambda _: github.requester.requestJsonAndCheck("POST", url, input=data))
    except GithubException as exc:
        raise backend_failure(exc, what, transport) from None
    return True
