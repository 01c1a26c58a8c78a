"""The figure models the report computes and the dashboard's index carries (parkbot.core.figures)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from parkbot.core.figures import DashboardFigures, Share, TimeToAnswer
from parkbot.report.dashboard_body import Figures
from parkbot.report.figures import Share as ReportShare

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_a_share_of_nothing_is_none_not_zero() -> None:
    assert Share.of(3, 8) == Share(count=3, n=8, share=0.375)
    assert Share.of(0, 0) == Share(count=0, n=0, share=None)


def test_the_report_and_the_dashboard_use_the_core_s_models() -> None:
    assert ReportShare is Share
    assert Figures is DashboardFigures


def test_dashboard_figures_are_checked() -> None:
    empty = Share.of(0, 0)
    figures = DashboardFigures(
        computed_at=NOW,
        since=NOW,
        asked=0,
        resolved=0,
        abandoned=0,
        time_to_answer=TimeToAnswer(n=0),
        guess_vs_answer=empty,
        answered_by_precedent=empty,
        answered_by_default=empty,
        escalated=empty,
        refused_by_cap=empty,
    )
    assert figures.recurring is None
    with pytest.raises(ValidationError):
        DashboardFigures.model_validate({**figures.model_dump(), "asked": "many"})
