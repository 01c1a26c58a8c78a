"""The decision lifecycle: every rule of the contract, written once against :class:`Tracker`.

No I/O of its own: each function takes a tracker, the config and the clock, so both backends obey
exactly the same rules and the rules are tested without either.

| situation                          | result                                                      |
| ---------------------------------- | ----------------------------------------------------------- |
| new id                             | parked: created, assigned to the owner, dependents blocked  |
| same id, same title                | updated in place (``updated``/``unchanged``), never twice    |
| same id, different title           | refused (identity collision), nothing written               |
| same id, already resolved          | refused: a resolved decision stays resolved                 |
| owner answers                      | record -> point dependents -> clear blocking -> close       |
| a step fails midway                | stays open; the same answer again completes the rest        |
| a different answer after one       | refused, quoting the recorded answer                        |
| someone who is not an owner        | refused, nothing changed                                    |
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from bot.config import Config
from bot.errors import ConcurrentChange, InvalidInput, NotFound, Refused
from bot.identity import check_decision_id
from bot.identity import decision_id as derive_id
from bot.models import (
    Answer,
    AnswerKind,
    Decision,
    DoneWithAssumptions,
    Escalation,
    LogEntry,
    NeedsInput,
    Override,
    utcnow,
)
from bot.policy import budget_refusal, find_precedent
from bot.tracker import GateResult, Location, Pollable, PollToken, Tracker

ParkAction = Literal["created", "updated", "unchanged"]
ResolveAction = Literal["resolved", "completed", "unchanged"]
#: How the owner answered: ``decide`` names an option, ``answer`` gives text, ``default`` an assumption.
Command = Literal["decide", "answer", "default", "auto"]

PERMISSION_RANK = {"read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}


@dataclass(frozen=True)
class ParkOutcome:
    decision: Decision
    action: ParkAction
    location: Location
    gates: list[GateResult] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.decision.id,
            "action": self.action,
            "state": self.decision.state,
            "owner": self.decision.owner,
            **self.location.as_dict(),
            "gates": [gate_dict(g) for g in self.gates],
            **({"precedent": self.decision.precedent.model_dump(mode="json")} if self.decision.precedent else {}),
            **({"answer": self.decision.answer.model_dump(mode="json")} if self.decision.answer else {}),
        }


@dataclass(frozen=True)
class ResolveOutcome:
    decision: Decision
    action: ResolveAction
    answer: Answer
    location: Location
    gates: list[GateResult] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.decision.id,
            "action": self.action,
            "state": "resolved",
            "answer": self.answer.model_dump(mode="json", exclude_none=True),
            "assumption": self.answer.assumption,
            **self.location.as_dict(),
            "gates": [gate_dict(g) for g in self.gates],
        }


def gate_dict(result: GateResult) -> dict[str, Any]:
    return {
        "target": result.target,
        "state": result.state,
        "blocking": [d.id for d in result.blocking],
        "resolved": [d.id for d in result.resolved],
        **result.details,
    }


# --- park ------------------------------------------------------------------------------------


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


def log_entry(event: str, decision: Decision, now: datetime, **extra: Any) -> LogEntry:
    """A question-log line carrying what precedents and the report need."""
    answer = decision.answer
    answered = {
        "answer": answer.value if answer else None,
        "answer_kind": answer.kind if answer else None,
        "by": answer.by if answer else None,
    }
    return LogEntry.for_decision(event, decision, now, **{**answered, **extra})


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
    return merged


#: How often ``park`` re-reads after another writer created the same decision between our read and write.
PARK_ATTEMPTS = 5


def park(tracker: Tracker, result: NeedsInput, config: Config, *, now: datetime | None = None) -> ParkOutcome:
    """File a ``needs_input`` result: create it, update it in place, or refuse.

    Two agents may file the same decision at the same moment; the backend's ``create`` raises
    :class:`ConcurrentChange` for the loser, which then re-reads and updates the winner's item.
    """
    now = now or utcnow()
    for attempt in range(1, PARK_ATTEMPTS + 1):
        try:
            return _park_once(tracker, result, config, now)
        except ConcurrentChange:
            if attempt == PARK_ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _park_once(tracker: Tracker, result: NeedsInput, config: Config, now: datetime) -> ParkOutcome:
    owner = config.owner_for(result.origin) or tracker.default_owner()
    incoming = build_decision(result, owner, now)
    existing = None if tracker.claim(incoming.id) else tracker.find(incoming.id)

    if existing is None:
        return _park_new(tracker, incoming, config, now)

    if existing.title != incoming.title:
        raise Refused(
            f"identity collision: decision {incoming.id} already exists with the title {existing.title!r}, "
            f"not {incoming.title!r}. Use another key for a different question, or the same title to update it.",
            reason="collision",
        )
    if existing.state == "resolved":
        answer = existing.answer.value if existing.answer else "?"
        raise Refused(
            f"decision {incoming.id} is already resolved (answer: {answer!r}); a resolved decision stays "
            "resolved. File a new question under another key if the situation changed.",
            reason="resolved",
        )

    merged = merge_refiling(existing, incoming, now)
    changed = merged.content_key() != existing.content_key() or existing.state != "open"
    location = tracker.update(merged) if changed else tracker.location(existing)
    gates = tracker.block_dependents(merged) if merged.blocking and merged.dependents else []
    return ParkOutcome(merged, "updated" if changed else "unchanged", location, gates)


def _park_new(tracker: Tracker, incoming: Decision, config: Config, now: datetime) -> ParkOutcome:
    """A new question: within budget, citing a precedent if one exists, logged."""
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
    location = tracker.create(incoming)
    tracker.append_log(log_entry("parked", incoming, now))
    if citation is not None and config.precedents == "apply":
        answer = Answer(value=citation.answer, kind="precedent", by="precedent", at=now, citation=citation)
        done = _complete(tracker, config, incoming, answer, "resolved", now)
        return ParkOutcome(done.decision, "created", location, done.gates)
    gates = tracker.block_dependents(incoming) if incoming.blocking and incoming.dependents else []
    return ParkOutcome(incoming, "created", location, gates)


# --- resolve ---------------------------------------------------------------------------------


def _checked_id(decision_id: str) -> str:
    try:
        return check_decision_id(decision_id)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _found(did: str, decision: Decision | None) -> Decision:
    if decision is None:
        raise NotFound(f"no decision {did} in this backlog (check the id with `parkbot list`)")
    return decision


def _load(tracker: Tracker, decision_id: str) -> Decision:
    did = _checked_id(decision_id)
    return _found(did, tracker.find(did))


def authorize(tracker: Tracker, config: Config, decision: Decision, by: str) -> None:
    """Only owners resolve: the decision's owner, anyone above it, or (if configured) a collaborator.

    Bots never resolve: an agent answering its own question is the failure this tool prevents.
    """
    if by.casefold().endswith("[bot]"):
        raise Refused(f"{by} is a bot; only a human owner can answer a decision", reason="not_authorized")
    principals = [decision.owner, *config.chain_above(decision.owner)]
    if any(tracker.is_member(by, principal) for principal in principals):
        return
    needed = config.repository_permission_resolves
    if needed != "none":
        permission = tracker.permission_of(by, decision)
        if permission and PERMISSION_RANK.get(permission, 0) >= PERMISSION_RANK[needed]:
            return
    raise Refused(
        f"{by} may not answer {decision.id}: its owners are {', '.join(principals)}",
        reason="not_authorized",
    )


def interpret_answer(decision: Decision, value: str, command: Command) -> tuple[str, AnswerKind]:
    """Map what the owner typed to an option id or free text, or say exactly what is accepted."""
    text = value.strip()
    if not text:
        raise InvalidInput("the answer is empty")
    by_id = {o.id.casefold(): o.id for o in decision.options}
    option = by_id.get(text.casefold())
    choices = ", ".join(decision.option_ids())
    if command in ("decide", "default"):
        if option is None:
            raise InvalidInput(f"{text!r} is not an option of {decision.id}; choose one of: {choices}")
        return option, "default" if command == "default" else "option"
    if option is not None:
        return option, "option"
    if command == "answer" or decision.free_text_allowed:
        if not decision.free_text_allowed:
            raise InvalidInput(f"{decision.id} takes no free-text answer; choose one of: {choices}")
        return text, "free_text"
    raise InvalidInput(f"{text!r} is not an option of {decision.id}; choose one of: {choices}")


def resolve(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    value: str,
    by: str,
    *,
    command: Command = "auto",
    source: str | None = None,
    now: datetime | None = None,
) -> ResolveOutcome:
    """Record an answer and run the four resolution steps; safe to run again after any failure."""
    decision = _load(tracker, decision_id)
    if decision.state == "abandoned":
        raise Refused(
            f"decision {decision.id} was abandoned without an answer; re-file it to ask again", reason="abandoned"
        )
    if decision.kind == "review":
        raise InvalidInput(f"{decision.id} is a review item: /accept its assumptions, or /override <n> <text>")
    authorize(tracker, config, decision, by)
    answer_value, kind = interpret_answer(decision, value, command)
    answer = Answer(value=answer_value, kind=kind, by=by, at=now or utcnow(), source=source)

    recorded = decision.answer if decision.state == "resolved" else tracker.recorded_answer(decision)
    if recorded is not None and not recorded.same_answer(answer):
        raise Refused(
            f"decision {decision.id} already has the answer {recorded.value!r} "
            f"({recorded.kind}, by {recorded.by} at {recorded.at.isoformat()}); a different answer is refused",
            reason="conflicting_answer",
        )
    if decision.state == "resolved" and recorded is not None:
        return ResolveOutcome(decision, "unchanged", recorded, tracker.location(decision))
    action: ResolveAction = "completed" if recorded else "resolved"
    return _complete(tracker, config, decision, recorded or answer, action, answer.at)


def _complete(
    tracker: Tracker, config: Config, decision: Decision, answer: Answer, action: ResolveAction, now: datetime
) -> ResolveOutcome:
    """Steps (a)-(d) in order, logging before the close so a re-run can only repeat the line, never lose it.

    A failure raises and leaves the decision open for a re-run.
    """
    if action == "resolved":
        tracker.record_answer(decision, answer)
    tracker.point_dependents(decision, answer)
    gates = tracker.clear_blocking(decision)
    resolved = decision.model_copy(update={"state": "resolved", "answer": answer})
    tracker.append_log(log_entry("resolved", resolved, now, location=_where(tracker, resolved)))
    tracker.close(decision, answer)
    return ResolveOutcome(resolved, action, answer, tracker.location(resolved), gates)


def _where(tracker: Tracker, decision: Decision) -> str | None:
    location = tracker.location(decision)
    return location.url or (f"{location.ref}:{location.path}" if location.ref else location.path)


# --- gate ------------------------------------------------------------------------------------


def evaluate_gate(target: str, linked: list[Decision], *, ignore: str | None = None) -> GateResult:
    """Blocked while any linked, blocking decision is not resolved (abandoned ones keep blocking)."""
    unique = {d.id: d for d in linked if d.id != ignore}
    blocking = tuple(d for d in unique.values() if d.state != "resolved" and d.blocking)
    resolved = tuple(d for d in unique.values() if d.state == "resolved")
    return GateResult(target=target, blocking=blocking, resolved=resolved)


def gate(tracker: Tracker, target: str) -> GateResult:
    """Evaluate and publish the gate of one dependent (``#N`` or ``branch:<name>``)."""
    result = evaluate_gate(target, tracker.linked_decisions(target))
    tracker.publish_gate(result)
    return result


# --- escalate --------------------------------------------------------------------------------


def escalate(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    by: str,
    *,
    to: str | None = None,
    now: datetime | None = None,
) -> ParkOutcome:
    """Move a question exactly one level up the hierarchy; sideways, down or past the top is refused."""
    decision = _load(tracker, decision_id)
    if decision.state != "open":
        raise Refused(
            f"decision {decision.id} is {decision.state}; only open questions escalate", reason=decision.state
        )
    authorize(tracker, config, decision, by)
    above = config.above(decision.owner)
    if above is None:
        raise Refused(
            f"{decision.owner} is at the top of the hierarchy: nobody above can take {decision.id}. "
            "Answer it, or answer with an explicit default (/default <option>).",
            reason="top_of_hierarchy",
        )
    if to is not None and to.casefold() != above.casefold():
        raise Refused(
            f"questions only move up, one level at a time: {decision.owner} -> {above}, not {to}",
            reason="not_upward",
        )
    return _move(tracker, decision, Escalation(from_owner=decision.owner, to_owner=above, by=by, at=now or utcnow()))


def return_to_requester(
    tracker: Tracker, config: Config, decision_id: str, by: str, *, now: datetime | None = None
) -> ParkOutcome:
    """``/return``: the owner cannot answer, so the question goes back to whoever started an interactive run."""
    decision = _load(tracker, decision_id)
    if decision.state != "open":
        raise Refused(f"decision {decision.id} is {decision.state}; only open questions move", reason=decision.state)
    authorize(tracker, config, decision, by)
    if not decision.requester:
        raise Refused(
            f"{decision.id} came from a run that is not interactive (no requester): answer it, escalate it, "
            "or answer with an explicit default",
            reason="not_interactive",
        )
    hop = Escalation(kind="return", from_owner=decision.owner, to_owner=decision.requester, by=by, at=now or utcnow())
    return _move(tracker, decision, hop)


def _move(tracker: Tracker, decision: Decision, hop: Escalation) -> ParkOutcome:
    moved = decision.model_copy(
        update={"owner": hop.to_owner, "escalations": [*decision.escalations, hop], "updated_at": hop.at}
    )
    location = tracker.update(moved)
    event = "escalated" if hop.kind == "escalate" else "returned"
    tracker.append_log(log_entry(event, moved, hop.at, by=hop.by, reason=f"{hop.from_owner} -> {hop.to_owner}"))
    return ParkOutcome(moved, "updated", location)


# --- review items (done_with_assumptions) ------------------------------------------------------

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
    existing = None if tracker.claim(incoming.id) else tracker.find(incoming.id)
    if existing is None:
        location = tracker.create(incoming)
        tracker.append_log(log_entry("parked", incoming, now))
        return ParkOutcome(incoming, "created", location)
    if existing.title != incoming.title or existing.kind != "review":
        raise Refused(f"identity collision: {incoming.id} already exists as {existing.title!r}", reason="collision")
    if existing.state == "resolved":
        raise Refused(f"the review {incoming.id} was already accepted; it stays closed", reason="resolved")
    merged = merge_refiling(existing, incoming, now)
    changed = merged.content_key() != existing.content_key()
    return ParkOutcome(
        merged, "updated" if changed else "unchanged", tracker.update(merged) if changed else tracker.location(existing)
    )


def _load_review(tracker: Tracker, config: Config, decision_id: str, by: str) -> Decision:
    decision = _load(tracker, decision_id)
    if decision.kind != "review":
        raise InvalidInput(f"{decision.id} is a decision, not a review item: answer it with /decide")
    authorize(tracker, config, decision, by)
    return decision


def accept_review(
    tracker: Tracker, config: Config, decision_id: str, by: str, *, now: datetime | None = None
) -> ResolveOutcome:
    """``/accept``: the owner reviewed the assumptions and lets them stand; closes the review item."""
    decision = _load_review(tracker, config, decision_id, by)
    answer = Answer(value="accepted", kind="accepted", by=by, at=now or utcnow())
    if decision.state == "resolved":
        return ResolveOutcome(decision, "unchanged", decision.answer or answer, tracker.location(decision))
    recorded = tracker.recorded_answer(decision)
    return _complete(tracker, config, decision, recorded or answer, "completed" if recorded else "resolved", answer.at)


def override_assumption(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    number: int,
    text: str,
    by: str,
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
    override = Override(assumption=number, text=text.strip(), by=by, at=now)
    changed = decision.model_copy(update={"overrides": [*decision.overrides, override], "updated_at": now})
    location = tracker.update(changed)
    note = Answer(
        value=f"assumption {number} overridden: {override.text} (rework needed)", kind="free_text", by=by, at=now
    )
    tracker.point_dependents(changed, note)
    tracker.append_log(
        log_entry(
            "overridden",
            changed,
            now,
            by=by,
            answer=override.text,
            reason=f"assumption {number}: {decision.assumptions[number - 1].text}",
        )
    )
    return ParkOutcome(changed, "updated", location)


# --- wait and resume -------------------------------------------------------------------------


def answer_of(tracker: Tracker, decision_id: str) -> Decision:
    """The decision as it stands now (for ``wait`` polling and ``resume``)."""
    return _load(tracker, decision_id)


def poll_answer(
    tracker: Tracker, decision_id: str, previous: PollToken | None = None
) -> tuple[Decision, PollToken | None]:
    """One poll of ``wait``: the decision now, and a token that makes the next poll cheap.

    Uses the tracker's optional ``poll`` capability when it has one (GitHub: a conditional request,
    free of rate limit while nothing changed); otherwise re-reads (:func:`answer_of`) and returns no
    token. Pass the returned token to the next call.
    """
    if not isinstance(tracker, Pollable):
        return answer_of(tracker, decision_id), None
    did = _checked_id(decision_id)
    decision, token = tracker.poll(did, previous if previous is not None and previous.decision_id == did else None)
    return _found(did, decision), token


def resume_context(decision: Decision) -> dict[str, Any]:
    """What a fresh agent session needs to continue: the question, the answer and how it was given,
    and the preserved work."""
    answer = decision.answer
    return {
        "id": decision.id,
        "state": decision.state,
        "question": decision.question,
        "options": [o.model_dump() for o in decision.options],
        "answer": answer.value if answer else None,
        "answered_by": answer.by if answer else None,
        "answered_at": answer.at.isoformat() if answer else None,
        "assumption": bool(answer and answer.assumption),
        "precedent": answer.citation.model_dump(mode="json") if answer and answer.citation else None,
        "guess": decision.guess,
        "overrides": [o.model_dump(mode="json") for o in decision.overrides],
        "work_so_far": decision.work_so_far,
    }
