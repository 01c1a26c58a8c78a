"""``workflow_dispatch`` and ``schedule`` -> a full reconcile: repair what a failed run left half-done.

First, the decisions parkbot wrote that lost their labels while no ``issues.unlabeled`` event ran
(the workflow lacked the event type, Actions was down) are found by authorship
(``UnindexedDecisions``), their labels put back and their dependents gated again.

Then, for every open decision:

* a recorded answer on a decision that is still open means a resolution stopped part-way (a
  runner died, GitHub failed after the retries). It is finished through ``lifecycle.resolve`` with
  the recorded answer and the recorded actor, exactly as if the owner had sent the same command
  again: the remaining steps run, the done ones are skipped, and the answer is re-checked against
  the rules (an actor who is no longer an owner is refused, visibly);
* command comments on it that parkbot never took up (no 👀/👍/😕 from parkbot's own identity: their
  ``issue_comment`` event never ran) are handed, oldest first and each once, to the handler that event
  uses (:func:`parkbot.events.commands.handle_comment`), which judges them as the event would: the author's
  verified authorship and authority, the redelivery rule (a comment already answered is silent);
* otherwise each of its dependents is re-gated (``lifecycle.gate``), once per dependent however
  many decisions it waits for, so a status lost to a failed run is published again.

One decision's problem does not stop the others; a backend failure after the retries does (the run
exits 4 and is safe to re-run).

Last, the decision dashboard issue is recounted from every decision (:mod:`parkbot.dashboard_refresh`),
whether or not anything else changed: ages and the 30-day numbers move with time, events only patch
the entries they changed, and a dashboard an earlier run failed to write is repaired here.
"""

from __future__ import annotations

from parkbot.core import lifecycle, planner
from parkbot.core.authority import Actor
from parkbot.core.errors import BackendFailure, InvalidInput, ParkbotError
from parkbot.core.lifecycle import ResolveOutcome
from parkbot.core.models import Answer, Decision
from parkbot.core.tracker import CommandCommentFacts, IssueComments, Tracker, UnindexedDecisions
from parkbot.core.untaken import untaken_commands
from parkbot.events.base import Context, Event, Item, gate_item, restored_items
from parkbot.events.commands import handle_comment
from parkbot.events.comments import comment_items
from parkbot.events.replies import github_message
from parkbot.events.router import Router

router = Router()


def resolution_items(outcome: ResolveOutcome) -> list[Item]:
    """The items of a resolution that was finished for the recorded actor."""
    location = outcome.location
    answer = outcome.answer
    return [
        Item(
            "resolved",
            f"{outcome.action} {outcome.decision.id}: {answer.value!r} by {answer.by} (finished a "
            "resolution that had stopped part-way)",
            decision_id=outcome.decision.id,
            number=location.number,
            url=location.url,
            action=outcome.action,
            change=outcome.changed,
        ),
        *(gate_item(g) for g in outcome.gates),
    ]


def _finish(ctx: Context, decision: Decision, recorded: Answer) -> list[Item]:
    try:
        outcome = lifecycle.finish_resolution(ctx.tracker, ctx.config, decision, recorded, now=ctx.now)
    except BackendFailure:
        raise
    except InvalidInput as exc:
        return [Item("error", github_message(exc), decision_id=decision.id, level="warning")]
    except ParkbotError as exc:
        return [
            Item(
                "refused",
                f"{decision.id}: the recorded answer {recorded.value!r} by {recorded.by} could not be finished: "
                f"{exc.message}",
                decision_id=decision.id,
                level="warning",
                data={"reason": exc.reason},
            )
        ]
    return resolution_items(outcome)


@router.register("workflow_dispatch")
@router.register("schedule")
def on_reconcile(event: Event, ctx: Context) -> list[Item]:
    tracker = ctx.tracker
    items: list[Item] = []
    targets: dict[str, None] = {}
    if ctx.config.planner is not None:  # questions whose planner window ended go to their owners
        for handed in planner.expire(tracker, ctx.config, now=ctx.now):
            message = f"{handed.decision.id}: the planner's window ended; assigned to {handed.decision.owner}"
            items.append(
                Item("parked", message, decision_id=handed.decision.id, action="updated", change=handed.changed)
            )
    if isinstance(tracker, UnindexedDecisions):  # labels removed while no event ran: found by authorship
        items += [item for d in tracker.unindexed_decisions() for item in _restore(ctx, d)]
    for decision in list(tracker.iter_decisions("open")):
        recorded = lifecycle.recorded_answer(tracker, ctx.config, decision)
        if recorded is not None:
            items += _finish(ctx, decision, recorded)
            continue
        late = _untaken_commands(ctx, decision)
        items += late
        if any(item.kind == "resolved" for item in late):
            continue  # a late answer resolved it: its dependents' gates are in the items
        if decision.blocking:
            targets.update(dict.fromkeys(decision.dependents))
    for target in targets:
        items.append(_regate(tracker, ctx, target))
    if not items:
        items.append(Item("ignored", "no open decision: nothing to reconcile"))
    ctx.recount_dashboard()
    return items


def _untaken_commands(ctx: Context, decision: Decision) -> list[Item]:
    """Answer the command comments on the decision's issue that parkbot never took up (see the module docstring)."""
    tracker = ctx.tracker
    if not isinstance(tracker, CommandCommentFacts) or not isinstance(tracker, IssueComments):
        return []
    number = tracker.location(decision).number
    if number is None:
        return []
    items: list[Item] = []
    for comment in untaken_commands(tracker.command_comment_facts(number)):
        result = handle_comment(
            tracker,
            ctx.config,
            issue_number=number,
            comment_id=comment.comment_id,
            body=comment.body,
            actor=Actor(comment.author, bot=comment.author_bot),
            now=ctx.now,
        )
        items += comment_items(result, number)
    return items


def _restore(ctx: Context, decision: Decision) -> list[Item]:
    """Put back the index of a decision whose labels someone removed unseen; its dependents stay blocked."""
    what = "removed this decision's labels (found by the scheduled reconcile)"
    outcome = lifecycle.index_changed_by_hand(ctx.tracker, ctx.config, decision, "Someone", what)
    number = outcome.location.number if outcome.location else None
    if number is not None and isinstance(ctx.tracker, IssueComments):
        ctx.tracker.reply(number, f"restored-{decision.id}", outcome.message)
    text = f"{decision.id}: its labels were removed while no event ran; put back, dependents stay blocked"
    return restored_items(outcome, decision.id, number, text)


def _regate(tracker: Tracker, ctx: Context, target: str) -> Item:
    try:
        return gate_item(lifecycle.gate(tracker, ctx.config, target))
    except InvalidInput as exc:  # e.g. a dependent pull request that no longer exists
        return Item("ignored", f"{target}: {exc.message}", target=target)
