"""``show`` and ``list``: decisions as they are stored, with the chain of owners, where they live, their answer."""

from __future__ import annotations

from typing import Any

from parkbot.api.results.base import ResultBase
from parkbot.core.errors import ExitCode
from parkbot.core.modeling import ConfigDict, Field
from parkbot.core.models import Decision
from parkbot.details import Shown, detail_lines

__all__ = ["DecisionItem", "DecisionList", "DecisionView"]


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
        # Built, not validated again: the decision was validated when it was read. Its fields are what its
        # ``__dict__`` holds (on both model layers): ``model_fields`` would evaluate every annotation first.
        fields = dict(vars(decision))
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


class DecisionList(ResultBase):
    """Decisions, oldest first (by answer time with ``answered_since``, else by filing time)."""

    decisions: list[DecisionItem]
    count: int


class ListedDecisions(DecisionList):
    """``list``'s result over MCP: the command's list, cut at ``limit``, saying when it was cut."""

    truncated: bool = Field(description="Whether more decisions matched than limit; narrow the query or raise limit.")
    total: int = Field(description="How many decisions matched; count is how many are returned.")
    note: str | None = Field(default=None, description="What was left out and how to see it, when truncated.")


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.api.results import prebuilt_decisions_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)
