"""The planner's rules: a question is answered from cited sources before a person is asked, visibly, and
overrulable (see docs/planner.md). Also the correction of an answer, which shares the override's mechanism.

Pure, like the lifecycle it builds on: the facts come from the backend through two small protocols
(:class:`SourceFiles`: a file at the default branch's current commit; :class:`MergedDependents`: which
dependents are merged already), and every rule is here, so both backends obey the same ones.

| situation                                        | result                                                   |
| ------------------------------------------------ | -------------------------------------------------------- |
| new question, planner configured                 | waits for the planner during ``window``; owner not told  |
| the planner cites checked sources                | answer recorded (commit, lines verbatim), review pending |
| the planner passes, or the window ends           | handed to the owner (assigned and notified as today)     |
| anyone else cites, or a source does not hold     | refused (exit 3), the reason names the source            |
| owner ``accept``                                 | the review item is cleared (and the answer stands)       |
| owner ``override <option>``                      | the owner's answer replaces the planner's; re-gate/rework |
| ``correct`` by whoever answered, or above them    | the new answer next to the first; re-gate/rework         |
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from parkbot.core import authority, lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Planner
from parkbot.core.errors import InvalidInput, Refused
from parkbot.core.lifecycle import ParkOutcome, ResolveOutcome
from parkbot.core.models import (
    PERSON_ANSWER_KINDS,
    Answer,
    Correction,
    Decision,
    PlannerStep,
    utcnow,
)

# The sources' checks live in their own module; their names stay importable from here.
from parkbot.core.planner_sources import MAX_SOURCES as MAX_SOURCES
from parkbot.core.planner_sources import FileRange as FileRange
from parkbot.core.planner_sources import SourceFiles as SourceFiles
from parkbot.core.planner_sources import check_source as check_source
from parkbot.core.planner_sources import parse_source as parse_source
from parkbot.core.planner_sources import path_allowed as path_allowed
from parkbot.core.tracker import GateResult, Location, Tracker

if TYPE_CHECKING:
    from parkbot.core.dashboard_index import Changed


@runtime_checkable
class AgentIdentity(Protocol):
    """Who acts with this backend's credentials when an agent may (a planner App), bots included."""

    def agent_actor(self, claimed: str | None) -> Actor: ...


@runtime_checkable
class MergedDependents(Protocol):
    """Which dependents are merged already (a pull request merged; a branch contained in the default branch)."""

    def merged_dependents(self, decision: Decision) -> frozenset[str]: ...


# --- routing ---------------------------------------------------------------------------------------


def never_routed(config: Config, origin: str) -> bool:
    planner = config.planner
    return planner is not None and any(fnmatch.fnmatchcase(origin, p.lower()) for p in planner.never)


def strict_blocking(config: Config, decision: Decision) -> bool:
    """A blocking question in a run allowed one blocking question only: it goes to a person."""
    return config.limits.one_blocking_question_per_origin and decision.blocking


def route(decision: Decision, config: Config, now: datetime) -> Decision:
    """A new question waits for the planner during ``window`` (its owner is assigned after), unless nothing
    may route it there: no planner, a zero window, a ``never`` origin, a strict blocking question, or the
    planner itself filed it."""
    planner = config.planner
    if planner is None or planner.window <= 0 or decision.kind != "decision":
        return decision
    if never_routed(config, decision.origin) or strict_blocking(config, decision):
        return decision
    if decision.filed_by and decision.filed_by.casefold() == planner.by.casefold():
        return decision
    step = PlannerStep(until=now + timedelta(seconds=planner.window))
    return decision.model_copy(update={"planner": step})


def awaiting_planner(decision: Decision, now: datetime) -> bool:
    """What ``list --awaiting planner`` shows: waiting for the planner, its window not over."""
    return decision.with_planner and decision.planner is not None and now < decision.planner.until


def review_pending(decision: Decision) -> bool:
    """A planner answer its owner has not reviewed yet (a review item)."""
    step = decision.planner
    return step is not None and step.answer is not None and step.review == "pending"


def review_overdue(decision: Decision, config: Config, now: datetime) -> bool:
    """An unreviewed planner answer older than ``review``: flagged on the dashboard."""
    step = decision.planner
    if not review_pending(decision) or step is None or step.at is None:
        return False
    seconds = config.planner.review if config.planner is not None else 72 * 3600.0
    return now >= (step.review_due or step.at + timedelta(seconds=seconds))


def expire(tracker: Tracker, config: Config, *, now: datetime | None = None) -> list[ParkOutcome]:
    """Hand every question whose planner window ended to its owner (assigned and notified as today)."""
    now = now or utcnow()
    outcomes = []
    for decision in tracker.iter_decisions("open"):
        step = decision.planner
        if step is None or step.state != "waiting" or now < step.until:
            continue
        changed = _with_step(decision, step.model_copy(update={"state": "expired", "at": now}), now)
        entry = lifecycle.log_entry("passed", changed, now, reason="the planner's window ended")
        outcomes.append(ParkOutcome(changed, "updated", tracker.update(changed, entry)))
    return outcomes


def _with_step(decision: Decision, step: PlannerStep, now: datetime) -> Decision:
    return decision.model_copy(update={"planner": step, "updated_at": now})


# --- who may act as the planner ---------------------------------------------------------------------


def _planner(config: Config, verb: str) -> Planner:
    if config.planner is None:
        raise Refused(
            f"no planner is configured: nobody may {verb} (set planner.by in .github/parkbot.yml on the "
            "default branch)",
            reason="no_planner",
        )
    return config.planner


def _as_planner(tracker: Tracker, config: Config, decision: Decision, by: Actor, verb: str) -> Planner:
    """Only the configured planner, never the identity that filed the question or a dependent's author."""
    planner = _planner(config, verb)
    if by.login.casefold() != planner.by.casefold():
        raise Refused(
            f"{by.login} is not the planner ({planner.by}); only the configured planner may {verb}",
            reason="not_planner",
        )
    if decision.filed_by and decision.filed_by.casefold() == by.login.casefold():
        raise Refused(
            f"{by.login} filed {decision.id}; the identity that asked never answers its own question",
            reason="own_question",
        )
    if by.login.casefold() in tracker.dependent_authors(decision):
        raise Refused(
            f"{by.login} authored a pull request that waits for {decision.id}; it never answers the question "
            "it waits for",
            reason="own_question",
        )
    if never_routed(config, decision.origin):
        raise Refused(f"{decision.origin} matches planner.never: its questions always go to a person", reason="never")
    if strict_blocking(config, decision):
        raise Refused(
            f"{decision.id} is a blocking question in a run allowed one blocking question "
            "(limits.one_blocking_question_per_origin): it goes to a person",
            reason="strict_blocking",
        )
    return planner


# --- cite and pass ----------------------------------------------------------------------------------


def cite(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    value: str,
    sources: Sequence[str],
    by: Actor,
    *,
    files: SourceFiles | None = None,
    source: str | None = None,
    now: datetime | None = None,
) -> ResolveOutcome:
    """The planner answers from checked sources; the answer opens dependents when ``opens_gate`` (else it waits
    for the owner's accept) and is a review item for the owner until accepted or overridden."""
    now = now or utcnow()
    decision = lifecycle.answer_of(tracker, config, decision_id)
    if decision.kind != "decision":
        raise InvalidInput(f"{decision.id} is a review item; the planner answers questions only")
    planner = _as_planner(tracker, config, decision, by, "cite")
    answer_value, _ = lifecycle.interpret_answer(decision, value, "auto")
    step = decision.planner
    given = step.answer if step is not None else None
    if given is not None:  # a retry of the same citation is unchanged; anything else was settled already
        if given.value.casefold() == answer_value.casefold():
            return _finish_cite(tracker, config, decision, given, now)
        raise Refused(
            f"{decision.id} already has the planner's answer {given.value!r}; a different answer is refused",
            reason="conflicting_answer",
        )
    if decision.state != "open":
        raise Refused(f"{decision.id} is {decision.state}; the planner answers open questions", reason=decision.state)
    if step is None or step.state != "waiting" or now >= step.until:
        why = "was passed" if step is not None and step.state == "passed" else "is not with the planner"
        raise Refused(
            f"{decision.id} {why}: its window is over and it is with its owner, {decision.owner}",
            reason="not_with_planner",
        )
    if not sources:
        raise Refused(
            f"no source: the planner answers only from cited sources (files matching planner.sources, with "
            f"their lines, or decisions answered by people); {decision.id} is unchanged",
            reason="no_source",
        )
    if len(sources) > MAX_SOURCES:
        raise InvalidInput(f"cite at most {MAX_SOURCES} sources")
    checked = [check_source(tracker, config, planner, decision, s, files) for s in dict.fromkeys(sources)]
    answer = Answer(value=answer_value, kind="planner", by=by.login, at=now, source=source, sources=checked)
    answered = step.model_copy(update={"state": "answered", "by": by.login, "at": now, "answer": answer})
    due = now + timedelta(seconds=planner.review)
    answered = answered.model_copy(update={"review": "pending", "review_due": due})
    changed = _with_step(decision, answered, now)
    tracker.update(changed)
    return _finish_cite(tracker, config, changed, answer, now)


def _finish_cite(tracker: Tracker, config: Config, decision: Decision, answer: Answer, now: datetime) -> ResolveOutcome:
    """Open the dependents (``opens_gate``), or leave the question open for the owner's accept."""
    opens = config.planner is None or config.planner.opens_gate
    if decision.state == "resolved":
        return ResolveOutcome(decision, "unchanged", decision.current_answer or answer, tracker.location(decision))
    if not opens:
        return ResolveOutcome(decision, "unchanged", answer, tracker.location(decision))
    recorded = tracker.recorded_answer(decision)
    return lifecycle.complete(tracker, config, decision, answer, "completed" if recorded else "resolved", now)


def pass_question(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    by: Actor,
    *,
    reason: str | None = None,
    now: datetime | None = None,
) -> ParkOutcome:
    """The planner cannot answer from its sources: the question goes to its owner now."""
    now = now or utcnow()
    decision = lifecycle.answer_of(tracker, config, decision_id)
    _as_planner(tracker, config, decision, by, "pass")
    step = decision.planner
    if step is not None and step.state == "passed":
        return ParkOutcome(decision, "unchanged", tracker.location(decision))
    if decision.state != "open" or step is None or step.state != "waiting":
        raise Refused(f"{decision.id} is not with the planner; nothing to pass", reason="not_with_planner")
    text = reason.strip() if reason and reason.strip() else None
    changed = _with_step(
        decision, step.model_copy(update={"state": "passed", "by": by.login, "at": now, "reason": text}), now
    )
    entry = lifecycle.log_entry("passed", changed, now, by=by.login, reason=text)
    return ParkOutcome(changed, "updated", tracker.update(changed, entry))


# --- the owner's review: accept, override -----------------------------------------------------------


def has_planner_answer(decision: Decision) -> bool:
    return decision.planner is not None and decision.planner.answer is not None


def accept(
    tracker: Tracker, config: Config, decision_id: str, by: Actor, *, now: datetime | None = None
) -> ResolveOutcome:
    """The owner keeps the planner's answer: the review item is cleared (and, without ``opens_gate``, the answer
    now opens the dependents)."""
    now = now or utcnow()
    decision = lifecycle.answer_of(tracker, config, decision_id)
    step = decision.planner
    if step is None or step.answer is None:
        raise InvalidInput(
            f"{decision.id} is a decision with no planner answer to accept: answer it",
            step="answer",
            decision=decision.id,
        )
    authority.authorize(tracker, config, decision, by)
    if step.review != "pending":
        answer = decision.current_answer or step.answer
        return ResolveOutcome(decision, "unchanged", answer, tracker.location(decision))
    reviewed = _with_step(
        decision, step.model_copy(update={"review": "accepted", "reviewed_by": by.login, "reviewed_at": now}), now
    )
    if decision.state == "resolved":
        entry = lifecycle.log_entry("reviewed", reviewed, now, by=by.login, reason="accepted the planner's answer")
        location = tracker.update(reviewed, entry)
        return ResolveOutcome(reviewed, "resolved", reviewed.current_answer or step.answer, location)
    tracker.update(reviewed)
    recorded = tracker.recorded_answer(reviewed)
    return lifecycle.complete(tracker, config, reviewed, step.answer, "completed" if recorded else "resolved", now)


def override(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    value: str,
    by: Actor,
    *,
    reason: str | None = None,
    source: str | None = None,
    now: datetime | None = None,
) -> CorrectionOutcome:
    """The owner's answer replaces the planner's, recorded as an override of it."""
    now = now or utcnow()
    decision = lifecycle.answer_of(tracker, config, decision_id)
    step = decision.planner
    if step is None or step.answer is None:
        raise InvalidInput(f"{decision.id} has no planner answer to override")
    authority.authorize(tracker, config, decision, by)
    return _replace(tracker, config, decision, value, by, "override", reason, source, now)


# --- correcting an answer ---------------------------------------------------------------------------

CorrectionAction = Literal["corrected", "overridden", "unchanged"]


@dataclass(frozen=True)
class CorrectionOutcome:
    decision: Decision
    action: CorrectionAction
    answer: Answer
    previous: Answer | None
    location: Location
    gates: list[GateResult] = field(default_factory=list)
    regated: list[str] = field(default_factory=list)
    rework: list[str] = field(default_factory=list)

    @property
    def changed(self) -> Changed | None:
        """Its dashboard line (the standing answer again: nothing)."""
        from parkbot.core.dashboard_index import Changed  # read by the dashboard only: a command never loads it

        return None if self.action == "unchanged" else Changed(decision_id=self.decision.id)


def _may_correct(tracker: Tracker, config: Config, decision: Decision, answer: Answer, by: Actor) -> None:
    """Whoever gave the standing answer, or an owner above them; a planner's or a precedent's answer is
    overridden by the decision's owners instead."""
    if answer.kind not in PERSON_ANSWER_KINDS and answer.kind != "default":
        authority.authorize(tracker, config, decision, by)
        return
    if by.bot:
        raise Refused(f"{by.login} is a bot; only a person corrects an answer", reason="not_authorized")
    if by.login.casefold() in tracker.dependent_authors(decision):
        raise Refused(
            f"{by.login} authored a pull request that waits for {decision.id}; it never answers it",
            reason="not_authorized",
        )
    allowed = [answer.by, *config.chain_above(answer.by)]
    if not any(tracker.is_member(by.login, who) for who in allowed):
        raise Refused(
            f"{by.login} may not correct {decision.id}: only {answer.by}, who answered, or an owner above them "
            f"({', '.join(allowed)})",
            reason="not_authorized",
        )


def correct(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    value: str,
    by: Actor,
    *,
    reason: str,
    source: str | None = None,
    now: datetime | None = None,
) -> CorrectionOutcome:
    """Correct a resolved decision's answer: the correction is recorded next to the first answer."""
    now = now or utcnow()
    if not reason or not reason.strip():
        raise InvalidInput("say why the answer is corrected (a reason)")
    decision = lifecycle.answer_of(tracker, config, decision_id)
    standing = decision.current_answer
    if decision.kind != "decision":
        raise InvalidInput(f"{decision.id} is a review item; accept or override it instead")
    if decision.state != "resolved" or standing is None:
        raise Refused(
            f"{decision.id} is {decision.state} and has no answer to correct; answer it instead", reason="not_answered"
        )
    _may_correct(tracker, config, decision, standing, by)
    return _replace(tracker, config, decision, value, by, "correct", reason, source, now)


def _replace(
    tracker: Tracker,
    config: Config,
    decision: Decision,
    value: str,
    by: Actor,
    kind: Literal["correct", "override"],
    reason: str | None,
    source: str | None,
    now: datetime,
) -> CorrectionOutcome:
    if authority.requires_signatures(tracker, config):
        raise Refused(
            f"{decision.id}: with answers.require_signed, a changed answer cannot be verified yet; file a new "
            "question under another key",
            reason="unverifiable",
        )
    answer_value, answer_kind = lifecycle.interpret_answer(decision, value, "auto")
    answer = Answer(value=answer_value, kind=answer_kind, by=by.login, at=now, source=source)
    standing = decision.current_answer
    if standing is not None and standing.same_answer(answer) and (kind == "correct" or decision.corrections):
        return CorrectionOutcome(decision, "unchanged", standing, None, tracker.location(decision))
    step = decision.planner
    if kind == "override" and step is not None:
        step = step.model_copy(update={"review": "overridden", "reviewed_by": by.login, "reviewed_at": now})
    if decision.state != "resolved":  # the planner's answer waited for the owner (opens_gate: false)
        reviewed = _with_step(decision, step, now) if step is not None else decision
        tracker.update(reviewed)
        done = lifecycle.resolve(tracker, config, decision.id, value, by, command="auto", source=source, now=now)
        action: CorrectionAction = "overridden" if kind == "override" else "corrected"
        return CorrectionOutcome(done.decision, action, done.answer, None, done.location, done.gates)
    previous = standing or answer
    merged = tracker.merged_dependents(decision) if isinstance(tracker, MergedDependents) else frozenset()
    rework = [d for d in decision.dependents if d in merged]
    regated = [d for d in decision.dependents if d not in merged]
    record = Correction(
        kind=kind,
        previous=previous,
        answer=answer,
        reason=reason.strip() if reason and reason.strip() else None,
        by=by.login,
        at=now,
        regated=regated,
        rework=rework,
    )
    changed = decision.model_copy(
        update={"corrections": [*decision.corrections, record], "planner": step, "updated_at": now}
    )
    event = "corrected" if kind == "correct" else "overridden"
    entry = lifecycle.log_entry(
        event, changed, now, by=by.login, answer=answer.value, answer_kind=answer.kind, reason=record.reason
    )
    location = tracker.update(changed, entry)
    verb = "corrected" if kind == "correct" else "overridden"
    note_text = f"answer {verb}: {previous.value} -> {answer.value}"
    if rework:
        note_text += f" (rework needed: {', '.join(rework)} merged with the previous answer)"
    note = Answer(value=note_text, kind="free_text", by=by.login, at=now, source=source)
    tracker.point_dependents(changed, note)
    gates = [lifecycle.gate(tracker, config, target) for target in regated]
    action = "corrected" if kind == "correct" else "overridden"
    return CorrectionOutcome(changed, action, answer, previous, location, gates, regated, rework)


def check_cite_request(
    tracker: Tracker, config: Config, decision: Decision, by: Actor, sources: Sequence[str] | None
) -> None:
    """The rules a ``/cite`` or ``/pass`` must meet before it is posted as the planner's comment (the sources
    themselves are checked when parkbot records it)."""
    _as_planner(tracker, config, decision, by, "cite" if sources is not None else "pass")
    step = decision.planner
    if decision.state != "open" or step is None or step.state != "waiting":
        raise Refused(f"{decision.id} is not with the planner", reason="not_with_planner")
    if sources is not None and not sources:
        raise Refused("no source: the planner answers only from cited sources", reason="no_source")


def check_correct_request(tracker: Tracker, config: Config, decision: Decision, by: Actor) -> None:
    """The rules a ``/correct`` must meet before it is posted as ``by``'s own comment (the answer itself is
    checked when parkbot records it)."""
    standing = decision.current_answer
    if decision.state != "resolved" or standing is None:
        raise Refused(
            f"{decision.id} is {decision.state} and has no answer to correct; answer it instead", reason="not_answered"
        )
    _may_correct(tracker, config, decision, standing, by)
