"""The planner's acts (cite, pass, hand over) and the owner's answers to them (accept, override, correct).

The rules are :mod:`parkbot.core.planner`'s; see docs/planner.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from parkbot.api.acting import accept_review, actor, ask, planner_actor, request
from parkbot.api.results.acts import Cited, Corrected, Filed, Requested, Resolved
from parkbot.core import lifecycle, own_comments
from parkbot.core import planner as planner_rules
from parkbot.core.config import Config
from parkbot.core.tracker import Tracker

__all__ = ["accept", "accept_planner", "cite", "correct", "hand_over", "override_planner", "pass_question"]


def cite(
    tracker: Tracker,
    config: Config,
    id: str,
    answer: str,
    sources: Sequence[str],
    *,
    by: str | None,
    source: str,
    now: datetime | None,
) -> Cited | Requested:
    """Answer as the configured planner, from checked sources; refused (exit 3) when a source does not hold."""
    who = planner_actor(tracker, by, "cites")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        decision, text = own_comments.cite_request(tracker, config, id, who, answer, sources)
        return request(tracker, commenting, decision, text, who)
    files = tracker if isinstance(tracker, planner_rules.SourceFiles) else None
    outcome = planner_rules.cite(tracker, config, id, answer, sources, who, files=files, source=source, now=now)
    return Cited.of(outcome)


def pass_question(
    tracker: Tracker, config: Config, id: str, *, by: str | None, reason: str | None
) -> Filed | Requested:
    """The planner cannot answer from its sources: hand the question to its owner now."""
    who = planner_actor(tracker, by, "passes")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        decision, text = own_comments.pass_request(tracker, config, id, who, reason)
        return request(tracker, commenting, decision, text, who)
    filed = Filed.of(planner_rules.pass_question(tracker, config, id, who, reason=reason))
    return filed._told(f"{filed.action} {filed.id}: passed to its owner {filed.owner}")


def correct(
    tracker: Tracker, config: Config, id: str, answer: str, *, reason: str, by: str | None, source: str
) -> Corrected | Requested:
    """Correct a resolved decision's answer: recorded next to the first; dependents re-gated or told to rework."""
    who = actor(tracker, by, "corrects")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        decision, text = own_comments.correct_request(tracker, config, id, who, answer, reason)
        return request(tracker, commenting, decision, text, who)
    return Corrected.of(planner_rules.correct(tracker, config, id, answer, who, reason=reason, source=source))


def override_planner(
    tracker: Tracker, config: Config, id: str, answer: str, *, reason: str | None, by: str | None, source: str
) -> Corrected | Requested:
    """The owner's answer replaces the planner's (recorded as an override of it)."""
    who = actor(tracker, by, "acts")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        text = own_comments.override_planner_command(answer, reason)
        return ask(tracker, commenting, config, id, who, text, any_state=True)
    return Corrected.of(planner_rules.override(tracker, config, id, answer, who, reason=reason, source=source))


def accept(tracker: Tracker, config: Config, id: str, *, by: str | None) -> Resolved | Requested:
    """Accept a review item's stated assumptions (or, on a question, the planner's answer)."""
    if lifecycle.answer_of(tracker, config, id).kind == "decision":
        return accept_planner(tracker, config, id, by=by)
    return accept_review(tracker, config, id, by=by)


def accept_planner(tracker: Tracker, config: Config, id: str, *, by: str | None) -> Resolved | Requested:
    """The owner keeps the planner's answer: its review item is cleared."""
    who = actor(tracker, by, "acts")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        return ask(tracker, commenting, config, id, who, "/accept", any_state=True)
    resolved = Resolved.of(planner_rules.accept(tracker, config, id, who))
    return resolved._told(f"{resolved.id}: the planner's answer {resolved.answer.value!r} accepted")


def hand_over(tracker: Tracker, config: Config, now: datetime | None) -> list[Filed]:
    """Hand every question whose planner window ended to its owner (a scheduled run does this)."""
    return [Filed.of(o) for o in planner_rules.expire(tracker, config, now=now)]
