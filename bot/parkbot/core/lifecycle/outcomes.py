"""What each act of the lifecycle returns, and what they share: the question-log line and the retry count.

What an answer returns (:class:`~parkbot.core.lifecycle.resolving.ResolveOutcome`) lives with the resolution
steps, which a park of a new question does not load; it is importable from here as well, loaded on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from parkbot.core.lazy import exports
from parkbot.core.models import Decision, LogEntry
from parkbot.core.tracker import GateResult, Location

if TYPE_CHECKING:
    from parkbot.core.dashboard_index import Changed
    from parkbot.core.lifecycle.resolving import ResolveAction, ResolveOutcome
else:
    __getattr__, __dir__ = exports(
        __name__, dict.fromkeys(("ResolveAction", "ResolveOutcome"), "parkbot.core.lifecycle.resolving")
    )

ParkAction = Literal["created", "updated", "unchanged"]
#: How the owner answered: ``decide`` names an option, ``answer`` gives text, ``default`` an assumption.
Command = Literal["decide", "answer", "default", "auto"]


class ParkOutcome(NamedTuple):
    """A decision filed, updated or handed on (escalated, returned, passed, expired from the planner)."""

    decision: Decision
    action: ParkAction
    location: Location
    gates: Sequence[GateResult] = ()
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

__all__ = [
    "COMMAND_FOR_KIND",
    "PARK_ATTEMPTS",
    "Command",
    "ParkAction",
    "ParkOutcome",
    "ResolveAction",
    "ResolveOutcome",
    "log_entry",
]
