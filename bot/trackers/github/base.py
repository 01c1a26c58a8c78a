"""What every part of the GitHub tracker shares: its state and short-lived caches, the plumbing that
runs each request (REST or GraphQL) as one retried unit, reading GitHub's raw JSON, and parkbot's
own login: the only author whose records it trusts (:mod:`bot.trackers.github.trust`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from github import GithubException
from github.GithubException import UnknownObjectException
from github.Issue import Issue as GhIssue
from github.PaginatedList import PaginatedList

from bot.core.errors import InvalidInput
from bot.core.models import Decision, LogEntry
from bot.core.tracker import Location
from bot.trackers.github import queries
from bot.trackers.github.client import GitHubClient, backend_failure
from bot.trackers.github.trust import comment_raw

if TYPE_CHECKING:
    from bot.core.config import Config

log = logging.getLogger("parkbot.github")
T = TypeVar("T")
#: parkbot's login when it runs with the Actions token (and the default for a run with a person's token).
ACTIONS_LOGIN = "github-actions[bot]"
#: How the gate is published (``gate.publish`` in the configuration).
PublishMode = Literal["check", "status", "both"]
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?")


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
    #: The body as parkbot last wrote it (None: not checked yet, or no version of parkbot's is left),
    #: and what was found changed by someone else (see IssuesMixin._verify).
    own_body: str | None = None
    problems: tuple[str, ...] = ()
    verified: bool = False

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
        bot_login: str | None = None,
    ) -> None:
        self.client = client
        self._gh = client.github
        self._transport = client.transport
        self._repo = self._gh.get_repo(client.repository)  # lazy: no request
        self.race_wait = race_wait
        self._sleep = sleep
        #: parkbot's own login when set by hand (``bot_login`` / ``PARKBOT_BOT_LOGIN``), else the token's.
        self._configured_login = _checked_login(bot_login) if bot_login else None
        self._token_login: str | None = None  # GraphQL's viewer, read with the first query
        self.publish_mode: PublishMode = "check"
        #: Gates this run could not publish, and why (a person's token cannot write check runs).
        self.gate_notices: list[str] = []
        # Short-lived caches, refreshed by every find(): what this run has just read or written.
        self._issues: dict[str, _Found] = {}  # decision id -> issue
        self._primed: dict[str, _Found] = {}  # decision id -> issue read by decision_at, used once by find
        self._comments: dict[int, list[dict[str, Any]]] = {}  # issue number -> comments
        self._pulls: dict[int, dict[str, Any]] = {}  # PR number -> raw pull
        #: Pull requests read afresh during this run: a later "fresh" read reuses that copy (parkbot's own
        #: label writes update it in place), so authorizing and then clearing reads each dependent once.
        self._fresh_pulls: set[int] = set()
        #: Decisions whose answer record this run created (so no pointer to it can exist yet).
        self._answered_now: set[str] = set()
        self._claimed: set[str] = set()
        self._members: dict[tuple[str, str], bool] = {}
        self._rescan: set[int] = set()  # PRs whose next gate looks up the branch index even if tracked
        self._histories: dict[str, list[dict[str, Any]]] = {}  # node id -> its edit history, newest first
        self._notified: set[tuple[int, str]] = set()  # (issue, notice key) checked or posted this run
        #: Why the last pin attempt failed (pinning is best effort), None after a success.
        self.pin_notice: str | None = None

    def configure(self, config: Config) -> None:
        """Apply the settings that concern GitHub: ``bot_login`` and ``gate.publish``."""
        if config.bot_login:
            self._configured_login = _checked_login(config.bot_login)
        self.publish_mode = config.gate.publish

    @property
    def own_login(self) -> str:
        """parkbot's own login: records count as parkbot's only when this account wrote them.

        The login of the token it runs with (``github-actions[bot]`` for the Actions token,
        ``<app-slug>[bot]`` for an App's installation token), read from GraphQL's ``viewer`` with the
        first query of the run; ``bot_login`` in the configuration (or ``PARKBOT_BOT_LOGIN``) sets it
        instead. A person is never parkbot: with a person's token (``parkbot resolve`` from a
        workstation) and nothing configured, parkbot's records are the Actions bot's.
        """
        if self._configured_login:
            return self._configured_login
        login = self.token_login()
        return login if login.casefold().endswith("[bot]") else ACTIONS_LOGIN

    def token_login(self) -> str:
        """The login of the token (one GraphQL request, unless a query of this run already said)."""
        if self._token_login is None:
            self._graphql("read who the token belongs to", queries.VIEWER, {})
        assert self._token_login is not None
        return self._token_login

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

    def _graphql(self, what: str, document: str, variables: dict[str, Any]) -> dict[str, Any] | None:
        """One retried GraphQL request; its ``data``, or None when GitHub says the object is not there.

        Every document of :mod:`~bot.trackers.github.queries` asks for ``viewer { login }`` too, so
        the token's login costs no request of its own.
        """
        owner, _, name = self.repository.partition("/")

        def post(_: int) -> dict[str, Any] | None:
            try:
                _, answer = self._requester.graphql_query(document, {"owner": owner, "name": name, **variables})
            except UnknownObjectException:
                return None
            except GithubException as exc:
                if exc.status == 400 and _only_not_found(exc.data):  # several objects missing at once
                    return None
                raise
            data = answer.get("data")
            return data if isinstance(data, dict) else None

        data = self._unit(what, post)
        viewer = (data or {}).get("viewer")
        if isinstance(viewer, dict) and isinstance(viewer.get("login"), str) and self._token_login is None:
            self._token_login = viewer["login"]
        return data

    def _list(self, items: PaginatedList[Any]) -> list[dict[str, Any]]:
        return [_raw(item) for item in items]

    def _issue_obj(self, number: int) -> GhIssue:
        return self._repo.get_issue(number)  # lazy: no request

    def _read_or_none(self, what: str, fetch: Callable[[], Any]) -> dict[str, Any] | None:
        """One retried read of ``fetch().raw_data``; None when GitHub answers 404 or 410 (not there, or deleted)."""

        def get(_: int) -> dict[str, Any] | None:
            try:
                data: dict[str, Any] = fetch().raw_data
                return data
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
        """The comments of issue or pull request ``number``, oldest first, with who wrote and edited each.

        Read through GraphQL (one request per 100 comments), which says who last edited a comment.
        """
        if refresh or number not in self._comments:
            self._comments[number] = self._read_comments(number)
        return self._comments[number]

    def _read_comments(self, number: int, after: str | None = None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            data = self._graphql(
                f"list the comments of #{number}", queries.COMMENTS_PAGE, {"number": number, "after": after}
            )
            item = ((data or {}).get("repository") or {}).get("issueOrPullRequest") or {}
            page = item.get("comments") or {}
            out += [comment_raw(node) for node in page.get("nodes") or [] if node]
            info = page.get("pageInfo") or {}
            if not info.get("hasNextPage"):
                return out
            after = info.get("endCursor")

    def _adopt_comments(self, number: int, connection: dict[str, Any] | None) -> None:
        """Keep the comments a query read with their issue (and the pages after the first, if any)."""
        if connection is None:
            return
        comments = [comment_raw(node) for node in connection.get("nodes") or [] if node]
        info = connection.get("pageInfo") or {}
        if info.get("hasNextPage"):
            comments += self._read_comments(number, info.get("endCursor"))
        self._comments[number] = comments

    def _history(self, node_id: str) -> list[dict[str, Any]]:
        """The edit history of an issue body or a comment (one request, once per run and text)."""
        if node_id not in self._histories:
            data = self._graphql("read an edit history", queries.HISTORY_OF, {"id": node_id})
            node = (data or {}).get("node") or {}
            self._histories[node_id] = [e for e in (node.get("userContentEdits") or {}).get("nodes") or [] if e]
        return self._histories[node_id]

    # -- what one part of the tracker asks of another (each provided by the part named) -----------

    def _adopt_dashboards(self, listing: dict[str, Any] | None) -> None:
        """Keep the dashboard issues a decision read brought along (the dashboard part provides it)."""
        raise NotImplementedError

    def _log_if_not_derived(self, entry: LogEntry) -> None:
        """Log an event that travels with a state change, unless the decision issue records it anyway."""
        raise NotImplementedError  # the question-log part provides it

    def _found(self, decision: Decision) -> _Found:
        """The issue of ``decision`` as last read (read now if need be)."""
        raise NotImplementedError  # issues

    def _decision_url(self, decision: Decision) -> str | None:
        raise NotImplementedError  # issues

    def _as_decision(self, found: _Found | None) -> tuple[Decision, _Found] | None:
        raise NotImplementedError  # issues

    def _found_from(self, node: dict[str, Any]) -> _Found:
        raise NotImplementedError  # issues

    def _verify(self, found: _Found) -> _Found:
        raise NotImplementedError  # issues

    def _readable(self, items: Iterable[_Found]) -> Iterator[tuple[_Found, Decision]]:
        raise NotImplementedError  # issues

    def _issues_by_label(
        self,
        label: str,
        *,
        states: tuple[str, ...] = ("OPEN", "CLOSED"),
        comments: bool = True,
        pulls: bool = False,
        first: int = queries.PAGE,
        every_page: bool = False,
    ) -> tuple[list[_Found], tuple[int, ...] | None]:
        raise NotImplementedError  # issues

    def _issue_by_number(self, number: int) -> _Found | None:
        raise NotImplementedError  # issues

    def _close_duplicate(self, number: int, winner: _Found) -> None:
        raise NotImplementedError  # issues

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        raise NotImplementedError  # issues

    def _by_parkbot(self, comment: dict[str, Any]) -> bool:
        raise NotImplementedError  # comments

    def _own_text(self, comment: dict[str, Any]) -> str | None:
        raise NotImplementedError  # comments

    def _restore_answer_record(self, decision: Decision) -> bool:
        raise NotImplementedError  # comments

    def _upsert_comment(self, number: int, kind: str, key: str, body: str, *, refresh: bool = True) -> dict[str, Any]:
        raise NotImplementedError  # comments

    def _sync_overflow(self, number: int, bodies: tuple[str, ...]) -> None:
        raise NotImplementedError  # comments

    def _pr_numbers(self, decision: Decision) -> list[int]:
        raise NotImplementedError  # dependents

    def _target_prs(self, target: str) -> list[int]:
        raise NotImplementedError  # dependents

    def _get_pull(self, number: int, *, fresh: bool = False) -> dict[str, Any] | None:
        raise NotImplementedError  # dependents

    def _link_natively(self, number: int, found: _Found) -> bool:
        raise NotImplementedError  # dependents

    def _add_pr_labels(self, number: int, pull: dict[str, Any], labels: list[str]) -> None:
        raise NotImplementedError  # dependents

    def _recorded_links(
        self, pull: dict[str, Any], *, exclude: str | None = None, exclude_number: int | None = None
    ) -> list[Decision]:
        raise NotImplementedError  # dependents

    def _post_comment(self, number: int, body: str) -> dict[str, Any]:
        raise NotImplementedError  # comments

    def _trusted(self, comment: dict[str, Any]) -> bool:
        raise NotImplementedError  # comments

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        raise NotImplementedError  # issues

    def _edit(self, number: int, changes: dict[str, Any]) -> dict[str, Any]:
        """PATCH an issue and return GitHub's answer (``Issue.edit`` keeps the new JSON to itself).

        A new body is the token's account's writing from now on: the answer is marked so (GitHub's
        REST answer says nothing about who edited it).
        """
        data: dict[str, Any]
        _, data = self._requester.requestJsonAndCheck("PATCH", self._issue_obj(number).url, input=changes)
        if "body" in changes and isinstance(data, dict):
            writer = self.token_login()  # who wrote it: the token's account (parkbot's own, in a workflow)
            data["editor"] = {"login": writer, "type": "Bot" if writer.endswith("[bot]") else "User"}
        return data


def _only_not_found(data: Any) -> bool:
    """GraphQL answered only ``NOT_FOUND`` errors (PyGithub raises 404 for one of them, 400 for more)."""
    errors = data.get("errors") if isinstance(data, dict) else None
    if not isinstance(errors, list) or not errors:
        return False
    return all(isinstance(e, dict) and e.get("type") == "NOT_FOUND" for e in errors)


def _checked_login(login: str) -> str:
    """A login given by hand, as GitHub spells logins (``name`` or ``app-slug[bot]``)."""
    text = login.strip().lstrip("@")
    if not _LOGIN.fullmatch(text) or len(text) > 45:
        raise InvalidInput(
            f"bot_login / PARKBOT_BOT_LOGIN must be one GitHub login such as github-actions[bot], not {login!r}"
        )
    return text
