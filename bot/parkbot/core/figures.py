"""The figures the report computes and the decision dashboard carries: shares, time to answer, the headline
numbers. Pure models, no rule of their own.

They live in the core because the dashboard's index (:class:`parkbot.core.dashboard_index.DashboardIndex`)
carries :class:`DashboardFigures` from one full recount to the next, typed; the report computes them
(:mod:`parkbot.report.figures`, :func:`parkbot.report.dashboard_body.figures_of`) and re-exports these names.
"""

from __future__ import annotations

from datetime import datetime

from parkbot.core.modeling import ConfigDict, Field, Model


class Share(Model):
    """``count`` out of ``n``; ``share`` is ``count / n``, or None when there is nothing to divide by."""

    model_config = ConfigDict(defer_build=True)

    count: int
    n: int
    share: float | None

    @classmethod
    def of(cls, count: int, n: int) -> Share:
        return cls(count=count, n=n, share=(count / n) if n else None)


class TimeToAnswer(Model):
    """Seconds from asking to answer, over ``n`` answered decisions."""

    model_config = ConfigDict(defer_build=True)

    n: int
    median_seconds: float | None = None
    p90_seconds: float | None = Field(default=None, description="Nearest-rank 90th percentile.")


class DashboardFigures(Model):
    """The dashboard's headline numbers of the last 30 days, as of ``computed_at`` (a full recount)."""

    model_config = ConfigDict(defer_build=True)

    computed_at: datetime
    since: datetime
    asked: int
    resolved: int
    abandoned: int
    time_to_answer: TimeToAnswer
    guess_vs_answer: Share
    answered_by_precedent: Share
    answered_by_default: Share
    escalated: Share
    refused_by_cap: Share
    #: The most recurring question: how often, and its wording.
    recurring: tuple[int, str] | None = None


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.core import prebuilt_figures_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)
