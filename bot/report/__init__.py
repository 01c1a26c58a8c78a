"""Questions are a design signal: the report over the decision log, its clusters, and the dashboard.

Everything here is pure (decisions and events in, text out); the click command in
:mod:`bot.cli.report` only reads the backend and writes the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from bot.core.models import Decision
from bot.report.clusters import Cluster, find_clusters, normalize_question, template_question
from bot.report.dashboard_body import DASHBOARD_MARKER, is_dashboard, render_body, render_dashboard
from bot.report.figures import OpenItem, Report, Share, TimeToAnswer, WeekCount, compute_report
from bot.report.render import FORMATS, render

__all__ = [
    "DASHBOARD_MARKER",
    "FORMATS",
    "Cluster",
    "OpenItem",
    "Report",
    "Share",
    "TimeToAnswer",
    "WeekCount",
    "compute_report",
    "find_clusters",
    "is_dashboard",
    "normalize_question",
    "render",
    "render_body",
    "render_dashboard",
    "run_report",
    "template_question",
]


def run_report(
    decisions: Iterable[Decision],
    events: Iterable[Mapping[str, Any]],
    since: datetime,
    now: datetime,
    fmt: str,
) -> str:
    """Compute the report over ``[since, now]`` and render it as ``fmt`` (``md``, ``json`` or ``html``)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    return render(compute_report(decisions, events, since=since, now=now), fmt)
