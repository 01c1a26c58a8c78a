"""The decision dashboard issue (its body comes from ``bot.dashboard``), and pinning it.

The decision dashboard is the one open issue labeled ``parkbot:dashboard`` carrying the dashboard
marker (:meth:`upsert_dashboard`): created and pinned once (pinning is GraphQL-only and best
effort), edited only when its body changed, duplicates closed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from github import GithubException

from bot.core.errors import BackendFailure
from bot.report.dashboard import is_dashboard
from bot.trackers.github.base import TrackerBase, _Found, _raw, log
from bot.trackers.github.labels import DASHBOARD_LABEL

#: The title of the dashboard issue when the caller names none (``bot.dashboard`` does).
DASHBOARD_TITLE = "parkbot: open decisions"


class DashboardMixin(TrackerBase):
    """The dashboard issue (see the module docstring)."""

    def issue_url(self, number: int) -> str:
        """The web address of issue ``number`` of this repository."""
        return self._html(f"issues/{number}")

    def upsert_dashboard(self, body: str, *, title: str = DASHBOARD_TITLE, create: bool = True) -> tuple[int, str]:
        """Make the one dashboard issue hold ``body``: ``(number, action)``, the action being
        ``created``, ``updated`` or ``unchanged`` (or ``(0, "absent")`` when none exists and
        ``create`` is False).

        The dashboard is the open issue labeled ``parkbot:dashboard`` whose body carries the
        dashboard marker (an issue someone else labeled is left alone). It is found by listing that
        label (1 request), edited only when its body differs (no write when unchanged), created and
        pinned once when there is none. Should two exist (two runs creating at once), the oldest is
        kept and the others are closed as duplicates; a creation checks for that race right away.
        """
        self.pin_notice = None
        listed = self._dashboards()
        if not listed:
            if not create:
                return 0, "absent"
            raw = self._unit(
                "create the decision dashboard issue",
                lambda _: _raw(self._repo.create_issue(title=title, body=body, labels=[DASHBOARD_LABEL])),
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
        self._unit("update the decision dashboard issue", lambda _: self._edit(number, changes))
        return number, "updated"

    def _dashboards(self) -> list[dict[str, Any]]:
        """Open dashboard issues (labeled and carrying the marker), oldest first."""
        items = self._unit(
            f"list open issues labeled {DASHBOARD_LABEL}",
            lambda _: self._list(self._repo.get_issues(state="open", labels=[DASHBOARD_LABEL], direction="asc")),
        )
        found = []
        for raw in items:
            if raw.get("pull_request"):
                continue
            if not is_dashboard(raw.get("body")):
                log.info("#%s is labeled %s but holds no dashboard: leaving it alone", raw["number"], DASHBOARD_LABEL)
                continue
            found.append(raw)
        return sorted(found, key=lambda r: int(r["number"]))

    def _close_dashboard_duplicates(self, keep: int, duplicates: Iterable[dict[str, Any]]) -> None:
        winner = _Found({"number": keep})
        for raw in duplicates:
            if int(raw["number"]) != keep:
                log.warning("closing the duplicate dashboard #%s (keeping #%s)", raw["number"], keep)
                self._close_duplicate(int(raw["number"]), winner)

    def pin_issue(self, number: int, node_id: str | None = None) -> bool:
        """Pin issue ``number`` to the repository, best effort: False (and a notice) if it fails.

        GitHub pins issues only through GraphQL (the ``pinIssue`` mutation, by the issue's node id),
        sent to the GraphQL endpoint that belongs to the REST root: ``https://api.github.com/graphql``,
        or ``https://<host>/api/graphql`` on GitHub Enterprise Server. A repository pins at most
        three issues, and the token may lack the permission; neither stops anything else.
        """
        try:
            if node_id is None:
                node_id = self._unit(f"read issue #{number}", lambda _: self._issue_obj(number).raw_data)["node_id"]
            self._unit(
                f"pin issue #{number}",
                lambda _: self._requester.graphql_named_mutation("pinIssue", {"issueId": node_id}, "issue { number }"),
            )
        except (GithubException, BackendFailure, KeyError, TypeError) as exc:
            message = exc.message if isinstance(exc, BackendFailure) else str(exc)
            self.pin_notice = self._transport.redact(f"could not pin #{number} (pin it by hand): {message}")
            log.warning("%s", self.pin_notice)
            return False
        self.pin_notice = None
        return True
