"""``issues`` (``closed``, ``reopened``) by a person on a decision issue -> keep the record truthful.

* closed an open decision that has no answer: parkbot reopens it and says why
  (``closed_without_answer: reopen``, the default), or marks it abandoned (``abandon``); its
  dependents stay blocked either way;
* closed an open decision whose answer is recorded (a resolution that stopped part-way): parkbot
  finishes the resolution with the recorded answer and actor;
* reopened a resolved decision: parkbot closes it again and says why (a resolved decision stays
  resolved);
* reopened an abandoned decision: taken as asking again, the decision is open (and blocking) again;
* removed ``parkbot:decision`` or the decision's ``decision:<id>`` label from its issue (``unlabeled``):
  labels are an index, never evidence, so this is handled like a close without an answer: parkbot puts
  the labels back (on the issue and its dependents), says so on the issue, and the dependents stay blocked;
* transferred the decision issue to another repository or deleted it (``transferred``, ``deleted``):
  nothing is left to restore here; the dependents carrying its label are gated again, and their links
  to a decision parkbot cannot find block ("decision X: not found").

Judged from the payload before any API call: events caused by bots (parkbot's own closes and
reopens among them) and issues without the ``parkbot:decision`` label are ignored. The state labels
(``parkbot:resolved``, ``parkbot:abandoned``) are not read as facts: anyone with triage can set them, so
a close is judged by parkbot's own record of the decision.
"""

from __future__ import annotations

from parkbot.core import dashboard_index, lifecycle
from parkbot.core.identity import check_decision_id
from parkbot.core.lifecycle import HandOutcome
from parkbot.core.tracker import IndexedDependents, IssueComments
from parkbot.events.base import Context, Event, HandlerAction, Item, gate_item, ignored, is_bot, restored_items
from parkbot.events.reconcile import resolution_items
from parkbot.events.replies import REOPENED_STEP
from parkbot.events.router import Router
from parkbot.trackers.github import (
    ABANDONED_LABEL,
    DECISION_LABEL,
    LABEL_PREFIX,
    RESOLVED_LABEL,
    ParseError,
    decision_payload,
)

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
    change = outcome.changed
    if outcome.action == "abandoned":
        text = f"{did} (#{number}) closed by {who} without an answer: marked abandoned (dependents stay blocked)"
        return [Item("abandoned", text, decision_id=did, number=number, level="warning", change=change)]
    if outcome.action == "reopened":
        text = f"{did} (#{number}) was closed by {who} without an answer: reopened"
        return [Item("reopened", text, decision_id=did, number=number, url=url, level="warning", change=change)]
    if outcome.action == "closed_again":
        text = f"{did} (#{number}) was reopened by {who}: it is resolved and stays resolved; closed again"
        return [
            Item(
                "closed",
                text,
                decision_id=did,
                number=number,
                level="warning",
                action="refused_reopen",
                change=change,
            )
        ]
    text = f"{did} (#{number}) reopened by {who}: open again"
    item = Item("reopened", text, decision_id=did, number=number, url=url, change=change)
    return [item, *(gate_item(g) for g in outcome.gates)]


def _indexes_a_decision(name: str) -> bool:
    return name.casefold() == DECISION_LABEL or name.casefold().startswith(LABEL_PREFIX)


@router.register("issues", "unlabeled")
def on_unlabeled(event: Event, ctx: Context) -> list[Item]:
    """A decision issue lost one of its index labels: put it back; nothing opens (see the module docstring)."""
    number = event.get("issue.number", int)
    name = event.get("label.name", str, default="")
    if event.get("issue.pull_request", dict, default=None) is not None:
        return ignored(f"#{number} is a pull request")
    if not _indexes_a_decision(name):
        return ignored(f"#{number}: the label {name!r} indexes no decision")
    if event.get("issue.state_reason", str, default=None) == "duplicate" and is_bot(event.get("sender", dict)):
        return ignored(f"#{number} was closed as a duplicate of a decision by a bot")
    tracker = ctx.tracker
    if not isinstance(tracker, IssueComments):
        return ignored(f"#{number}: this backend keeps no decision issues")
    decision = tracker.decision_at(number)  # by parkbot's own record, not by its labels
    if decision is None:
        return ignored(f"#{number} holds no decision parkbot wrote")
    who = _who(event)
    outcome = lifecycle.index_changed_by_hand(
        tracker, ctx.config, decision, who, f"removed the label `{name}` from this decision"
    )
    tracker.reply(number, f"restored-{decision.id}", outcome.message)
    text = f"{decision.id} (#{number}): {who} removed the label {name!r}; put back, dependents stay blocked"
    return restored_items(outcome, decision.id, number, text)


@router.register("issues", "transferred", "deleted")
def on_gone(event: Event, ctx: Context) -> list[Item]:
    """A decision issue left the repository: its dependents are gated again, and they stay blocked."""
    number = event.get("issue.number", int)
    if event.get("issue.pull_request", dict, default=None) is not None:
        return ignored(f"#{number} is a pull request")
    did = _claimed_id(event)
    if did is None:
        return ignored(f"#{number} claimed no decision")
    tracker = ctx.tracker
    if not isinstance(tracker, IndexedDependents):
        return ignored(f"#{number}: this backend keeps no decision issues")
    who = _who(event)
    action: HandlerAction = "transferred" if event.action == "transferred" else "deleted"
    gates = [lifecycle.gate(ctx.tracker, ctx.config, target) for target in tracker.indexed_dependents(did)]
    text = (
        f"{did} (#{number}) was {action} by {who}: its record is gone from this repository, so its "
        "dependents stay blocked (file the question again to ask it again)"
    )
    change = dashboard_index.gone(did)
    item = Item("abandoned", text, decision_id=did, number=number, level="warning", action=action, change=change)
    return [item, *(gate_item(g) for g in gates)]


def _claimed_id(event: Event) -> str | None:
    """The decision id an issue claimed, from its hidden block (or its ``decision:<id>`` label): only
    used to find the dependents to gate again, never as evidence of anything."""
    try:
        payload = decision_payload(event.get("issue.body", str, default="") or "")
    except ParseError:
        payload = None
    candidates = [str(payload.get("id", ""))] if payload else []
    for label in event.get("issue.labels", list, default=[]) or []:
        name = label.get("name") if isinstance(label, dict) else None
        if isinstance(name, str) and name.casefold().startswith(LABEL_PREFIX):
            candidates.append(name[len(LABEL_PREFIX) :])
    for candidate in candidates:
        try:
            return check_decision_id(candidate)
        except ValueError:
            continue
    return None
