"""What the acts return: ``park``, ``resolve``, ``escalate``, ``return``, ``accept``, ``override``, ``cite``,
``correct``, an act left as a comment, an inventory checked, and ``sync``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from parkbot.api.results.base import LocatedResult, ResultBase, location_fields
from parkbot.api.results.gate import GateReport
from parkbot.core.errors import ExitCode
from parkbot.core.modeling import Field
from parkbot.core.models import Answer, Citation, DecisionKind, DecisionState

if TYPE_CHECKING:  # what the acts return, read by the results they make (the read commands load no act)
    from parkbot.core.lifecycle.outcomes import ParkOutcome, ResolveOutcome
    from parkbot.core.planner import CorrectionOutcome

__all__ = ["Cited", "Corrected", "Filed", "Inventory", "Requested", "Resolved", "Synced"]


class Filed(LocatedResult):
    """A decision or review item as filed or moved: ``park``, ``escalate``, ``return``, ``override``."""

    id: str
    kind: DecisionKind
    action: Literal["created", "updated", "unchanged"]
    state: DecisionState
    owner: str
    chain: list[str] = Field(description="Owners the question travelled through, first to current.")
    gates: list[GateReport] = Field(default_factory=list)
    precedent: Citation | None = None
    answer: Answer | None = None

    @classmethod
    def of(cls, outcome: ParkOutcome) -> Filed:
        decision = outcome.decision
        return cls(
            id=decision.id,
            kind=decision.kind,
            action=outcome.action,
            state=decision.state,
            owner=decision.owner,
            chain=decision.chain(),
            **location_fields(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
            precedent=decision.precedent,
            answer=decision.answer,
        )


class Resolved(LocatedResult):
    """An answered decision or accepted review item: ``resolve``, ``accept``."""

    id: str
    action: Literal["resolved", "completed", "unchanged", "confirmed"]
    state: Literal["resolved"] = "resolved"
    answer: Answer
    assumption: bool = Field(description="The answer is an explicit default: treat it as an assumption.")
    gates: list[GateReport] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: ResolveOutcome) -> Resolved:
        return cls(
            id=outcome.decision.id,
            action=outcome.action,
            answer=outcome.answer,
            assumption=outcome.answer.assumption,
            **location_fields(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
        )


class Cited(LocatedResult):
    """A planner's answer from checked sources (``cite``): recorded, and a review item for the owner."""

    id: str
    action: Literal["resolved", "completed", "unchanged", "recorded", "confirmed"]
    state: DecisionState
    answer: Answer
    answered_by: Literal["planner"] = "planner"
    review: str | None = Field(default=None, description="pending until the owner accepts or overrides it.")
    gates: list[GateReport] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: ResolveOutcome) -> Cited:
        decision = outcome.decision
        action = "recorded" if decision.state == "open" and outcome.action == "unchanged" else outcome.action
        cited = cls(
            id=decision.id,
            action=action,
            state=decision.state,
            answer=outcome.answer,
            review=decision.planner.review if decision.planner else None,
            **location_fields(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
        )
        sources = "; ".join(
            f"{s.source} at {s.commit[:12]}" if s.commit else f"{s.source} ({s.answer!r} by {s.answered_by})"
            for s in outcome.answer.sources
        )
        waits = " (waits for the owner's accept)" if decision.state == "open" else ""
        lines = [f"{cited.action} {cited.id}: {outcome.answer.value!r} by the planner {outcome.answer.by}{waits}"]
        lines.append(f"  cited: {sources}")
        lines += [f"  | {line}" for s in outcome.answer.sources if s.quote for line in s.quote.splitlines()]
        return cited._told("\n".join(lines))


class Corrected(LocatedResult):
    """An answer replaced (``correct``, or ``override`` of a planner answer); history keeps both."""

    id: str
    action: Literal["corrected", "overridden", "unchanged"]
    answer: Answer
    previous: Answer | None = None
    regated: list[str] = Field(default_factory=list, description="Dependents not merged: re-gated on the answer.")
    rework: list[str] = Field(default_factory=list, description="Dependents already merged: told to rework.")
    gates: list[GateReport] = Field(default_factory=list)

    @classmethod
    def of(cls, outcome: CorrectionOutcome) -> Corrected:
        corrected = cls(
            id=outcome.decision.id,
            action=outcome.action,
            answer=outcome.answer,
            previous=outcome.previous,
            regated=outcome.regated,
            rework=outcome.rework,
            **location_fields(outcome.location),
            gates=[GateReport.of(g) for g in outcome.gates],
        )
        was = f" (was {outcome.previous.value!r})" if outcome.previous else ""
        text = f"{corrected.action} {corrected.id}: {outcome.answer.value!r} by {outcome.answer.by}{was}"
        if corrected.rework:
            text += f"\n  rework needed: {', '.join(corrected.rework)} (merged with the previous answer)"
        return corrected._told(text)


class Requested(LocatedResult):
    """An owner's act left as their own comment command, for parkbot to record (GitHub, run with a
    person's token: only parkbot's own records carry authority there, and the comment is the owner's own)."""

    id: str
    action: Literal["requested"] = "requested"
    command: str = Field(description="The comment command posted, e.g. `/decide full_original`.")
    by: str = Field(description="Whose comment it is: the owner of the token.")
    comment: str = Field(description="The comment's address.")


class Inventory(ResultBase):
    """A finished run's inventory, checked against the backlog: every listed decision is in it."""

    origin: str
    status: Literal["done", "failed"]
    none: bool
    decisions: list[str]
    missing: list[str] = Field(default_factory=list)


class Synced(ResultBase):
    """What ``sync`` did with the remote: ``up-to-date``, ``fetched``, ``pushed`` or ``merged``."""

    remote: str
    action: str
    ignored: list[str] = Field(
        default_factory=list,
        description="Remote records kept but not counted: answers and escalations nobody can prove an owner gave.",
    )
    conflicts: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Decisions two owners answered differently on two copies: the answer kept (the earlier) and "
        "the other (kept in the history), each with value, kind, by and at. Exit code 3 when any.",
    )

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.REFUSED if self.conflicts else ExitCode.OK


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.api.results import prebuilt_acts_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)
