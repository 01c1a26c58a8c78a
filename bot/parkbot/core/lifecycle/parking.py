"""Filing a ``needs_input`` result: create it, update it in place, or refuse (the identity rules)."""

from __future__ import annotations

from datetime import datetime

from parkbot.core import authority
from parkbot.core.config import Config
from parkbot.core.errors import ConcurrentChange, Refused
from parkbot.core.lifecycle.gates import block_and_publish
from parkbot.core.lifecycle.outcomes import PARK_ATTEMPTS, ParkAction, ParkOutcome, log_entry
from parkbot.core.lifecycle.reading import read_verified
from parkbot.core.models import Answer, Decision, NeedsInput, utcnow
from parkbot.core.tracker import Tracker


def build_decision(result: NeedsInput, owner: str, now: datetime) -> Decision:
    """The record a ``needs_input`` result becomes."""
    return Decision(
        id=result.decision_id,
        origin=result.origin,
        key=result.key,
        title=result.effective_title,
        question=result.question,
        options=list(result.options),
        allow_free_text=result.allow_free_text,
        work_so_far=result.work_so_far,
        blocking=result.blocking,
        guess=result.guess,
        run=result.run,
        dependents=list(dict.fromkeys(result.dependents)),
        owner=owner,
        requester=result.requester,
        created_at=now,
        updated_at=now,
    )


def merge_refiling(existing: Decision, incoming: Decision, now: datetime) -> Decision:
    """A re-filing may change the content; it keeps the owner, the history and every recorded edge."""
    dependents = list(dict.fromkeys([*existing.dependents, *incoming.dependents]))
    merged = existing.model_copy(
        update={
            "question": incoming.question,
            "options": incoming.options,
            "allow_free_text": incoming.allow_free_text,
            "work_so_far": incoming.work_so_far,
            "blocking": incoming.blocking,
            "guess": incoming.guess,
            "run": incoming.run or existing.run,
            "dependents": dependents,
            "assumptions": incoming.assumptions or existing.assumptions,
            "state": "open",
        }
    )
    if merged.content_key() != existing.content_key() or existing.state != "open":
        merged = merged.model_copy(update={"updated_at": now})
    if merged.content_digest() != existing.content_digest():
        merged = merged.model_copy(update={"content_changed_at": now})
    return merged


def park(
    tracker: Tracker, result: NeedsInput, config: Config, *, now: datetime | None = None, filed_by: str | None = None
) -> ParkOutcome:
    """File a ``needs_input`` result: create it, update it in place, or refuse. ``filed_by`` is who files it,
    where the backend can tell (the planner never answers a question it filed)."""
    now = now or utcnow()
    owner = config.owner_for(result.origin) or tracker.default_owner()
    decision = build_decision(result, owner, now)
    if filed_by:
        decision = decision.model_copy(update={"filed_by": filed_by})
    return file_item(tracker, config, decision, now)


def file_item(tracker: Tracker, config: Config, incoming: Decision, now: datetime) -> ParkOutcome:
    """Create, update in place, or refuse: the identity rules of every filing (questions and review items).

    Two agents may file the same decision at the same moment; the backend's ``create`` raises
    :class:`ConcurrentChange` for the loser, which then re-reads and updates the winner's item.
    """
    for attempt in range(1, PARK_ATTEMPTS + 1):
        try:
            return _file_once(tracker, config, incoming, now)
        except ConcurrentChange:
            if attempt == PARK_ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _file_once(tracker: Tracker, config: Config, incoming: Decision, now: datetime) -> ParkOutcome:
    existing = None if tracker.claim(incoming.id) else read_verified(tracker, config, incoming.id)
    if existing is None:
        return _park_new(tracker, incoming, config, now)
    if existing.title != incoming.title or existing.kind != incoming.kind:
        raise Refused(
            f"identity collision: {incoming.kind} {incoming.id} already exists with the title {existing.title!r}, "
            f"not {incoming.title!r}. Use another key for a different question, or the same title to update it.",
            reason="collision",
        )
    if existing.state == "resolved":
        answer = existing.answer.value if existing.answer else "?"
        raise Refused(
            f"{incoming.kind} {incoming.id} is already resolved (answer: {answer!r}); a resolved decision stays "
            "resolved. File a new question under another key if the situation changed.",
            reason="resolved",
        )
    lowered = blocking_lowered(existing, incoming)
    if lowered is not None:
        raise lowered
    merged = merge_refiling(existing, incoming, now)
    if merged.content_digest() != existing.content_digest() and existing.kind == "decision":
        pending = authority.recorded_answer(tracker, config, existing)
        if pending is not None:
            raise Refused(
                f"decision {incoming.id} is being answered ({pending.value!r} by {pending.by}); a re-filing may not "
                "change its question or options now. Re-file it unchanged, or file a new question under another key.",
                reason="answer_pending",
            )
    changed = merged.content_key() != existing.content_key() or existing.state != "open"
    location = tracker.update(merged) if changed else tracker.location(existing)
    gates = block_and_publish(tracker, config, merged)
    action: ParkAction = "updated" if changed else "unchanged"
    return ParkOutcome(merged, action, location, gates, was_open=existing.state == "open")


def blocking_lowered(existing: Decision, incoming: Decision) -> Refused | None:
    """Blocking only goes up: a re-filing may make a question blocking, never optional again.

    Otherwise the agent whose work waits for the answer could unblock its own dependents by re-filing
    its question with ``blocking: false``. ``existing`` is the decision as verified (with signed answers an
    unproven ``blocking: false`` already reads as blocking).
    """
    if existing.kind != "decision" or not existing.blocking or incoming.blocking:
        return None
    return Refused(
        f"decision {incoming.id} is blocking, and a re-filing may not lower it to blocking: false (its dependents "
        "wait for an owner's answer). Re-file it with blocking: true, or ask the owner to answer it.",
        reason="blocking_lowered",
    )


def _park_new(tracker: Tracker, incoming: Decision, config: Config, now: datetime) -> ParkOutcome:
    """A new item, logged; a new question must also be within budget, and cites a precedent if one exists."""
    # Only a new question needs the budget and the precedents: the read commands never load them.
    from parkbot.core.policy import budget_refusal, find_precedent

    if incoming.kind == "review":
        return ParkOutcome(incoming, "created", tracker.create(incoming, log_entry("parked", incoming, now)))
    refusal = budget_refusal(incoming, tracker.open_decisions(origin=incoming.origin, run=incoming.run), config)
    if refusal is not None:
        reason, message = refusal
        tracker.append_log(log_entry("refused", incoming, now, reason=reason))
        raise Refused(message, reason="cap_reached")
    citation = (
        find_precedent(incoming, tracker.iter_log(about=incoming), config) if config.precedents != "off" else None
    )
    if citation is not None:
        incoming = incoming.model_copy(update={"precedent": citation})
    if (citation is None or config.precedents != "apply") and config.planner is not None:
        from parkbot.core.planner import route  # the planner's rules: loaded only when a planner is configured

        incoming = route(incoming, config, now)
    location = tracker.create(incoming, log_entry("parked", incoming, now))
    if citation is not None and config.precedents == "apply":
        from parkbot.core.lifecycle.resolving import complete  # a precedent answers it: the resolution's steps

        answer = Answer(value=citation.answer, kind="precedent", by="precedent", at=now, citation=citation)
        done = complete(tracker, config, incoming, answer, "resolved", now)
        return ParkOutcome(done.decision, "created", location, done.gates)
    return ParkOutcome(incoming, "created", location, block_and_publish(tracker, config, incoming))
