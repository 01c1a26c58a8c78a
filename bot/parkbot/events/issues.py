"""``issues`` (``closed``, ``reopened``) by a person on a decision issue -> keep the record truthful.

* closed an open decision that has no answer: parkbot reopens it and says why
  (``closed_without_answer: reopen``, the default), or marks it abandoned (``abandon``); its
  dependents stay blocked either way;
* closed an open decision whose answer is recorded (a resolution that stopped part-way): parkbot
  finishes the resolution with the recorded answer and actor;
* reopened a resolved decision: parkbot closes it again and says why (a resolved decision stays
  resolved);
* reopened an abandoned decision: taken as asking again, the decision is open (and blocking) again.

Judged from the payload before any API call: events caused by bots (parkbot's own closes and
reopens among them) and issues without the ``parkbot:decision`` label are ignored.
"""

from __future__ import annotations

from parkbot.core import lifecycle
from parkbot.core.lifecycle import HandOutcome
from parkbot.core.tracker import IssueComments
from parkbot.events.base import Context, Event, Item, gate_item, ignored, is_bot
from parkbot.events.reconcile import resolution_items
from parkbot.events.replies import REOPENED_STEP
from parkbot.events.router import Router
from parkbot.trackers.github.labels import ABANDONED_LABEL, DECISION_LABEL, RESOLVED_LABEL

router = Router()


def _who(event: Event) -> str:
    who: str = event.get("sender.login", str, default="someone")
    return who


@router.register("issues", "closed", "reopened")
def on_issue(event: Event, ctx: Context) -> list[Item]:
    number = event.get("issue.number", int)
    if event.get("issue.pull_request", dict, default=None) is not None:
        return ignored(f"#{number} is a pull request")
    if is_bot(event.get("sender", dict, default=None)):
        return ignored(f"#{number} was {event.action} by a bot ({_who(event)})")
    if not event.has_label("issue", DECISION_LABEL):
        return ignored(f"#{number} is not a decision issue (no {DECISION_LABEL} label)")
    if event.action == "closed" and (
        event.has_label("issue", RESOLVED_LABEL) or event.has_label("issue", ABANDONED_LABEL)
    ):
        return ignored(f"#{number} is already resolved or abandoned")
    tracker = ctx.tracker
    if not isinstance(tracker, IssueComments):
        return ignored(f"#{number}: this backend keeps no decision issues")
    decision = tracker.decision_at(number)
    if decision is None:
        return ignored(f"#{number} holds no readable decision")
    who = _who(event)
    if event.action == "closed":
        outcome = lifecycle.closed_by_hand(tracker, ctx.config, decision, who, now=ctx.now)
    else:
        outcome = lifecycle.reopened_by_hand(
            tracker,
            ctx.config,
            decision,
            who,
            was_resolved=event.has_label("issue", RESOLVED_LABEL),
            was_abandoned=event.has_label("issue", ABANDONED_LABEL),
        )
    return _items(tracker, outcome, number, who)


#: What parkbot explains on the issue for each outcome (one reply per kind and decision, edited on re-runs).
_EXPLAINED = {"reopened": "Reopened by parkbot: ", "closed_again": "Closed again by parkbot: ", "revived": ""}


def _items(tracker: IssueComments, outcome: HandOutcome, number: int, who: str) -> list[Item]:
    did = outcome.decision.id
    if outcome.action == "ignored":
        return ignored(f"#{number}: {outcome.message}")
    if outcome.action in _EXPLAINED:
        said = _EXPLAINED[outcome.action] + outcome.message
        if outcome.action == "reopened":
            said += f" On this issue: {REOPENED_STEP}."
        tracker.reply(number, f"{outcome.action.replace('_', '-')}-{did}", said)
    if outcome.action == "finished" and outcome.resolution is not None:
        return resolution_items(outcome.resolution)
    url = outcome.location.url if outcome.location else None
    if outcome.action == "abandoned":
        text = f"{did} (#{number}) closed by {who} without an answer: marked abandoned (dependents stay blocked)"
        return [Item("abandoned", text, decision_id=did, number=number, level="warning")]
    if outcome.action == "reopened":
        text = f"{did} (#{number}) was closed by {who} without an answer: reopened"
        return [Item("reopened", text, decision_id=did, number=number, url=url, level="warning")]
    if outcome.action == "closed_again":
        text = f"{did} (#{number}) was reopened by {who}: it is resolved and stays resolved; closed again"
        return [Item("closed", text, decision_id=did, number=number, level="warning", action="refused_reopen")]
    text = f"{did} (#{number}) reopened by {who}: open again"
    return [Item("reopened", text, decision_id=did, number=number, url=url), *(gate_item(g) for g in outcome.gates)]
