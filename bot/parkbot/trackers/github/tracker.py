"""``GitHubTracker``: the :class:`~parkbot.core.tracker.Tracker` protocol and the capabilities GitHub offers,
each method handed to the part that does it (see the docstring of :mod:`parkbot.trackers.github`).

The parts are built here, once, in the order they need each other; each gets what it uses and no more.
Claiming a protocol is subclassing it, so mypy checks every signature against it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, final

from parkbot.core import tracker as capabilities
from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.core.tracker import (
    BranchRescan,
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
from parkbot.trackers.github.access import Access, is_bot_login
from parkbot.trackers.github.answers import AnswerRecords
from parkbot.trackers.github.client import GitHubClient
from parkbot.trackers.github.comments import Comments
from parkbot.trackers.github.dashboard_issue import DASHBOARD_TITLE, Dashboard
from parkbot.trackers.github.dependents import Dependents
from parkbot.trackers.github.gate import Gate, PublishMode
from parkbot.trackers.github.issues import DecisionIssues
from parkbot.trackers.github.question_log import LogIssue, QuestionLog
from parkbot.trackers.github.reactions import CommentReactions
from parkbot.trackers.github.render import STATUS_CONTEXT
from parkbot.trackers.github.sources import SourceFiles
from parkbot.trackers.github.store import IssueStore

if TYPE_CHECKING:
    from parkbot.core.authority import Actor
    from parkbot.core.config import Config
    from parkbot.core.dashboard_index import DashboardIndex


@final  # mypy then checks here that every method of every protocol claimed below is implemented
class GitHubTracker(
    Tracker,
    Pollable,
    IssueComments,
    CommentRecords,
    OwnIdentityRecords,
    CommitGates,
    BranchRescan,
    FindsPullsByCommit,
    DashboardIssue,
    SeenDecisions,
    LoggedEvents,
    capabilities.CommentReactions,
    UnindexedDecisions,
):
    """Decisions stored as GitHub issues (see the docstring of :mod:`parkbot.trackers.github`)."""

    backend = "github"

    def __init__(
        self,
        client: GitHubClient,
        *,
        race_wait: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
        bot_login: str | None = None,
    ) -> None:
        self.client = client
        self.store = IssueStore(client, bot_login=bot_login)
        self.comments = Comments(self.store)
        self.log_issue = LogIssue(self.store, self.comments)
        self.issues = DecisionIssues(self.store, self.comments, self.log_issue, race_wait=race_wait, sleep=sleep)
        self.question_log = QuestionLog(self.store, self.issues, self.log_issue)
        self.dependents = Dependents(self.store, self.issues)
        self.answers = AnswerRecords(self.store, self.issues, self.comments, self.dependents)
        self.gate = Gate(self.store, self.issues, self.dependents)
        self.access = Access(self.store, self.dependents)
        self.dashboard = Dashboard(self.store, self.issues)
        self.reactions = CommentReactions(self.store)
        self.sources = SourceFiles(self.store)

    def __repr__(self) -> str:
        return f"GitHubTracker({self.client.repository!r})"

    # -- configuration and identity -------------------------------------------------------------

    def configure(self, config: Config) -> None:
        """Apply the settings that concern GitHub: ``bot_login`` and ``gate.publish``."""
        if config.bot_login:
            self.store.configure_login(config.bot_login)
        self.gate.publish_mode = config.gate.publish

    def read_config_text(self, path: str) -> str | None:
        """A file from the default branch (the config), or None when it does not exist."""
        return self.store.read_file(path)

    @property
    def repository(self) -> str:
        return self.store.repository

    @property
    def own_login(self) -> str:
        """parkbot's own login (see :attr:`IssueStore.own_login`)."""
        return self.store.own_login

    def token_login(self) -> str:
        return self.store.token_login()

    @property
    def publish_mode(self) -> PublishMode:
        return self.gate.publish_mode

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
        return self.issues.create(decision, log)

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        return self.issues.update(decision, log)

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        return self.issues.iter_decisions(state)

    def unindexed_decisions(self) -> list[Decision]:
        return self.issues.unindexed()

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
        self.issues.close(decision, answer, log)

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
        self.issues.mark_abandoned(decision, reason, log)

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

    # -- Pollable, SeenDecisions, LoggedEvents ------------------------------------------------------

    def poll(self, decision_id: str, previous: PollToken | None = None) -> tuple[Decision | None, PollToken]:
        return self.issues.poll(decision_id, previous)

    def last_seen(self, decision_id: str) -> Decision | None:
        return self.issues.last_seen(decision_id)

    def iter_logged_events(self) -> Iterator[LogEntry]:
        return self.log_issue.iter_entries()

    # -- IssueComments, CommentRecords, CommentReactions, OwnIdentityRecords --------------------------

    def decision_at(self, number: int) -> Decision | None:
        return self.issues.decision_at(number)

    def sharing_commit(self, target: str) -> list[str]:
        return self.dependents.sharing_commit(target)

    def indexed_dependents(self, decision_id: str) -> list[str]:
        return self.dependents.indexed_dependents(decision_id)

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

    def post_command(self, decision: Decision, text: str) -> str:
        return self.issues.post_command(decision, text)

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
    ) -> tuple[int, str]:
        return self.dashboard.write_dashboard(index, render, title=title, create=create)

    def issue_url(self, number: int) -> str:
        return self.dashboard.issue_url(number)
