"""What every part of the GitHub tracker shares: its state and short-lived caches, the plumbing that
runs each request as one retried unit, and reading GitHub's raw JSON.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from github import GithubException
from github.Issue import Issue as GhIssue
from github.PaginatedList import PaginatedList

from bot.core.models import LogEntry
from bot.trackers.github.client import GitHubClient, backend_failure

log = logging.getLogger("parkbot.github")
T = TypeVar("T")


def _raw(obj: Any) -> dict[str, Any]:
    """The JSON GitHub sent for a PyGithub object, without triggering a lazy completion request.

    ``raw_data`` on an object that came from a list would fetch it again to "complete" it; the
    list response already holds everything parkbot reads.
    """
    data = getattr(obj, "_rawData", None)
    return data if isinstance(data, dict) else obj.raw_data


def _label_names(raw: dict[str, Any]) -> list[str]:
    return [lab["name"] if isinstance(lab, dict) else str(lab) for lab in raw.get("labels") or []]


def _has_label(raw: dict[str, Any], name: str) -> bool:
    return name.casefold() in {n.casefold() for n in _label_names(raw)}


def _login(raw: dict[str, Any] | None) -> str | None:
    return (raw or {}).get("login")


def _label_name(lab: Any) -> str:
    return lab["name"] if isinstance(lab, dict) else str(lab)


def _header_value(headers: dict[str, Any] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return str(value)
    return None


def _already_exists(exc: GithubException) -> bool:
    data = exc.data if isinstance(exc.data, dict) else {}
    return any(isinstance(e, dict) and e.get("code") == "already_exists" for e in data.get("errors") or [])


@dataclass
class _Found:
    """A decision issue as last read: the raw JSON and the PyGithub object (for writes)."""

    raw: dict[str, Any]
    obj: GhIssue | None = None
    #: Pull requests carrying the decision's label (known when it was found by listing that label).
    prs: tuple[int, ...] | None = None

    @property
    def number(self) -> int:
        return int(self.raw["number"])


class TrackerBase:
    """The state and plumbing the parts of :class:`~bot.trackers.github.GitHubTracker` share."""

    def __init__(
        self,
        client: GitHubClient,
        *,
        race_wait: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
        bot_logins: Iterable[str] = (),
    ) -> None:
        self.client = client
        self._gh = client.github
        self._transport = client.transport
        self._repo = self._gh.get_repo(client.repository)  # lazy: no request
        self.race_wait = race_wait
        self._sleep = sleep
        self._bot_logins = {b.casefold() for b in bot_logins}
        # Short-lived caches, refreshed by every find(): what this run has just read or written.
        self._issues: dict[str, _Found] = {}  # decision id -> issue
        self._primed: dict[str, _Found] = {}  # decision id -> issue read by decision_at, used once by find
        self._comments: dict[int, list[dict[str, Any]]] = {}  # issue number -> comments
        self._pulls: dict[int, dict[str, Any]] = {}  # PR number -> raw pull
        #: Pull requests read afresh during this run: a later "fresh" read reuses that copy (parkbot's own
        #: label writes update it in place), so authorizing and then clearing reads each dependent once.
        self._fresh_pulls: set[int] = set()
        self._claimed: set[str] = set()
        self._members: dict[tuple[str, str], bool] = {}
        self._rescan: set[int] = set()  # PRs whose next gate looks up the branch index even if tracked
        #: Why the last pin attempt failed (pinning is best effort), None after a success.
        self.pin_notice: str | None = None

    @property
    def bot_logins(self) -> frozenset[str]:
        """Logins whose comments are the bot's own (besides any Bot account and the issue author)."""
        return frozenset(self._bot_logins)

    # -- plumbing -----------------------------------------------------------------------------

    def _unit(self, what: str, fn: Callable[[int], T]) -> T:
        """Run one retried unit; GitHub errors it does not handle become BackendFailure (exit 4)."""
        try:
            return self._transport.run(what, fn)
        except GithubException as exc:
            raise backend_failure(exc, what, self._transport) from None

    @property
    def _requester(self) -> Any:
        return self._gh.requester

    @property
    def _repo_url(self) -> str:
        return self._repo.url

    @property
    def repository(self) -> str:
        return self.client.repository

    def _list(self, items: PaginatedList[Any]) -> list[dict[str, Any]]:
        return [_raw(item) for item in items]

    def _issue_obj(self, number: int) -> GhIssue:
        return self._repo.get_issue(number)  # lazy: no request

    def _read_or_none(self, what: str, fetch: Callable[[], Any]) -> dict[str, Any] | None:
        """One retried read of ``fetch().raw_data``; None when GitHub answers 404 or 410 (not there, or deleted)."""

        def get(_: int) -> dict[str, Any] | None:
            try:
                return fetch().raw_data
            except GithubException as exc:
                if exc.status in (404, 410):
                    return None
                raise

        return self._unit(what, get)

    def _read_issue(self, number: int) -> dict[str, Any] | None:
        """Issue (or pull request) ``number`` as GitHub sends it, or None when there is none (1 request)."""
        return self._read_or_none(f"read issue #{number}", lambda: self._issue_obj(number))

    def _html(self, path: str) -> str:
        api = self.client.settings.api_url
        web = "https://github.com" if "api.github.com" in api else api.split("/api/")[0]
        return f"{web}/{self.repository}/{path}"

    def _list_by_label(self, label: str) -> list[dict[str, Any]]:
        return self._unit(
            f"list issues labeled {label}",
            lambda _: self._list(self._repo.get_issues(state="all", labels=[label], direction="asc")),
        )

    def _comments_of(self, number: int, *, refresh: bool = False) -> list[dict[str, Any]]:
        if refresh or number not in self._comments:
            self._comments[number] = self._unit(
                f"list the comments of #{number}", lambda _: self._list(self._issue_obj(number).get_comments())
            )
        return self._comments[number]

    def _log_if_not_derived(self, entry: LogEntry) -> None:
        """Log an event that travels with a state change, unless the decision issue records it anyway."""
        raise NotImplementedError  # the question-log part provides it

    def _edit(self, number: int, changes: dict[str, Any]) -> dict[str, Any]:
        """PATCH an issue and return GitHub's answer (``Issue.edit`` keeps the new JSON to itself)."""
        _, data = self._requester.requestJsonAndCheck("PATCH", self._issue_obj(number).url, input=changes)
        return data
