"""The report's figures, computed from the decision log: pure, one pass, no I/O.

Population. A report covers a window ``[since, now]``. Every question figure (asked, the state counts,
time to answer, the weekly rate, clusters, guess-vs-answer and the shares) is about the decisions
*asked* in the window, i.e. ``since <= created_at <= now``. The one exception is the oldest-open list
(and ``open_total``): a question asked before the window and still open is the most urgent one of
all, so every currently open decision is considered there.

Review items (``kind == "review"``, parked stated assumptions) are not questions; they are counted
in ``reviews`` and left out of everything else.

Definitions.

* time to answer: ``answer.at - created_at`` of each resolved decision that has an answer, clamped at
  zero (clock skew between writers must not produce negative durations). The median is
  :func:`statistics.median` (the mean of the two middle values for an even count). The 90th
  percentile is the *nearest-rank* percentile: with the ``n`` durations sorted ascending, the value at
  1-based rank ``ceil(0.9 * n)``; it is always one of the observed durations.
* weekly rate: questions asked per ISO week (Monday to Sunday, UTC), every week from the one that
  contains ``since`` to the one that contains ``now``, zero-filled; the first and last week are
  flagged ``partial`` when the window covers only part of them. Beside it, the median time to answer
  of that week's questions, over those answered so far (``answered``): a recent week's median covers
  only its quick answers until the rest come in.
* per owner: every owner with a question open now or one answered in the window. ``open`` and the
  oldest waiting are about what is open now (whenever asked); the median time to answer is over the
  owner's questions asked in the window and answered. A decision's owner is its current one (after
  escalations, who answers it).
* guess-vs-answer: among answered decisions whose agent stated a ``guess``, the share whose answer
  value differs from the guess (compared trimmed and case-insensitively), with ``n``.
* answered by precedent / by explicit default: share of answered decisions whose answer kind is
  ``precedent`` / ``default``.
* escalated: share of asked decisions with at least one escalation.
* refused by a cap: ``refusals / (asked + refusals)``; refusals are events, not decisions, since a
  refused question was never parked.

Every share carries its count and denominator; with a zero denominator the share is ``None``.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime, timedelta
from operator import attrgetter
from typing import Any

from pydantic import BaseModel, Field

# The dashboard's index carries these, so they are core models; the report's names stay importable from here.
from parkbot.core.figures import Share as Share
from parkbot.core.figures import TimeToAnswer as TimeToAnswer
from parkbot.core.modeling import Model
from parkbot.core.models import Decision
from parkbot.report.clusters import Cluster, find_clusters
from parkbot.report.facts import Fact
from parkbot.report.facts import as_utc as as_utc  # re-exported: the dashboard reads it from here
from parkbot.report.planner_figures import PlannerFigures, planner_figures

OLDEST_OPEN_LIMIT = 10
#: How many decisions of each cluster get a link (the ones the Markdown and HTML show).
LINKED_PER_CLUSTER = 5


class OpenItem(BaseModel):
    """A decision still waiting for its owner."""

    id: str
    title: str
    owner: str
    created_at: datetime
    age_seconds: float
    blocking: bool
    dependents: list[str]


class WeekCount(BaseModel):
    """Questions asked in one ISO week, and how fast the ones answered so far were answered."""

    week: str = Field(description="ISO week, e.g. 2024-W05.")
    start: date = Field(description="The week's Monday.")
    count: int
    partial: bool = Field(description="The window covers only part of this week.")
    answered: int = Field(default=0, description="How many of this week's questions have been answered.")
    median_seconds: float | None = Field(default=None, description="Their median time to answer.")


class OwnerRow(BaseModel):
    """One owner's queue: who is the bottleneck."""

    owner: str
    open: int = Field(description="Open now, whenever asked.")
    blocking: int = Field(description="Of those, how many an agent is stopped on (blocking questions).")
    oldest_open_id: str | None = Field(default=None, description="The decision waiting longest.")
    oldest_open_seconds: float | None = Field(default=None, description="How long it has waited.")
    answered: int = Field(description="Questions asked in the window and answered.")
    median_seconds: float | None = Field(default=None, description="Their median time to answer.")


class Report(BaseModel):
    """Everything ``parkbot report`` shows; ``--format json`` is this model dumped."""

    since: datetime
    now: datetime
    asked: int
    open: int
    resolved: int
    abandoned: int
    open_total: int = Field(description="Open now, whenever asked (the window does not apply).")
    reviews: int = Field(default=0, description="Review items in the window; not counted as questions.")
    time_to_answer: TimeToAnswer
    owners: list[OwnerRow] = Field(default_factory=list, description="Most open first.")
    oldest_open: list[OpenItem]
    weekly: list[WeekCount]
    clusters: list[Cluster]
    guess_vs_answer: Share
    answered_by_precedent: Share
    answered_by_default: Share
    escalated: Share
    refused_by_cap: Share
    refusals_by_reason: dict[str, int] = Field(default_factory=dict)
    planner: PlannerFigures | None = Field(
        default=None, description="What the planner answered, how often people overrode it, the waiting it saved."
    )
    links: dict[str, str] = Field(
        default_factory=dict,
        description="Where the decisions the report shows can be opened (the issue on GitHub): the oldest "
        "open, each owner's oldest, the first five of each cluster. Without one, `parkbot show <id>` shows it.",
    )


def nearest_rank(sorted_values: list[float], percentile: float) -> float:
    """The nearest-rank percentile of ascending ``sorted_values``: the value at rank ``ceil(p/100 * n)``."""
    if not sorted_values:
        raise ValueError("no values")
    if not 0 < percentile <= 100:
        raise ValueError("percentile must be in (0, 100]")
    rank = math.ceil(percentile / 100 * len(sorted_values))
    return sorted_values[max(rank, 1) - 1]


def iso_week(moment: datetime) -> tuple[str, date]:
    """``("2024-W05", monday)`` for a UTC moment."""
    year, week, weekday = moment.isocalendar()
    return f"{year}-W{week:02d}", moment.date() - timedelta(days=weekday - 1)


#: Where a decision can be opened (a URL), or None; the CLI passes the backend's locations.
Linker = Callable[[Decision], str | None]
#: A refusal event: a mapping or a pydantic model (a question-log entry) with ``at`` and ``reason``.
Refusal = Mapping[str, Any] | BaseModel | Model


def compute_report(
    decisions: Iterable[Decision],
    refusals: Iterable[Refusal] = (),
    *,
    since: datetime,
    now: datetime,
    oldest_open_limit: int = OLDEST_OPEN_LIMIT,
    link: Linker | None = None,
) -> Report:
    """Compute the report. ``decisions`` is consumed once (a progress bar may wrap it).

    A decision seen twice (a paginating backend may repeat one) counts once: the copy updated last wins.
    Only a small :class:`~parkbot.report.facts.Fact` of each decision is kept, so a backend that yields
    decisions one by one is never held in memory whole. ``link`` is asked about each decision as it
    is read (while the backend still knows where it lives); the report keeps the addresses of the
    decisions it names.
    """
    since, now = as_utc(since), as_utc(now)
    if since > now:
        raise ValueError("since is after now")

    latest: dict[str, Fact] = {}
    for decision in decisions:
        seen = latest.get(decision.id)
        if seen is None or as_utc(decision.updated_at) >= seen.updated_at:
            latest[decision.id] = Fact.of(decision, link(decision) if link is not None else None)

    # One pass, oldest first, sorts every decision into what the figures need.
    asked: list[Fact] = []
    answered: list[Fact] = []
    open_now: list[Fact] = []
    seconds: dict[str, float] = {}
    states: Counter[str] = Counter()
    answer_kinds: Counter[str] = Counter()
    reviews = with_guess = differs = escalated = 0
    for d in sorted(latest.values(), key=attrgetter("created_at", "id")):
        created = d.created_at
        if created > now:
            break
        if d.kind == "review":
            reviews += created >= since
            continue
        if d.state == "open":
            open_now.append(d)
        if created < since:
            continue
        asked.append(d)
        states[d.state] += 1
        escalated += d.escalated
        if d.answered and d.answer_at is not None:
            answered.append(d)
            seconds[d.id] = max((d.answer_at - created).total_seconds(), 0.0)
            answer_kinds[d.answer_kind or ""] += 1
            if d.guess is not None:
                with_guess += 1
                differs += _differs(d.guess, d.answer_value or "")

    durations = sorted(seconds.values())
    time_to_answer = TimeToAnswer(
        n=len(durations),
        median_seconds=statistics.median(durations) if durations else None,
        p90_seconds=nearest_rank(durations, 90) if durations else None,
    )

    refusal_times = [(at, event) for event in refusals if (at := _refusal_at(event)) and since <= at <= now]
    by_reason = Counter(_reason(event) for _, event in refusal_times)

    oldest = [
        OpenItem(
            id=d.id,
            title=d.title,
            owner=d.owner,
            created_at=d.created_at,
            age_seconds=(now - d.created_at).total_seconds(),
            blocking=d.blocking,
            dependents=list(d.dependents),
        )
        for d in open_now[:oldest_open_limit]
    ]
    owners = owner_rows(open_now, answered, seconds, now)
    clusters = find_clusters(asked)

    named = [item.id for item in oldest]
    named += [row.oldest_open_id for row in owners if row.oldest_open_id]
    named += [i for cluster in clusters for i in cluster.decision_ids[:LINKED_PER_CLUSTER]]
    links = {i: url for i in dict.fromkeys(named) if (url := latest[i].url)}

    return Report(
        since=since,
        now=now,
        asked=len(asked),
        open=states["open"],
        resolved=states["resolved"],
        abandoned=states["abandoned"],
        open_total=len(open_now),
        reviews=reviews,
        time_to_answer=time_to_answer,
        owners=owners,
        oldest_open=oldest,
        weekly=weekly_counts(asked, since, now, seconds),
        clusters=clusters,
        guess_vs_answer=Share.of(differs, with_guess),
        answered_by_precedent=Share.of(answer_kinds["precedent"], len(answered)),
        answered_by_default=Share.of(answer_kinds["default"], len(answered)),
        escalated=Share.of(escalated, len(asked)),
        refused_by_cap=Share.of(len(refusal_times), len(asked) + len(refusal_times)),
        refusals_by_reason=dict(sorted(by_reason.items())),
        planner=planner_figures(asked),
        links=links,
    )


def owner_rows(
    open_now: Iterable[Fact], answered: Iterable[Fact], seconds: Mapping[str, float], now: datetime
) -> list[OwnerRow]:
    """One row per owner: most open first, then the one whose oldest question waited longest.

    ``open_now`` must be oldest first (its first decision per owner is that owner's oldest).
    """
    waiting: dict[str, list[Fact]] = {}
    for decision in open_now:
        waiting.setdefault(decision.owner, []).append(decision)
    times: dict[str, list[float]] = {}
    for decision in answered:
        times.setdefault(decision.owner, []).append(seconds[decision.id])
    rows = []
    for owner in waiting.keys() | times.keys():
        queue = waiting.get(owner, [])
        durations = times.get(owner, [])
        rows.append(
            OwnerRow(
                owner=owner,
                open=len(queue),
                blocking=sum(1 for d in queue if d.blocking),
                oldest_open_id=queue[0].id if queue else None,
                oldest_open_seconds=(now - queue[0].created_at).total_seconds() if queue else None,
                answered=len(durations),
                median_seconds=statistics.median(durations) if durations else None,
            )
        )
    rows.sort(key=lambda r: (-r.open, -(r.oldest_open_seconds or 0.0), r.owner.casefold(), r.owner))
    return rows


def weekly_counts(
    asked: Iterable[Fact], since: datetime, now: datetime, seconds: Mapping[str, float] | None = None
) -> list[WeekCount]:
    """Questions per ISO week from ``since``'s week to ``now``'s, zero-filled, each with its median time to
    answer over ``seconds`` (time to answer by decision id, for the answered ones)."""
    seconds = seconds or {}
    _, first_monday = iso_week(since)
    _, last_monday = iso_week(now)
    weeks = (last_monday - first_monday).days // 7 + 1
    counts = [0] * weeks
    durations: list[list[float]] = [[] for _ in range(weeks)]
    for decision in asked:
        index = (decision.created_at.date() - first_monday).days // 7
        if 0 <= index < weeks:
            counts[index] += 1
            if decision.id in seconds:
                durations[index].append(seconds[decision.id])
    out = []
    for index in range(weeks):
        monday = first_monday + timedelta(days=7 * index)
        start = datetime(monday.year, monday.month, monday.day, tzinfo=UTC)
        out.append(
            WeekCount(
                week=iso_week(start)[0],
                start=monday,
                count=counts[index],
                partial=start < since or start + timedelta(days=7) > now,
                answered=len(durations[index]),
                median_seconds=statistics.median(durations[index]) if durations[index] else None,
            )
        )
    return out


def _as_mapping(event: object) -> Mapping[str, Any] | None:
    """A log event as a mapping: a pydantic model (a log line) is dumped; anything else but a mapping is None."""
    if isinstance(event, BaseModel | Model):
        return event.model_dump()
    return event if isinstance(event, Mapping) else None


def _reason(event: object) -> str:
    fields = _as_mapping(event)
    return str((fields or {}).get("reason") or "unspecified")


def _differs(guess: str, value: str) -> bool:
    return guess.strip().casefold() != value.strip().casefold()


def _refusal_at(event: object) -> datetime | None:
    """The time of a refusal event, or None for anything that is not one (or has no usable time).

    An event is a mapping (or a pydantic model) with ``at``, a datetime or an ISO string. If it also
    says what it is, under ``type``, ``kind`` or ``event``, only tags that mention a refusal or a cap
    count, so a general event log can be passed as is.
    """
    event = _as_mapping(event)
    if event is None:
        return None
    for field in ("type", "kind", "event"):
        tag = event.get(field)
        if tag is not None and not any(word in str(tag).lower() for word in ("refus", "cap")):
            return None
    at = event.get("at")
    if isinstance(at, str):
        try:
            at = datetime.fromisoformat(at.strip())
        except ValueError:
            return None
    return as_utc(at) if isinstance(at, datetime) else None
