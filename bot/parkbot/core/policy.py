"""Supervision policy: question budgets and cited precedents (see docs/policy.md for the reasons).

Pure functions over decisions and the question log; the lifecycle calls them, so both backends
obey the same budgets and cite precedents the same way.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from typing import Literal

from parkbot.core.config import Config
from parkbot.core.models import Citation, Decision, LogEntry
from parkbot.core.questions import normalize_question


def origin_family(origin: str, config: Config) -> str:
    """Origins that are instances of one task share a family: the owner glob they match, else the
    origin without its trailing run number (``billing-42`` -> ``billing``)."""
    for pattern in config.owners.origins:
        if fnmatch.fnmatchcase(origin, pattern.lower()):
            return f"glob:{pattern.lower()}"
    return re.sub(r"[-_.]?\d+$", "", origin) or origin


def find_precedent(decision: Decision, log: Iterable[LogEntry], config: Config) -> Citation | None:
    """The latest earlier answer to the same question: same key and options in the same origin family,
    or the same question text once case-specific details are normalized away. Never an invention."""
    family = origin_family(decision.origin, config)
    wanted_options = sorted(decision.option_ids())
    wanted_text = normalize_question(decision.question)
    best: LogEntry | None = None
    for entry in log:
        if entry.event != "resolved" or not entry.answer or entry.decision == decision.id:
            continue  # an empty answer (a hand-edited line) is no answer either
        if entry.answer_kind in ("default", "precedent", "planner"):
            continue  # an assumption or a citation (a precedent's, a planner's) is not a human's answer to cite
        same_key = entry.key == decision.key and sorted(entry.options) == wanted_options
        same_family = origin_family(entry.origin, config) == family
        same_text = entry.question is not None and normalize_question(entry.question) == wanted_text
        if not ((same_key and same_family) or (same_text and sorted(entry.options) == wanted_options)):
            continue
        if wanted_options and entry.answer not in wanted_options:
            continue
        if best is None or entry.at >= best.at:
            best = entry
    if best is None or best.decision is None or best.by is None:
        return None
    return Citation(
        decision=best.decision,
        answer=best.answer or "",
        answered_by=best.by,
        answered_at=best.at,
        location=best.location,
    )


#: Which budget a refused question is over: the question log's ``reason`` of the refusal, which the report counts
#: (the refusal itself is ``cap_reached``, a :data:`~parkbot.core.errors.Reason`).
BudgetReason = Literal["one_blocking_question", "cap_per_origin", "cap_per_run"]


def budget_refusal(decision: Decision, open_now: list[Decision], config: Config) -> tuple[BudgetReason, str] | None:
    """Why a new question is over budget, as (reason, message), or None when it may be asked."""
    limits = config.limits
    others = [d for d in open_now if d.id != decision.id and d.kind == "decision" and d.state == "open"]
    same_origin = [d for d in others if d.origin == decision.origin]
    if limits.one_blocking_question_per_origin and decision.blocking:
        blocking = [d for d in same_origin if d.blocking]
        if blocking:
            return (
                "one_blocking_question",
                f"{decision.origin} already has an open blocking question ({blocking[0].id}); this repository "
                "allows one outstanding blocking question per assignment. Wait for its answer, or proceed under "
                "a stated assumption (done_with_assumptions).",
            )
    if len(same_origin) >= limits.open_per_origin:
        return (
            "cap_per_origin",
            f"{decision.origin} already has {len(same_origin)} open questions (limit {limits.open_per_origin}): "
            "a task that needs this many answers should be re-delegated with a better brief, not asked again.",
        )
    same_run = [d for d in others if decision.run is not None and d.run == decision.run]
    if decision.run and len(same_run) >= limits.open_per_run:
        return (
            "cap_per_run",
            f"run {decision.run} already has {len(same_run)} open questions (limit {limits.open_per_run}): the "
            "fleet is stalling its owners; answer or re-delegate before asking more.",
        )
    return None
