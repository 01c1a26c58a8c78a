"""Acting as an owner: answer, escalate, return, accept, override; who acts, and the act left as a comment.

Where an act cannot be recorded as the backend's own (GitHub, run with a person's token) it is posted as
that person's comment command (:mod:`parkbot.core.own_comments`) and the result is :class:`Requested`.
"""

from __future__ import annotations

from datetime import datetime

from parkbot.api.results.acts import Filed, Requested, Resolved
from parkbot.api.results.base import LOCATION_SHOWN, location_fields, where
from parkbot.core import lifecycle, own_comments
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.lifecycle import Command
from parkbot.core.models import Decision
from parkbot.core.tracker import OwnIdentityRecords, Tracker

__all__ = [
    "accept_review",
    "actor",
    "ask",
    "escalate",
    "override",
    "planner_actor",
    "request",
    "resolve",
    "return_to_requester",
]


def resolve(
    tracker: Tracker,
    config: Config,
    id: str,
    answer: str,
    *,
    by: str | None,
    default: bool,
    source: str,
    now: datetime | None,
) -> Resolved | Requested:
    """Answer a decision as one of its owners, or post the answer as their own comment."""
    command: Command = "default" if default else "auto"
    who = actor(tracker, by, "answers")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        asked = lifecycle.answer_command(tracker, config, id, answer, who, command=command)
        if isinstance(asked, tuple):
            return request(tracker, commenting, *asked, who)
        outcome = asked
    else:
        outcome = lifecycle.resolve(tracker, config, id, answer, who, command=command, source=source, now=now)
    resolved = Resolved.of(outcome)
    note = " (explicit default, flagged as an assumption)" if resolved.assumption else ""
    return resolved._told(
        f"{resolved.action} {resolved.id}: {resolved.answer.value!r} by {resolved.answer.by}{note}",
        {"id": None, "action": None, "answer": ("value", "by")},
    )


def escalate(tracker: Tracker, config: Config, id: str, *, by: str | None, to: str | None) -> Filed | Requested:
    """Hand a question exactly one level up the owner hierarchy."""
    who = actor(tracker, by, "escalates")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        decision, text = lifecycle.escalation_command(tracker, config, id, who, to=to)
        return request(tracker, commenting, decision, text, who)
    filed = Filed.of(lifecycle.escalate(tracker, config, id, who, to=to))
    return filed._told(f"escalated {filed.id}: {' -> '.join(filed.chain)}", {"id": None, "chain": None})


def return_to_requester(tracker: Tracker, config: Config, id: str, *, by: str | None) -> Filed | Requested:
    """Hand the question back to the requester of an interactive run."""
    who = actor(tracker, by, "acts")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        return ask(tracker, commenting, config, id, who, "/return")
    filed = Filed.of(lifecycle.return_to_requester(tracker, config, id, who))
    return filed._told(f"returned {filed.id} to {filed.owner}", {"id": None, "owner": None})


def accept_review(tracker: Tracker, config: Config, id: str, *, by: str | None) -> Resolved | Requested:
    """Accept a review item's stated assumptions and close it."""
    who = actor(tracker, by, "acts")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        return ask(tracker, commenting, config, id, who, "/accept")
    resolved = Resolved.of(lifecycle.accept_review(tracker, config, id, who))
    return resolved._told(f"{resolved.action} {resolved.id}: assumptions accepted", {"id": None, "action": None})


def override(tracker: Tracker, config: Config, id: str, number: int, text: str, *, by: str | None) -> Filed | Requested:
    """Turn assumption ``number`` of a review item into a recorded answer."""
    who = actor(tracker, by, "acts")
    commenting = own_comments.commenting(tracker)
    if commenting is not None:
        return ask(tracker, commenting, config, id, who, own_comments.override_assumption_command(number, text))
    filed = Filed.of(lifecycle.override_assumption(tracker, config, id, number, text, who))
    return filed._told(f"{filed.action} {filed.id}: assumption {number} overridden", {"id": None, "action": None})


def ask(
    tracker: Tracker,
    poster: OwnIdentityRecords,
    config: Config,
    id: str,
    by: Actor,
    command: str,
    *,
    any_state: bool = False,
) -> Requested:
    """Post ``command`` as ``by``'s own comment, once :func:`parkbot.core.own_comments.act_request` allows it."""
    decision = own_comments.act_request(tracker, config, id, by, command, any_state=any_state)
    return request(tracker, poster, decision, command, by)


def request(tracker: Tracker, poster: OwnIdentityRecords, decision: Decision, text: str, by: Actor) -> Requested:
    """Post ``text`` on ``decision`` as ``by``'s own comment command (``poster``: the tracker, as
    :func:`parkbot.core.own_comments.commenting` found it): what was requested, and where."""
    url = poster.post_command(decision, text)
    location = tracker.location(decision)
    requested = Requested(id=decision.id, command=text, by=by.login, comment=url, **location_fields(location))
    return requested._told(
        f"requested {decision.id}: posted {text!r} as {by.login} on {where(location)}; parkbot records it "
        f"when the comment's event reaches its workflow (follow it with `parkbot wait {decision.id}`)",
        {"id": None, "command": None, "by": None, **LOCATION_SHOWN},
    )


def planner_actor(tracker: Tracker, by: str | None, verb: str) -> Actor:
    """Who acts as the planner: bots included (an App), since the core checks it is exactly the planner."""
    from parkbot.core import planner as planner_rules  # the planner's acts only: ``park`` loads no planner

    if not isinstance(tracker, planner_rules.AgentIdentity):
        return actor(tracker, by, verb)
    try:
        return tracker.agent_actor(by)
    except InvalidInput as exc:
        raise InvalidInput(f"say who {verb} with --by LOGIN (or PARKBOT_ACTOR): {exc.message}") from None


def actor(tracker: Tracker, by: str | None, verb: str) -> Actor:
    """Who acts: what the backend can tell from its own credentials and ``by`` (see ``Tracker.actor``)."""
    try:
        return tracker.actor(by)
    except InvalidInput as exc:
        raise InvalidInput(f"parkbot cannot tell who {verb}: {exc.message}", step="name_actor") from None
