"""Which decisions ``list`` selects, and in which order: the query rules every surface shares.

Pure: a query is built from what the caller gave (checked here, so every surface refuses the same
bad input with the same words) and then judges decisions one at a time, so a caller can stream them.
Its types are ``NamedTuple``s rather than dataclasses, which compile their methods when ``list`` loads them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, NamedTuple

from parkbot.core.errors import InvalidInput
from parkbot.core.models import Decision, utcnow

if TYPE_CHECKING:
    from parkbot.core.durations import Duration

__all__ = ["Awaiting", "ListQuery", "ListState", "Since"]

#: What ``list`` accepts as a state.
ListState = Literal["open", "resolved", "abandoned", "all"]
#: What ``list --awaiting`` accepts: questions with the planner, or planner answers waiting for review.
Awaiting = Literal["planner", "review"]


class Since(NamedTuple):
    """``answered_since`` as the caller gave it, resolved against the clock when the list is read."""

    value: Duration | timedelta | datetime | str

    def moment(self, now: datetime) -> datetime:
        from parkbot.core.durations import Duration, moment  # only a list with answered_since reads a duration

        value = self.value
        if isinstance(value, datetime):
            return value
        if isinstance(value, str):
            return moment(value, now, what="answered_since")
        return Duration.of(value, what="answered_since").before(now, what="answered_since")


class ListQuery(NamedTuple):
    """Which decisions ``list`` shows, and in which order."""

    state: ListState
    owner: str | None
    origin: str | None
    since: datetime | None
    awaiting: Awaiting | None = None
    now: datetime | None = None

    @classmethod
    def of(
        cls,
        state: ListState | None,
        owner: str | None,
        origin: str | None,
        answered_since: Duration | timedelta | datetime | str | None,
        now: datetime | None,
        awaiting: Awaiting | None = None,
    ) -> ListQuery:
        since = None if answered_since is None else Since(answered_since).moment(now or utcnow())
        wanted = state or ("all" if since is not None else "open")
        if wanted not in ("open", "resolved", "abandoned", "all"):
            raise InvalidInput(f"state {wanted!r}: choose one of open, resolved, abandoned, all")
        folded = None if owner is None else owner.casefold()
        if awaiting is not None and awaiting not in ("planner", "review"):
            raise InvalidInput(f"awaiting {awaiting!r}: choose planner or review")
        return cls(wanted, folded, None if origin is None else origin.lower(), since, awaiting, now or utcnow())

    @property
    def stored_state(self) -> Literal["open", "resolved", "abandoned"] | None:
        """The state to read from the backlog (None: every state)."""
        return None if self.state == "all" else self.state

    def select(self, decisions: Iterable[Decision]) -> Iterator[Decision]:
        """The decisions the query shows, as they are read (sort them by :meth:`order`)."""
        return (d for d in decisions if self.matches(d))

    def matches(self, d: Decision) -> bool:
        return (
            self.state in ("all", d.state)  # an unverified answer reads as open (see parkbot.core.authority)
            and (self.owner is None or d.owner.casefold() == self.owner)
            and (self.origin is None or fnmatch.fnmatchcase(d.origin, self.origin))
            and (self.since is None or (d.answer is not None and d.answer.at >= self.since))
            and self._awaits(d)
        )

    def _awaits(self, d: Decision) -> bool:
        if self.awaiting is None:
            return True
        from parkbot.core import planner as planner_rules  # ``--awaiting`` only: plain listing loads no planner

        if self.awaiting == "planner":
            return planner_rules.awaiting_planner(d, self.now or utcnow())
        return planner_rules.review_pending(d)

    def order(self, d: Decision) -> tuple[datetime, str]:
        """Oldest first: by answer time with ``answered_since``, else by filing time."""
        if self.since is not None:
            return (d.answer.at if d.answer else d.updated_at, d.id)
        return (d.created_at, d.id)

    def empty(self) -> str:
        """What the list says when it selects nothing."""
        since = f" answered since {self.since.isoformat()}" if self.since is not None else ""
        if self.awaiting == "planner":
            since += " waiting for the planner"
        elif self.awaiting == "review":
            since += " with a planner answer to review"
        return f"no {'' if self.state == 'all' else self.state + ' '}decisions{since}"
