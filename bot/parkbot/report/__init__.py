"""Questions are a design signal: the report over the decision log, its clusters, and the dashboard.

Everything here is pure (decisions and events in, text out); the click command in
:mod:`parkbot.cli.report` only reads the backend and writes the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from parkbot.core.models import Decision
from parkbot.core.questions import cluster_key
from parkbot.dashboard_marker import DASHBOARD_MARKER, is_dashboard
from parkbot.report.clusters import AnswerCount, Cluster, find_clusters
from parkbot.report.dashboard_body import render_body, render_dashboard
from parkbot.report.figures import (
    Linker,
    OpenItem,
    OwnerRow,
    Refusal,
    Report,
    Share,
    TimeToAnswer,
    WeekCount,
    compute_report,
)
from parkbot.report.render import FORMATS, render

__all__ = [
    "DASHBOARD_MARKER",
    "FORMATS",
    "AnswerCount",
    "Cluster",
    "Linker",
    "OpenItem",
    "OwnerRow",
    "Refusal",
    "Report",
    "Share",
    "TimeToAnswer",
    "WeekCount",
    "cluster_key",
    "compute_report",
    "find_clusters",
    "is_dashboard",
    "render",
    "render_body",
    "render_dashboard",
    "run_report",
]


def run_report(
    decisions: Iterable[Decision],
    events: Iterable[Refusal],
    since: datetime,
    now: datetime,
    fmt: str,
    link: Linker | None = None,
) -> str:
    """Compute the report over ``[since, now]`` and render it as ``fmt`` (``md``, ``json`` or ``html``).

    ``link`` gives a decision's web address (the backend's location), so the report can link it.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    return render(compute_report(decisions, events, since=since, now=now, link=link), fmt)
