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
    cluster_key: str
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

    @classmethod
    def of(cls, decision: Decision, url: str | None = None) -> Fact:
        answer = decision.answer
        is_open = decision.state == "open"
        return cls(
            id=decision.id,
            kind=decision.kind,
            state=decision.state,
            origin=decision.origin,
            key=decision.key,
            run=decision.run,
            owner=decision.owner,
            question=decision.question,
            cluster_key=cluster_key(decision.question),
            blocking=decision.blocking,
            escalated=bool(decision.escalations),
            guess=decision.guess,
            created_at=as_utc(decision.created_at),
            updated_at=as_utc(decision.updated_at),
            answer_at=as_utc(answer.at) if answer is not None else None,
            answer_kind=answer.kind if answer is not None else None,
            answer_value=answer.value if answer is not None else None,
            title=decision.title if is_open else "",
            dependents=tuple(decision.dependents) if is_open else (),
            url=url,
        )

    @property
    def answered(self) -> bool:
        """Resolved with an answer: what time to answer and the answer split count."""
        return self.state == "resolved" and self.answer_at is not None
