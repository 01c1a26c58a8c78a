"""Reading a decision as the core sees it: only the authority its records prove."""

from __future__ import annotations

from collections.abc import Iterator

from parkbot.core import authority, suggest
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput, NotFound
from parkbot.core.identity import check_decision_id
from parkbot.core.models import Answer, Decision, DecisionState
from parkbot.core.tracker import BacklogHints, Tracker


def checked_id(decision_id: str) -> str:
    try:
        return check_decision_id(decision_id)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def require_found(did: str, decision: Decision | None, tracker: Tracker | None = None) -> Decision:
    if decision is None:
        hint = tracker.missing_hint() if isinstance(tracker, BacklogHints) else None
        near = suggest.near_ids(did, tracker) if tracker is not None and hint is None else []
        mean = f"; {suggest.did_you_mean(near)}" if near else ""
        # With the backend's own hint (a backlog not fetched yet) a surface adds no "check the id" of its own.
        raise NotFound(
            f"no decision {did} in this backlog{mean}" + (f": {hint}" if hint else ""),
            step=None if hint else "check_id",
            decision=did,
            suggestions=near,
        )
    return decision


def recorded_answer(tracker: Tracker, config: Config, decision: Decision) -> Answer | None:
    """The answer step (a) recorded, where it carries authority (see :mod:`parkbot.core.authority`)."""
    return authority.recorded_answer(tracker, config, decision)


def verify(tracker: Tracker, config: Config, decision: Decision) -> Decision:
    """A decision as read, with only the authority its records prove (see :mod:`parkbot.core.authority`), and
    the answers that conflicted with the one that stands named in ``problems``."""
    if authority.requires_signatures(tracker, config):
        decision = authority.verified(decision, config)
    if decision.answer is not None and decision.conflicting_answers:  # most have no answer: one look
        named = [
            f"conflicting answer {a.value!r} by {a.by} at {a.at.isoformat()} (given on another copy of the backlog, "
            f"kept in its history); the earlier answer {decision.answer.value!r} stands until an owner confirms it "
            "by giving it again"
            for a in decision.conflicting_answers
        ]
        decision = decision.with_problems([*decision.problems, *named])
    return decision


def decisions(tracker: Tracker, config: Config, state: DecisionState | None = None) -> Iterator[Decision]:
    """The decisions as the core sees them: each with only the authority its records prove, filtered by the
    state it *reads* as. Every reader (``list``, ``report``, ``dashboard``, MCP, the API) goes through here,
    so a record that carries no authority reads the same everywhere.

    A backend with signed records yields, for ``open``, the decisions stored as resolved too (their
    resolution may not count); the filter here keeps those that read as open.
    """
    for stored in tracker.iter_decisions(state):
        decision = verify(tracker, config, stored)
        if state is None or decision.state == state:
            yield decision


def read_verified(tracker: Tracker, config: Config, did: str) -> Decision | None:
    found = tracker.find(did)
    return verify(tracker, config, found) if found is not None else None


def load_verified(tracker: Tracker, config: Config, decision_id: str) -> Decision:
    did = checked_id(decision_id)
    return require_found(did, read_verified(tracker, config, did), tracker)
