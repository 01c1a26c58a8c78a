"""A recorded history whose every figure is known in advance, for the report's and the dashboard's tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from parkbot.core.models import Answer, AnswerKind, Decision, DecisionKind, DecisionState, Escalation, Option

NOW = datetime(2024, 6, 30, 12, 0, tzinfo=UTC)  # a Sunday, in ISO week 2024-W26


SINCE = datetime(2024, 6, 1, tzinfo=UTC)  # a Saturday, in ISO week 2024-W22


SCRIPT = "Should the banner say <script>alert('pwned')</script> & @everyone?"


def at(day: int, hour: int = 10, month: int = 6) -> datetime:
    return datetime(2024, month, day, hour, tzinfo=UTC)


def make(
    origin: str,
    key: str,
    question: str,
    created: datetime,
    *,
    run: str | None = None,
    state: DecisionState = "open",
    answer: str | None = None,
    answer_kind: AnswerKind = "option",
    after: timedelta | None = None,
    guess: str | None = None,
    owner: str = "alice",
    escalated: bool = False,
    dependents: tuple[str, ...] = (),
    blocking: bool = True,
    kind: DecisionKind = "decision",
    title: str | None = None,
) -> Decision:
    answered = None
    if answer is not None:
        answered = Answer(value=answer, kind=answer_kind, by="bob", at=created + (after or timedelta(hours=1)))
    escalations = [Escalation(from_owner="carol", to_owner=owner, by="carol", at=created)] if escalated else []
    return Decision(
        id=f"{origin}-decision-{key}",
        kind=kind,
        origin=origin,
        key=key,
        title=title or question.splitlines()[0][:120],
        question=question,
        options=[Option(id="remaining", label="remaining"), Option(id="full", label="full")],
        guess=guess,
        run=run,
        dependents=list(dependents),
        blocking=blocking,
        owner=owner,
        state=state,
        answer=answered,
        escalations=escalations,
        created_at=created,
        updated_at=answered.at if answered else created,
    )


REFUND = "Order {id} has {n} line items already refunded. Refund the remaining {m}, or the full original total of {t}?"


def history() -> list[Decision]:
    """Twelve questions in the window, with every figure known in advance (see the tests)."""
    h = timedelta(hours=1)
    return [
        # Cluster A: one question, four askers in three origins, text differing only in numbers and ids.
        make(
            "billing-1",
            "refund",
            REFUND.format(id="A-4471", n=2, m=3, t="690.00"),
            at(1),
            state="resolved",
            answer="remaining",
            after=1 * h,
            guess="remaining",
        ),
        make(
            "billing-2",
            "refund-choice",
            REFUND.format(id="B-12", n=4, m=1, t="35.50"),
            at(4),
            state="resolved",
            answer="full",
            after=2 * h,
            guess="remaining",
        ),
        make(
            "billing-3",
            "partial-refund",
            REFUND.format(id="c-9", n=1, m=7, t=12).lower().replace(" has", "   has"),
            at(5),
            state="resolved",
            answer="REMAINING",
            after=3 * h,
            guess="remaining",
        ),
        make(
            "billing-3",
            "partial-refund-2",
            REFUND.format(id="D-77", n=5, m=2, t="1,250.00"),
            at(18),
            run="r2",
            state="resolved",
            answer="remaining",
            answer_kind="precedent",
            after=4 * h,
            guess="full",
        ),
        # Cluster B: same key, different words.
        make(
            "deploy-1",
            "db-region",
            "Which region should the database live in?",
            at(6),
            state="resolved",
            answer="eu",
            answer_kind="default",
            after=5 * h,
            guess="eu",
        ),
        make(
            "deploy-2",
            "db-region",
            "Pick a region for the new Postgres instance.",
            at(19),
            state="resolved",
            answer="us",
            after=6 * h,
            guess="eu",
            escalated=True,
        ),
        # Same text twice, but from one origin and run: that run's problem, not a template gap.
        make(
            "etl-1",
            "fmt-a",
            "Use CSV or Parquet for export 1?",
            at(20),
            state="resolved",
            answer="csv",
            after=7 * h,
            guess="csv",
        ),
        make(
            "etl-1",
            "fmt-b",
            "Use CSV or Parquet for export 2?",
            at(21),
            state="resolved",
            answer="csv",
            after=8 * h,
            guess="csv",
        ),
        # Answered without a guess: counts for time to answer, not for guess-vs-answer.
        make(
            "misc-1",
            "go",
            "Go ahead with the migration?",
            at(22),
            state="resolved",
            answer="yes",
            answer_kind="free_text",
            after=10 * h,
        ),
        # Still open, and an unrelated singleton with hostile text.
        make("docs-1", "banner", SCRIPT, at(24), owner="@org/design", dependents=("#12", "branch:agent/docs-1")),
        make("docs-2", "tone", "Formal or casual tone for the changelog?", at(26), blocking=False),
        make("docs-3", "drop", "Drop the legacy endpoint?", at(27), state="abandoned"),
        # Outside the window: asked before it (still open), asked after "now".
        make("old-1", "ancient", "Keep the v1 API alive?", at(1, month=5), owner="dave"),
        make("future-1", "later", "Not asked yet?", NOW + timedelta(days=1)),
        # A review item: not a question.
        make("rev-1", "assumptions", "Assumed UTC everywhere.", at(25), kind="review", blocking=False),
    ]


REFUSALS: list[dict[str, Any]] = [
    {"at": at(10), "origin": "billing-9", "run": None, "reason": "per_origin_cap"},
    {"at": at(11).isoformat(), "origin": "billing-9", "run": "r1", "reason": "per_run_cap"},
    {"at": at(2, month=5), "origin": "old", "run": None, "reason": "per_origin_cap"},  # before the window
    {"type": "park", "at": at(12), "origin": "x", "run": None, "reason": "not a refusal"},
]
