"""When an owner's act is left as their own comment command, and which command it is.

On a backend whose records count only when its own identity writes them (GitHub: parkbot's login),
a run with a person's credentials cannot record an act as parkbot's. The act is posted as that
person's own comment command instead, once every rule that can be checked before posting holds;
parkbot records it under its own identity when the comment's event reaches it, applying the
command's own rules then.
"""

from __future__ import annotations

from collections.abc import Sequence

from parkbot.core import authority, lifecycle
from parkbot.core import planner as planner_rules
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Decision
from parkbot.core.tracker import OwnIdentityRecords, Tracker

__all__ = [
    "act_request",
    "cite_request",
    "commenting",
    "correct_request",
    "override_assumption_command",
    "override_planner_command",
    "pass_request",
]


def commenting(tracker: Tracker) -> OwnIdentityRecords | None:
    """The backend to leave an owner's act on as their own comment command, or None when this run's
    credentials are the backend's own identity (or its records need none) and parkbot records the act itself."""
    if isinstance(tracker, OwnIdentityRecords) and not tracker.writes_as_itself():
        return tracker
    return None


def act_request(
    tracker: Tracker, config: Config, id: str, by: Actor, command: str, *, any_state: bool = False
) -> Decision:
    """The decision ``command`` (``/return``, ``/accept``, ``/override ...``) acts on, once it is open
    (``any_state``: also resolved) and ``by`` one of its owners."""
    if any_state:
        decision = lifecycle.answer_of(tracker, config, id)
        authority.authorize(tracker, config, decision, by)
        return decision
    return lifecycle.act_command(tracker, config, id, by, command)


def cite_request(
    tracker: Tracker, config: Config, id: str, by: Actor, answer: str, sources: Sequence[str]
) -> tuple[Decision, str]:
    """The planner's ``/cite`` and the decision it answers, once the planner may cite on it."""
    decision = lifecycle.answer_of(tracker, config, id)
    planner_rules.check_cite_request(tracker, config, decision, by, sources)
    return decision, " ".join(["/cite", answer.strip(), *sources])


def pass_request(tracker: Tracker, config: Config, id: str, by: Actor, reason: str | None) -> tuple[Decision, str]:
    """The planner's ``/pass`` and the decision it hands on, once the planner may pass it."""
    decision = lifecycle.answer_of(tracker, config, id)
    planner_rules.check_cite_request(tracker, config, decision, by, None)
    return decision, "/pass" + (f" {reason.strip()}" if reason and reason.strip() else "")


def correct_request(
    tracker: Tracker, config: Config, id: str, by: Actor, answer: str, reason: str
) -> tuple[Decision, str]:
    """The ``/correct`` of a resolved decision's answer, once it says why and ``by`` may correct it."""
    if not reason or not reason.strip():
        raise InvalidInput("say why the answer is corrected (a reason)")
    decision = lifecycle.answer_of(tracker, config, id)
    planner_rules.check_correct_request(tracker, config, decision, by)
    return decision, f"/correct {answer.strip()} {reason.strip()}"


def override_assumption_command(number: int, text: str) -> str:
    """The ``/override`` that turns assumption ``number`` of a review item into a recorded answer."""
    return f"/override {number} {text.strip()}"


def override_planner_command(answer: str, reason: str | None) -> str:
    """The ``/override`` by which an owner's answer replaces the planner's."""
    return f"/override {answer.strip()}" + (f" {reason.strip()}" if reason and reason.strip() else "")
