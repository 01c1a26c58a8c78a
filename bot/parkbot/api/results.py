"""What every command prints with ``--json``: one model per kind of outcome, each with its text for people.

``model_dump(mode="json")`` of a result is exactly the matching command's ``--json``; ``text()`` is what
it prints otherwise, and ``exit_code`` what it exits with (:mod:`parkbot.core.errors`).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from parkbot.core.errors import ExitCode
from parkbot.core.models import Answer, Citation, Decision, DecisionKind, DecisionState, Option, Override
from parkbot.core.tracker import GateResult, Location
from parkbot.details import Shown, detail_lines

if TYPE_CHECKING:  # what the acts return, read by the results they make (the read commands load no act)
    from parkbot.core.lifecycle.outcomes import ParkOutcome, ResolveOutcome
    from parkbot.core.planner import CorrectionOutcome

__all__ = [
    "FILED_SHOWN",
    "LOCATION_SHOWN",
    "Cited",
    "Corrected",
    "DecisionItem",
    "DecisionList",
    "DecisionView",
    "Filed",
    "GateReport",
    "Inventory",
    "Requested",
    "Resolved",
    "ResumeContext",
    "Synced",
    "location_fields",
    "location_of",
    "where",
]


class _Result(BaseModel):
    """A command's outcome: ``model_dump(mode="json")`` is its ``--json``, ``text()`` its output for people."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    _text: str = PrivateAttr(default="")

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK

    def text(self) -> str:
        return self._text

    def _told(self, text: str, shown: Shown | None = None, *, indent: str = "  ", last: str | None = None) -> Self:
        """The text: ``text`` for people, then every other field of the ``--json`` object (:mod:`parkbot.details`;
        ``shown`` names the fields ``text`` already shows), then ``last``."""
        details = detail_lines(self.model_dump(mode="json", by_alias=True), shown, indent)
        self._text = "\n".join([text, *details, *([last] if last is not None else [])])
        return self


class _Located(_Result):
    """Where a decision lives: ``number``/``url`` on GitHub, ``ref``/``path`` in git."""

    backend: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None
    url: str | None = None


def location_fields(location: Location) -> dict[str, Any]:
    return {
        "backend": location.backend,
        "ref": location.ref,
        "path": location.path,
        "number": location.number,
        "url": location.url,
    }


def where(location: Location) -> str:
    if location.url:
        return f"#{location.number} {location.url}"
    return f"{location.ref or ''}:{location.path or ''}"


class GateReport(_Result):
    """Whether a dependent may proceed (``open``) or waits for decisions (``blocked``, exit 1)."""

    target: str
    state: Literal["open", "blocked"]
    blocking: list[str] = Field(description="Ids of the open decisions it waits for.")
    resolved: list[str] = Field(description="Ids of the linked decisions already answered.")
    note: str | None = None

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.BLOCKED if self.state == "blocked" else ExitCode.OK

    @classmethod
    def of(cls, result: GateResult) -> GateReport:
        report = cls(
            target=result.target,
            state=result.state,
            blocking=[d.id for d in result.blocking],
            resolved=[d.id for d in result.resolved],
            note=result.note or None,
        )
        shown = {"target": None, "state": None, "blocking": None}
        if not result.blocking:
            return report._told(f"{result.target}: open (no open decision blocks it)", shown)
        lines = [f"{result.target}: blocked by {len(result.blocking)} open decision(s)"]
        lines += [f"  {d.id}  {d.title}  (owner {d.owner})" for d in result.blocking]
        return report._told("\n".join(lines), shown)


#: What the first line of a filed or answered item shows (its location is shown there too, for a filing).
LOCATION_SHOWN: Shown = {"ref": None, "path": None, "number": None, "url": None}
FILED_SHOWN: Shown = {"id": None, "action": None, "owner": None, **LOCATION_SHOWN}


class Filed(_Located):
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


class Resolved(_Located):
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


class Cited(_Located):
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


class Corrected(_Located):
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


class Requested(_Located):
    """An owner's act left as their own comment command, for parkbot to record (GitHub, run with a
    person's token: only parkbot's own records carry authority there, and the comment is the owner's own)."""

    id: str
    action: Literal["requested"] = "requested"
    command: str = Field(description="The comment command posted, e.g. `/decide full_original`.")
    by: str = Field(description="Whose comment it is: the owner of the token.")
    comment: str = Field(description="The comment's address.")


class Inventory(_Result):
    """A finished run's inventory, checked against the backlog: every listed decision is in it."""

    origin: str
    status: Literal["done", "failed"]
    none: bool
    decisions: list[str]
    missing: list[str] = Field(default_factory=list)


class DecisionItem(Decision):
    """A stored decision as ``list`` shows it, with the chain of owners it went through."""

    model_config = ConfigDict(
        extra="forbid", defer_build=True, serialize_by_alias=True, validate_by_name=True, validate_by_alias=True
    )
    # ``chain`` in JSON; named otherwise here because Decision.chain() computes it.
    owners_chain: list[str] = Field(
        alias="chain", description="Owners the question travelled through, first to current."
    )
    # ``problems`` in JSON; named otherwise here because Decision.problems is the private attribute's view.
    found_problems: list[str] = Field(
        default_factory=list,
        alias="problems",
        description="Why parts of the stored record carry no authority (edited by someone else, an unverified "
        "answer): the decision reads as it last verifiably was.",
    )

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK

    @classmethod
    def of(cls, decision: Decision, **extra: Any) -> Any:
        # Built, not validated again: the decision was validated when it was read.
        fields = {name: getattr(decision, name) for name in Decision.model_fields}
        built = {**fields, "owners_chain": decision.chain(), "found_problems": list(decision.problems), **extra}
        return cls.model_construct(**built)


#: What the first lines of ``show`` say; every other field follows as ``key: value`` (:mod:`parkbot.details`).
_VIEWED: Shown = {
    **dict.fromkeys(["id", "state", "title", "chain", "owner", "question", "options", "guess", "dependents"]),
    "problems": None,
    "answer": ("value", "by", "at"),
}


class DecisionView(DecisionItem):
    """One decision as ``show`` shows it: the record, where it lives, and its answer (even one recorded
    by a resolution that has not finished yet)."""

    backend: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None
    url: str | None = None

    def text(self) -> str:
        lines = [f"{self.id}  [{self.state}]  {self.title}", f"owner: {' -> '.join(self.owners_chain)}"]
        if self.requester:
            lines.append(f"requester: {self.requester} (stated by the agent)")
        lines.append(f"question: {self.question}")
        for option in self.options:
            mark = "  (agent's guess)" if option.id == self.guess else ""
            lines.append(f"  - {option.id}: {option.label}{mark}")
        if self.dependents:
            joined = ", ".join(self.dependents)
            lines.append(f"blocks: {joined}" if self.blocking else f"dependents (non-blocking): {joined}")
        lines += [f"problem: {problem}" for problem in self.found_problems]
        step = self.planner
        if step is not None and step.state == "waiting" and self.state == "open":
            lines.append(f"with the planner until {step.until.isoformat()} (its owner is assigned after)")
        elif step is not None and step.state == "passed":
            lines.append(f"passed by the planner {step.by}" + (f": {step.reason}" if step.reason else ""))
        if step is not None and step.answer is not None:
            lines.append(f"planner answer: {step.answer.value} by {step.answer.by} (review: {step.review})")
            for cited in step.answer.sources:
                if cited.decision:
                    lines.append(f"  cited {cited.decision}: {cited.answer} by {cited.answered_by}")
                else:
                    lines.append(f"  cited {cited.source} at {cited.commit}:")
                    lines += [f"  | {line}" for line in (cited.quote or "").splitlines()]
        for change in self.corrections:
            why = f" ({change.reason})" if change.reason else ""
            lines.append(
                f"{'corrected' if change.kind == 'correct' else 'overridden'} by {change.by} at "
                f"{change.at.isoformat()}: {change.previous.value} -> {change.answer.value}{why}"
            )
        data = self.model_dump(mode="json", by_alias=True)
        if self.answer is not None:
            flag = " [explicit default: an assumption]" if self.answer.assumption else ""
            pending = " (recorded; resolution not finished, re-run resolve)" if self.state == "open" else ""
            lines.append(f"answer: {self.answer.value} by {self.answer.by} at {data['answer']['at']}{flag}{pending}")
        return "\n".join([*lines, *detail_lines(data, _VIEWED, indent="")])


class DecisionList(_Result):
    """Decisions, oldest first (by answer time with ``answered_since``, else by filing time)."""

    decisions: list[DecisionItem]
    count: int


class ResumeContext(_Result):
    """What a fresh session needs to continue: the question, the answer and how it was given, the work.

    ``exit_code`` is 1 while the question is still open.
    """

    id: str
    state: DecisionState
    question: str
    options: list[Option]
    answer: str | None
    answered_by: str | None
    answered_at: datetime | None
    assumption: bool = Field(description="The answer is an explicit default: treat it as an assumption.")
    precedent: Citation | None = Field(description="Where a precedent answer came from.")
    guess: str | None
    overrides: list[Override]
    work_so_far: Any = Field(description="What the agent preserved, verbatim.")

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.BLOCKED if self.state == "open" else ExitCode.OK

    @classmethod
    def of(cls, decision: Decision) -> ResumeContext:
        answer = decision.current_answer  # a corrected answer replaces the first one
        context = cls(
            id=decision.id,
            state=decision.state,
            question=decision.question,
            options=decision.options,
            answer=answer.value if answer else None,
            answered_by=answer.by if answer else None,
            answered_at=answer.at if answer else None,
            assumption=bool(answer and answer.assumption),
            precedent=answer.citation if answer else None,
            guess=decision.guess,
            overrides=decision.overrides,
            work_so_far=decision.work_so_far,
        )
        lines = [f"{decision.id} [{decision.state}]", f"question: {decision.question}"]
        if answer is None:
            lines.append("answer: none yet")
        else:
            how = " (explicit default: an assumption)" if answer.assumption else ""
            if answer.citation:
                how = f" (from precedent {answer.citation.decision})"
            at = context.model_dump(mode="json")["answered_at"]
            lines.append(f"answer: {answer.value} by {answer.by} at {at}{how}")
        work = "work_so_far: " + json.dumps(decision.work_so_far, indent=2, ensure_ascii=False, default=str)
        shown = dict.fromkeys(["id", "state", "question", "answer", "answered_by", "answered_at", "work_so_far"])
        return context._told("\n".join(lines), shown, indent="", last=work)


class Synced(_Result):
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


def location_of(result: _Located) -> Location:
    """Where a result says its decision lives."""
    return Location(result.backend, result.ref, result.path, result.number, result.url)


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.api import prebuilt_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)
