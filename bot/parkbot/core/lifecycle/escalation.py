"""Moving a question: one level up the hierarchy (``escalate``), or back to the requester (``return``)."""

from __future__ import annotations

from datetime import datetime

from parkbot.core import authority
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import Refused
from parkbot.core.lifecycle.outcomes import ParkOutcome, log_entry
from parkbot.core.lifecycle.reading import load_verified
from parkbot.core.models import Decision, Escalation, utcnow
from parkbot.core.tracker import Tracker


def escalate(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    by: Actor,
    *,
    to: str | None = None,
    now: datetime | None = None,
) -> ParkOutcome:
    """Move a question exactly one level up the hierarchy; sideways, down or past the top is refused."""
    decision, hop = _judge_escalation(tracker, config, decision_id, by, to, now)
    return _move(tracker, decision, hop)


def escalation_command(
    tracker: Tracker, config: Config, decision_id: str, by: Actor, *, to: str | None = None
) -> tuple[Decision, str]:
    """The ``/escalate`` comment that moves ``decision_id`` up, once every rule :func:`escalate` applies holds."""
    decision, hop = _judge_escalation(tracker, config, decision_id, by, to, None)
    return decision, f"/escalate {hop.to_owner}"


def _judge_escalation(
    tracker: Tracker, config: Config, decision_id: str, by: Actor, to: str | None, now: datetime | None
) -> tuple[Decision, Escalation]:
    """Every rule an escalation must meet before anything is written: the decision and the hop."""
    decision = load_verified(tracker, config, decision_id)
    if decision.state != "open":
        raise Refused(
            f"decision {decision.id} is {decision.state}; only open questions escalate", reason=decision.state
        )
    authority.authorize(tracker, config, decision, by)
    if not config.hierarchy:
        raise Refused(
            "escalation is not available here: the configuration has no hierarchy. "
            "Answer the question, or answer with an explicit default.",
            reason="no_hierarchy",
            step="add_hierarchy_or_answer",
            decision=decision.id,
        )
    owner = authority.current_owner(decision, config)
    above = config.above(owner)
    if above is None:
        raise Refused(
            f"{owner} is at the top of the hierarchy: nobody above can take {decision.id}. "
            "Answer it, or answer with an explicit default.",
            reason="top_of_hierarchy",
            step="answer_or_default",
            decision=decision.id,
        )
    if to is not None and to.casefold() != above.casefold():
        raise Refused(
            f"questions only move up, one level at a time: {owner} -> {above}, not {to}",
            reason="not_upward",
        )
    return decision, Escalation(from_owner=owner, to_owner=above, by=by.login, at=now or utcnow())


def return_to_requester(
    tracker: Tracker, config: Config, decision_id: str, by: Actor, *, now: datetime | None = None
) -> ParkOutcome:
    """``/return``: the owner cannot answer, so the question goes back to whoever started an interactive run."""
    decision = load_verified(tracker, config, decision_id)
    if decision.state != "open":
        raise Refused(f"decision {decision.id} is {decision.state}; only open questions move", reason=decision.state)
    authority.authorize(tracker, config, decision, by)
    if not decision.requester:
        raise Refused(
            f"{decision.id} came from a run that is not interactive (no requester): answer it, escalate it, "
            "or answer with an explicit default",
            reason="not_interactive",
        )
    if not config.may_request(decision.requester):
        raise Refused(
            f"the agent stated {decision.requester!r} as the requester of {decision.id}'s run, but the configuration "
            "does not name them among the requesters (`requesters:` in .github/parkbot.yml), so the question cannot "
            "be handed to them: answer it, escalate it, or answer with an explicit default",
            reason="requester_not_allowed",
        )
    owner = authority.current_owner(decision, config)
    hop = Escalation(kind="return", from_owner=owner, to_owner=decision.requester, by=by.login, at=now or utcnow())
    return _move(tracker, decision, hop)


def _move(tracker: Tracker, decision: Decision, hop: Escalation) -> ParkOutcome:
    moved = decision.model_copy(
        update={"owner": hop.to_owner, "escalations": [*decision.escalations, hop], "updated_at": hop.at}
    )
    event = "escalated" if hop.kind == "escalate" else "returned"
    entry = log_entry(event, moved, hop.at, by=hop.by, reason=f"{hop.from_owner} -> {hop.to_owner}")
    location = tracker.update(moved, entry)
    return ParkOutcome(moved, "updated", location, moved=True)
