"""The issue store: the requests of the GitHub tracker and what one run remembers of them.

:class:`IssueStore` is the one object the parts of the tracker read through. It is the requests
(:class:`~parkbot.trackers.github.repository_requests.Requests`: every request a retried unit, no
caching, and parkbot's own login) plus the run cache (:mod:`parkbot.trackers.github.run_cache`), one
part per resource, named where it is used: ``store.issues`` (decision issues and claimed labels),
``store.comments``, ``store.pulls``, ``store.histories``, ``store.members``, ``store.marks`` and
``store.dashboards``. Only the reads that bring several resources along at once (an issue with its
comments, the open dashboards) live here, and file each into its part.
"""

from __future__ import annotations

from typing import Any

from parkbot.trackers.github import queries
from parkbot.trackers.github.client import GitHubClient
from parkbot.trackers.github.repository_requests import (
    ACTIONS_LOGIN,
    FoundIssue,
    Requests,
    already_exists,
    has_label,
    header_value,
    label_name,
    label_names,
    log,
    login_of,
    raw_json,
)
from parkbot.trackers.github.run_cache import (
    CommentCache,
    DashboardsSeen,
    HistoryCache,
    IssueCopies,
    Memberships,
    PullCache,
    RunMarks,
)
from parkbot.trackers.github.trust import issue_raw, rest_user

__all__ = [
    "ACTIONS_LOGIN",
    "FoundIssue",
    "IssueStore",
    "Requests",
    "already_exists",
    "has_label",
    "header_value",
    "label_name",
    "label_names",
    "log",
    "login_of",
    "raw_json",
]


class IssueStore(Requests):
    """Requests to one repository, and what this run has read or written there (one cache per resource)."""

    def __init__(self, client: GitHubClient, *, bot_login: str | None = None) -> None:
        super().__init__(client, bot_login=bot_login)
        # Short-lived caches, refreshed by every find(): what this run has just read or written.
        self.issues = IssueCopies()
        self.comments = CommentCache(self)
        self.pulls = PullCache(self)
        self.histories = HistoryCache(self)
        self.members = Memberships()
        self.marks = RunMarks()
        self.dashboards = DashboardsSeen()

    def issues_by_label(
        self,
        label: str,
        *,
        states: tuple[str, ...] = ("OPEN", "CLOSED"),
        comments: bool = True,
        pulls: bool = False,
        first: int = queries.PAGE,
        every_page: bool = False,
    ) -> tuple[list[FoundIssue], tuple[int, ...] | None]:
        """Issues carrying ``label``, oldest first, read through GraphQL with who wrote and edited each
        (one request per page of ``first``), and with ``pulls`` the pull requests carrying it too: None
        when more than one page of them does (anyone who can label can add a hundred), so that whoever
        needs them lists every page.

        Listing by label is strongly consistent, like REST's (search is not).
        """
        founds: list[FoundIssue] = []
        prs: tuple[int, ...] | None = None
        after: str | None = None
        while True:
            variables = {
                "labels": [label],
                "states": list(states),
                "first": first,
                "after": after,
                "withComments": comments,
                "withPulls": pulls and after is None,
            }
            data = self.graphql(f"list issues labeled {label}", queries.ISSUES_BY_LABEL, variables) or {}
            repository = data.get("repository") or {}
            connection = repository.get("issues") or {}
            founds += [self.found_from(node) for node in connection.get("nodes") or [] if node]
            listed = repository.get("pullRequests")
            if isinstance(listed, dict) and not (listed.get("pageInfo") or {}).get("hasNextPage"):
                prs = tuple(int(n["number"]) for n in listed.get("nodes") or [] if n)
            info = connection.get("pageInfo") or {}
            if not every_page or not info.get("hasNextPage"):
                return founds, prs
            after = info.get("endCursor")

    def issue_by_number(self, number: int) -> FoundIssue | None:
        """Issue ``number`` with its comments (one GraphQL request); None for a pull request or nothing.

        The same request lists the open dashboard issues, kept for this run's dashboard write.
        """
        data = self.graphql(f"read issue #{number}", queries.ISSUE_BY_NUMBER, {"number": number}) or {}
        repository = data.get("repository") or {}
        listing = repository.get("dashboards")
        if isinstance(listing, dict):
            self.dashboards.keep(
                [
                    {
                        "number": n["number"],
                        "title": n.get("title"),
                        "body": n.get("body"),
                        "node_id": n.get("id"),
                        "user": rest_user(n.get("author")),
                    }
                    for n in listing.get("nodes") or []
                    if isinstance(n, dict) and isinstance(n.get("number"), int)
                ]
            )
        node = repository.get("issueOrPullRequest")
        if not node:
            self.marks.note_missing(number)
            return None
        if node.get("__typename") != "Issue":
            return None
        return self.found_from(node)

    def found_from(self, node: dict[str, Any]) -> FoundIssue:
        """A GraphQL issue as the REST-shaped copy the writes work from; its comments, when read, are kept."""
        raw = issue_raw(node)
        if "comments" in node:
            self.comments.adopt(raw["number"], node["comments"])
        else:
            self.comments.forget(raw["number"])  # a fresh read of the issue: re-read its comments too
        return FoundIssue(raw)
