"""What one run of the GitHub tracker remembers of what it read or wrote, one small part per resource.

A run (one CLI command, one webhook event) reads the same issue, comments or pull request from
several parts (finding a decision, authorizing a command, resolving it); each part below keeps one
resource so that the second read costs no request, and says by its methods when a copy is superseded.
The parts of the tracker name the part they use (``store.comments``, ``store.pulls`` ...), so which
caches a step relies on is visible where it runs. Nothing here outlives the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from parkbot.trackers.github.trust import comment_raw

if TYPE_CHECKING:
    from parkbot.trackers.github.repository_requests import FoundIssue, Requests


class IssueCopies:
    """The decision issues this run has read or written, by decision id, and the labels it claimed."""

    def __init__(self) -> None:
        self._issues: dict[str, FoundIssue] = {}  # decision id -> issue
        self._primed: dict[str, FoundIssue] = {}  # decision id -> issue read by decision_at, used once by find
        self._claimed: set[str] = set()  # decision ids whose label this run created

    def remember(self, decision_id: str, found: FoundIssue) -> None:
        """Keep ``found`` as the current copy of the decision's issue.

        A newer read or any write supersedes the copy :meth:`prime` left for the next ``find``, so
        that copy is dropped here (else ``find`` would return the issue as it was before the write).
        """
        self._issues[decision_id] = found
        primed = self._primed.get(decision_id)
        if primed is not None and primed is not found:
            del self._primed[decision_id]

    def forget(self, decision_id: str) -> None:
        self._issues.pop(decision_id, None)

    def known(self, decision_id: str) -> FoundIssue | None:
        """The decision's issue as this run last read or wrote it (no request), or None."""
        return self._issues.get(decision_id)

    def known_issue(self, number: int) -> FoundIssue | None:
        """Decision issue ``number`` as this run last read or wrote it (no request), or None."""
        return next((f for f in self._issues.values() if f.number == number), None)

    def prime(self, decision_id: str, found: FoundIssue) -> None:
        """Remember ``found`` and let the next ``find`` of the decision use it instead of listing again."""
        self.remember(decision_id, found)
        self._primed[decision_id] = found  # after remember: this read is the newest one

    def take_primed(self, decision_id: str) -> FoundIssue | None:
        """The copy :meth:`prime` left for ``find`` (once), or None."""
        return self._primed.pop(decision_id, None)

    def note_claim(self, decision_id: str, claimed: bool) -> None:
        """Whether this run just created the decision's label (then no issue can carry it yet)."""
        if claimed:
            self._claimed.add(decision_id)
        else:
            self._claimed.discard(decision_id)

    def take_claim(self, decision_id: str) -> bool:
        """Whether this run claimed the decision's label; a claim covers one creation."""
        claimed = decision_id in self._claimed
        self._claimed.discard(decision_id)
        return claimed


class CommentCache:
    """The comments of each issue or pull request this run has read or posted, by number."""

    def __init__(self, requests: Requests) -> None:
        self._requests = requests
        self._comments: dict[int, list[dict[str, Any]]] = {}  # issue number -> comments

    def of(self, number: int, *, refresh: bool = False) -> list[dict[str, Any]]:
        """The comments of ``number``, oldest first, with who wrote and edited each (read once per run)."""
        if refresh or number not in self._comments:
            self._comments[number] = self._requests.read_comments(number)
        return self._comments[number]

    def held(self, number: int) -> bool:
        """Whether this run holds the comments of ``number`` (read with the issue, or since)."""
        return number in self._comments

    def cached(self, number: int) -> list[dict[str, Any]]:
        """The comments of ``number`` this run holds (no request; none when it has not read them)."""
        return self._comments.get(number, [])

    def set(self, number: int, comments: list[dict[str, Any]]) -> None:
        """What the comments of ``number`` are (``[]`` for an issue this run just created)."""
        self._comments[number] = comments

    def assume_none(self, number: int) -> None:
        """Read ``number`` as having no comments unless this run has read them (none of parkbot's can exist)."""
        self._comments.setdefault(number, [])

    def add(self, number: int, comment: dict[str, Any]) -> None:
        """A comment this run posted on ``number``."""
        self._comments.setdefault(number, []).append(comment)

    def forget(self, number: int) -> None:
        """Read the comments of ``number`` again when next asked."""
        self._comments.pop(number, None)

    def adopt(self, number: int, connection: dict[str, Any] | None) -> None:
        """Keep the comments a query read with their issue (and the pages after the first, if any)."""
        if connection is None:
            return
        comments = [comment_raw(node) for node in connection.get("nodes") or [] if node]
        info = connection.get("pageInfo") or {}
        if info.get("hasNextPage"):
            comments += self._requests.read_comments(number, info.get("endCursor"))
        self._comments[number] = comments


class PullCache:
    """The pull requests this run has read, and those whose next gate looks up the branch index again."""

    def __init__(self, requests: Requests) -> None:
        self._requests = requests
        self._pulls: dict[int, dict[str, Any]] = {}  # PR number -> raw pull
        #: Pull requests read afresh during this run: a later "fresh" read reuses that copy (parkbot's own
        #: label writes update it in place), so authorizing and then clearing reads each dependent once.
        self._fresh: set[int] = set()
        self._rescans: set[int] = set()  # PRs whose next gate looks up the branch index even if tracked

    def get(self, number: int, *, fresh: bool = False) -> dict[str, Any] | None:
        """Pull request ``number`` (1 request, or none when this run has it; ``fresh``: read during this run)."""
        if number in self._pulls and (not fresh or number in self._fresh):
            return self._pulls[number]
        pull = self._requests.read_pull(number)
        if pull is not None:
            self._pulls[number] = pull
            self._fresh.add(number)
        return pull

    def keep(self, pull: dict[str, Any]) -> None:
        """A pull request a listing brought along (not "fresh": a fresh read reads it again)."""
        self._pulls[int(pull["number"])] = pull

    def rescan(self, number: int) -> None:
        """Make the next gate of pull request ``number`` look up the branch index even if it is tracked."""
        self._rescans.add(number)

    def wants_rescan(self, number: int) -> bool:
        return number in self._rescans

    def rescanned(self, number: int) -> None:
        self._rescans.discard(number)


class HistoryCache:
    """The edit histories of issue bodies and comments this run has read, by node id."""

    def __init__(self, requests: Requests) -> None:
        self._requests = requests
        self._histories: dict[str, list[dict[str, Any]]] = {}  # node id -> its edit history, newest first

    def of(self, node_id: str) -> list[dict[str, Any]]:
        """The edit history of an issue body or a comment (one request, once per run and text)."""
        if node_id not in self._histories:
            self._histories[node_id] = self._requests.read_history(node_id)
        return self._histories[node_id]


class Memberships:
    """Team memberships this run has checked."""

    def __init__(self) -> None:
        self._members: dict[tuple[str, str], bool] = {}  # (login, team) -> member

    def check(self, login: str, team: str, check: Callable[[], bool]) -> bool:
        """Whether ``login`` is in ``team``: ``check()`` once per run and pair, then remembered."""
        key = (login.casefold(), team.casefold())
        if key not in self._members:
            self._members[key] = check()
        return self._members[key]


class RunMarks:
    """What this run has done or seen once: notices considered, answers created, issues found missing."""

    def __init__(self) -> None:
        self._notified: set[tuple[int, str]] = set()  # (issue, notice key) checked or posted this run
        #: Decisions whose answer record this run created (so no pointer to it can exist yet).
        self._answered_now: set[str] = set()
        self._missing: set[int] = set()  # issue numbers a read found nothing at

    def first_notice(self, number: int, key: str) -> bool:
        """True the first time this run considers notice ``key`` on issue ``number``."""
        if (number, key) in self._notified:
            return False
        self._notified.add((number, key))
        return True

    def note_answered_now(self, decision_id: str) -> None:
        """This run created the decision's answer record (so no pointer to it can exist yet)."""
        self._answered_now.add(decision_id)

    def answered_now(self, decision_id: str) -> bool:
        return decision_id in self._answered_now

    def note_missing(self, number: int) -> None:
        self._missing.add(number)

    def missing(self, number: int) -> bool:
        """Whether the last read of ``number`` found nothing there (deleted, or transferred away)."""
        return number in self._missing


class DashboardsSeen:
    """The open dashboard issues a read brought along, for this run's dashboard write."""

    def __init__(self) -> None:
        self._listing: list[dict[str, Any]] | None = None

    def seen(self) -> list[dict[str, Any]] | None:
        """The open dashboard issues this run has listed (a decision read brings them along), or None."""
        return self._listing

    def keep(self, listing: list[dict[str, Any]] | None) -> None:
        self._listing = listing
