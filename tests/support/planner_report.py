"""A constructed history of planner and person answers with known figures (the planner report's tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

from parkbot.core.models import Answer, CitedSource, Correction, Decision, Option, PlannerStep

#: A planner answer's review state.
Review = Literal["pending", "accepted", "overridden"]

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


def planner_answered(n: int, minutes: int, source: str, review: Review = "accepted", **changes: object) -> Decision:
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
