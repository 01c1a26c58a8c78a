"""``issue_comment`` (``created``, ``edited``) on a decision issue -> the comment's command.

Everything that can be judged from the payload is judged before the backend is opened, so these
cost no API call at all:

* comments on pull requests (``issue.pull_request`` is present);
* comments by bots, the bot's own included (``comment.user.type == "Bot"`` or a ``[bot]`` login), except
  ``/cite`` and ``/pass`` written and sent by exactly the configured planner (``planner.by``), and never
  an edit of one;
* a comment created or edited by anyone but its author: the actor of a command is the account that
  performed the act, the event's ``sender``, and an edit of someone else's comment is never a
  command (GitHub lets anyone with write access edit any comment);
* comments on issues that are not decisions (no ``parkbot:decision`` label in ``issue.labels``);
* comments with no command in them (:func:`parkbot.core.commands.parse`, the same parser the handler uses);
* commands by an author with no association to the repository (``author_association: NONE``, a stranger on
  a public repository) who is not named in the configuration (:func:`parkbot.core.authority.named_in_config`):
  they could answer nothing, so nothing is read or written for them (the configuration aside).

The rest goes to :func:`parkbot.events.commands.handle_comment`, which authorizes the author, runs the
lifecycle and replies on the issue.
"""

from __future__ import annotations

from parkbot.core import authority, commands
from parkbot.core.authority import Actor
from parkbot.core.lifecycle import ParkOutcome, ResolveOutcome
from parkbot.core.tracker import IssueComments
from parkbot.events.base import Context, Event, Item, ItemKind, gate_item, ignored, is_bot
from parkbot.events.commands import Action, CommandResult, handle_comment
from parkbot.events.router import Router
from parkbot.trackers.github import DECISION_LABEL

router = Router()

#: ``CommandResult.action`` -> the job summary's item kind (any other: ``replied``).
_KINDS: dict[Action, ItemKind] = {
    "resolved": "resolved",
    "completed": "resolved",
    "unchanged": "resolved",
    "accepted": "resolved",
    "refused": "refused",
    "ignored": "ignored",
}


@router.register("issue_comment", "created", "edited")
def on_comment(event: Event, ctx: Context) -> list[Item]:
    number = event.get("issue.number", int)
    comment_id = event.get("comment.id", int)
    body = event.get("comment.body", str, default="")
    user = event.get("comment.user", dict)
    login = event.get("comment.user.login", str)
    sender = event.get("sender", dict)
    sender_login = event.get("sender.login", str)
    if event.get("issue.pull_request", dict, default=None) is not None:
        return ignored(f"comment on pull request #{number}: parkbot only reads commands on decision issues")
    if (is_bot(user) or is_bot(sender)) and not _planner_command(ctx, body, login, sender_login):
        return ignored(f"comment {comment_id} on #{number} is by a bot ({sender_login})")
    if event.action == "edited" and _names_planner_command(body):
        return ignored(f"comment {comment_id} on #{number}: the planner's commands count as written, never edited")
    if sender_login.casefold() != login.casefold():
        verb = "edited" if event.action == "edited" else "sent"
        return ignored(
            f"comment {comment_id} on #{number} by {login} was {verb} by {sender_login}: only a comment's own "
            "author's act is a command"
        )
    if not event.has_label("issue", DECISION_LABEL):
        return ignored(f"#{number} is not a decision issue (no {DECISION_LABEL} label)")
    if commands.parse(body) is None:
        return ignored(f"comment {comment_id} on #{number} holds no command")
    association = event.get("comment.author_association", str, default="")
    if association.upper() == "NONE" and not authority.named_in_config(ctx.config, login):
        return ignored(
            f"comment {comment_id} on #{number} by {login}: no association with the repository and not a configured "
            "owner, so no command of theirs can answer anything"
        )

    tracker = ctx.tracker
    if not isinstance(tracker, IssueComments):
        return ignored(f"#{number}: this backend keeps no decision issues to comment on")
    result = handle_comment(
        tracker,
        ctx.config,
        issue_number=number,
        comment_id=comment_id,
        body=body,
        actor=Actor(sender_login, bot=is_bot(user) or is_bot(sender)),
        now=ctx.now,
    )
    return comment_items(result, number)


def _names_planner_command(body: str) -> bool:
    command = commands.parse(body)
    return command is not None and command.name in commands.PLANNER_COMMANDS


def _planner_command(ctx: Context, body: str, login: str, sender_login: str) -> bool:
    """A bot's ``/cite`` or ``/pass`` counts when its author and sender are both exactly the planner configured
    on the default branch (an App's ``name[bot]``): a lookalike login is just another bot. The configuration is
    read only for such a comment, so other bots' comments cost no request."""
    if not _names_planner_command(body):
        return False
    planner = ctx.config.planner
    if planner is None:
        return False
    wanted = planner.by.casefold()
    return login.casefold() == wanted and sender_login.casefold() == wanted


def comment_items(result: CommandResult, number: int) -> list[Item]:
    """One item for the command (plus the gates a resolution re-published)."""
    kind = _KINDS.get(result.action, "replied")
    command = result.command.render() if result.command is not None else "command"
    if result.action == "ignored":
        return ignored(f"#{number}: {result.reason}")
    if result.action == "refused":
        # Refused visibly on the issue (the reply says why); the run itself did its job.
        message = f"#{number}: {command} refused: {result.message}"
        return [
            Item(
                "refused",
                message,
                decision_id=result.decision_id,
                number=number,
                action=result.reason,
                level="warning",
            )
        ]
    outcome = result.outcome
    text = f"#{number}: {command}: {result.action}"
    if isinstance(outcome, ResolveOutcome):
        text += f" ({outcome.answer.value!r} by {outcome.answer.by})"
    location = outcome.location if isinstance(outcome, ResolveOutcome | ParkOutcome) else None
    gates = outcome.gates if isinstance(outcome, ResolveOutcome | ParkOutcome) else []
    item = Item(
        kind,
        text,
        decision_id=result.decision_id,
        number=number,
        url=location.url if location is not None else None,
        action=result.action,
        change=result.changed,
    )
    return [item, *(gate_item(g) for g in gates)]
