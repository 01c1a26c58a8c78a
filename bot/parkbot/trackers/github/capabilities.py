"""The capabilities of :class:`~parkbot.trackers.github.tracker.GitHubTracker`, one part per protocol (or a few
that go together), each handing every call to the part of the adapter that does it.

A part here holds no state: it names the adapter parts it uses (:class:`Parts`) and implements the
protocols of :mod:`parkbot.core.tracker` (and :mod:`parkbot.core.planner`) it claims, so mypy checks each
signature against the protocol. :class:`~parkbot.trackers.github.tracker.GitHubTracker` is their sum.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from parkbot.core import tracker as capabilities
from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.core.planner import AgentIdentity, MergedDependents, SourceFiles
from parkbot.core.tracker import (
    BranchRescan,
    CommandCommentFacts,
    CommentRecord,
    CommentRecords,
    CommitGates,
    DashboardIssue,
    DependentState,
    FindsPullsByCommit,
    GateResult,
    IssueComments,
    Location,
    LoggedEvents,
    OwnIdentityRecords,
    Pollable,
    PollToken,
    ReactionContent,
    Role,
    SeenDecisions,
    Tracker,
    UnindexedDecisions,
)
from parkbot.core.untaken import CommentFacts, reacted_by
from parkbot.trackers.github.access import is_bot_login
from parkbot.trackers.github.dashboard_issue import DASHBOARD_TITLE
from parkbot.trackers.github.gate_text import STATUS_CONTEXT
from parkbot.trackers.github.unindexed import unindexed_decisions

if TYPE_CHECKING:
    from parkbot.core.authority import Actor
    from parkbot.core.dashboard_index import DashboardIndex, DashboardWrite
    from parkbot.trackers.github.access import Access
    from parkbot.trackers.github.answers import AnswerRecords
    from parkbot.trackers.github.comments import Comments
    from parkbot.trackers.github.dashboard_issue import Dashboard
    from parkbot.trackers.github.dependents import Dependents
    from parkbot.trackers.github.gate import Gate
    from parkbot.trackers.github.issue_writes import DecisionWrites
    from parkbot.trackers.github.issues import DecisionIssues
    from parkbot.trackers.github.question_log import LogIssue, QuestionLog
    from parkbot.trackers.github.reactions import CommentReactions
    from parkbot.trackers.github.sources import SourceFiles as SourceFilesPart
    from parkbot.trackers.github.store import IssueStore


class Parts:
    """The parts of the GitHub adapter the capabilities hand their calls to (built by ``GitHubTracker``)."""

    store: IssueStore
    comments: Comments
    log_issue: LogIssue
    issues: DecisionIssues
    writes: DecisionWrites
    question_log: QuestionLog
    dependents: Dependents
    answers: AnswerRecords
    gate: Gate
    access: Access
    dashboard: Dashboard
    reactions: CommentReactions
    sources: SourceFilesPart


class TrackerPart(Parts, Tracker, UnindexedDecisions):
    """The :class:`~parkbot.core.tracker.Tracker` protocol: decisions, dependents, resolution, budgets, who answers."""

    # -- Tracker: decisions ---------------------------------------------------------------------

    def default_owner(self) -> str:
        return self.issues.default_owner()

    def claim(self, decision_id: str) -> bool:
        return self.issues.claim(decision_id)

    def find(self, decision_id: str) -> Decision | None:
        return self.issues.find(decision_id)

    def location(self, decision: Decision) -> Location:
        return self.issues.location(decision)

    def create(self, decision: Decision, log: LogEntry) -> Location:
        return self.writes.create(decision, log)

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        return self.writes.update(decision, log)

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        return self.issues.iter_decisions(state)

    def unindexed_decisions(self) -> list[Decision]:
        return unindexed_decisions(self.store, self.issues)

    # -- Tracker: dependents and the gate ---------------------------------------------------------

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        return self.gate.block_dependents(decision)

    def linked_decisions(self, target: str) -> list[Decision]:
        return self.dependents.linked_decisions(target)

    def publish_gate(self, result: GateResult) -> None:
        self.gate.publish_gate(result)

    # -- Tracker: resolution, in this order ----------------------------------------------------------

    def recorded_answer(self, decision: Decision) -> Answer | None:
        return self.answers.recorded_answer(decision)

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        self.answers.record_answer(decision, answer)

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        self.answers.point_dependents(decision, answer)

    def clear_blocking(self, decision: Decision) -> list[DependentState]:
        return self.gate.clear_blocking(decision)

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        self.writes.close(decision, answer, log)

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
        self.writes.mark_abandoned(decision, reason, log)

    # -- Tracker: budgets and the question log ---------------------------------------------------

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        return self.question_log.open_decisions(origin=origin, run=run)

    def append_log(self, entry: LogEntry) -> None:
        self.log_issue.append(entry)

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        return self.question_log.iter_log(about=about)

    # -- Tracker: who may answer --------------------------------------------------------------------

    def actor(self, claimed: str | None) -> Actor:
        return self.access.actor(claimed)

    def is_member(self, login: str, principal: str) -> bool:
        return self.access.is_member(login, principal)

    def permission_of(self, login: str) -> Role | None:
        return self.access.permission_of(login)

    def dependent_authors(self, decision: Decision) -> frozenset[str]:
        return self.access.dependent_authors(decision)


class PlannerPart(Parts, SourceFiles, MergedDependents, AgentIdentity):
    """What a planner may cite and who it is (:mod:`parkbot.core.planner`'s protocols)."""

    # -- what a planner may cite (parkbot.core.planner.SourceFiles, MergedDependents, AgentIdentity) ------

    def agent_actor(self, claimed: str | None) -> Actor:
        """Who acts with this token, bots included: a planner is often an App (``planner[bot]``); the core
        lets it do only what the configured planner may. ``--by`` naming anyone else is refused as ever."""
        from parkbot.core.authority import Actor  # (imported for type checking only at the top)

        login = self.store.token_login()
        if claimed and claimed.strip().lstrip("@").casefold() != login.casefold():
            return self.access.actor(claimed)  # refused, saying why
        return Actor(login, bot=is_bot_login(login))

    def default_branch_commit(self) -> str | None:
        return self.sources.default_branch_commit()

    def file_at(self, commit: str, path: str) -> str | None:
        return self.sources.file_at(commit, path)

    def merged_dependents(self, decision: Decision) -> frozenset[str]:
        return self.sources.merged_dependents(decision)


class PollingPart(Parts, Pollable, SeenDecisions, LoggedEvents):
    """Waiting for an answer, the copy last seen, and the question log's events."""

    # -- Pollable, SeenDecisions, LoggedEvents ------------------------------------------------------

    def poll(self, decision_id: str, previous: PollToken | None = None) -> tuple[Decision | None, PollToken]:
        return self.issues.poll(decision_id, previous)

    def last_seen(self, decision_id: str) -> Decision | None:
        return self.issues.last_seen(decision_id)

    def iter_logged_events(self) -> Iterator[LogEntry]:
        return self.log_issue.iter_entries()


class CommentsPart(
    Parts, IssueComments, CommentRecords, capabilities.CommentReactions, OwnIdentityRecords, CommandCommentFacts
):
    """Commands as comments on decision issues: reading them, replying, reacting, posting as the owner."""

    # -- IssueComments, CommentRecords, CommentReactions, OwnIdentityRecords --------------------------

    def decision_at(self, number: int) -> Decision | None:
        return self.issues.decision_at(number)

    def reply(self, issue_number: int, key: str, text: str) -> None:
        self.comments.reply(issue_number, key, text)

    def comment_url(self, issue_number: int, comment_id: int | str) -> str:
        return self.comments.comment_url(issue_number, comment_id)

    def comment_record(self, issue_number: int, comment_id: int | str) -> CommentRecord | None:
        return self.comments.comment_record(issue_number, comment_id)

    def react(self, issue_number: int, comment_id: int | str, content: ReactionContent) -> None:
        self.reactions.react(issue_number, comment_id, content)

    def writes_as_itself(self) -> bool:
        return self.store.writes_as_itself()

    def command_comment_facts(self, issue_number: int) -> list[CommentFacts]:
        logins = self.store.trusted_logins

        def reacted(comment_id: int) -> bool:
            return reacted_by(self.reactions.reactions_of(issue_number, comment_id), logins)

        return self.comments.command_facts(issue_number, reacted)

    def post_command(self, decision: Decision, text: str) -> str:
        return self.writes.post_command(decision, text)


class GatesPart(Parts, CommitGates, BranchRescan, FindsPullsByCommit):
    """The gate on commits (merge queue, forks), and the pull requests and branches behind a commit."""

    # -- CommitGates, BranchRescan, FindsPullsByCommit ------------------------------------------------

    def publish_commit_gate(self, sha: str, result: GateResult, *, blocked_fails: bool) -> None:
        self.gate.publish_commit_gate(sha, result, blocked_fails=blocked_fails)

    def publish_commit_failure(self, sha: str, summary: str) -> None:
        self.gate.publish_commit_failure(sha, summary)

    def publish_status(
        self, sha: str, state: str, description: str, target_url: str | None = None, *, context: str = STATUS_CONTEXT
    ) -> None:
        """Set a commit status on any commit (see :meth:`Gate.publish_status`)."""
        self.gate.publish_status(sha, state, description, target_url, context=context)

    def rescan_branch(self, number: int) -> None:
        self.dependents.rescan_branch(number)

    def open_pulls_at(self, sha: str, *, head: str) -> list[int]:
        return self.dependents.open_pulls_at(sha, head=head)

    def sharing_commit(self, target: str) -> list[str]:
        return self.dependents.sharing_commit(target)

    def branches_at(self, sha: str) -> list[str]:
        return self.dependents.branches_at(sha)

    def indexed_dependents(self, decision_id: str) -> list[str]:
        return self.dependents.indexed_dependents(decision_id)


class DashboardPart(Parts, DashboardIssue):
    """The decision dashboard issue."""

    # -- DashboardIssue -----------------------------------------------------------------------------

    @property
    def pin_notice(self) -> str | None:
        return self.dashboard.pin_notice

    @pin_notice.setter
    def pin_notice(self, notice: str | None) -> None:
        self.dashboard.pin_notice = notice

    def read_dashboard(self) -> DashboardIndex | None:
        return self.dashboard.read_dashboard()

    def write_dashboard(
        self,
        index: DashboardIndex,
        render: Callable[[DashboardIndex, int], str],
        *,
        title: str = DASHBOARD_TITLE,
        create: bool = True,
    ) -> tuple[int, DashboardWrite]:
        return self.dashboard.write_dashboard(index, render, title=title, create=create)

    def issue_url(self, number: int) -> str:
        return self.dashboard.issue_url(number)
