"""The decision dashboard issue: what to put in it, and when to refresh it.

The body is :func:`bot.report.dashboard.render_dashboard` over the report of the last
:data:`WINDOW` and every open decision; the GitHub-facing part (find the one issue by its label,
create and pin it once, edit it only when the body changed, close duplicates) is the tracker's
optional ``upsert_dashboard`` capability (:meth:`bot.trackers.github.GitHubTracker.upsert_dashboard`).

It is refreshed by ``parkbot dashboard``, at the end of ``parkbot handle-event`` when the event
changed a decision (:func:`changed_something`), and by every reconcile (``schedule``,
``workflow_dispatch``). Refreshing reads every decision (one request per 100) and the question-log
issue's comments (for the refusal share); the write happens only when the body changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot.core.errors import InvalidInput
from bot.core.models import Decision, LogEntry, utcnow
from bot.report import compute_report, render_dashboard

#: The dashboard issue's title.
TITLE = "parkbot: open decisions"
#: The window of the headline numbers (questions asked, time to answer, shares).
WINDOW = timedelta(days=30)

#: Item kinds (``bot.events.base.Item``) that mean a decision changed, unless their action is ``unchanged``.
CHANGE_KINDS = frozenset({"parked", "resolved", "reopened", "closed", "abandoned"})
#: Comment-command actions (items of kind ``replied``) that changed a decision.
CHANGE_ACTIONS = frozenset({"escalated", "returned", "overridden", "accepted"})


@dataclass(frozen=True)
class DashboardOutcome:
    """What a refresh did: ``created``, ``updated`` or ``unchanged`` (``absent``: nothing to show yet)."""

    action: str
    number: int | None
    url: str | None
    open: int
    body: str
    notice: str | None = None

    def as_dict(self, *, with_body: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action, "number": self.number, "url": self.url, "open": self.open}
        if self.notice:
            data["notice"] = self.notice
        if with_body:
            data["body"] = self.body
        return data


def supports_dashboard(tracker: Any) -> bool:
    """Whether the backend keeps a dashboard issue (GitHub does; the git backlog does not)."""
    return callable(getattr(tracker, "upsert_dashboard", None))


def changed_something(items: Iterable[Any]) -> bool:
    """Whether an event's items changed a decision (so the dashboard may be out of date)."""
    for item in items:
        action = getattr(item, "action", None)
        if item.kind in CHANGE_KINDS and action != "unchanged":
            return True
        if item.kind == "replied" and action in CHANGE_ACTIONS:
            return True
    return False


def logged_events(tracker: Any) -> list[LogEntry]:
    """The refusals the report counts; only the log entries no decision records, where the backend can say."""
    only_logged = getattr(tracker, "iter_logged_events", None)
    entries = only_logged() if callable(only_logged) else tracker.iter_log()
    return [entry for entry in entries if entry.event == "refused"]


def dashboard_body(decisions: Iterable[Decision], events: Iterable[LogEntry], now: datetime) -> str:
    """The dashboard body for these decisions and log events (pure)."""
    decisions = list(decisions)
    report = compute_report(decisions, events, since=now - WINDOW, now=now)
    return render_dashboard(report, [d for d in decisions if d.state == "open"], now)


def render_current(tracker: Any, *, now: datetime | None = None) -> tuple[str, list[Decision]]:
    """Read the backlog and render the body it calls for (any backend)."""
    now = now or utcnow()
    decisions = list(tracker.iter_decisions())
    return dashboard_body(decisions, logged_events(tracker), now), decisions


def update_dashboard(tracker: Any, *, now: datetime | None = None) -> DashboardOutcome:
    """Bring the dashboard issue up to date: created once, edited only when its body changed.

    A repository with no decision at all gets no dashboard until its first one (the scheduled
    reconcile must not open an issue in a repository that never used parkbot).
    """
    if not supports_dashboard(tracker):
        raise InvalidInput(
            "the decision dashboard is a GitHub issue: run with --backend github "
            "(or `parkbot dashboard --print` to see its text from any backend)"
        )
    body, decisions = render_current(tracker, now=now)
    open_count = sum(1 for d in decisions if d.state == "open")
    number, action = tracker.upsert_dashboard(body, title=TITLE, create=bool(decisions))
    if action == "absent":
        return DashboardOutcome("absent", None, None, open_count, body)
    issue_url = getattr(tracker, "issue_url", None)
    url = issue_url(number) if callable(issue_url) else None
    notice = getattr(tracker, "pin_notice", None)
    return DashboardOutcome(action, number, url, open_count, body, notice)
