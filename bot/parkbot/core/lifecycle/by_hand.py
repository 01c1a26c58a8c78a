"""Finishing a resolution, and a decision's item closed, reopened or unlabelled by a person."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from parkbot.core import authority
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.dashboard_index import Changed
from parkbot.core.errors import InvalidInput
from parkbot.core.lifecycle.gates import block_and_publish, gate
from parkbot.core.lifecycle.outcomes import COMMAND_FOR_KIND, log_entry
from parkbot.core.lifecycle.resolving import ResolveOutcome, resolve
from parkbot.core.lifecycle.review import accept_review
from parkbot.core.models import Answer, Decision, utcnow
from parkbot.core.tracker import GateResult, Location, Tracker


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
    #: Whether parkbot's record had the decision open before the act (an abandoned one revived had not).
    was_open: bool = True

    @property
    def changed(self) -> Changed | None:
        """Its dashboard line, whatever the issue showed: the record says whether it was open before."""
        if self.action == "ignored":
            return None
        if self.action == "finished":
            return self.resolution.changed if self.resolution is not None else None
        return Changed(decision_id=self.decision.id, was_open=self.was_open)


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
        return HandOutcome("abandoned", abandoned, reason, was_open=decision.state == "open")
    location = tracker.update(reopened)
    return HandOutcome("reopened", reopened, REOPENED.format(who=who), location, was_open=decision.state == "open")


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
        said = CLOSED_AGAIN.format(answer=answer.value, by=answer.by)
        return HandOutcome("closed_again", resolved, said, was_open=decision.state == "open")
    if decision.state == "open" and not was_abandoned:
        return HandOutcome("ignored", decision, f"{decision.id} is open already")
    revived = decision.model_copy(update={"state": "open"})
    location = tracker.update(revived)
    gates = [gate(tracker, config, target) for target in decision.dependents] if decision.blocking else []
    said = REVIVED.format(who=who)
    return HandOutcome("revived", revived, said, location, gates=gates, was_open=decision.state == "open")


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
    gates = block_and_publish(tracker, config, decision) if decision.state == "open" else []
    said = RESTORED.format(who=who, what=what)
    return HandOutcome("restored", decision, said, location, gates=gates, was_open=decision.state == "open")
