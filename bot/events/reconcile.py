"""``workflow_dispatch`` and ``schedule`` -> a full reconcile: repair what a failed run left half-done.

For every open decision:

* a recorded answer on a decision that is still open means a resolution stopped part-way (a
  runner died, GitHub failed after the retries). It is finished through ``lifecycle.resolve`` with
  the recorded answer and the recorded actor, exactly as if the owner had sent the same command
  again: the remaining steps run, the done ones are skipped, and the answer is re-checked against
  the rules (an actor who is no longer an owner is refused, visibly);
* otherwise each of its dependents is re-gated (``lifecycle.gate``), once per dependent however
  many decisions it waits for, so a status lost to a failed run is published again.

One decision's problem does not stop the others; a backend failure after the retries does (the run
exits 4 and is safe to re-run).

Last, the decision dashboard issue is brought up to date (:mod:`bot.dashboard`), whether or not
anything else changed: ages and the headline numbers move with time, and a dashboard that an
earlier run failed to write is repaired here.
"""

from __future__ import annotations

from typing import Any

from bot import lifecycle
from bot.errors import BackendFailure, InvalidInput, ParkbotError
from bot.events.base import Context, Event, Item, gate_item
from bot.events.router import Router
from bot.models import Answer, Decision

router = Router()

#: The command that re-records an answer of each kind (``Answer.same_answer`` compares kinds too).
COMMAND_FOR_KIND: dict[str, lifecycle.Command] = {"option": "decide", "free_text": "answer", "default": "default"}


def finish_resolution(ctx: Context, decision: Decision, recorded: Answer) -> list[Item]:
    """Complete a resolution whose answer is recorded, as the recorded actor."""
    try:
        if recorded.kind == "accepted":
            outcome = lifecycle.accept_review(ctx.tracker, ctx.config, decision.id, recorded.by, now=ctx.now)
        elif recorded.kind in COMMAND_FOR_KIND:
            outcome = lifecycle.resolve(
                ctx.tracker,
                ctx.config,
                decision.id,
                recorded.value,
                recorded.by,
                command=COMMAND_FOR_KIND[recorded.kind],
                source=recorded.source,
                now=ctx.now,
            )
        else:
            return [
                Item(
                    "error",
                    f"{decision.id}: a {recorded.kind} answer is recorded but cannot be finished automatically; "
                    f"finish it with `parkbot resolve {decision.id} --answer ...`",
                    decision_id=decision.id,
                    level="warning",
                )
            ]
    except BackendFailure:
        raise
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
    location = outcome.location
    return [
        Item(
            "resolved",
            f"{outcome.action} {decision.id}: {outcome.answer.value!r} by {outcome.answer.by} (finished a "
            "resolution that had stopped part-way)",
            decision_id=decision.id,
            number=location.number,
            url=location.url,
            action=outcome.action,
        ),
        *(gate_item(g) for g in outcome.gates),
    ]


@router.register("workflow_dispatch")
@router.register("schedule")
def on_reconcile(event: Event, ctx: Context) -> list[Item]:
    tracker = ctx.tracker
    items: list[Item] = []
    targets: dict[str, None] = {}
    for decision in list(tracker.iter_decisions("open")):
        recorded = tracker.recorded_answer(decision)
        if recorded is not None:
            items += finish_resolution(ctx, decision, recorded)
            continue
        if decision.blocking:
            targets.update(dict.fromkeys(decision.dependents))
    for target in targets:
        items.append(_regate(tracker, target))
    if not items:
        items.append(Item("ignored", "no open decision: nothing to reconcile"))
    ctx.refresh_dashboard()
    return items


def _regate(tracker: Any, target: str) -> Item:
    try:
        return gate_item(lifecycle.gate(tracker, target))
    except InvalidInput as exc:  # e.g. a dependent pull request that no longer exists
        return Item("ignored", f"{target}: {exc.message}", target=target)
