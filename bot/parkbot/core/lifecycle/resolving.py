"""Answering a decision: the rules an answer meets, the four resolution steps, and what they return."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from parkbot.core import authority
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import ConcurrentChange, ContentChanged, InvalidInput, Refused
from parkbot.core.lifecycle.gates import publish_gates
from parkbot.core.lifecycle.outcomes import (
    COMMAND_FOR_KIND,
    PARK_ATTEMPTS,
    Command,
    log_entry,
)
from parkbot.core.lifecycle.reading import load_verified
from parkbot.core.models import Answer, AnswerKind, Decision, utcnow
from parkbot.core.tracker import ConflictingAnswers, GateResult, Location, Tracker

if TYPE_CHECKING:
    from parkbot.core.dashboard_index import Changed

ResolveAction = Literal["resolved", "completed", "unchanged", "confirmed"]


@dataclass(frozen=True)
class ResolveOutcome:
    """An answer recorded (``resolved``), a stopped resolution finished (``completed``), or nothing to do."""

    decision: Decision
    action: ResolveAction
    answer: Answer
    location: Location
    gates: list[GateResult] = field(default_factory=list)

    @property
    def changed(self) -> Changed | None:
        """Its dashboard line: an answer takes an open decision off it; an unchanged one needs nothing."""
        from parkbot.core.dashboard_index import Changed

        return None if self.action == "unchanged" else Changed(decision_id=self.decision.id)


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
    return complete(tracker, config, decision, recorded or answer, action, answer.at)


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
    decision = load_verified(tracker, config, decision_id)
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
    decision = load_verified(tracker, config, decision_id)
    if decision.state != "open":
        raise Refused(
            f"decision {decision.id} is {decision.state}; only open decisions are acted on", reason=decision.state
        )
    authority.authorize(tracker, config, decision, by)
    return decision


def complete(
    tracker: Tracker, config: Config, decision: Decision, answer: Answer, action: ResolveAction, now: datetime
) -> ResolveOutcome:
    """Steps (a)-(d) in order, logging before the close so a re-run can only repeat the line, never lose it.

    A failure raises and leaves the decision open for a re-run.
    """
    if action == "resolved":
        tracker.record_answer(decision, answer)
    tracker.point_dependents(decision, answer)
    resolved = decision.model_copy(update={"state": "resolved", "answer": answer})
    gates = publish_gates(tracker, config, resolved, tracker.clear_blocking(decision))
    tracker.close(decision, answer, log_entry("resolved", resolved, now, location=_where(tracker, resolved)))
    return ResolveOutcome(resolved, action, answer, tracker.location(resolved), gates)


def _where(tracker: Tracker, decision: Decision) -> str | None:
    location = tracker.location(decision)
    return location.url or (f"{location.ref}:{location.path}" if location.ref else location.path)
