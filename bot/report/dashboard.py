"""The body of the decision dashboard issue: open decisions grouped by owner, and the headline numbers.

Pure: the GitHub backend finds its one dashboard issue by :data:`DASHBOARD_MARKER` (see
:func:`is_dashboard`) and edits that issue's body in place with what :func:`render_dashboard`
returns. The output depends only on its inputs, so an unchanged backlog renders an unchanged body
(ages are coarse, whole hours or days, to keep edits rare), and it always fits in a GitHub issue body.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bot.core.models import Decision
from bot.report.figures import Report, as_utc
from bot.report.render import human_duration, md, md_code, md_dependent, percent

DASHBOARD_MARKER = "<!-- parkbot:dashboard -->"
DASHBOARD_TITLE = "parkbot decision dashboard"
#: GitHub refuses issue bodies over 65,536 characters; stay well below it.
MAX_BODY = 60_000
#: Decisions listed per owner before the rest are summarized.
PER_OWNER = 50


def is_dashboard(body: str | None) -> bool:
    """Whether an issue body is a dashboard this bot wrote."""
    return bool(body) and DASHBOARD_MARKER in (body or "")


def coarse_age(seconds: float) -> str:
    """``"<1h"``, ``"5h"``, ``"3d"``: coarse on purpose, so the body changes rarely."""
    if seconds < 3600:
        return "<1h"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"


def render_dashboard(report: Report, open_decisions: Iterable[Decision], now: datetime) -> str:
    """The dashboard issue body; ends with :data:`DASHBOARD_MARKER`."""
    now = as_utc(now)
    decisions = [d for d in open_decisions if d.state == "open"]
    by_owner: dict[str, list[Decision]] = {}
    for decision in decisions:
        by_owner.setdefault(decision.owner, []).append(decision)
    owners = sorted(by_owner, key=lambda o: (-len(by_owner[o]), o.casefold(), o))

    head = [
        f"# {DASHBOARD_TITLE}",
        "",
        "Every open decision, grouped by the owner who answers it. parkbot keeps this issue up to date; "
        "edits to it are overwritten. Answer on each decision's own item.",
        "",
        f"**{len(decisions)} open** across {len(owners)} owner{'s' if len(owners) != 1 else ''}, "
        f"{sum(1 for d in decisions if d.blocking and d.dependents)} of them blocking work.",
        "",
        f"Since {report.since:%Y-%m-%d}: {report.asked} asked, {report.resolved} resolved, "
        f"{report.abandoned} abandoned; median time to answer {human_duration(report.time_to_answer.median_seconds)}, "
        f"90th percentile {human_duration(report.time_to_answer.p90_seconds)} (n = {report.time_to_answer.n}).",
        "",
        "| Answer differs from the guess | By precedent | By explicit default | Escalated | Refused by a cap |",
        "| --- | --- | --- | --- | --- |",
        f"| {percent(report.guess_vs_answer)} | {percent(report.answered_by_precedent)} | "
        f"{percent(report.answered_by_default)} | {percent(report.escalated)} | {percent(report.refused_by_cap)} |",
    ]
    if report.clusters:
        top = report.clusters[0]
        head += ["", f"Most recurring question ({top.size} times): {md(top.representative)}"]
    head.append("")

    tail = ["", DASHBOARD_MARKER, ""]
    budget = MAX_BODY - len("\n".join(head)) - len("\n".join(tail)) - 200
    body: list[str] = []
    if not decisions:
        body.append("Nothing is waiting for an answer.")
    omitted = 0
    for owner in owners:
        items = sorted(by_owner[owner], key=lambda d: (d.created_at, d.id))
        section = [f"## {md(owner)} ({len(items)})", ""]
        section += [_line(d, now) for d in items[:PER_OWNER]]
        if len(items) > PER_OWNER:
            section.append(f"- …and {len(items) - PER_OWNER} more (`parkbot list --owner` to see them all)")
        section.append("")
        size = len("\n".join(section)) + 1
        if size > budget:
            omitted += len(items)
            continue
        budget -= size
        body += section
    if omitted:
        body.append(f"{omitted} more open decision(s) not shown: the issue body has a size limit (`parkbot list`).")
    return "\n".join(head + body + tail)


def _line(decision: Decision, now: datetime) -> str:
    age = coarse_age(max((now - as_utc(decision.created_at)).total_seconds(), 0.0))
    if not decision.blocking:
        blocks = "non-blocking"
    elif decision.dependents:
        blocks = "blocks " + ", ".join(md_dependent(d) for d in decision.dependents)
    else:
        blocks = "blocks nothing yet"
    extra = ""
    if decision.escalations:
        extra = " · escalated from " + " → ".join(md(o) for o in decision.chain()[:-1])
    if decision.kind == "review":
        extra += " · review item"
    return f"- {md_code(decision.id)} {md(decision.title)} · {age} old · {blocks}{extra}"
