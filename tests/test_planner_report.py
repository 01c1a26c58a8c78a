"""The report's planner figures on a constructed history with known answers, and the dashboard's planner flags."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from parkbot.core.dashboard_index import recount
from parkbot.core.models import Answer, CitedSource, Correction, Decision, Option, PlannerStep
from parkbot.report import compute_report, render
from parkbot.report.dashboard_body import render_body

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=10)


def decision(n: int, **changes: object) -> Decision:
    data: dict[str, object] = {
        "id": f"task-{n}-decision-k",
        "origin": f"task-{n}",
        "key": "k",
        "title": f"Question {n}",
        "question": f"Which one for task {n}?",
        "options": [Option(id="a", label="A"), Option(id="b", label="B")],
        "owner": "alice",
        "created_at": T0,
        "updated_at": T0,
    }
    data.update(changes)
    return Decision.model_validate(data)


def planner_answered(n: int, minutes: int, source: str, review: str = "accepted", **changes: object) -> Decision:
    at = T0 + timedelta(minutes=minutes)
    cited = CitedSource(source=f"{source}#L1", path=source, commit="c" * 40, start=1, end=1, quote="x")
    answer = Answer(value="a", kind="planner", by="planner[bot]", at=at, sources=[cited])
    step = PlannerStep(
        state="answered", until=T0 + timedelta(minutes=30), by="planner[bot]", at=at, answer=answer, review=review
    )
    return decision(n, state="resolved", answer=answer, planner=step, **changes)


def person_answered(n: int, hours: int) -> Decision:
    answer = Answer(value="b", kind="option", by="alice", at=T0 + timedelta(hours=hours))
    return decision(n, state="resolved", answer=answer)


def history() -> list[Decision]:
    overridden = planner_answered(3, 20, "docs/refunds.md", review="overridden")
    override = Correction(
        kind="override",
        previous=overridden.answer,  # type: ignore[arg-type]
        answer=Answer(value="b", kind="option", by="alice", at=T0 + timedelta(hours=5)),
        by="alice",
        at=T0 + timedelta(hours=5),
    )
    return [
        planner_answered(1, 10, "docs/refunds.md"),
        planner_answered(2, 30, "PLAN.md", review="pending"),
        overridden.model_copy(update={"corrections": [override]}),
        planner_answered(4, 20, "docs/refunds.md"),
        person_answered(5, 4),
        person_answered(6, 8),
        person_answered(7, 12),
        person_answered(8, 16),
        decision(9),  # still open
    ]


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
