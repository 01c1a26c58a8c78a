"""How the decision dashboard's text is recognized: the report renders it (:mod:`parkbot.report.dashboard_body`),
the GitHub adapter finds its one dashboard issue by it (:mod:`parkbot.trackers.github.dashboard_issue`).

A module of its own so that neither imports the other, and the core stays free of markers.
"""

from __future__ import annotations

#: The hidden line every dashboard body ends with: what tells parkbot's dashboard from any other issue.
DASHBOARD_MARKER = "<!-- parkbot:dashboard -->"
#: GitHub refuses issue bodies over 65,536 characters; stay well below it.
MAX_BODY = 60_000


def is_dashboard(body: str | None) -> bool:
    """Whether an issue body is a dashboard this bot wrote."""
    return bool(body) and DASHBOARD_MARKER in (body or "")
