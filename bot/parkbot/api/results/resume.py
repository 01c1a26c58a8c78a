"""``resume`` and ``wait``: what a fresh session needs to continue."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from parkbot.api.results.base import ResultBase
from parkbot.core.errors import ExitCode
from parkbot.core.modeling import Field
from parkbot.core.models import Citation, Decision, DecisionState, Option, Override

__all__ = ["ResumeContext"]


class ResumeContext(ResultBase):
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


# Last, once every model exists: validators from schemas generated ahead of time (parkbot.core.prebuilt).
from parkbot.api.results import prebuilt_resume_schemas as _generated  # noqa: E402
from parkbot.core.prebuilt import install_from  # noqa: E402

install_from(_generated)
