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

from bot import lifecycle
from bot.errors import Refused
from bot.events.base import (
    ABANDONED_LABEL,
    DECISION_LABEL,
    RESOLVED_LABEL,
    Context,
    Event,
    Item,
    gate_item,
    ignored,
    is_bot,
)
from bot.events.reconcile import finish_resolution
from bot.events.router import Router
from bot.models import Decision

router = Router()

REOPENED = (
    "Reopened by parkbot: {who} closed this decision without an answer, and a question is only settled by "
    "an answer (its dependents stay blocked). Answer it with one of the commands above, or answer with an "
    "explicit default (`/default <option>`). To give up on the question instead, set "
    "`closed_without_answer: abandon` in .github/parkbot.yml."
)
ABANDONED = "closed by {who} without an answer"
CLOSED_AGAIN = (
    "Closed again by parkbot: this decision was resolved ({answer!r} by {by}), and a resolved decision stays "
    "resolved. If the situation changed, file a new question under another key."
)
REVIVED = "Reopened by {who}: this question is open again and blocks its dependents until it is answered."


def _who(event: Event) -> str:
    return event.get("sender.login", str, default="someone")


def _reply(ctx: Context, number: int, key: str, text: str) -> None:
    """An explanation on the issue, one per (event kind, decision), edited rather than repeated."""
    reply = getattr(ctx.tracker, "reply", None)
    if callable(reply):
        reply(number, key, text)


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

    find_at = getattr(ctx.tracker, "decision_at", None)
    decision: Decision | None = find_at(number) if callable(find_at) else None
    if decision is None:
        return ignored(f"#{number} holds no readable decision")
    if event.action == "closed":
        return _closed(event, ctx, number, decision)
    return _reopened(event, ctx, number, decision)


def _closed(event: Event, ctx: Context, number: int, decision: Decision) -> list[Item]:
    who = _who(event)
    if decision.state == "resolved":
        return ignored(f"#{number} ({decision.id}) is resolved")
    reopened = decision.model_copy(update={"state": "open"})
    recorded = ctx.tracker.recorded_answer(reopened)
    if recorded is not None:
        # The answer is recorded but the resolution stopped before closing: finish it instead.
        ctx.tracker.update(reopened)
        return finish_resolution(ctx, reopened, recorded)
    if ctx.config.closed_without_answer == "abandon":
        ctx.tracker.mark_abandoned(decision, ABANDONED.format(who=who))
        return [
            Item(
                "abandoned",
                f"{decision.id} (#{number}) closed by {who} without an answer: marked abandoned "
                "(dependents stay blocked)",
                decision_id=decision.id,
                number=number,
                level="warning",
            )
        ]
    location = ctx.tracker.update(reopened)
    _reply(ctx, number, f"reopened-{decision.id}", REOPENED.format(who=who))
    return [
        Item(
            "reopened",
            f"{decision.id} (#{number}) was closed by {who} without an answer: reopened",
            decision_id=decision.id,
            number=number,
            url=location.url,
            level="warning",
        )
    ]


def _reopened(event: Event, ctx: Context, number: int, decision: Decision) -> list[Item]:
    who = _who(event)
    was_resolved = event.has_label("issue", RESOLVED_LABEL)
    if was_resolved:
        answer = ctx.tracker.recorded_answer(decision)
        if answer is None:
            return ignored(f"#{number} ({decision.id}) carries {RESOLVED_LABEL} but no recorded answer")
        ctx.tracker.close(decision, answer)
        _reply(ctx, number, f"closed-again-{decision.id}", CLOSED_AGAIN.format(answer=answer.value, by=answer.by))
        refusal = Refused(f"{decision.id} is resolved ({answer.value!r} by {answer.by}); it stays resolved")
        return [
            Item(
                "closed",
                f"{decision.id} (#{number}) was reopened by {who}: {refusal.message}; closed again",
                decision_id=decision.id,
                number=number,
                level="warning",
                action="refused_reopen",
            )
        ]
    if event.has_label("issue", ABANDONED_LABEL) or decision.state != "open":
        location = ctx.tracker.update(decision.model_copy(update={"state": "open"}))
        _reply(ctx, number, f"revived-{decision.id}", REVIVED.format(who=who))
        gates = [lifecycle.gate(ctx.tracker, target) for target in decision.dependents] if decision.blocking else []
        return [
            Item(
                "reopened",
                f"{decision.id} (#{number}) reopened by {who}: open again",
                decision_id=decision.id,
                number=number,
                url=location.url,
            ),
            *(gate_item(g) for g in gates),
        ]
    return ignored(f"#{number} ({decision.id}) is open already")
