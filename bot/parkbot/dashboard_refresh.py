"""Keeping the decision dashboard issue current: a full recount, or one event's patch.

The rules are in :mod:`parkbot.core.dashboard_index` (what is listed, how a change patches it), the text in
:mod:`parkbot.report.dashboard_body`, the issue in the backend (the :class:`~parkbot.core.tracker.DashboardIssue`
capability; on GitHub :mod:`parkbot.trackers.github.dashboard_issue`). This module only runs them:

* :func:`recount_dashboard` reads every decision (one request per 100 on GitHub) and the logged
  refusals, computes the 30-day numbers, and writes the index and its text. ``parkbot dashboard`` and
  every reconcile (``schedule``, ``workflow_dispatch``) do this.
* :func:`patch_dashboard` is what ``parkbot handle-event`` does after an event that changed decisions:
  it reads the dashboard (1 request), takes the changed decisions as the event already read or wrote
  them (:class:`~parkbot.core.tracker.SeenDecisions`, no request), patches their entries and writes once
  if the text changed. Its cost does not depend on how many decisions the repository holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from parkbot.core import dashboard_index, lifecycle
from parkbot.core.config import Config
from parkbot.core.dashboard_index import Changed, DashboardIndex, DashboardWrite
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Decision, LogEntry, utcnow
from parkbot.core.tracker import DashboardIssue, LoggedEvents, SeenDecisions, Tracker
from parkbot.report import compute_report
from parkbot.report.dashboard_body import WINDOW, figures_of, render_body

#: The dashboard issue's title.
TITLE = "parkbot: open decisions"
#: How a refresh read the backlog: every decision (``recount``) or only those an event changed (``patch``).
RefreshMode = Literal["recount", "patch"]


@dataclass(frozen=True)
class DashboardOutcome:
    """What a refresh did: ``created``, ``updated`` or ``unchanged`` (``absent``: nothing to show yet).

    ``mode`` is ``recount`` (every decision read) or ``patch`` (only the ones an event changed).
    """

    action: DashboardWrite
    number: int | None
    url: str | None
    open: int
    body: str
    notice: str | None = None
    mode: RefreshMode = "recount"

    def as_dict(self, *, with_body: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "action": self.action,
            "number": self.number,
            "url": self.url,
            "open": self.open,
            "mode": self.mode,
        }
        if self.notice:
            data["notice"] = self.notice
        if with_body:
            data["body"] = self.body
        return data


def supports_dashboard(tracker: object) -> bool:
    """Whether the backend keeps a dashboard issue (GitHub does; the git backlog does not)."""
    return isinstance(tracker, DashboardIssue)


def logged_events(tracker: Tracker) -> list[LogEntry]:
    """The refusals the numbers count; only the log entries no decision records, where the backend can say."""
    entries = tracker.iter_logged_events() if isinstance(tracker, LoggedEvents) else tracker.iter_log()
    return [entry for entry in entries if entry.event == "refused"]


def recount_index(decisions: Iterable[Decision], events: Iterable[LogEntry], now: datetime) -> DashboardIndex:
    """The index of a full recount, with the 30-day numbers (pure)."""
    decisions = list(decisions)
    refusals = [entry.model_dump() for entry in events]
    report = compute_report(decisions, refusals, since=now - WINDOW, now=now)
    return dashboard_index.recount(decisions, now=now, figures=figures_of(report, now))


def render_current(tracker: Tracker, config: Config, *, now: datetime | None = None) -> tuple[str, DashboardIndex]:
    """Read the backlog and render the text a recount would write (any backend, nothing written)."""
    now = now or utcnow()
    index = recount_index(lifecycle.decisions(tracker, config), logged_events(tracker), now)
    return render_body(index, now), index


def recount_dashboard(tracker: Tracker, config: Config, *, now: datetime | None = None) -> DashboardOutcome:
    """Bring the dashboard issue up to date from every decision: created once, edited only when it changed.

    A repository with no decision at all gets no dashboard until its first one (the scheduled
    reconcile must not open an issue in a repository that never used parkbot).
    """
    if not isinstance(tracker, DashboardIssue):
        raise InvalidInput(
            "the decision dashboard is a GitHub issue: run with --backend github "
            "(or `parkbot dashboard --print` to see its text from any backend)"
        )
    now = now or utcnow()
    decisions = list(lifecycle.decisions(tracker, config))
    index = recount_index(decisions, logged_events(tracker), now)
    return _write(tracker, index, now, create=bool(decisions), mode="recount")


def patch_dashboard(
    tracker: Tracker, changes: Sequence[Changed], *, now: datetime | None = None
) -> DashboardOutcome | None:
    """Patch the dashboard with the decisions one event changed; None when the backend keeps no dashboard.

    With no dashboard yet (or one this version cannot read), one is made from these changes alone,
    saying so, and the next recount completes it.
    """
    if not isinstance(tracker, DashboardIssue) or not changes:
        return None
    now = now or utcnow()
    seen = tracker if isinstance(tracker, SeenDecisions) else None
    current = tracker.read_dashboard()
    pairs = [(c, seen.last_seen(c.decision_id) if seen is not None else None) for c in changes]
    index = dashboard_index.patch(current, pairs)
    return _write(tracker, index, now, create=index.open_count > 0 or current is not None, mode="patch")


def _write(
    tracker: DashboardIssue, index: DashboardIndex, now: datetime, *, create: bool, mode: RefreshMode
) -> DashboardOutcome:
    shown: list[str] = []

    def render(fitted: DashboardIndex, budget: int) -> str:
        shown.append(render_body(fitted, now, budget=budget))
        return shown[-1]

    number, action = tracker.write_dashboard(index, render, title=TITLE, create=create)
    body = shown[-1] if shown else render_body(index, now)
    if action == "absent":
        return DashboardOutcome("absent", None, None, index.open_count, body, mode=mode)
    return DashboardOutcome(
        action, number, tracker.issue_url(number), index.open_count, body, tracker.pin_notice, mode=mode
    )
