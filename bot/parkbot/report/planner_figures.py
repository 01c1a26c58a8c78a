"""The planner's figures in the report: how much it answers, how often people overrule it, the waiting it saves,
and what it cites. A high override rate says the planner's sources are wrong, as guess-vs-answer says for agents.

* **share answered**: questions asked in the window that the planner answered, over all answered ones;
* **override rate**: planner answers an owner overrode, over planner answers;
* **time to answer**: median seconds from filing to the planner's answer, and to a person's answer
  (``option``/``free_text``; defaults and precedents are neither), so the waiting saved is their difference;
* **most cited**: sources by how many planner answers cited them (a file by its path, a decision by its id);
* **unreviewed**: planner answers whose owner has not accepted or overridden them yet.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, Field

from parkbot.report.facts import Fact

#: How many sources the report lists.
SOURCES_SHOWN = 5


class CitedCount(BaseModel):
    source: str
    count: int


class PlannerFigures(BaseModel):
    """What the planner did in the report's window (absent when it did nothing)."""

    answered: int = Field(description="Questions the planner answered.")
    answered_total: int = Field(description="Questions answered by anyone (the share's denominator).")
    share: float | None = Field(description="answered / answered_total.")
    overridden: int = Field(description="Planner answers an owner overrode.")
    override_rate: float | None = Field(description="overridden / answered.")
    unreviewed: int = Field(description="Planner answers still waiting for their owner's review.")
    planner_median_seconds: float | None = Field(description="Median time from filing to the planner's answer.")
    people_median_seconds: float | None = Field(description="Median time from filing to a person's answer.")
    saved_seconds: float | None = Field(description="people_median_seconds - planner_median_seconds.")
    most_cited: list[CitedCount] = Field(default_factory=list)


def planner_figures(asked: Iterable[Fact]) -> PlannerFigures | None:
    """The figures over the questions asked in the window; None when the planner answered none of them."""
    planner_times: list[float] = []
    people_times: list[float] = []
    answered_total = overridden = unreviewed = 0
    cited: Counter[str] = Counter()
    for fact in asked:
        if fact.planner_at is not None:
            planner_times.append(max((fact.planner_at - fact.created_at).total_seconds(), 0.0))
            overridden += fact.planner_review == "overridden"
            unreviewed += fact.planner_review == "pending"
            cited.update(dict.fromkeys(fact.cited, 1))
        if fact.answered or fact.planner_at is not None:
            answered_total += 1
        if fact.answered and fact.answer_at is not None and fact.answer_kind in ("option", "free_text"):
            people_times.append(max((fact.answer_at - fact.created_at).total_seconds(), 0.0))
    if not planner_times:
        return None
    answered = len(planner_times)
    planner_median = statistics.median(planner_times)
    people_median = statistics.median(people_times) if people_times else None
    return PlannerFigures(
        answered=answered,
        answered_total=answered_total,
        share=answered / answered_total if answered_total else None,
        overridden=overridden,
        override_rate=overridden / answered,
        unreviewed=unreviewed,
        planner_median_seconds=planner_median,
        people_median_seconds=people_median,
        saved_seconds=people_median - planner_median if people_median is not None else None,
        most_cited=[CitedCount(source=s, count=n) for s, n in cited.most_common(SOURCES_SHOWN)],
    )
