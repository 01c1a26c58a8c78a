"""What a pull request's commits say about the decisions it depends on: their messages (for ``Blocked-by:``
trailers), read together with the issues its native dependencies name.

Reads only; :mod:`~parkbot.trackers.github.dependents` decides what they mean and records the edges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parkbot.core.errors import InvalidInput
from parkbot.trackers.github import queries

if TYPE_CHECKING:
    from parkbot.trackers.github.store import FoundIssue, IssueStore


def commits_and_issues(
    store: IssueStore, number: int, node_ids: list[str]
) -> tuple[list[str], list[FoundIssue] | None]:
    """The commit messages of pull request ``number`` and the issues ``node_ids`` name, read with who
    wrote and edited each: one GraphQL request (plus one per 100 commits beyond the first 100).

    The issues are None when GitHub finds one of them no more (it then answers nothing at all).
    """
    messages: list[str] = []
    issues: list[FoundIssue] = []
    after: str | None = None
    ids = node_ids
    while True:
        variables = {"number": number, "after": after, "ids": ids}
        answer = store.graphql(f"list the commits of #{number}", queries.PULL_GATE, variables)
        if answer is None:
            if ids:
                return messages, None
            raise InvalidInput(f"#{number} is not a pull request in {store.repository}")
        data = answer
        issues += [store.found_from(n) for n in data.get("nodes") or [] if n and n.get("__typename") == "Issue"]
        pull = (data.get("repository") or {}).get("pullRequest") or {}
        page = pull.get("commits") or {}
        messages += [((n.get("commit") or {}).get("message") or "") for n in page.get("nodes") or [] if n]
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            return messages, issues
        after, ids = info.get("endCursor"), []
