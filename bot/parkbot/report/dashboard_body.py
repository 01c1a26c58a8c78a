"""The text of the decision dashboard issue: open decisions grouped by owner, under the headline numbers.

Pure: :func:`render_body` turns a :class:`~parkbot.core.dashboard_index.DashboardIndex` into Markdown, and
:func:`figures_of` computes the headline numbers a full recount stores in it (they need the whole
backlog, so they are recomputed only then and say when). The GitHub backend finds its one dashboard
issue by :data:`DASHBOARD_MARKER` (:func:`is_dashboard`) and keeps the index in the same body.

The output depends only on its inputs, so an unchanged backlog renders an unchanged body (ages are
coarse, whole hours or days, to keep edits rare), and it always fits in the space it is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from parkbot.core.dashboard_index import DashboardEntry, DashboardIndex, recount
from parkbot.core.figures import DashboardFigures
from parkbot.core.models import Decision
from parkbot.dashboard_marker import DASHBOARD_MARKER, MAX_BODY
from parkbot.report.figures import Report, as_utc
from parkbot.report.render import human_duration, md, md_code, md_dependent, percent

DASHBOARD_TITLE = "parkbot decision dashboard"
#: The window of the headline numbers (questions asked, time to answer, shares).
WINDOW = timedelta(days=30)


#: The headline numbers of the last :data:`WINDOW` (the index carries them, so the model is the core's).
Figures = DashboardFigures


def figures_of(report: Report, now: datetime) -> Figures:
    top = report.clusters[0] if report.clusters else None
    return Figures(
        computed_at=as_utc(now),
        since=report.since,
        asked=report.asked,
        resolved=report.resolved,
        abandoned=report.abandoned,
        time_to_answer=report.time_to_answer,
        guess_vs_answer=report.guess_vs_answer,
        answered_by_precedent=report.answered_by_precedent,
        answered_by_default=report.answered_by_default,
        escalated=report.escalated,
        refused_by_cap=report.refused_by_cap,
        recurring=(top.size, top.representative) if top else None,
    )


def coarse_age(seconds: float) -> str:
    """``"<1h"``, ``"5h"``, ``"3d"``: coarse on purpose, so the body changes rarely."""
    if seconds < 3600:
        return "<1h"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"


def _when(moment: datetime) -> str:
    return f"{as_utc(moment):%Y-%m-%d %H:%M} UTC"


def _headline(index: DashboardIndex) -> list[str]:
    owners = index.owners()
    count = (
        f"**{index.open_count} open** across {len(owners)} owner{'s' if len(owners) != 1 else ''}, "
        f"{index.blocking_work} of them blocking work."
    )
    if not index.complete:
        if index.recounted_at is None:
            count += " (Counted from the events since this issue was created; the first full recount makes it exact.)"
        else:
            count += f" (Counted at the recount of {_when(index.recounted_at)} and kept current by every event since.)"
    lines = [count, ""]
    figures = index.figures
    if figures is None:
        lines.append(
            "The numbers of the last 30 days appear with the first full recount "
            "(the scheduled reconcile, or `parkbot dashboard`)."
        )
        return lines
    tta = figures.time_to_answer
    lines += [
        f"Since {figures.since:%Y-%m-%d}: {figures.asked} asked, {figures.resolved} resolved, "
        f"{figures.abandoned} abandoned; median time to answer {human_duration(tta.median_seconds)}, "
        f"90th percentile {human_duration(tta.p90_seconds)} (n = {tta.n}).",
        "",
        "| Answer differs from the guess | By precedent | By explicit default | Escalated | Refused by a cap |",
        "| --- | --- | --- | --- | --- |",
        f"| {percent(figures.guess_vs_answer)} | {percent(figures.answered_by_precedent)} | "
        f"{percent(figures.answered_by_default)} | {percent(figures.escalated)} | {percent(figures.refused_by_cap)} |",
    ]
    if figures.recurring:
        size, question = figures.recurring
        lines += ["", f"Most recurring question ({size} times): {md(question)}"]
    lines += [
        "",
        f"These numbers were computed at {_when(figures.computed_at)} by a full recount (every scheduled "
        "reconcile and `parkbot dashboard` makes one); the list below is kept current by every event.",
    ]
    return lines


def render_body(index: DashboardIndex, now: datetime, *, budget: int = MAX_BODY) -> str:
    """The dashboard text for ``index``, at most ``budget`` characters; ends with :data:`DASHBOARD_MARKER`."""
    now = as_utc(now)
    head = [
        f"# {DASHBOARD_TITLE}",
        "",
        "Every open decision, grouped by the owner who answers it. parkbot keeps this issue up to date; "
        "edits to it are overwritten. Answer on each decision's own item.",
        "",
        *_headline(index),
        "",
    ]
    tail = ["", DASHBOARD_MARKER, ""]
    room = budget - len("\n".join(head)) - len("\n".join(tail)) - 200
    listed: dict[str, list[DashboardEntry]] = {}
    for entry in index.entries:
        listed.setdefault(entry.owner, []).append(entry)
    body: list[str] = []
    if not index.open_count:
        body.append("Nothing is waiting for an answer.")
    omitted = 0
    for owner in index.owners():
        total = index.totals[owner]
        items = listed.get(owner, [])
        section = [f"## {md(owner)} ({total})", ""]
        section += [_line(e, now) for e in items]
        if total > len(items):
            more = total - len(items)
            section.append(f"- …and {more} {'more' if items else 'open'} (`parkbot list --owner` to see them all)")
        section.append("")
        size = len("\n".join(section)) + 1
        if size > room:
            omitted += total
            continue
        room -= size
        body += section
    if omitted:
        body.append(f"{omitted} more open decision(s) not shown: the issue body has a size limit (`parkbot list`).")
    return "\n".join(head + body + tail)


def _line(entry: DashboardEntry, now: datetime) -> str:
    age = coarse_age(max((now - as_utc(entry.created_at)).total_seconds(), 0.0))
    if not entry.blocking:
        blocks = "non-blocking"
    elif entry.dependents:
        blocks = "blocks " + ", ".join(md_dependent(d) for d in entry.dependents)
    else:
        blocks = "blocks nothing yet"
    extra = ""
    if entry.chain:
        extra = " · escalated from " + " → ".join(md(o) for o in entry.chain[:-1])
    if entry.review:
        extra += " · review item"
    if entry.planner == "waiting":
        extra += " · with the planner"
    elif entry.planner == "review":
        extra += " · planner answer to review (`/accept` or `/override <option>`)"
        if entry.review_due is not None and now >= as_utc(entry.review_due):
            extra += " · **unreviewed past its review time**"
    return f"- {md_code(entry.id)} {md(entry.title)} · {age} old · {blocks}{extra}"


def render_dashboard(report: Report, decisions: Iterable[Decision], now: datetime) -> str:
    """The body a full recount of ``decisions`` renders, with ``report``'s numbers (any backend)."""
    index = recount(decisions, now=now, figures=figures_of(report, now))
    return render_body(index, now)
