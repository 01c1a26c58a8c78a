"""What each act of the lifecycle returns, and what they share: the question-log line and the retry count."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.core.tracker import GateResult, Location

if TYPE_CHECKING:
    from parkbot.core.dashboard_index import Changed

ParkAction = Literal["created", "updated", "unchanged"]
ResolveAction = Literal["resolved", "completed", "unchanged", "confirmed"]
#: How the owner answered: ``decide`` names an option, ``answer`` gives text, ``default`` an assumption.
Command = Literal["decide", "answer", "default", "auto"]


@dataclass(frozen=True)
class ParkOutcome:
    """A decision filed, updated or handed on (escalated, returned, passed, expired from the planner)."""

    decision: Decision
    action: ParkAction
    location: Location
    gates: list[GateResult] = field(default_factory=list)
    #: Whether the act handed the decision to another owner (``escalate``, ``return``).
    moved: bool = False
    #: Whether the decision was open before the act (not when an abandoned one is filed again).
    was_open: bool = True

    @property
    def changed(self) -> Changed | None:
        """Its dashboard line: a new decision was not open before; an unchanged one needs nothing."""
        from parkbot.core.dashboard_index import Changed  # read by the dashboard only: a command never loads it

        if self.action == "unchanged":
            return None
        was_open = self.was_open and self.action != "created"
        return Changed(decision_id=self.decision.id, was_open=was_open, moved=self.moved)


@dataclass(frozen=True)
class ResolveOutcome:
    """An answer recorded (``resolved``), a stopped resolution finished (``completed``), or nothing to do."""

    decision: Decision
    action: ResolveAction
    answer: Answer
    location: Location
    gates: list[GateResult] = field(default_factory=list)

    @property
    def changed(self) -> Changed | None:
        """Its dashboard line: an answer takes an open decision off it; an unchanged one needs nothing."""
        from parkbot.core.dashboard_index import Changed

        return None if self.action == "unchanged" else Changed(decision_id=self.decision.id)


def log_entry(event: str, decision: Decision, now: datetime, **extra: Any) -> LogEntry:
    """A question-log line carrying what precedents and the report need."""
    answer = decision.answer
    answered = {
        "answer": answer.value if answer else None,
        "answer_kind": answer.kind if answer else None,
        "by": answer.by if answer else None,
    }
    return LogEntry.for_decision(event, decision, now, **{**answered, **extra})


#: How often ``park`` re-reads after another writer created the same decision between our read and write.
PARK_ATTEMPTS = 5


#: The command that re-records an answer of each kind (``Answer.same_answer`` compares kinds too).
COMMAND_FOR_KIND: dict[str, Command] = {"option": "decide", "free_text": "answer", "default": "default"}
