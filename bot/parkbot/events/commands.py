"""Owner commands typed in comments on decision issues (``issue_comment`` events).

:func:`handle_comment` parses the comment (``parkbot.core.commands``: the first command wins), and runs the
matching lifecycle rule. It never decides anything itself: authorization, answer checks and the
upward-only rule all live in ``parkbot.core.lifecycle``, so ``/decide`` and ``parkbot resolve`` obey the same
rules.

* The bot's own comments (anything that starts with a ``<!-- parkbot:`` marker) and comments without
  a command are ignored: no reply, no request.
* Answers (``/decide``, ``/answer``, ``/default``) go through :func:`parkbot.core.lifecycle.resolve`, with the
  comment's URL as the answer's ``source``; the resolution comment is the visible confirmation.
* ``/escalate [to]`` moves the question one level up (:func:`parkbot.core.lifecycle.escalate`) when the
  config has a hierarchy; ``/return``, ``/accept`` and ``/override <n> <text>`` run their policy rules.
* Where the tracker keeps comment records (:class:`~parkbot.core.tracker.CommentRecords`, GitHub), the
  command must be its author's own words as the backend shows them, not as the event says
  (:func:`parkbot.core.authorship.judge_comment`): a comment written by someone other than the actor, or
  changed by anyone but its author, is refused; one whose text changed since the event is left to the
  event of that change.
* Every refusal (not an owner, unknown option, conflicting answer, not a decision issue, already
  resolved differently, malformed command) is a visible reply on the issue, keyed by the command
  comment's id: handling the same comment again edits that reply instead of adding one, and a
  refusal changes nothing else. Backend failures propagate (exit 4, safe to re-run).
* The command's comment gets a reaction where the backend can (``CommentReactions``): 👀 as soon as
  the command is taken up, then 👍 when it is done or 😕 when it is refused. A reaction that fails is
  logged and changes nothing else.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from parkbot.core import dashboard_index, lifecycle
from parkbot.core import planner as planner_rules
from parkbot.core.authority import Actor
from parkbot.core.authorship import judge_comment
from parkbot.core.commands import ANSWERING, Command, parse
from parkbot.core.config import Config
from parkbot.core.dashboard_index import Changed
from parkbot.core.errors import BackendFailure, InvalidInput, ParkbotError, Reason, Refused, with_step
from parkbot.core.models import Decision
from parkbot.core.tracker import (
    CommentReactions,
    CommentRecords,
    IssueComments,
    ReactionContent,
    Tracker,
)
from parkbot.events.replies import command_problem, github_step, help_rows
from parkbot.markdown import code_span, escape_markdown, table_cell
from parkbot.trackers.github import read_marker

Action = Literal[
    "ignored",
    "resolved",
    "completed",
    "unchanged",
    "escalated",
    "returned",
    "accepted",
    "overridden",
    "help",
    "refused",
    "cited",
    "passed",
    "corrected",
]
#: Why a comment was ignored or refused before any rule of the core ran (``ok``: it was not).
CommandReason = Literal[
    "ok",
    "own_comment",
    "no_command",
    "already_taken_up",
    "changed_since",
    "unknown_command",
    "invalid_command",
    "not_a_decision",
    "not_authorized",
]


class CommentTracker(Tracker, IssueComments, Protocol):
    """A tracker with decision issues to comment on (the GitHub backend)."""


@dataclass(frozen=True)
class CommandResult:
    """What happened to one comment; ``replied`` says whether a reply was written or edited."""

    action: Action
    #: Why it was ignored or refused: before any rule ran (``CommandReason``), or the core's reason code
    #: (``ParkbotError.reason``, a :data:`~parkbot.core.errors.Reason`), passed on as the core gave it.
    reason: CommandReason | Reason
    command: Command | None = None
    decision_id: str | None = None
    message: str = ""
    replied: bool = False
    #: What the core call returned (None for /help, which changes nothing).
    outcome: lifecycle.ParkOutcome | lifecycle.ResolveOutcome | planner_rules.CorrectionOutcome | None = None

    @property
    def refused(self) -> bool:
        return self.action == "refused"

    @property
    def changed(self) -> Changed | None:
        """What the command changed on the dashboard: what its outcome said, and a confirmed act always
        refreshes its decision's line (:func:`parkbot.core.dashboard_index.confirmed`); the standing answer
        again (``unchanged``), ``/help``, a refusal or an ignored comment change nothing."""
        if self.outcome is None or self.decision_id is None or self.action in ("unchanged", "refused", "ignored"):
            return None
        return dashboard_index.confirmed(self.decision_id, self.outcome.changed)


# -- reactions on the command's comment (👀 taken up, 👍 done, 😕 refused) ------------------------------

log = logging.getLogger("parkbot")


def handle_comment(
    tracker: CommentTracker,
    config: Config,
    *,
    issue_number: int,
    comment_id: int | str,
    body: str,
    actor: Actor,
    now: datetime | None = None,
) -> CommandResult:
    """Run the command in one comment (see the module docstring); ``actor`` is who wrote it, as verified."""
    if read_marker(body or "") is not None:
        return CommandResult("ignored", "own_comment")
    command = parse(body or "")
    if command is None:
        return CommandResult("ignored", "no_command")
    decision = tracker.decision_at(issue_number)  # the issue with its comments: one read, before any write
    if _taken_up(tracker, command, decision, issue_number, comment_id):
        return CommandResult("ignored", "already_taken_up", command, decision.id if decision else None)
    _react(tracker, issue_number, comment_id, "eyes")
    result = _handle(
        tracker,
        config,
        command,
        decision,
        issue_number=issue_number,
        comment_id=comment_id,
        body=body,
        actor=actor,
        now=now,
    )
    _react(tracker, issue_number, comment_id, "confused" if result.refused else "+1")
    return result


def _taken_up(
    tracker: CommentTracker, command: Command, decision: Decision | None, issue_number: int, comment_id: int | str
) -> bool:
    """Whether this comment, as it is, was already taken up: a redelivery (or a re-run) is silent.

    Taken up means its answer is recorded from this very comment with the same value, or parkbot
    replied to it since its last edit (a refusal, a confirmation). An edit into other words is new.
    """
    answer = decision.answer if decision is not None else None
    if (
        answer is not None
        and answer.source == tracker.comment_url(issue_number, comment_id)
        and (command.arg or "").strip().casefold() == answer.value.casefold()
    ):
        return True
    if not isinstance(tracker, CommentRecords):
        return False
    record = tracker.comment_record(issue_number, comment_id)
    return record is not None and record.taken_up


def _react(tracker: Tracker, issue_number: int, comment_id: int | str, content: ReactionContent) -> None:
    """A reaction where the backend has them; failing to react never fails the command."""
    if not isinstance(tracker, CommentReactions):
        return
    try:
        tracker.react(issue_number, comment_id, content)
    except ParkbotError as exc:
        log.warning("could not react %s to comment %s on #%s: %s", content, comment_id, issue_number, exc.message)


# ---------------------------------------------------------------------------------------------------------


def _handle(
    tracker: CommentTracker,
    config: Config,
    command: Command,
    decision: Decision | None,
    *,
    issue_number: int,
    comment_id: int | str,
    body: str,
    actor: Actor,
    now: datetime | None,
) -> CommandResult:
    """One parsed command: who wrote it, on which decision, then the core call; refusals are replied to."""
    author = actor.login
    key = str(comment_id)

    def refuse(
        reason: CommandReason | Reason, message: str, decision_id: str | None = None, step: str | None = None
    ) -> CommandResult:
        text = (
            f"{code_span(command.render())} from {code_span(author)} was not applied: "
            f"{with_step(escape_markdown(message), step)}\n\nNothing was changed."
        )
        tracker.reply(issue_number, key, text)
        return CommandResult("refused", reason, command, decision_id, message, replied=True)

    if not command.ok:
        return refuse("unknown_command" if command.name == "unknown" else "invalid_command", command_problem(command))
    if decision is None:
        return refuse("not_a_decision", f"#{issue_number} is not a parkbot decision issue.")
    source = tracker.comment_url(issue_number, comment_id)
    seen_at = None
    if isinstance(tracker, CommentRecords):
        record = tracker.comment_record(issue_number, comment_id)
        seen_at = record.created_at if record is not None else None
        authorship = judge_comment(record, author, body)
        if authorship.verdict == "changed_since":
            return CommandResult("ignored", "changed_since", command, decision.id)
        if authorship.refused:
            return refuse("not_authorized", authorship.message, decision.id)
    try:
        return _run(tracker, config, command, decision, actor, source, issue_number, key, now, seen_at)
    except BackendFailure:
        raise
    except (Refused, InvalidInput) as exc:
        return refuse(exc.reason, exc.message, decision.id, github_step(exc))
    except ParkbotError as exc:  # pragma: no cover - every rule raises one of the above
        return refuse(exc.reason, exc.message, decision.id, github_step(exc))


def _run(
    tracker: CommentTracker,
    config: Config,
    command: Command,
    decision: Decision,
    actor: Actor,
    source: str,
    issue_number: int,
    key: str,
    now: datetime | None,
    seen_at: datetime | None = None,
) -> CommandResult:
    did = decision.id
    author = actor.login

    def confirm(
        action: Action,
        text: str,
        outcome: lifecycle.ParkOutcome | lifecycle.ResolveOutcome | planner_rules.CorrectionOutcome | None,
    ) -> CommandResult:
        tracker.reply(issue_number, key, text)
        return CommandResult(action, "ok", command, did, text, replied=True, outcome=outcome)

    if command.name == "help":
        rows = help_rows(decision, config)
        table = "\n".join(f"| {code_span(typed)} | {table_cell(meaning)} |" for typed, meaning in rows)
        text = (
            f"What you can type on {code_span(did)} (a new comment, the command at the start of a line):\n\n"
            f"| Comment | What it does |\n| --- | --- |\n{table}\n\n"
            "Only the decision's owners, and those above them in the hierarchy, can answer."
        )
        return confirm("help", text, None)
    answering = ANSWERING.get(command.name)
    if answering is not None:
        assert command.arg is not None
        outcome = lifecycle.resolve(
            tracker, config, did, command.arg, actor, command=answering, source=source, now=now, seen_at=seen_at
        )
        if outcome.action == "resolved" or outcome.action == "completed":
            return CommandResult(outcome.action, "ok", command, did, replied=False, outcome=outcome)
        return confirm("unchanged", f"{did} is already resolved with {code_span(outcome.answer.value)}.", outcome)
    if command.name == "escalate":
        moved = lifecycle.escalate(tracker, config, did, actor, to=command.arg, now=now)
        return confirm(
            "escalated",
            f"Escalated by {code_span(author)}: {code_span(decision.owner)} → {code_span(moved.decision.owner)}.",
            moved,
        )
    if command.name == "return":
        moved = lifecycle.return_to_requester(tracker, config, did, actor, now=now)
        return confirm("returned", f"Returned by {code_span(author)} to {code_span(moved.decision.owner)}.", moved)
    if command.name in ("cite", "pass", "correct") or (command.name == "override" and command.number is None):
        return _run_planner(tracker, config, command, decision, actor, source, now, confirm)
    if command.name == "accept":
        if decision.kind == "decision":
            accepted = planner_rules.accept(tracker, config, did, actor, now=now)
            return confirm("accepted", f"The planner's answer was accepted by {code_span(author)}.", accepted)
        done = lifecycle.accept_review(tracker, config, did, actor, now=now)
        return confirm("accepted", f"Assumptions accepted by {code_span(author)}.", done)
    # override
    assert command.number is not None
    assert command.arg is not None
    changed = lifecycle.override_assumption(tracker, config, did, command.number, command.arg, actor, now=now)
    return confirm(
        "overridden",
        f"Assumption {command.number} overridden by {code_span(author)}; dependents were told to rework.",
        changed,
    )


class _Confirm(Protocol):
    def __call__(
        self,
        action: Action,
        text: str,
        outcome: lifecycle.ParkOutcome | lifecycle.ResolveOutcome | planner_rules.CorrectionOutcome | None,
    ) -> CommandResult: ...


def _run_planner(
    tracker: CommentTracker,
    config: Config,
    command: Command,
    decision: Decision,
    actor: Actor,
    source: str,
    now: datetime | None,
    confirm: _Confirm,
) -> CommandResult:
    """``/cite``, ``/pass`` (the planner), ``/override <option>`` and ``/correct`` (people)."""
    did = decision.id
    who = code_span(actor.login)
    if command.name == "cite":
        assert command.arg is not None
        files = tracker if isinstance(tracker, planner_rules.SourceFiles) else None
        cited = planner_rules.cite(
            tracker, config, did, command.arg, command.sources, actor, files=files, source=source, now=now
        )
        cites = ", ".join(code_span(s.source) for s in cited.answer.sources)
        waits = "" if cited.decision.state == "resolved" else " It waits for the owner's `/accept`."
        return confirm(
            "cited",
            f"Answered by the planner {who} with {code_span(cited.answer.value)}, citing {cites}.{waits} "
            "The owner reviews it: `/accept` keeps it, `/override <option> [why]` replaces it.",
            cited,
        )
    if command.name == "pass":
        passed = planner_rules.pass_question(tracker, config, did, actor, reason=command.reason, now=now)
        return confirm("passed", f"Passed by the planner {who}: the question is with its owner now.", passed)
    assert command.arg is not None
    if command.name == "correct":
        assert command.reason is not None
        done = planner_rules.correct(
            tracker, config, did, command.arg, actor, reason=command.reason, source=source, now=now
        )
    else:
        if decision.kind == "review":
            raise InvalidInput(f"{did} is a review item: override an assumption with `/override <n> <text>`")
        done = planner_rules.override(
            tracker, config, did, command.arg, actor, reason=command.reason, source=source, now=now
        )
    if done.action == "unchanged":
        return confirm("unchanged", f"{did} already has the answer {code_span(done.answer.value)}.", done)
    text = f"Answer {done.action} by {who}: {code_span(done.answer.value)}"
    if done.previous is not None:
        text += f" (was {code_span(done.previous.value)})"
    if done.rework:
        text += f". Rework needed on {', '.join(done.rework)}, merged with the previous answer"
    return confirm("corrected" if command.name == "correct" else "overridden", text + ".", done)
