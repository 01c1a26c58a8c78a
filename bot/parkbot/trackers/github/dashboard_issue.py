"""The decision dashboard issue: finding it, writing it with its hidden index, pinning it.

The decision dashboard is the one open issue labeled ``parkbot:dashboard`` carrying the dashboard
marker. Its body is the visible text (``parkbot.report.dashboard_body``) followed by the index it was
rendered from (``parkbot.core.dashboard_index``), packed into one hidden line::

    <!-- parkbot:dashboard-index <base64 of zlib of JSON> -->

so that an event reads the dashboard once (:meth:`read_dashboard`) and patches it, instead of reading
every decision. The index is display data, not a record anyone's authority rests on: a hand edit of it
shows until the next recount overwrites it.

It is created and pinned once (pinning is GraphQL-only and best effort), edited only when its body
changed, duplicates closed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from github import GithubException

from parkbot.core.dashboard_index import DashboardIndex, DashboardWrite, shrink
from parkbot.core.errors import BackendFailure
from parkbot.dashboard_marker import MAX_BODY, is_dashboard
from parkbot.trackers.github.labels import DASHBOARD_LABEL
from parkbot.trackers.github.records_trust import opened_by_parkbot
from parkbot.trackers.github.store import FoundIssue, log, raw_json
from parkbot.trackers.github.text import SAFE_BODY_LIMIT, pack, unpack

if TYPE_CHECKING:
    from parkbot.trackers.github.issue_writes import DecisionWrites
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.store import IssueStore

#: The title of the dashboard issue when the caller names none (``parkbot.dashboard_refresh`` does).
DASHBOARD_TITLE = "parkbot: open decisions"
#: The hidden line that carries the index.
INDEX_PREFIX = "<!-- parkbot:dashboard-index "
_INDEX = re.compile(r"<!-- parkbot:dashboard-index (?P<data>[A-Za-z0-9+/=]+) -->")
#: Most of the body the index may take; the visible text gets the rest.
MAX_INDEX = 24_000


def index_block(index: DashboardIndex) -> str:
    """The hidden line carrying ``index`` (ASCII: nothing in it can close the comment)."""
    return f"{INDEX_PREFIX}{pack(index.to_data())} -->"


def read_index(body: str | None) -> DashboardIndex | None:
    """The index a dashboard body carries, or None (none there, damaged, or of another version)."""
    found = _INDEX.search(body or "")
    if found is None:
        return None
    try:
        return DashboardIndex.from_data(unpack(found["data"]))
    except ValueError:
        log.warning("the dashboard's index is unreadable; the next recount rewrites it")
        return None


def fit(index: DashboardIndex) -> tuple[DashboardIndex, str]:
    """``index`` (listing fewer entries if need be) and its hidden line, at most :data:`MAX_INDEX` long."""
    block = index_block(index)
    while len(block) > MAX_INDEX and index.entries:
        keep = min(len(index.entries) - 1, int(len(index.entries) * MAX_INDEX / len(block) * 0.9))
        index = shrink(index, max(keep, 0))
        block = index_block(index)
    return index, block


class Dashboard:
    """The dashboard issue (see the module docstring)."""

    def __init__(self, store: IssueStore, issues: DecisionIssues, writes: DecisionWrites) -> None:
        self._store = store
        self._issues = issues
        self._writes = writes
        #: Why the last pin attempt failed (pinning is best effort), None after a success.
        self.pin_notice: str | None = None

    def issue_url(self, number: int) -> str:
        """The web address of issue ``number`` of this repository."""
        return self._store.web_url(f"issues/{number}")

    def read_dashboard(self) -> DashboardIndex | None:
        """The index the dashboard issue carries: the listing a decision read brought along, else the label's
        listing (1 request); kept for the write either way."""
        listed = self._listed()
        self._store.dashboards.keep(listed)
        return read_index(listed[0].get("body")) if listed else None

    def write_dashboard(
        self,
        index: DashboardIndex,
        render: Callable[[DashboardIndex, int], str],
        *,
        title: str = DASHBOARD_TITLE,
        create: bool = True,
    ) -> tuple[int, DashboardWrite]:
        """Make the one dashboard issue show ``index``: ``(number, action)``, the action being
        ``created``, ``updated`` or ``unchanged`` (or ``(0, "absent")`` when none exists and
        ``create`` is False).

        The dashboard is the open issue labeled ``parkbot:dashboard`` whose body carries the
        dashboard marker (an issue someone else labeled is left alone). It is found by listing that
        label (1 request, none after :meth:`read_dashboard`), edited only when its body differs (no
        write when unchanged), created and pinned once when there is none. Should two exist (two runs
        creating at once), the oldest is kept and the others are closed as duplicates; a creation
        checks for that race right away.
        """
        self.pin_notice = None
        index, block = fit(index)
        visible = render(index, min(MAX_BODY, SAFE_BODY_LIMIT - len(block) - 2))
        body = f"{visible.rstrip()}\n{block}\n"
        listed = self._listed()
        self._store.dashboards.keep(None)
        if not listed:
            if not create:
                return 0, "absent"
            raw = self._store.unit(
                "create the decision dashboard issue",
                lambda _: raw_json(self._store.repo.create_issue(title=title, body=body, labels=[DASHBOARD_LABEL])),
            )
            number = int(raw["number"])
            others = [r for r in self._dashboards() if int(r["number"]) != number]
            if others and min(int(r["number"]) for r in others) < number:
                # Another run created one at the same moment: the oldest wins, ours is the duplicate.
                listed = sorted([*others, raw], key=lambda r: int(r["number"]))
            else:
                self._close_dashboard_duplicates(number, others)
                self.pin_issue(number, raw.get("node_id"))
                return number, "created"
        keep, *duplicates = listed
        number = int(keep["number"])
        if duplicates:
            self._close_dashboard_duplicates(number, duplicates)
            self.pin_issue(number, keep.get("node_id"))
        if (keep.get("body") or "") == body:
            return number, "unchanged"
        changes: dict[str, Any] = {"body": body}
        if keep.get("title") != title:
            changes["title"] = title
        self._store.unit("update the decision dashboard issue", lambda _: self._store.edit(number, changes))
        return number, "updated"

    def _listed(self) -> list[dict[str, Any]]:
        """The open dashboard issues: those this run has listed (a decision read brings them along), else
        the label's listing (1 request)."""
        seen = self._store.dashboards.seen()
        return self._only_dashboards(seen) if seen is not None else self._dashboards()

    def _dashboards(self) -> list[dict[str, Any]]:
        """Open dashboard issues (labeled and carrying the marker), oldest first."""
        store = self._store
        items = store.unit(
            f"list open issues labeled {DASHBOARD_LABEL}",
            lambda _: store.raw_list(store.repo.get_issues(state="open", labels=[DASHBOARD_LABEL], direction="asc")),
        )
        return self._only_dashboards(items)

    def _only_dashboards(self, items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The dashboard issues among ``items`` that parkbot opened, oldest first: the oldest is kept, so
        an older copy someone else opened must not count (it is left alone)."""
        store = self._store
        trusted = store.trusted_logins
        own = [r for r in items if opened_by_parkbot(r, trusted, guesses_own_login=store.guesses_own_login())]
        return _only_dashboards(own)

    def _close_dashboard_duplicates(self, keep: int, duplicates: Iterable[dict[str, Any]]) -> None:
        winner = FoundIssue({"number": keep})
        for raw in duplicates:
            if int(raw["number"]) != keep:
                log.warning("closing the duplicate dashboard #%s (keeping #%s)", raw["number"], keep)
                self._writes.close_duplicate(int(raw["number"]), winner)

    def pin_issue(self, number: int, node_id: str | None = None) -> bool:
        """Pin issue ``number`` to the repository, best effort: False (and a notice) if it fails.

        GitHub pins issues only through GraphQL (the ``pinIssue`` mutation, by the issue's node id),
        sent to the GraphQL endpoint that belongs to the REST root: ``https://api.github.com/graphql``,
        or ``https://<host>/api/graphql`` on GitHub Enterprise Server. A repository pins at most
        three issues, and the token may lack the permission; neither stops anything else.
        """
        try:
            if node_id is None:
                node_id = self._store.unit(f"read issue #{number}", lambda _: self._store.issue(number).raw_data)[
                    "node_id"
                ]
            self._store.unit(
                f"pin issue #{number}",
                lambda _: self._store.requester.graphql_named_mutation(
                    "pinIssue", {"issueId": node_id}, "issue { number }"
                ),
            )
        except (GithubException, BackendFailure, KeyError, TypeError) as exc:
            message = exc.message if isinstance(exc, BackendFailure) else str(exc)
            self.pin_notice = self._store.transport.redact(f"could not pin #{number} (pin it by hand): {message}")
            log.warning("%s", self.pin_notice)
            return False
        self.pin_notice = None
        return True


def _only_dashboards(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dashboard issues among ``items`` (labeled and carrying the marker), oldest first."""
    found = []
    for raw in items:
        if raw.get("pull_request"):
            continue
        if not is_dashboard(raw.get("body")):
            log.info("#%s is labeled %s but holds no dashboard: leaving it alone", raw["number"], DASHBOARD_LABEL)
            continue
        found.append(raw)
    return sorted(found, key=lambda r: int(r["number"]))
