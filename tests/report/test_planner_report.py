"""The report's planner figures on a constructed history with known answers, and the dashboard's planner flags."""

from __future__ import annotations

from datetime import timedelta

from parkbot.core.dashboard_index import recount
from parkbot.core.models import PlannerStep
from parkbot.report import compute_report, render
from parkbot.report.dashboard_body import render_body
from tests.support.planner_report import NOW, T0, decision, history, person_answered, planner_answered


def test_the_report_gives_the_planners_share_override_rate_waiting_saved_and_most_cited_sources() -> None:
    report = compute_report(history(), since=T0 - timedelta(days=1), now=NOW)
    figures = report.planner
    assert figures is not None
    assert figures.answered == 4
    assert figures.answered_total == 8
    assert figures.share == 0.5
    assert figures.overridden == 1
    assert figures.override_rate == 0.25
    assert figures.unreviewed == 1
    assert figures.planner_median_seconds == 20 * 60  # 10, 20, 20, 30 minutes
    assert figures.people_median_seconds == 10 * 3600  # 4, 8, 12, 16 hours
    assert figures.saved_seconds == 10 * 3600 - 20 * 60
    assert [(c.source, c.count) for c in figures.most_cited] == [("docs/refunds.md", 3), ("PLAN.md", 1)]
    text = render(report, "md")
    assert "### The planner" in text
    assert "`docs/refunds.md` (3)" in text


def test_a_report_without_planner_answers_has_no_planner_section() -> None:
    report = compute_report([person_answered(5, 4)], since=T0 - timedelta(days=1), now=NOW)
    assert report.planner is None
    assert "The planner" not in render(report, "md")


def test_the_dashboard_shows_questions_with_the_planner_and_flags_unreviewed_answers_past_review() -> None:
    waiting = decision(1, planner=PlannerStep(until=T0 + timedelta(minutes=30)))
    due = planner_answered(2, 10, "docs/refunds.md", review="pending")
    due = due.model_copy(
        update={"planner": due.planner.model_copy(update={"review_due": T0 + timedelta(hours=72)})}  # type: ignore[union-attr]
    )
    accepted = planner_answered(3, 10, "docs/refunds.md", review="accepted")
    index = recount([waiting, due, accepted], now=T0, figures=None)
    assert [e.id for e in index.entries] == [waiting.id, due.id]  # the accepted one left the dashboard
    early = render_body(index, T0 + timedelta(hours=1))
    assert "with the planner" in early
    assert "planner answer to review" in early
    assert "unreviewed past its review time" not in early
    assert "unreviewed past its review time" in render_body(index, T0 + timedelta(hours=73))
