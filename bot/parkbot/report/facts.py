"""What the report keeps of each decision while it reads the backlog: the fields its figures read.

A backend yields decisions one at a time (the git backlog parses one file per decision). The report
keeps a small :class:`Fact` of each instead of the whole :class:`~parkbot.core.models.Decision` (its
options, work so far, comments, ...), so a decision is freed as soon as the next one is read and the
report's memory grows by a few hundred bytes per decision, not by the size of the backlog.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

from parkbot.core.models import Decision
from parkbot.core.questions import cluster_key


def as_utc(value: datetime) -> datetime:
    """Aware UTC; a naive timestamp is taken to be UTC already."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Fact(NamedTuple):
    """One decision, as much of it as the report needs. Timestamps are aware UTC.

    ``title`` and ``dependents`` are kept for open decisions only (the oldest-open list shows them).
    A named tuple: immutable, small, and quick to make ten thousand of.
    """

    id: str
    kind: str
    state: str
    origin: str
    key: str
    run: str | None
    owner: str
    question: str
    blocking: bool
    escalated: bool
    guess: str | None
    created_at: datetime
    updated_at: datetime
    answer_at: datetime | None
    answer_kind: str | None
    answer_value: str | None
    title: str
    dependents: tuple[str, ...]
    url: str | None
    #: When the planner answered, its review state, and what it cited (a file by path, a decision by id).
    planner_at: datetime | None = None
    planner_review: str | None = None
    cited: tuple[str, ...] = ()

    @classmethod
    def of(cls, decision: Decision, url: str | None = None) -> Fact:
        answer = decision.answer
        is_open = decision.state == "open"
        return cls(  # by position: a named tuple built from keywords costs twice as much
            decision.id,
            decision.kind,
            decision.state,
            decision.origin,
            decision.key,
            decision.run,
            decision.owner,
            decision.question,
            decision.blocking,
            bool(decision.escalations),
            decision.guess,
            as_utc(decision.created_at),
            as_utc(decision.updated_at),
            as_utc(answer.at) if answer is not None else None,
            answer.kind if answer is not None else None,
            answer.value if answer is not None else None,
            decision.title if is_open else "",
            tuple(decision.dependents) if is_open else (),
            url,
            _planner_at(decision),
            decision.planner.review if decision.planner is not None else None,
            _cited(decision),
        )

    @property
    def cluster_key(self) -> str:
        """The question's :func:`~parkbot.core.questions.cluster_key`, computed when read: only the questions
        asked in the report's window are clustered, and it costs more than the rest of the fact."""
        return cluster_key(self.question)

    @property
    def answered(self) -> bool:
        """Resolved with an answer: what time to answer and the answer split count."""
        return self.state == "resolved" and self.answer_at is not None


def _planner_at(decision: Decision) -> datetime | None:
    step = decision.planner
    return as_utc(step.at) if step is not None and step.answer is not None and step.at is not None else None


def _cited(decision: Decision) -> tuple[str, ...]:
    """What a planner answer cited: a file by its path, a decision by its id."""
    step = decision.planner
    if step is None or step.answer is None:
        return ()
    return tuple(dict.fromkeys(s.path or s.decision or s.source for s in step.answer.sources))
