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
  flagged ``partial`` when the window covers only part of them.
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
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from bot.core.models import Decision
from bot.report.clusters import Cluster, find_clusters

OLDEST_OPEN_LIMIT = 10


class Share(BaseModel):
    """``count`` out of ``n``; ``share`` is ``count / n``, or None when there is nothing to divide by."""

    count: int
    n: int
    share: float | None

    @classmethod
    def of(cls, count: int, n: int) -> Share:
        return cls(count=count, n=n, share=(count / n) if n else None)


class TimeToAnswer(BaseModel):
    """Seconds from asking to answer, over ``n`` answered decisions."""

    n: int
    median_seconds: float | None = None
    p90_seconds: float | None = Field(default=None, description="Nearest-rank 90th percentile.")


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
    """Questions asked in one ISO week."""

    week: str = Field(description="ISO week, e.g. 2024-W05.")
    start: date = Field(description="The week's Monday.")
    count: int
    partial: bool = Field(description="The window covers only part of this week.")


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
    oldest_open: list[OpenItem]
    weekly: list[WeekCount]
    clusters: list[Cluster]
    guess_vs_answer: Share
    answered_by_precedent: Share
    answered_by_default: Share
    escalated: Share
    refused_by_cap: Share
    refusals_by_reason: dict[str, int] = Field(default_factory=dict)


def nearest_rank(sorted_values: list[float], percentile: float) -> float:
    """The nearest-rank percentile of ascending ``sorted_values``: the value at rank ``ceil(p/100 * n)``."""
    if not sorted_values:
        raise ValueError("no values")
    if not 0 < percentile <= 100:
        raise ValueError("percentile must be in (0, 100]")
    rank = math.ceil(percentile / 100 * len(sorted_values))
    return sorted_values[max(rank, 1) - 1]


def as_utc(value: datetime) -> datetime:
    """Aware UTC; a naive timestamp is taken to be UTC already."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def iso_week(moment: datetime) -> tuple[str, date]:
    """``("2024-W05", monday)`` for a UTC moment."""
    year, week, weekday = moment.isocalendar()
    return f"{year}-W{week:02d}", moment.date() - timedelta(days=weekday - 1)


def compute_report(
    decisions: Iterable[Decision],
    refusals: Iterable[Mapping[str, Any]] = (),
    *,
    since: datetime,
    now: datetime,
    oldest_open_limit: int = OLDEST_OPEN_LIMIT,
) -> Report:
    """Compute the report. ``decisions`` is consumed once (a progress bar may wrap it).

    A decision seen twice (a paginating backend may repeat one) counts once: the copy updated last wins.
    """
    since, now = as_utc(since), as_utc(now)
    if since > now:
        raise ValueError("since is after now")

    latest: dict[str, Decision] = {}
    for decision in decisions:
        decision = _utc_decision(decision)
        seen = latest.get(decision.id)
        if seen is None or decision.updated_at >= seen.updated_at:
            latest[decision.id] = decision

    everything = sorted(latest.values(), key=lambda d: (d.created_at, d.id))
    asked = [d for d in everything if d.kind != "review" and since <= d.created_at <= now]
    reviews = sum(1 for d in everything if d.kind == "review" and since <= d.created_at <= now)
    states = Counter(d.state for d in asked)
    answered = [d for d in asked if d.state == "resolved" and d.answer is not None]

    durations = sorted(max((d.answer.at - d.created_at).total_seconds(), 0.0) for d in answered if d.answer)
    time_to_answer = TimeToAnswer(
        n=len(durations),
        median_seconds=statistics.median(durations) if durations else None,
        p90_seconds=nearest_rank(durations, 90) if durations else None,
    )

    with_guess = [d for d in answered if d.guess is not None and d.answer is not None]
    differs = sum(1 for d in with_guess if _differs(d.guess or "", d.answer.value if d.answer else ""))

    refusal_times = [(at, event) for event in refusals if (at := _refusal_at(event)) and since <= at <= now]
    by_reason = Counter(_reason(event) for _, event in refusal_times)

    open_now = [d for d in everything if d.kind != "review" and d.state == "open" and d.created_at <= now]
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
        oldest_open=oldest,
        weekly=weekly_counts((d.created_at for d in asked), since, now),
        clusters=find_clusters(asked),
        guess_vs_answer=Share.of(differs, len(with_guess)),
        answered_by_precedent=Share.of(
            sum(1 for d in answered if d.answer and d.answer.kind == "precedent"), len(answered)
        ),
        answered_by_default=Share.of(
            sum(1 for d in answered if d.answer and d.answer.kind == "default"), len(answered)
        ),
        escalated=Share.of(sum(1 for d in asked if d.escalations), len(asked)),
        refused_by_cap=Share.of(len(refusal_times), len(asked) + len(refusal_times)),
        refusals_by_reason=dict(sorted(by_reason.items())),
    )


def weekly_counts(moments: Iterable[datetime], since: datetime, now: datetime) -> list[WeekCount]:
    """Counts per ISO week from ``since``'s week to ``now``'s, zero-filled."""
    counts = Counter(iso_week(as_utc(m))[0] for m in moments)
    _, monday = iso_week(since)
    _, last_monday = iso_week(now)
    weeks = []
    while monday <= last_monday:
        start = datetime(monday.year, monday.month, monday.day, tzinfo=UTC)
        label = iso_week(start)[0]
        partial = start < since or start + timedelta(days=7) > now
        weeks.append(WeekCount(week=label, start=monday, count=counts.get(label, 0), partial=partial))
        monday += timedelta(days=7)
    return weeks


def _reason(event: Any) -> str:
    reason = event.get("reason") if isinstance(event, Mapping) else getattr(event, "reason", None)
    return str(reason or "unspecified")


def _differs(guess: str, value: str) -> bool:
    return guess.strip().casefold() != value.strip().casefold()


def _utc_decision(decision: Decision) -> Decision:
    """The same decision with aware UTC timestamps (only copied when one is naive)."""
    if (
        decision.created_at.tzinfo is not None
        and decision.updated_at.tzinfo is not None
        and (decision.answer is None or decision.answer.at.tzinfo is not None)
    ):
        return decision
    update: dict[str, Any] = {"created_at": as_utc(decision.created_at), "updated_at": as_utc(decision.updated_at)}
    if decision.answer is not None:
        update["answer"] = decision.answer.model_copy(update={"at": as_utc(decision.answer.at)})
    return decision.model_copy(update=update)


def _refusal_at(event: Any) -> datetime | None:
    """The time of a refusal event, or None for anything that is not one (or has no usable time).

    An event is a mapping (or a pydantic model) with ``at``, a datetime or an ISO string. If it also
    says what it is, under ``type``, ``kind`` or ``event``, only tags that mention a refusal or a cap
    count, so a general event log can be passed as is.
    """
    if hasattr(event, "model_dump"):
        event = event.model_dump()
    if not isinstance(event, Mapping):
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
