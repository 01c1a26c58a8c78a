"""What the decision dashboard lists, and how it is kept current without re-reading the backlog. Pure.

The dashboard issue carries, hidden in its body, the :class:`DashboardIndex` it was rendered from: one
:class:`DashboardEntry` per open decision it lists, the open count per owner, and the whole-backlog
figures of the last recount. Two rules keep it current, and only the first one reads every decision:

* :func:`recount` builds the index from every decision. The scheduled reconcile (``schedule``,
  ``workflow_dispatch``) and ``parkbot dashboard`` do it, and only they compute the figures that need
  the whole backlog (the 30-day numbers), which therefore say when they were computed.
* :func:`patch` applies one event's changes: each outcome of the lifecycle says what it changed (a
  :class:`Changed`), the event hands over each changed decision as it last read or wrote it, and only
  those entries are replaced, added or removed. So an event costs the same with ten decisions or ten
  thousand.

The index is bounded (:data:`PER_OWNER` per owner, :data:`MAX_LISTED` in all, oldest first: the
oldest questions are the most urgent) so that it fits in an issue body with the text it renders. When
it lists every open decision it is ``complete`` and its counts are exact. When it does not, the counts
of the decisions it does not list come from the last recount, kept current by what each outcome says
it changed (was the decision open before, did it move to another owner), and the next recount makes
them exact again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from parkbot.core.figures import DashboardFigures
from parkbot.core.modeling import (
    ConfigDict,
    Field,
    Model,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_serializer,
    field_validator,
)
from parkbot.core.models import Decision

#: Decisions listed per owner; the rest of an owner's are counted, not listed.
PER_OWNER = 50
#: Decisions listed in all (the index rides in the issue body, which GitHub caps at 65,536 characters).
MAX_LISTED = 250
#: What writing the dashboard did (``absent``: there was none, and none was to be made).
DashboardWrite = Literal["created", "updated", "unchanged", "absent"]


class _Frozen(Model):
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)


class DashboardEntry(_Frozen):
    """One open decision as the dashboard lists it: what its line shows, nothing more."""

    id: str
    title: str
    owner: str
    created_at: datetime
    blocking: bool = True
    dependents: tuple[str, ...] = ()
    #: Owners the question travelled through, first to current (only when it was escalated or returned).
    chain: tuple[str, ...] = ()
    review: bool = False
    #: ``waiting``: with the planner (its owner is not notified yet); ``review``: a planner answer to review.
    planner: Literal["waiting", "review"] | None = None
    #: When an unreviewed planner answer gets flagged.
    review_due: datetime | None = None

    @property
    def blocks_work(self) -> bool:
        """A blocking decision that something depends on."""
        return self.blocking and bool(self.dependents)

    @classmethod
    def of(cls, decision: Decision) -> DashboardEntry:
        return cls(
            id=decision.id,
            title=decision.title,
            owner=decision.owner,
            created_at=decision.created_at,
            blocking=decision.blocking,
            dependents=tuple(decision.dependents),
            chain=tuple(decision.chain()) if decision.escalations else (),
            review=decision.kind == "review",
            **_planner_fields(decision),
        )


def _planner_fields(decision: Decision) -> dict[str, Any]:
    step = decision.planner
    if decision.with_planner:
        return {"planner": "waiting"}
    if step is not None and step.answer is not None and step.review == "pending":
        return {"planner": "review", "review_due": step.review_due}
    return {}


def is_listed(decision: Decision) -> bool:
    """What the dashboard lists: open decisions, and planner answers their owner has not reviewed yet."""
    step = decision.planner
    return decision.state == "open" or (step is not None and step.answer is not None and step.review == "pending")


class DashboardIndex(_Frozen):
    """The open decisions a dashboard lists, the counts, and the figures of its last recount."""

    #: Listed entries, oldest first.
    entries: tuple[DashboardEntry, ...] = ()
    #: Open decisions per owner (listed or not).
    totals: dict[str, int] = Field(default_factory=dict)
    #: Open decisions that block work (blocking, with a dependent).
    blocking_work: int = 0
    #: Whether ``entries`` are every open decision (then the counts are exact).
    complete: bool = True
    #: When every decision was last read (None: never, the index was built from events alone).
    recounted_at: datetime | None = None
    #: The whole-backlog figures of that recount (None: none yet, or ones another version wrote and this one
    #: cannot read; they are shown again after the next recount).
    figures: DashboardFigures | None = None

    @field_validator("figures", mode="wrap")
    @classmethod
    def _readable_figures(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> DashboardFigures | None:
        try:
            figures: DashboardFigures | None = handler(value)
        except ValidationError:  # the figures of another version: the list is still good
            return None
        return figures

    @field_serializer("figures")
    def _every_figure(self, figures: DashboardFigures | None) -> dict[str, Any] | None:
        """Every figure, the empty ones too: the index keeps the form it always had in the issue body."""
        return figures.model_dump(mode="json") if figures is not None else None

    @property
    def open_count(self) -> int:
        return sum(self.totals.values())

    def entry(self, decision_id: str) -> DashboardEntry | None:
        return next((e for e in self.entries if e.id == decision_id), None)

    def owners(self) -> list[str]:
        """Owners with an open decision, the busiest first (then by name)."""
        return sorted((o for o, n in self.totals.items() if n > 0), key=lambda o: (-self.totals[o], o.casefold(), o))

    def to_data(self) -> dict[str, Any]:
        return {"v": 1, **self.model_dump(mode="json", exclude_defaults=True)}

    @classmethod
    def from_data(cls, data: Any) -> DashboardIndex:
        """The index ``to_data`` wrote; ``ValueError`` (pydantic's included) for anything else."""
        if not isinstance(data, Mapping) or data.get("v") != 1:
            raise ValueError("not a version-1 dashboard index")
        return cls.model_validate(data)


class Changed(_Frozen):
    """What one act did to a decision's line on the dashboard: which decision, was it open before, and did
    the act hand it to another owner.

    The lifecycle's outcomes say it themselves (``ParkOutcome.changed``, ``ResolveOutcome.changed``,
    ``HandOutcome.changed``, ``CorrectionOutcome.changed``); an event carries what its outcomes said to
    :func:`patch`, so the dashboard never reads what the event printed.
    """

    decision_id: str
    #: Whether the decision was counted as open before the act (a newly parked or a revived one was not).
    was_open: bool = True
    #: Whether the act handed the decision to another owner (``escalate``, ``return``).
    moved: bool = False


def confirmed(decision_id: str, change: Changed | None) -> Changed:
    """A comment command parkbot confirmed as done (``/accept``, ``/cite``, ``/pass``, ``/override <n>`` ...)
    refreshes its decision's line even when the act found nothing left to change (the same ``/accept`` twice)."""
    return change if change is not None else Changed(decision_id=decision_id)


def gone(decision_id: str) -> Changed:
    """A decision whose issue left the repository (transferred, deleted): its line is refreshed from what the
    event last saw of it (usually nothing, and then :func:`patch` leaves the line as it is)."""
    return Changed(decision_id=decision_id)


def merged(changes: Iterable[Changed | None]) -> list[Changed]:
    """One change per decision, in the order first seen (none: the dashboard needs no patch).

    The first change of a decision says whether it was open before the event; any of them may have moved it.
    """
    found: dict[str, Changed] = {}
    for change in changes:
        if change is None:
            continue
        seen = found.get(change.decision_id)
        found[change.decision_id] = (
            change if seen is None else seen.model_copy(update={"moved": seen.moved or change.moved})
        )
    return list(found.values())


def recount(decisions: Iterable[Decision], *, now: datetime, figures: DashboardFigures | None) -> DashboardIndex:
    """The index of a full read of every decision (the reconcile, ``parkbot dashboard``)."""
    open_ = [d for d in decisions if is_listed(d)]
    totals = Counter(d.owner for d in open_)
    blocking = sum(1 for d in open_ if d.blocking and d.dependents)
    index = DashboardIndex(totals=dict(totals), blocking_work=blocking, recounted_at=now, figures=figures)
    return _bounded(index, [DashboardEntry.of(d) for d in open_], complete=True)


def patch(index: DashboardIndex | None, changes: Sequence[tuple[Changed, Decision | None]]) -> DashboardIndex:
    """``index`` with each changed decision as it is now (None for ``index``: there was no dashboard yet).

    A decision the caller could not say anything about (``None``) is left as the index has it.
    """
    base = index if index is not None else DashboardIndex(complete=False)
    entries = {e.id: e for e in base.entries}
    totals: Counter[str] = Counter(base.totals)
    blocking = base.blocking_work
    for changed, decision in changes:
        if decision is None:
            continue
        before = entries.pop(changed.decision_id, None)
        if before is not None:
            totals[before.owner] -= 1
            blocking -= before.blocks_work
        elif not base.complete and changed.was_open:
            # Open before but not listed (a bounded index): it is in the counts of the last recount.
            moved_from = decision.escalations[-1].from_owner if changed.moved and decision.escalations else None
            totals[moved_from or decision.owner] -= 1
            blocking -= decision.blocking and bool(decision.dependents)
        if is_listed(decision):
            after = DashboardEntry.of(decision)
            entries[after.id] = after
            totals[after.owner] += 1
            blocking += after.blocks_work
    listed = list(entries.values())
    if base.complete:  # every open decision is listed: count them, exactly
        totals = Counter(e.owner for e in listed)
        blocking = sum(1 for e in listed if e.blocks_work)
    updated = base.model_copy(update={"totals": {o: n for o, n in totals.items() if n > 0}, "blocking_work": blocking})
    return _bounded(updated, listed, complete=base.complete)


def shrink(index: DashboardIndex, keep: int) -> DashboardIndex:
    """At most ``keep`` entries (the oldest), for a body that must leave room; the counts stay."""
    return _bounded(index, list(index.entries), complete=index.complete, limit=keep)


def _bounded(
    index: DashboardIndex, entries: list[DashboardEntry], *, complete: bool, limit: int = MAX_LISTED
) -> DashboardIndex:
    """Keep the oldest :data:`PER_OWNER` of each owner and :data:`MAX_LISTED` in all, busiest owners first."""
    totals = dict(index.totals)
    by_owner: dict[str, list[DashboardEntry]] = {}
    for entry in sorted(entries, key=lambda e: (e.created_at, e.id)):
        by_owner.setdefault(entry.owner, []).append(entry)
    for owner, listed in by_owner.items():
        totals[owner] = max(totals.get(owner, 0), len(listed))
    kept: list[DashboardEntry] = []
    room = min(limit, MAX_LISTED)
    for owner in sorted(by_owner, key=lambda o: (-totals[o], o.casefold(), o)):
        take = by_owner[owner][: min(PER_OWNER, max(room, 0))]
        kept += take
        room -= len(take)
    dropped = len(entries) - len(kept)
    kept.sort(key=lambda e: (e.created_at, e.id))
    blocking = max(index.blocking_work, sum(1 for e in kept if e.blocks_work))
    return index.model_copy(
        update={
            "entries": tuple(kept),
            "totals": totals,
            "blocking_work": blocking,
            "complete": complete and dropped == 0,
        }
    )


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.core import prebuilt_dashboard_index_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)
