"""Review items (``done_with_assumptions``): parked for review, accepted, or one assumption overridden."""

from __future__ import annotations

from datetime import datetime

from parkbot.core import authority
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput, Refused
from parkbot.core.identity import decision_id as derive_id
from parkbot.core.lifecycle.outcomes import ParkOutcome, log_entry
from parkbot.core.lifecycle.parking import file_item
from parkbot.core.lifecycle.reading import load_verified
from parkbot.core.lifecycle.resolving import ResolveOutcome, complete
from parkbot.core.models import Answer, Decision, DoneWithAssumptions, Override, utcnow
from parkbot.core.tracker import Tracker

REVIEW_KEY = "assumptions"


def park_review(
    tracker: Tracker, result: DoneWithAssumptions, config: Config, *, now: datetime | None = None
) -> ParkOutcome:
    """Park stated assumptions as one non-blocking review item per origin, so the owner reviews
    rather than pre-authorizes. Same identity rules as decisions; nothing ever blocks on it."""
    now = now or utcnow()
    owner = config.owner_for(result.origin) or tracker.default_owner()
    checklist = "\n".join(f"{n}. {a.text}" for n, a in enumerate(result.assumptions, 1))
    incoming = Decision(
        id=derive_id(result.origin, REVIEW_KEY),
        kind="review",
        origin=result.origin,
        key=REVIEW_KEY,
        title=result.title or f"Review the assumptions of {result.origin}",
        question=f"The agent finished under these stated assumptions. Accept them, or override one:\n{checklist}",
        work_so_far=result.work_so_far,
        blocking=False,
        run=result.run,
        dependents=list(dict.fromkeys(result.dependents)),
        assumptions=list(result.assumptions),
        owner=owner,
        created_at=now,
        updated_at=now,
    )
    return file_item(tracker, config, incoming, now)


def _load_review(tracker: Tracker, config: Config, decision_id: str, by: Actor) -> Decision:
    decision = load_verified(tracker, config, decision_id)
    if decision.kind != "review":
        raise InvalidInput(
            f"{decision.id} is a decision, not a review item: answer it", step="answer", decision=decision.id
        )
    authority.authorize(tracker, config, decision, by)
    return decision


def accept_review(
    tracker: Tracker, config: Config, decision_id: str, by: Actor, *, now: datetime | None = None
) -> ResolveOutcome:
    """``/accept``: the owner reviewed the assumptions and lets them stand; closes the review item."""
    decision = _load_review(tracker, config, decision_id, by)
    answer = Answer(value="accepted", kind="accepted", by=by.login, at=now or utcnow())
    if decision.state == "resolved":
        return ResolveOutcome(decision, "unchanged", decision.answer or answer, tracker.location(decision))
    recorded = authority.recorded_answer(tracker, config, decision)
    return complete(tracker, config, decision, recorded or answer, "completed" if recorded else "resolved", answer.at)


def override_assumption(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    number: int,
    text: str,
    by: Actor,
    *,
    now: datetime | None = None,
) -> ParkOutcome:
    """``/override <n> <text>``: one assumption becomes a recorded answer; dependents are told to rework."""
    now = now or utcnow()
    decision = _load_review(tracker, config, decision_id, by)
    if decision.state != "open":
        raise Refused(
            f"the review {decision.id} is {decision.state}; overrides are taken while it is open", reason=decision.state
        )
    if not 1 <= number <= len(decision.assumptions):
        raise InvalidInput(f"{decision.id} has assumptions 1 to {len(decision.assumptions)}, not {number}")
    previous = next((o for o in decision.overrides if o.assumption == number), None)
    if previous is not None:
        if previous.text.strip() == text.strip():
            return ParkOutcome(decision, "unchanged", tracker.location(decision))
        raise Refused(
            f"assumption {number} of {decision.id} was already overridden with {previous.text!r}",
            reason="conflicting_answer",
        )
    override = Override(assumption=number, text=text.strip(), by=by.login, at=now)
    changed = decision.model_copy(update={"overrides": [*decision.overrides, override], "updated_at": now})
    entry = log_entry(
        "overridden",
        changed,
        now,
        by=by.login,
        answer=override.text,
        reason=f"assumption {number}: {decision.assumptions[number - 1].text}",
    )
    location = tracker.update(changed, entry)
    note = Answer(
        value=f"assumption {number} overridden: {override.text} (rework needed)", kind="free_text", by=by.login, at=now
    )
    tracker.point_dependents(changed, note)
    return ParkOutcome(changed, "updated", location)
