"""Render a :class:`Report` as Markdown, JSON or one self-contained HTML page.

Question text, titles, owners and answers come from agents and are untrusted. In HTML the page is a
Jinja2 template (``templates/report.html.j2``) with autoescaping on, so every value is escaped where it
is inserted, and the page carries a Content-Security-Policy that forbids scripts and network access
anyway. In Markdown they go through :mod:`parkbot.markdown` (:func:`parkbot.markdown.literal`): one line,
Markdown and HTML syntax escaped, ``@mentions`` defused (a report posted to an issue must not ping
people an agent named) while e-mail addresses stay intact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from parkbot.markdown import code_span, link, literal, table_code
from parkbot.report.clusters import Cluster
from parkbot.report.figures import LINKED_PER_CLUSTER, Report, Share, WeekCount

if TYPE_CHECKING:
    from jinja2 import Environment

FORMATS = ("md", "json", "html")
#: How many clusters the Markdown and HTML show (JSON has them all).
CLUSTERS_SHOWN = 20
#: How many decisions of a cluster the Markdown and HTML link (JSON has them all).
DECISIONS_SHOWN = LINKED_PER_CLUSTER
#: How many owners the Markdown and HTML list (JSON has them all).
OWNERS_SHOWN = 25
#: Guess-vs-answer reading: below LOW the agents could proceed with stated assumptions, above HIGH asking
#: prevents real errors; fewer than MIN_N decisions are too few to read either way.
GUESS_LOW, GUESS_HIGH, GUESS_MIN_N = 0.05, 0.30, 10

_URL = re.compile(r"^https?://", re.IGNORECASE)
#: Shown where there is no value.
DASH = "\u2013"


def render(report: Report, fmt: str) -> str:
    """The report in ``fmt`` (one of :data:`FORMATS`)."""
    renderers: dict[str, Callable[[Report], str]] = {"md": render_markdown, "json": render_json, "html": render_html}
    try:
        return renderers[fmt](report)
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}") from None


# --- shared wording ---------------------------------------------------------------------------


def human_duration(seconds: float | None) -> str:
    """``"45s"``, ``"12m"``, ``"3h 5m"``, ``"2d 4h"``; :data:`DASH` when there is nothing to show."""
    if seconds is None:
        return DASH
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if seconds < 3600:
        return f"{minutes}m"
    if seconds < 86400:
        return f"{hours}h {minutes % 60}m" if minutes % 60 else f"{hours}h"
    return f"{days}d {hours % 24}h" if hours % 24 else f"{days}d"


def percent(share: Share) -> str:
    """``"37.5% (3 of 8)"``; a dash and ``(n = 0)`` when the denominator is zero."""
    if share.share is None:
        return f"{DASH} (n = 0)"
    value = f"{share.share * 100:.1f}".removesuffix(".0")
    return f"{value}% ({share.count} of {share.n})"


def guess_reading(share: Share) -> str:
    """One sentence on what the guess-vs-answer share says."""
    if share.n < GUESS_MIN_N or share.share is None:
        return f"Based on {share.n} answered decision(s) with a stated guess: too few to read yet."
    if share.share >= GUESS_HIGH:
        return "High: owners often answer differently from the agent's guess, so asking is preventing real errors."
    if share.share <= GUESS_LOW:
        return (
            "Near zero: owners almost always confirm the agent's guess; the asking threshold is too low, "
            "and agents should proceed with a stated assumption instead."
        )
    return "Moderate: some questions change the outcome; look at the clusters for ones to design out."


def headline_rows(report: Report) -> list[tuple[str, str]]:
    tta = report.time_to_answer
    rows = [
        ("Questions asked", str(report.asked)),
        ("Open / resolved / abandoned", f"{report.open} / {report.resolved} / {report.abandoned}"),
        ("Open now, asked at any time", str(report.open_total)),
        ("Median time to answer", f"{human_duration(tta.median_seconds)} (n = {tta.n})"),
        ("90th percentile time to answer", f"{human_duration(tta.p90_seconds)} (nearest rank, n = {tta.n})"),
        ("Answer differs from the agent's guess", percent(report.guess_vs_answer)),
        ("Answered by precedent", percent(report.answered_by_precedent)),
        ("Answered by an explicit default", percent(report.answered_by_default)),
        ("Escalated", percent(report.escalated)),
        ("Refused by a cap", percent(report.refused_by_cap)),
    ]
    if report.reviews:
        rows.append(("Review items (stated assumptions; not counted above)", str(report.reviews)))
    return rows


def window_text(report: Report) -> str:
    return f"{report.since:%Y-%m-%d %H:%M} to {report.now:%Y-%m-%d %H:%M} UTC"


def week_label(week: WeekCount) -> str:
    return week.week + ("*" if week.partial else "")


def answered_text(week: WeekCount) -> str:
    """``"3 of 5"`` answered so far; a dash for a week without questions."""
    return f"{week.answered} of {week.count}" if week.count else DASH


def show_command(decision_id: str) -> str:
    """What opens a decision where the backend has no web page for it (the embedded git backlog)."""
    return f"parkbot show {decision_id}"


def web_link(report: Report, decision_id: str) -> str | None:
    """The decision's web address, when the backend has one and it is an ``http(s)`` URL."""
    url = report.links.get(decision_id)
    return url if url and _URL.match(url) else None


OWNERS_ADVICE = (
    "Owners with the most questions waiting come first. A long oldest wait next to a short median means "
    "one question is stuck: answer it, or escalate it. A long median means the owner is the bottleneck: "
    "move some origins to another owner (owners.origins in .github/parkbot.yml), or decide those questions "
    "up front."
)
WEEKLY_ADVICE = (
    "A falling rate after a template change shows the change worked. Medians of recent weeks cover only "
    "the questions answered so far."
)
CLUSTERS_ADVICE = (
    "Add these lines to the delegation template, so the questions are not asked again. Where the answers "
    "agree, write the rule down (or let precedents apply); where they split, settle the disagreement first."
)


# --- Markdown ---------------------------------------------------------------------------------


def md(text: str) -> str:
    """Untrusted text as inline Markdown (:func:`parkbot.markdown.literal`): one line, shown as written,
    mentions defused, e-mail addresses intact."""
    return literal(text)


def md_code(text: str) -> str:
    """A code span for ids and branch names, safe in a table cell."""
    return table_code(text)


def md_dependent(target: str) -> str:
    """A dependent in Markdown: ``#12`` stays bare so GitHub links the pull request; branches are code."""
    return target if target.startswith("#") and target[1:].isdigit() else md_code(target)


def md_decision(report: Report, decision_id: str) -> str:
    """A decision, linked: its issue on GitHub, ``parkbot show <id>`` where there is no web page."""
    url = web_link(report, decision_id)
    return link(md_code(decision_id), url) if url else md_code(show_command(decision_id))


def mermaid_weekly(weeks: list[WeekCount]) -> str:
    """A Mermaid ``xychart-beta`` bar chart (GitHub renders it); labels are generated, never user text."""
    top = max([w.count for w in weeks] + [1])
    labels = ", ".join(f'"{week_label(w)}"' for w in weeks)
    bars = ", ".join(str(w.count) for w in weeks)
    return "\n".join(
        [
            "```mermaid",
            "xychart-beta",
            '    title "Questions asked per week"',
            f"    x-axis [{labels}]",
            f'    y-axis "Questions" 0 --> {top}',
            f"    bar [{bars}]",
            "```",
        ]
    )


def verdict(cluster: Cluster) -> str:
    """What the answer split says to do with a recurring question."""
    if not cluster.answered:
        return "Not answered yet: answer one, then decide the rest up front."
    if cluster.unanimous:
        return (
            f"Answered the same way all {cluster.answered} times: write it down as the rule "
            "(or let precedents answer it)."
        )
    if len(cluster.answers) == 1:
        return "Answered once so far."
    return "The answers split: settle the disagreement, then write the rule down."


def _md_split(cluster: Cluster) -> str:
    parts = [f"{md(a.value)}: {a.count}" for a in cluster.answers]
    if cluster.open:
        parts.append(f"still open: {cluster.open}")
    return " · ".join(parts) or "not answered yet"


def render_markdown(report: Report) -> str:
    out = [f"## parkbot report: questions asked {window_text(report)}", ""]
    out += ["| Figure | Value |", "| --- | --- |"]
    out += [f"| {label} | {value} |" for label, value in headline_rows(report)]
    out += ["", f"**Guess vs answer.** {guess_reading(report.guess_vs_answer)}", ""]
    out += planner_markdown(report)

    out += ["### Who is waiting on whom", ""]
    if report.owners:
        out += [OWNERS_ADVICE, ""]
        out += [
            "| Owner | Open now | Blocking | Oldest waiting | Median time to answer | Answered |",
            "| --- | --: | --: | --- | --: | --: |",
        ]
        for row in report.owners[:OWNERS_SHOWN]:
            oldest = DASH
            if row.oldest_open_id:
                oldest = f"{human_duration(row.oldest_open_seconds)}: {md_decision(report, row.oldest_open_id)}"
            out.append(
                f"| {md(row.owner)} | {row.open} | {row.blocking} | {oldest} | "
                f"{human_duration(row.median_seconds)} | {row.answered} |"
            )
        if len(report.owners) > OWNERS_SHOWN:
            out.append(f"\n…and {len(report.owners) - OWNERS_SHOWN} more owners (see `--format json`).")
    else:
        out.append("No owner has a question waiting, and none was answered in this window.")
    out.append("")

    out += ["### Questions per week", "", WEEKLY_ADVICE, "", mermaid_weekly(report.weekly), ""]
    out += ["| Week | Asked | Answered so far | Median time to answer |", "| --- | --: | --: | --: |"]
    out += [
        f"| {week_label(w)} | {w.count} | {answered_text(w)} | {human_duration(w.median_seconds)} |"
        for w in report.weekly
    ]
    out.append("")
    if any(w.partial for w in report.weekly):
        out += ["\\* the window covers only part of this week.", ""]

    out += ["### Recurring questions", ""]
    if report.clusters:
        out += [CLUSTERS_ADVICE, ""]
        for number, cluster in enumerate(report.clusters[:CLUSTERS_SHOWN], 1):
            origins = ", ".join(md_code(o) for o in cluster.origins[:5])
            more = f" and {len(cluster.origins) - 5} more" if len(cluster.origins) > 5 else ""
            shown = cluster.decision_ids[:DECISIONS_SHOWN]
            decisions = ", ".join(md_decision(report, i) for i in shown)
            rest = len(cluster.decision_ids) - len(shown)
            out += [
                f"{number}. **{md(cluster.representative)}**  ",
                f"   Asked {cluster.size} times from {cluster.sources} origin/run pairs, "
                f"last on {cluster.last_asked:%Y-%m-%d}; origins: {origins}{more}.  ",
                f"   Answers: {_md_split(cluster)}. {verdict(cluster)}  ",
                f"   For the delegation template: {md(cluster.suggestion)}  ",
                f"   Decisions: {decisions}{f' and {rest} more' if rest else ''}",
            ]
        if len(report.clusters) > CLUSTERS_SHOWN:
            out.append(f"\n…and {len(report.clusters) - CLUSTERS_SHOWN} smaller clusters (see `--format json`).")
    else:
        out.append("No question recurred across origins or runs in this window.")
    out.append("")

    out += ["### Oldest open decisions", ""]
    if report.oldest_open:
        out += ["| Decision | Title | Owner | Age | Blocks |", "| --- | --- | --- | --- | --- |"]
        for item in report.oldest_open:
            blocks = ", ".join(md_dependent(d) for d in item.dependents) if item.blocking else "non-blocking"
            out.append(
                f"| {md_decision(report, item.id)} | {md(item.title)} | {md(item.owner)} | "
                f"{human_duration(item.age_seconds)} | {blocks or DASH} |"
            )
        if report.open_total > len(report.oldest_open):
            out.append(f"\n{report.open_total - len(report.oldest_open)} more open ({code_span('parkbot list')}).")
    else:
        out.append("Nothing is waiting for an answer.")
    return "\n".join(out) + "\n"


PLANNER_ADVICE = (
    "A high override rate says the planner's sources are wrong or out of date: fix the documents it cites, "
    "or narrow planner.sources."
)


def planner_rows(report: Report) -> list[tuple[str, str]]:
    """The planner's figures as (label, value), the same in every format; none without planner answers."""
    figures = report.planner
    if figures is None:
        return []
    share = Share.of(figures.answered, figures.answered_total)
    overrides = Share.of(figures.overridden, figures.answered)
    saved = human_duration(figures.saved_seconds) if figures.saved_seconds is not None else DASH
    return [
        ("Answered by the planner", percent(share)),
        ("Overridden by an owner", percent(overrides)),
        ("Not reviewed yet", str(figures.unreviewed)),
        (
            "Median time to answer: planner / people",
            f"{human_duration(figures.planner_median_seconds)} / {human_duration(figures.people_median_seconds)}",
        ),
        ("Waiting saved per answer (median)", saved),
    ]


def planner_markdown(report: Report) -> list[str]:
    """The planner's section: its share, its override rate, the waiting it saved, what it cited most."""
    figures = report.planner
    if figures is None:
        return []
    out = ["### The planner", "", PLANNER_ADVICE, "", "| Figure | Value |", "| --- | --- |"]
    out += [f"| {label} | {value} |" for label, value in planner_rows(report)]
    if figures.most_cited:
        cited = ", ".join(f"{md_code(c.source)} ({c.count})" for c in figures.most_cited)
        out += ["", f"Most cited: {cited}."]
    return [*out, ""]


# --- JSON -------------------------------------------------------------------------------------


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"


# --- HTML -------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _environment() -> Environment:
    """The template environment, made once: autoescaping on for every template, undefined names are errors.

    Imported here, not at module level, so that Markdown and JSON reports do not load Jinja2 at all.
    """
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("parkbot.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _bar(value: float | None, peak: float) -> float:
    """A bar's length in percent of its track (at least a sliver for any non-zero value)."""
    if not value or peak <= 0:
        return 0.0
    return round(max(100.0 * value / peak, 1.5), 1)


def _decision_view(report: Report, decision_id: str) -> dict[str, Any]:
    return {"id": decision_id, "url": web_link(report, decision_id), "show": show_command(decision_id)}


def _cluster_view(report: Report, cluster: Cluster) -> dict[str, Any]:
    total = cluster.answered + cluster.open
    split = [{"value": a.value, "count": a.count, "bar": _bar(a.count, total), "open": False} for a in cluster.answers]
    if cluster.open:
        split.append({"value": "still open", "count": cluster.open, "bar": _bar(cluster.open, total), "open": True})
    shown = cluster.decision_ids[:DECISIONS_SHOWN]
    return {
        "suggestion": cluster.suggestion,
        "representative": cluster.representative,
        "size": cluster.size,
        "sources": cluster.sources,
        "origins": cluster.origins,
        "split": split,
        "verdict": verdict(cluster),
        "decisions": [_decision_view(report, i) for i in shown],
        "more": len(cluster.decision_ids) - len(shown),
        "last_asked": f"{cluster.last_asked:%Y-%m-%d}",
    }


def html_context(report: Report) -> dict[str, Any]:
    """Everything the template shows, as plain values: the template only lays it out (and escapes it)."""
    peak_count = max([w.count for w in report.weekly] + [1])
    peak_median = max([w.median_seconds or 0.0 for w in report.weekly] + [1.0])
    weeks = [
        {
            "label": week_label(w),
            "title": f"{w.week}, from {w.start:%Y-%m-%d}" + (" (partial week)" if w.partial else ""),
            "partial": w.partial,
            "count": w.count,
            "count_bar": _bar(w.count, peak_count),
            "answered": answered_text(w),
            "median": human_duration(w.median_seconds),
            "median_bar": _bar(w.median_seconds, peak_median),
        }
        for w in report.weekly
    ]
    owners = [
        {
            "owner": row.owner,
            "open": row.open,
            "blocking": row.blocking,
            "oldest": human_duration(row.oldest_open_seconds) if row.oldest_open_id else None,
            "oldest_decision": _decision_view(report, row.oldest_open_id) if row.oldest_open_id else None,
            "median": human_duration(row.median_seconds),
            "answered": row.answered,
        }
        for row in report.owners[:OWNERS_SHOWN]
    ]
    oldest = [
        {
            "decision": _decision_view(report, item.id),
            "title": item.title,
            "owner": item.owner,
            "age": human_duration(item.age_seconds),
            "blocking": item.blocking,
            "dependents": item.dependents,
        }
        for item in report.oldest_open
    ]
    return {
        "window": window_text(report),
        "headline": headline_rows(report),
        "guess_reading": guess_reading(report.guess_vs_answer),
        "owners": owners,
        "owners_more": max(len(report.owners) - OWNERS_SHOWN, 0),
        "owners_advice": OWNERS_ADVICE,
        "weeks": weeks,
        "any_partial": any(w.partial for w in report.weekly),
        "weekly_advice": WEEKLY_ADVICE,
        "clusters": [_cluster_view(report, c) for c in report.clusters[:CLUSTERS_SHOWN]],
        "clusters_more": max(len(report.clusters) - CLUSTERS_SHOWN, 0),
        "clusters_advice": CLUSTERS_ADVICE,
        "oldest": oldest,
        "planner": planner_rows(report),
        "planner_cited": [(c.source, c.count) for c in report.planner.most_cited] if report.planner else [],
        "planner_advice": PLANNER_ADVICE,
        "open_more": max(report.open_total - len(report.oldest_open), 0),
        "dash": DASH,
    }


def render_html(report: Report) -> str:
    return _environment().get_template("report.html.j2").render(html_context(report))
