"""The capabilities of :mod:`parkbot.core.tracker` that only the event handlers and ``wait`` ask for,
and the value types that cross them: comments and their records, reactions, commit gates, the
dashboard issue, polling, the pull requests of a commit, the index of decisions.

Only the GitHub backend offers them, and nothing a command on the embedded backlog runs tests for
them, so they live apart from :class:`~parkbot.core.tracker.Tracker` and load on first use:
``from parkbot.core.tracker import IssueComments`` still works and loads this module. Each is a
runtime-checkable protocol as the others are (callers test ``isinstance(tracker, Capability)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from datetime import datetime

    from parkbot.core.dashboard_index import DashboardIndex, DashboardWrite
    from parkbot.core.models import Decision, LogEntry
    from parkbot.core.tracker import GateResult, ReactionContent
    from parkbot.core.untaken import CommentFacts


@dataclass(frozen=True)
class PollToken:
    """What one poll of a decision leaves for the next (opaque to the lifecycle).

    ``validator`` is whatever lets the backend ask "changed since?" (GitHub: the ETag of the last
    response); ``decision`` is what that response said, returned again when nothing changed.
    """

    decision_id: str
    validator: str | None = None
    decision: Decision | None = None


@runtime_checkable
class Pollable(Protocol):
    """Read a decision again *cheaply* for ``parkbot wait`` (GitHub: a conditional request).

    ``previous`` is the token the last poll returned (None the first time); when nothing changed
    since, the backend may answer from it without reading everything again. Without this capability
    the lifecycle simply re-reads with :meth:`Tracker.find`.
    """

    def poll(self, decision_id: str, previous: PollToken | None = None) -> tuple[Decision | None, PollToken]: ...


@runtime_checkable
class IssueComments(Protocol):
    """What comment commands need: the decision an issue holds, and one reply per command."""

    def decision_at(self, number: int) -> Decision | None:
        """The decision stored in issue ``number``, or None if it is not a decision issue."""
        ...

    def reply(self, issue_number: int, key: str, text: str) -> None:
        """Write or edit the one reply keyed ``key``; ``text`` is Markdown with untrusted parts escaped."""
        ...

    def comment_url(self, issue_number: int, comment_id: int | str) -> str: ...


@runtime_checkable
class CommitGates(Protocol):
    """Gates on an exact commit that is not a dependent's head: the merge-queue commit, a pushed
    agent commit that filed nothing readable."""

    def publish_commit_gate(self, sha: str, result: GateResult, *, blocked_fails: bool) -> None:
        """Publish ``result`` on ``sha``; a blocked result fails outright when ``blocked_fails``."""
        ...

    def publish_commit_failure(self, sha: str, summary: str) -> None:
        """Fail the gate on ``sha``, saying why in one line."""
        ...


@runtime_checkable
class DashboardIssue(Protocol):
    """The one dashboard issue that lists open decisions (GitHub), carrying the index it shows
    (:mod:`parkbot.core.dashboard_index`) so that an event can patch it without reading every decision."""

    pin_notice: str | None

    def read_dashboard(self) -> DashboardIndex | None:
        """The index the dashboard issue carries; None when there is no dashboard or no readable index."""
        ...

    def write_dashboard(
        self,
        index: DashboardIndex,
        render: Callable[[DashboardIndex, int], str],
        *,
        title: str,
        create: bool = True,
    ) -> tuple[int, DashboardWrite]:
        """Make the dashboard show ``index``: ``(number, action)``, the action ``created``, ``updated``,
        ``unchanged`` (or ``(0, "absent")`` when there is none and ``create`` is False).

        ``render(index, budget)`` is the visible text in at most ``budget`` characters; the backend
        keeps the index next to it, listing fewer entries when both would not fit.
        """
        ...

    def issue_url(self, number: int) -> str: ...


@runtime_checkable
class BranchRescan(Protocol):
    """Look a pull request's head branch up again on its next gate (a reopened pull request)."""

    def rescan_branch(self, number: int) -> None: ...


@runtime_checkable
class LoggedEvents(Protocol):
    """Only the log lines no decision records by itself (refusals, abandonments), without a scan."""

    def iter_logged_events(self) -> Iterator[LogEntry]: ...


@runtime_checkable
class FindsPullsByCommit(Protocol):
    """Name the open pull requests whose head is a commit (a fork's pull request, seen from a workflow run)."""

    def open_pulls_at(self, sha: str, *, head: str) -> list[int]: ...


@runtime_checkable
class SeenDecisions(Protocol):
    """The decisions this run has already read or written, without another request (the dashboard patch)."""

    def last_seen(self, decision_id: str) -> Decision | None:
        """The decision as this run last read or wrote it; None when this run has not seen it."""
        ...


@runtime_checkable
class CommentReactions(Protocol):
    """React to the comment a command came in, as bots on GitHub do: 👀 taken up, then 👍 done or 😕 refused."""

    def react(self, issue_number: int, comment_id: int | str, content: ReactionContent) -> None:
        """Add ``content`` to the comment (idempotent: the same reaction twice is one reaction)."""
        ...


@dataclass(frozen=True)
class CommentRecord:
    """A comment as the backend's own records show it, not as an event payload claims it.

    ``editor`` is whoever last changed the text when that is not its author (None: only the author
    wrote it); ``body`` is the text now.
    """

    author: str
    body: str
    editor: str | None = None
    author_bot: bool = False
    #: When the author wrote it, as the backend recorded it: an answer binds to the question as it was then.
    created_at: datetime | None = None
    #: Whether parkbot already replied to the comment as it stands (its own reply, written after the
    #: comment's last edit): a redelivered event of it is silent.
    taken_up: bool = False


@runtime_checkable
class CommentRecords(Protocol):
    """Who wrote a command comment and who changed it since, from the backend (GitHub: its edit history).

    A command counts only as its author's own words: the comment handler refuses one whose author is
    not the actor, or that anyone else edited (anyone with write access can edit any comment).
    """

    def comment_record(self, issue_number: int, comment_id: int | str) -> CommentRecord | None:
        """The comment now, or None when it is not there any more."""
        ...


@runtime_checkable
class CommandCommentFacts(Protocol):
    """The comments of a decision issue with what the reconcile needs to find commands never taken up."""

    def command_comment_facts(self, issue_number: int) -> list[CommentFacts]:
        """The comments of ``issue_number`` (read once per run); whether parkbot reacted is read only for
        comments :func:`parkbot.core.untaken.may_be_command` keeps, so other comments cost no request."""
        ...


@runtime_checkable
class UnindexedDecisions(Protocol):
    """A backend whose index of decisions (GitHub: labels) can be removed by others without an event.

    The scheduled reconcile asks it for the decisions its own identity wrote that lost their index,
    found by authorship, never by the index itself, and restores them.
    """

    def unindexed_decisions(self) -> list[Decision]:
        """The decisions parkbot's own records hold whose index is incomplete (read and verified)."""
        ...


@runtime_checkable
class IndexedDependents(Protocol):
    """A backend that can name the dependents indexed under a decision it can no longer read."""

    def indexed_dependents(self, decision_id: str) -> list[str]:
        """The open dependents (``#N``) that carry the index of ``decision_id`` (its issue deleted or moved)."""
        ...
