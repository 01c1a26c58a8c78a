"""The decision lifecycle: every rule of the contract, written once against :class:`Tracker`.

No I/O of its own: each function takes a tracker, the config and the clock, so both backends obey
exactly the same rules and the rules are tested without either.

| situation                          | result                                                      |
| ---------------------------------- | ----------------------------------------------------------- |
| new id                             | parked: created, assigned to the owner, dependents blocked  |
| same id, same title                | updated in place (``updated``/``unchanged``), never twice    |
| same id, different title           | refused (identity collision), nothing written               |
| same id, already resolved          | refused: a resolved decision stays resolved                 |
| same id, ``blocking`` lowered       | refused (``blocking_lowered``): blocking only goes up        |
| owner answers                      | record -> point dependents -> clear blocking -> close       |
| a step fails midway                | stays open; the same answer again completes the rest        |
| a different answer after one       | refused, quoting the recorded answer                        |
| someone who is not an owner        | refused, nothing changed                                    |
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from parkbot.core import authority, suggest
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import ConcurrentChange, ContentChanged, InvalidInput, NotFound, Refused
from parkbot.core.identity import check_decision_id
from parkbot.core.identity import decision_id as derive_id
from parkbot.core.models import (
    Answer,
    AnswerKind,
    Decision,
    DecisionState,
    DoneWithAssumptions,
    Escalation,
    LogEntry,
    NeedsInput,
    Override,
    utcnow,
)
from parkbot.core.policy import budget_refusal, find_precedent
from parkbot.core.tracker import (
    BacklogHints,
    ConflictingAnswers,
    DependentState,
    GateResult,
    Location,
    Pollable,
    PollToken,
    SharedCommits,
    Tracker,
)

ParkAction = Literal["created", "updated", "unchanged"]
ResolveAction = Literal["resolved", "completed", "unchanged", "confirmed"]
#: How the owner answered: ``decide`` names an option, ``answer`` gives text, ``default`` an assumption.
Command = Literal["decide", "answer", "default", "auto"]


@dataclass(frozen=True)
class ParkOutcome:
    decision: Decision
    action: ParkAction
    location: Location
    gates: list[GateResult] = field(default_factory=list)


@dataclass(frozen=True)
class ResolveOutcome:
    decision: Decision
    action: ResolveAction
    answer: Answer
    location: Location
    gates: list[GateResult] = field(default_factory=list)


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
    if merged.content_digest() != existing.content_digest():
        merged = merged.model_copy(update={"content_changed_at": now})
    return merged


#: How often ``park`` re-reads after another writer created the same decision between our read and write.
PARK_ATTEMPTS = 5


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
    return _file(tracker, config, decision, now)


def _file(tracker: Tracker, config: Config, incoming: Decision, now: datetime) -> ParkOutcome:
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
    existing = None if tracker.claim(incoming.id) else _read(tracker, config, incoming.id)
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
    gates = _block(tracker, merged)
    return ParkOutcome(merged, "updated" if changed else "unchanged", location, gates)


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


def _block(tracker: Tracker, decision: Decision) -> list[GateResult]:
    """Link a blocking decision's dependents and publish their (blocked) gates."""
    if not (decision.blocking and decision.dependents):
        return []
    return _publish(tracker, decision, tracker.block_dependents(decision))


def _publish(tracker: Tracker, decision: Decision, states: list[DependentState]) -> list[GateResult]:
    """Evaluate each dependent's gate from ``decision`` as it now stands and whatever else still links the
    dependent, and publish it where it can be shown."""
    results = []
    for state in states:
        linked = [d for d in state.others if d.id != decision.id]
        result = evaluate_gate(state.target, [decision, *linked])
        if state.note:
            result = GateResult(result.target, result.blocking, result.resolved, {"note": state.note})
        if state.publishable:
            result = per_commit(tracker, config=None, result=result, current=decision)
            tracker.publish_gate(result)
        results.append(result)
    return results


def _park_new(tracker: Tracker, incoming: Decision, config: Config, now: datetime) -> ParkOutcome:
    """A new item, logged; a new question must also be within budget, and cites a precedent if one exists."""
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
    if citation is None or config.precedents != "apply":
        from parkbot.core.planner import route  # the planner's rules live in their own module

        incoming = route(incoming, config, now)
    location = tracker.create(incoming, log_entry("parked", incoming, now))
    if citation is not None and config.precedents == "apply":
        answer = Answer(value=citation.answer, kind="precedent", by="precedent", at=now, citation=citation)
        done = _complete(tracker, incoming, answer, "resolved", now)
        return ParkOutcome(done.decision, "created", location, done.gates)
    return ParkOutcome(incoming, "created", location, _block(tracker, incoming))


# --- resolve ---------------------------------------------------------------------------------


def _checked_id(decision_id: str) -> str:
    try:
        return check_decision_id(decision_id)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _found(did: str, decision: Decision | None, tracker: Tracker | None = None) -> Decision:
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
    if decision.conflicting_answers and decision.answer is not None:
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


def _read(tracker: Tracker, config: Config, did: str) -> Decision | None:
    found = tracker.find(did)
    return verify(tracker, config, found) if found is not None else None


def _load(tracker: Tracker, config: Config, decision_id: str) -> Decision:
    did = _checked_id(decision_id)
    return _found(did, _read(tracker, config, did), tracker)


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
            raise InvalidInput(
                f"{text!r} is not an option of {decision.id}; {_closest(decision, text)}choose one of: {choices}"
            )
        return option, "default" if command == "default" else "option"
    if option is not None:
        return option, "option"
    if command == "answer" or decision.free_text_allowed:
        if not decision.free_text_allowed:
            raise InvalidInput(f"{decision.id} takes no free-text answer; choose one of: {choices}")
        return text, "free_text"
    raise InvalidInput(
        f"{text!r} is not an option of {decision.id}; {_closest(decision, text)}choose one of: {choices}"
    )


def _closest(decision: Decision, typed: str) -> str:
    """``did you mean 'x'? `` for a near miss of an option id, else nothing."""
    import difflib  # only when an answer is refused: not at every command's start-up

    found = difflib.get_close_matches(typed.casefold(), [o.id.casefold() for o in decision.options], n=1, cutoff=0.6)
    if not found:
        return ""
    meant = next(o.id for o in decision.options if o.id.casefold() == found[0])
    return f"did you mean {meant!r}? "


def help_text(decision: Decision, config: Config) -> list[tuple[str, str]]:
    """What the owner can type on this decision: (command, what it does), in the order to try them."""
    if decision.kind == "review":
        rows = [("/accept", "accept every stated assumption")]
        rows += [(f"/override {n} <what it should be>", a.text) for n, a in enumerate(decision.assumptions, 1)]
        return rows
    rows = [(f"/decide {o.id}", o.label) for o in decision.options]
    if decision.free_text_allowed:
        rows.append(("/answer <your answer>", "answer in words"))
    rows += [(f"/default {o.id}", "the same, recorded as an explicit assumption") for o in decision.options[:1]]
    rows.append(("/escalate", "pass the question one level up the hierarchy"))
    if decision.requester and config.may_request(decision.requester):
        rows.append(("/return", f"hand it back to {decision.requester} (stated by the agent), who started the run"))
    return rows


def resolve(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    value: str,
    by: Actor,
    *,
    command: Command = "auto",
    source: str | None = None,
    now: datetime | None = None,
    seen_at: datetime | None = None,
) -> ResolveOutcome:
    """Record an answer and run the four resolution steps; safe to run again after any failure.

    ``seen_at`` is when the owner gave the answer as the backend vouches for it (GitHub: the comment's
    ``created_at``): an answer given before the question or options last changed is refused, and the
    answer records the digest of the text it was judged against (:meth:`Decision.content_digest`), which
    the backend checks again when it records it.

    Another writer may record an answer between our read and our write; the backend then raises
    :class:`ConcurrentChange` and the rules are applied again to what it recorded.
    """
    for attempt in range(1, PARK_ATTEMPTS + 1):
        try:
            return _resolve_once(tracker, config, decision_id, value, by, command, source, now, seen_at)
        except ContentChanged as exc:
            raise Refused(OPTIONS_CHANGED.format(id=decision_id, what="you read them"), reason=exc.reason) from exc
        except ConcurrentChange:
            if attempt == PARK_ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _resolve_once(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    value: str,
    by: Actor,
    command: Command,
    source: str | None,
    now: datetime | None,
    seen_at: datetime | None = None,
) -> ResolveOutcome:
    decision, answer, recorded = _judge_answer(tracker, config, decision_id, value, by, command, source, now, seen_at)
    unchanged = _already_answered(tracker, decision, recorded, answer)
    if unchanged is not None:
        return unchanged
    action: ResolveAction = "completed" if recorded else "resolved"
    return _complete(tracker, decision, recorded or answer, action, answer.at)


OPTIONS_CHANGED = (
    "the options changed after {what}; answer again: the question or options of {id} were changed by a "
    "re-filing after that, so the answer is not applied to text you did not read. Read them again, then answer."
)


def _already_answered(
    tracker: Tracker, decision: Decision, recorded: Answer | None, given: Answer | None = None
) -> ResolveOutcome | None:
    """Resolved stays resolved: the same answer again is ``unchanged`` (a different one was refused already),
    or ``confirmed`` where it settles answers that conflicted with it (two owners on two copies)."""
    if decision.state == "resolved" and recorded is not None:
        if decision.conflicting_answers and isinstance(tracker, ConflictingAnswers):
            tracker.confirm_answer(decision, given or recorded)
            settled = decision.with_conflicting_answers(()).with_problems(
                [p for p in decision.problems if not p.startswith("conflicting answer")]
            )
            return ResolveOutcome(settled, "confirmed", recorded, tracker.location(decision))
        return ResolveOutcome(decision, "unchanged", decision.current_answer or recorded, tracker.location(decision))
    return None


def _judge_answer(
    tracker: Tracker,
    config: Config,
    decision_id: str,
    value: str,
    by: Actor,
    command: Command,
    source: str | None,
    now: datetime | None,
    seen_at: datetime | None = None,
) -> tuple[Decision, Answer, Answer | None]:
    """Every rule an answer must meet before anything is written: the decision, the answer, what is recorded."""
    decision = _load(tracker, config, decision_id)
    changed = decision.content_changed_at
    if seen_at is not None and changed is not None and seen_at < changed and decision.state == "open":
        raise Refused(OPTIONS_CHANGED.format(id=decision.id, what="your comment"), reason="options_changed")
    if decision.state == "abandoned":
        raise Refused(
            f"decision {decision.id} was abandoned without an answer; re-file it to ask again", reason="abandoned"
        )
    if decision.kind == "review":
        raise InvalidInput(
            f"{decision.id} is a review item: accept its assumptions, or override one of them",
            step="accept_or_override",
            decision=decision.id,
        )
    authority.authorize(tracker, config, decision, by)
    answer_value, kind = interpret_answer(decision, value, command)
    answer = Answer(
        value=answer_value, kind=kind, by=by.login, at=now or utcnow(), source=source, digest=decision.content_digest()
    )
    recorded = decision.answer if decision.state == "resolved" else authority.recorded_answer(tracker, config, decision)
    corrected = any(c.answer.same_answer(answer) for c in decision.corrections)  # a retry of a correction
    if recorded is not None and not recorded.same_answer(answer) and not corrected:
        standing = decision.current_answer or recorded
        raise Refused(
            f"decision {decision.id} already has the answer {standing.value!r} "
            f"({standing.kind}, by {standing.by} at {standing.at.isoformat()}); a different answer is refused",
            reason="conflicting_answer",
        )
    return decision, answer, recorded


# --- an owner's act, as the comment command that performs it ----------------------------------------
#
# Where records count only when the backend's own identity writes them (GitHub), an owner acting with
# their own credentials leaves the act as their own comment command; parkbot records it when that
# comment reaches it. These say which command, after the rules the act itself must meet, so that a
# refusal is immediate rather than a reply on the issue later.


def answer_command(
    tracker: Tracker, config: Config, decision_id: str, value: str, by: Actor, *, command: Command = "auto"
) -> tuple[Decision, str] | ResolveOutcome:
    """The comment command that answers ``decision_id`` with ``value``, if ``by`` may.

    A decision already resolved with this very answer needs no command: resolved stays resolved, and
    the outcome says ``unchanged`` (a different answer is refused, as :func:`resolve` refuses it).
    """
    decision, answer, recorded = _judge_answer(tracker, config, decision_id, value, by, command, None, None)
    unchanged = _already_answered(tracker, decision, recorded)
    if unchanged is not None:
        return unchanged
    return decision, f"/{COMMAND_FOR_KIND[answer.kind]} {answer.value}"


def act_command(tracker: Tracker, config: Config, decision_id: str, by: Actor, text: str) -> Decision:
    """The decision ``text`` (``/escalate``, ``/return``, ``/accept``, ``/override ...``) acts on, if ``by`` is an
    owner of that open decision; the command's own rules are applied when parkbot records it."""
    decision = _load(tracker, config, decision_id)
    if decision.state != "open":
        raise Refused(
            f"decision {decision.id} is {decision.state}; only open decisions are acted on", reason=decision.state
        )
    authority.authorize(tracker, config, decision, by)
    return decision


def _complete(
    tracker: Tracker, decision: Decision, answer: Answer, action: ResolveAction, now: datetime
) -> ResolveOutcome:
    """Steps (a)-(d) in order, logging before the close so a re-run can only repeat the line, never lose it.

    A failure raises and leaves the decision open for a re-run.
    """
    if action == "resolved":
        tracker.record_answer(decision, answer)
    tracker.point_dependents(decision, answer)
    resolved = decision.model_copy(update={"state": "resolved", "answer": answer})
    gates = _publish(tracker, resolved, tracker.clear_blocking(decision))
    tracker.close(decision, answer, log_entry("resolved", resolved, now, location=_where(tracker, resolved)))
    return ResolveOutcome(resolved, action, answer, tracker.location(resolved), gates)


#: Steps (a)-(d) for rules kept in their own modules (the planner's).
complete = _complete


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


def linked(tracker: Tracker, config: Config, target: str) -> list[Decision]:
    """The decisions a dependent waits for, each with only the authority its records prove."""
    return [verify(tracker, config, d) for d in tracker.linked_decisions(target)]


def gate(tracker: Tracker, config: Config, target: str) -> GateResult:
    """Evaluate and publish the gate of one dependent (``#N`` or ``branch:<name>``)."""
    result = per_commit(tracker, config, evaluate_gate(target, linked(tracker, config, target)))
    tracker.publish_gate(result)
    return result


def per_commit(
    tracker: Tracker, config: Config | None, result: GateResult, *, current: Decision | None = None
) -> GateResult:
    """The gate is per commit: an open result is published only when no other dependent at that commit waits.

    Branch protection reads the newest check on a commit, whichever pull request it was published
    for, so a second pull request opened at a blocked head must not turn that commit green. The
    blockers of every dependent at the commit are named. ``current`` is a decision as this run has
    just changed it (resolved), which its stored record may not show yet.
    """
    if result.blocking or not isinstance(tracker, SharedCommits):
        return result
    blockers: dict[str, Decision] = {}
    waiting: list[str] = []
    for other in tracker.sharing_commit(result.target):
        found = tracker.linked_decisions(other) if config is None else linked(tracker, config, other)
        if current is not None:
            found = [current if d.id == current.id else d for d in found]
        sibling = evaluate_gate(other, found)
        if sibling.blocking:
            waiting.append(other)
            blockers.update((d.id, d) for d in sibling.blocking)
    if not blockers:
        return result
    details = {**result.details, "same_commit": waiting}
    return GateResult(result.target, tuple(blockers.values()), result.resolved, details)


# --- escalate --------------------------------------------------------------------------------


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
    decision = _load(tracker, config, decision_id)
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
    decision = _load(tracker, config, decision_id)
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
    return _file(tracker, config, incoming, now)


def _load_review(tracker: Tracker, config: Config, decision_id: str, by: Actor) -> Decision:
    decision = _load(tracker, config, decision_id)
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
    return _complete(tracker, decision, recorded or answer, "completed" if recorded else "resolved", answer.at)


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


# --- wait and resume -------------------------------------------------------------------------


def answer_of(tracker: Tracker, config: Config, decision_id: str) -> Decision:
    """The decision as it stands now (for ``show``, ``wait`` polling and ``resume``)."""
    return _load(tracker, config, decision_id)


def poll_answer(
    tracker: Tracker, config: Config, decision_id: str, previous: PollToken | None = None
) -> tuple[Decision, PollToken | None]:
    """One poll of ``wait``: the decision now, and a token that makes the next poll cheap.

    Uses the tracker's optional ``poll`` capability when it has one (GitHub: a conditional request,
    free of rate limit while nothing changed); otherwise re-reads (:func:`answer_of`) and returns no
    token. Pass the returned token to the next call.
    """
    if not isinstance(tracker, Pollable):
        return answer_of(tracker, config, decision_id), None
    did = _checked_id(decision_id)
    decision, token = tracker.poll(did, previous if previous is not None and previous.decision_id == did else None)
    return verify(tracker, config, _found(did, decision, tracker)), token


# --- finishing, and issues closed or reopened by hand ------------------------------------------

#: The command that re-records an answer of each kind (``Answer.same_answer`` compares kinds too).
COMMAND_FOR_KIND: dict[str, Command] = {"option": "decide", "free_text": "answer", "default": "default"}


def finish_resolution(
    tracker: Tracker, config: Config, decision: Decision, recorded: Answer, *, now: datetime | None = None
) -> ResolveOutcome:
    """Complete a resolution whose answer is recorded, as the recorded actor, through the same rules.

    The actor is re-checked: one who is no longer an owner is refused. An answer of a kind no command
    gives (a precedent) cannot be finished this way and is :class:`InvalidInput`.
    """
    actor = Actor(recorded.by)
    if recorded.kind == "accepted":
        return accept_review(tracker, config, decision.id, actor, now=now)
    command = COMMAND_FOR_KIND.get(recorded.kind)
    if command is None:
        raise InvalidInput(
            f"{decision.id}: a {recorded.kind} answer is recorded but cannot be finished automatically; "
            "an owner finishes it by answering again",
            step="answer_again",
            decision=decision.id,
        )
    return resolve(
        tracker, config, decision.id, recorded.value, actor, command=command, source=recorded.source, now=now
    )


HandAction = Literal["ignored", "finished", "abandoned", "reopened", "closed_again", "revived", "restored"]


@dataclass(frozen=True)
class HandOutcome:
    """What a person closing or reopening a decision's item led to, and why (``message``)."""

    action: HandAction
    decision: Decision
    message: str
    location: Location | None = None
    resolution: ResolveOutcome | None = None
    gates: list[GateResult] = field(default_factory=list)


REOPENED = (
    "{who} closed this decision without an answer, and a question is only settled by an answer (its dependents "
    "stay blocked). Answer it, or answer with an explicit default. To give up on the question instead, set "
    "`closed_without_answer: abandon` in the configuration."
)
ABANDONED = "closed by {who} without an answer"
CLOSED_AGAIN = (
    "this decision was resolved ({answer!r} by {by}), and a resolved decision stays resolved. If the situation "
    "changed, file a new question under another key."
)
REVIVED = "{who} reopened this question: it is open again and blocks its dependents until it is answered."


def closed_by_hand(
    tracker: Tracker, config: Config, decision: Decision, who: str, *, now: datetime | None = None
) -> HandOutcome:
    """Someone closed an open decision. With a recorded answer the resolution is finished; without one the
    decision is reopened (``closed_without_answer: reopen``) or abandoned (``abandon``); dependents stay
    blocked either way, because silence is not an answer."""
    now = now or utcnow()
    if decision.state == "resolved":
        return HandOutcome("ignored", decision, f"{decision.id} is resolved")
    reopened = decision.model_copy(update={"state": "open"})
    recorded = authority.recorded_answer(tracker, config, reopened)
    if recorded is not None:
        tracker.update(reopened)
        done = finish_resolution(tracker, config, reopened, recorded, now=now)
        return HandOutcome(
            "finished", done.decision, "finished a resolution that had stopped part-way", resolution=done
        )
    if config.closed_without_answer == "abandon":
        reason = ABANDONED.format(who=who)
        tracker.mark_abandoned(decision, reason, log_entry("abandoned", decision, now, by=who, reason=reason))
        abandoned = decision.model_copy(update={"state": "abandoned"})
        return HandOutcome("abandoned", abandoned, reason)
    location = tracker.update(reopened)
    return HandOutcome("reopened", reopened, REOPENED.format(who=who), location)


def reopened_by_hand(
    tracker: Tracker,
    config: Config,
    decision: Decision,
    who: str,
    *,
    was_resolved: bool,
    was_abandoned: bool = False,
) -> HandOutcome:
    """Someone reopened a decision. A resolved one is closed again (it stays resolved); an abandoned one is
    taken as asking again: open and blocking once more."""
    if was_resolved:
        answer = authority.recorded_answer(tracker, config, decision)
        if answer is None:
            return HandOutcome("ignored", decision, f"{decision.id} is marked resolved but has no recorded answer")
        resolved = decision.model_copy(update={"state": "resolved", "answer": answer})
        tracker.close(decision, answer, log_entry("resolved", resolved, answer.at))
        return HandOutcome("closed_again", resolved, CLOSED_AGAIN.format(answer=answer.value, by=answer.by))
    if decision.state == "open" and not was_abandoned:
        return HandOutcome("ignored", decision, f"{decision.id} is open already")
    revived = decision.model_copy(update={"state": "open"})
    location = tracker.update(revived)
    gates = [gate(tracker, config, target) for target in decision.dependents] if decision.blocking else []
    return HandOutcome("revived", revived, REVIVED.format(who=who), location, gates=gates)


RESTORED = (
    "{who} {what}. Labels only help find a decision; they never answer it, so nothing was unblocked: parkbot "
    "put back what it could, and the dependents stay blocked until an owner answers here."
)


def index_changed_by_hand(tracker: Tracker, config: Config, decision: Decision, who: str, what: str) -> HandOutcome:
    """Someone removed what indexes a decision (its labels): treated like a close without an answer.

    The record is written back as it stands (its labels with it), and an open, blocking decision
    links and blocks its dependents again (their labels too): the index is restored, nothing opens.
    """
    location = tracker.update(decision)
    gates = _block(tracker, decision) if decision.state == "open" else []
    return HandOutcome("restored", decision, RESTORED.format(who=who, what=what), location, gates=gates)
