"""Render a :class:`Report` as Markdown, JSON or one self-contained HTML page.

Question text, titles, owners and answers come from agents and are untrusted. In HTML every one of
them goes through :func:`html.escape`, and the page carries a Content-Security-Policy that forbids
scripts and network access anyway. In Markdown they go through :func:`md`, which keeps them on one
line, escapes Markdown and HTML syntax, and defuses ``@mentions`` (a report posted to an issue must
not ping people an agent named).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable

from bot.report.figures import Report, Share, WeekCount

FORMATS = ("md", "json", "html")
#: How many clusters the Markdown and HTML show (JSON has them all).
CLUSTERS_SHOWN = 20
#: Guess-vs-answer reading: below LOW the agents could proceed with stated assumptions, above HIGH asking
#: prevents real errors; fewer than MIN_N decisions are too few to read either way.
GUESS_LOW, GUESS_HIGH, GUESS_MIN_N = 0.05, 0.30, 10

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")
_SPACE = re.compile(r"\s+")
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


# --- Markdown ---------------------------------------------------------------------------------


def md(text: str) -> str:
    """Untrusted text as inline Markdown: one line, syntax escaped, mentions defused."""
    text = _SPACE.sub(" ", text).strip()
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("@", "@\u200b")


def md_code(text: str) -> str:
    """A code span for ids and branch names; falls back to escaped text if it holds a backtick."""
    return md(text) if "`" in text or "\n" in text else f"`{text}`"


def md_dependent(target: str) -> str:
    """A dependent in Markdown: ``#12`` stays bare so GitHub links the pull request; branches are code."""
    return target if target.startswith("#") and target[1:].isdigit() else md_code(target)


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


def render_markdown(report: Report) -> str:
    out = [f"## parkbot report: questions asked {window_text(report)}", ""]
    out += ["| Figure | Value |", "| --- | --- |"]
    out += [f"| {label} | {value} |" for label, value in headline_rows(report)]
    out += ["", f"**Guess vs answer.** {guess_reading(report.guess_vs_answer)}", ""]

    out += ["### Questions per week", "", mermaid_weekly(report.weekly), ""]
    if any(w.partial for w in report.weekly):
        out += ["\\* the window covers only part of this week.", ""]

    out += ["### Recurring questions", ""]
    if report.clusters:
        out += ["Add these lines to the delegation template, so the questions are not asked again:", ""]
        for number, cluster in enumerate(report.clusters[:CLUSTERS_SHOWN], 1):
            origins = ", ".join(md_code(o) for o in cluster.origins[:5])
            more = f" and {len(cluster.origins) - 5} more" if len(cluster.origins) > 5 else ""
            out.append(
                f"{number}. {md(cluster.suggestion)}  \n"
                f"   {cluster.size} questions from {cluster.sources} origin/run pairs; origins: {origins}{more}"
            )
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
                f"| {md_code(item.id)} | {md(item.title)} | {md(item.owner)} | "
                f"{human_duration(item.age_seconds)} | {blocks or DASH} |"
            )
        if report.open_total > len(report.oldest_open):
            out.append(f"\n{report.open_total - len(report.oldest_open)} more open (`parkbot list`).")
    else:
        out.append("Nothing is waiting for an answer.")
    return "\n".join(out) + "\n"


# --- JSON -------------------------------------------------------------------------------------


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"


# --- HTML -------------------------------------------------------------------------------------

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff;margin:0}
main{max-width:64rem;margin:0 auto;padding:1.5rem}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid #d0d7de}
.window{color:#59636e;margin:0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #eaeef2}
th{background:#f6f8fa;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;padding:0 .25rem;border-radius:4px}
.reading{background:#f6f8fa;border-left:4px solid #0969da;padding:.5rem .75rem}
ol.clusters li{margin-bottom:.75rem}.meta{color:#59636e;font-size:13px}
""".strip()


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def svg_weekly(weeks: list[WeekCount]) -> str:
    """An inline SVG bar chart of the weekly rate; no scripts, no external references.

    Colours are attributes as well as classes, so the chart also reads when copied out of the page.
    """
    count = max(len(weeks), 1)
    slot = max(6.0, min(80.0, 720.0 / count))
    left, right, top, bottom, height = 40, 10, 18, 30, 200
    width = int(left + right + slot * count)
    peak = max([w.count for w in weeks] + [1])
    scale = height / peak
    label_every = max(1, math.ceil(72 / slot))
    base = top + height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{base + bottom}" '
        f'viewBox="0 0 {width} {base + bottom}" aria-label="Questions asked per week">',
        "<title>Questions asked per week</title>",
        f'<line class="axis" x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#d0d7de"></line>',
    ]
    for tick in sorted({0, peak // 2, peak}):
        y = base - tick * scale
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" {_SVG_TEXT}>{tick}</text>')
    for i, week in enumerate(weeks):
        bar_height = week.count * scale
        centre = left + i * slot + slot / 2
        klass, fill = ("bar partial", "#8cb8ee") if week.partial else ("bar", "#0969da")
        note = " (partial week)" if week.partial else ""
        parts.append(
            f'<rect class="{klass}" fill="{fill}" x="{centre - slot * 0.4:.1f}" y="{base - bar_height:.1f}" '
            f'width="{slot * 0.8:.1f}" height="{bar_height:.1f}">'
            f"<title>{esc(week.week)}: {week.count}{note}</title></rect>"
        )
        if slot >= 24:  # room for the value above the bar
            parts.append(
                f'<text x="{centre:.1f}" y="{base - bar_height - 4:.1f}" text-anchor="middle" {_SVG_TEXT}>'
                f"{week.count}</text>"
            )
        if i % label_every == 0:
            parts.append(
                f'<text x="{centre:.1f}" y="{base + 16}" text-anchor="middle" {_SVG_TEXT}>'
                f"{esc(week_label(week))}</text>"
            )
    parts.append("</svg>")
    return "\n".join(parts)


_SVG_TEXT = 'font-family="system-ui, sans-serif" font-size="11" fill="#59636e"'


def render_html(report: Report) -> str:
    rows = "\n".join(
        f'<tr><th scope="row">{esc(label)}</th><td class="num">{esc(value)}</td></tr>'
        for label, value in headline_rows(report)
    )
    body = [
        "<h1>parkbot report</h1>",
        f'<p class="window">Questions asked {esc(window_text(report))}</p>',
        "<h2>Headline</h2>",
        f"<table>\n{rows}\n</table>",
        f'<p class="reading"><strong>Guess vs answer.</strong> {esc(guess_reading(report.guess_vs_answer))}</p>',
        "<h2>Questions per week</h2>",
        svg_weekly(report.weekly),
    ]
    if any(w.partial for w in report.weekly):
        body.append('<p class="meta">* the window covers only part of this week (lighter bar).</p>')

    body.append("<h2>Recurring questions</h2>")
    if report.clusters:
        body.append("<p>Add these lines to the delegation template, so the questions are not asked again:</p>")
        items = []
        for cluster in report.clusters[:CLUSTERS_SHOWN]:
            origins = ", ".join(f"<code>{esc(o)}</code>" for o in cluster.origins)
            ids = ", ".join(f"<code>{esc(i)}</code>" for i in cluster.decision_ids[:5])
            more = f" and {len(cluster.decision_ids) - 5} more" if len(cluster.decision_ids) > 5 else ""
            items.append(
                f"<li>{esc(cluster.suggestion)}<br>"
                f'<span class="meta">{cluster.size} questions from {cluster.sources} origin/run pairs; '
                f"origins: {origins}; decisions: {ids}{more}</span></li>"
            )
        body.append('<ol class="clusters">\n' + "\n".join(items) + "\n</ol>")
        if len(report.clusters) > CLUSTERS_SHOWN:
            body.append(f"<p>…and {len(report.clusters) - CLUSTERS_SHOWN} smaller clusters (see --format json).</p>")
    else:
        body.append("<p>No question recurred across origins or runs in this window.</p>")

    body.append("<h2>Oldest open decisions</h2>")
    if report.oldest_open:
        lines = [
            "<table>",
            "<tr><th>Decision</th><th>Title</th><th>Owner</th><th>Age</th><th>Blocks</th></tr>",
        ]
        for item in report.oldest_open:
            blocks = ", ".join(f"<code>{esc(d)}</code>" for d in item.dependents) if item.blocking else "non-blocking"
            lines.append(
                f"<tr><td><code>{esc(item.id)}</code></td><td>{esc(item.title)}</td><td>{esc(item.owner)}</td>"
                f'<td class="num">{esc(human_duration(item.age_seconds))}</td><td>{blocks or DASH}</td></tr>'
            )
        lines.append("</table>")
        body.append("\n".join(lines))
        if report.open_total > len(report.oldest_open):
            body.append(f"<p>{report.open_total - len(report.oldest_open)} more open (parkbot list).</p>")
    else:
        body.append("<p>Nothing is waiting for an answer.</p>")

    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>parkbot report {esc(window_text(report))}</title>",
            f"<style>\n{_CSS}\n</style>",
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )
