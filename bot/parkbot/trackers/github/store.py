"""The issue store: the one place the parts of the GitHub tracker read through and remember what they read.

It holds the request plumbing (every request, REST or GraphQL, runs as one retried unit), the reads
that turn GitHub's JSON into the REST shapes the parts work from, the short-lived caches of one run
(what it has just read or written, so that no part reads the same thing twice), and parkbot's own
login: the only author whose records count (:mod:`parkbot.trackers.github.trust`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from github import GithubException
from github.GithubException import UnknownObjectException
from github.GithubObject import GithubObject
from github.Issue import Issue as GhIssue
from github.PaginatedList import PaginatedList

from parkbot.core.errors import InvalidInput
from parkbot.trackers.github import queries
from parkbot.trackers.github.client import GitHubClient, backend_failure
from parkbot.trackers.github.trust import comment_raw, issue_raw

log = logging.getLogger("parkbot.github")
T = TypeVar("T")
#: parkbot's login when it runs with the Actions token (and the default for a run with a person's token).
ACTIONS_LOGIN = "github-actions[bot]"
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?")


# --- GitHub's JSON -------------------------------------------------------------------------------


def raw_json(obj: GithubObject) -> dict[str, Any]:
    """The JSON GitHub sent for a PyGithub object, without triggering a lazy completion request.

    ``raw_data`` on an object that came from a list would fetch it again to "complete" it; the
    list response already holds everything parkbot reads.
    """
    data: dict[str, Any] = obj._rawData  # PyGithub keeps the JSON it was built from here
    return data


def label_name(label: Any) -> str:
    return label["name"] if isinstance(label, dict) else str(label)


def label_names(raw: dict[str, Any]) -> list[str]:
    return [label_name(label) for label in raw.get("labels") or []]


def has_label(raw: dict[str, Any], name: str) -> bool:
    return name.casefold() in {n.casefold() for n in label_names(raw)}


def login_of(user: dict[str, Any] | None) -> str | None:
    return (user or {}).get("login")


def header_value(headers: dict[str, Any] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return str(value)
    return None


def already_exists(exc: GithubException) -> bool:
    """GitHub's 422 for something that is there already (a label, a dependency)."""
    data = exc.data if isinstance(exc.data, dict) else {}
    return any(isinstance(e, dict) and e.get("code") == "already_exists" for e in data.get("errors") or [])


@dataclass
class FoundIssue:
    """A decision issue as last read: the raw JSON and the PyGithub object (for writes)."""

    raw: dict[str, Any]
    obj: GhIssue | None = None
    #: Pull requests carrying the decision's label (known when it was found by listing that label).
    prs: tuple[int, ...] | None = None
    #: The body as parkbot last wrote it (None: not checked yet, or no version of parkbot's is left),
    #: and what was found changed by someone else (see :meth:`DecisionIssues.verify`).
    own_body: str | None = None
    problems: tuple[str, ...] = ()
    verified: bool = False

    @property
    def number(self) -> int:
        return int(self.raw["number"])


# --- the store -----------------------------------------------------------------------------------


class IssueStore:
    """Requests to one repository, and what this run has read or written there."""

    def __init__(self, client: GitHubClient, *, bot_login: str | None = None) -> None:
        self.client = client
        self.transport = client.transport
        self.github = client.github
        self.repo = self.github.get_repo(client.repository)  # lazy: no request
        #: parkbot's own login when set by hand (``bot_login`` / ``PARKBOT_BOT_LOGIN``), else the token's.
        self._configured_login = _checked_login(bot_login) if bot_login else None
        self._token_login: str | None = None  # GraphQL's viewer, read with the first query
        self._also: tuple[str, ...] = ()  # other logins whose records count (``identity`` in the config)
        # Short-lived caches, refreshed by every find(): what this run has just read or written.
        self._issues: dict[str, FoundIssue] = {}  # decision id -> issue
        self._primed: dict[str, FoundIssue] = {}  # decision id -> issue read by decision_at, used once by find
        self._comments: dict[int, list[dict[str, Any]]] = {}  # issue number -> comments
        self._pulls: dict[int, dict[str, Any]] = {}  # PR number -> raw pull
        #: Pull requests read afresh during this run: a later "fresh" read reuses that copy (parkbot's own
        #: label writes update it in place), so authorizing and then clearing reads each dependent once.
        self._fresh_pulls: set[int] = set()
        self._claimed: set[str] = set()  # decision ids whose label this run created
        #: Decisions whose answer record this run created (so no pointer to it can exist yet).
        self._answered_now: set[str] = set()
        self._members: dict[tuple[str, str], bool] = {}  # (login, team) -> member
        self._rescans: set[int] = set()  # PRs whose next gate looks up the branch index even if tracked
        self._histories: dict[str, list[dict[str, Any]]] = {}  # node id -> its edit history, newest first
        self._notified: set[tuple[int, str]] = set()  # (issue, notice key) checked or posted this run
        self._missing: set[int] = set()  # issue numbers a read found nothing at
        #: The open dashboard issues a read brought along, for this run's dashboard write.
        self._dashboards: list[dict[str, Any]] | None = None

    @property
    def repository(self) -> str:
        return self.client.repository

    @property
    def requester(self) -> Any:
        return self.github.requester

    @property
    def repo_url(self) -> str:
        return self.repo.url

    def web_url(self, path: str) -> str:
        """The github.com (or GitHub Enterprise Server) page ``path`` of this repository."""
        api = self.client.settings.api_url
        web = "https://github.com" if "api.github.com" in api else api.split("/api/")[0]
        return f"{web}/{self.repository}/{path}"

    # -- parkbot's own login ------------------------------------------------------------------

    def configure_login(self, bot_login: str) -> None:
        """Set parkbot's own login by hand (``bot_login`` in the configuration)."""
        self._configured_login = _checked_login(bot_login)

    def also_trust(self, logins: tuple[str, ...]) -> None:
        """Count records these logins wrote as parkbot's too (``identity`` in the configuration: moving
        from the action to the App, each side counts the other's records until the move is done)."""
        self._also = tuple(_checked_login(login) for login in logins)

    @property
    def trusted_logins(self) -> tuple[str, ...]:
        """parkbot's own login first, then the others whose records count during a move."""
        own = self.own_login
        return (own, *(login for login in self._also if login.casefold() != own.casefold()))

    def is_parkbot(self, login: str | None) -> bool:
        """Whether ``login`` writes records that count as parkbot's."""
        return login is not None and any(login.casefold() == t.casefold() for t in self.trusted_logins)

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

    def guesses_own_login(self) -> bool:
        """Whether parkbot's login is only a guess: a person's token, and no ``bot_login`` configured.

        Such a run cannot write anything with parkbot's authority (a person's command goes through
        parkbot's own workflow), so it reads an issue any App opened as possibly parkbot's own.
        """
        return not self._configured_login and not self.token_login().casefold().endswith("[bot]")

    def token_login(self) -> str:
        """The login of the token (one GraphQL request, unless a query of this run already said)."""
        if self._token_login is None:
            self.graphql("read who the token belongs to", queries.VIEWER, {})
        assert self._token_login is not None
        return self._token_login

    def writes_as_itself(self) -> bool:
        """Whether this run's token is parkbot's own identity (its records then count as parkbot's)."""
        return self.token_login().casefold() == self.own_login.casefold()

    # -- plumbing -----------------------------------------------------------------------------

    def unit(self, what: str, fn: Callable[[int], T]) -> T:
        """Run one retried unit; GitHub errors it does not handle become BackendFailure (exit 4)."""
        try:
            return self.transport.run(what, fn)
        except GithubException as exc:
            raise backend_failure(exc, what, self.transport) from None

    def graphql(self, what: str, document: str, variables: dict[str, Any]) -> dict[str, Any] | None:
        """One retried GraphQL request; its ``data``, or None when GitHub says the object is not there.

        Every document of :mod:`~parkbot.trackers.github.queries` asks for ``viewer { login }`` too, so
        the token's login costs no request of its own.
        """
        owner, _, name = self.repository.partition("/")

        def post(_: int) -> dict[str, Any] | None:
            try:
                _, answer = self.requester.graphql_query(document, {"owner": owner, "name": name, **variables})
            except UnknownObjectException:
                return None
            except GithubException as exc:
                if exc.status == 400 and _only_not_found(exc.data):  # several objects missing at once
                    return None
                raise
            data = answer.get("data")
            return data if isinstance(data, dict) else None

        data = self.unit(what, post)
        viewer = (data or {}).get("viewer")
        if isinstance(viewer, dict) and isinstance(viewer.get("login"), str) and self._token_login is None:
            self._token_login = viewer["login"]
        return data

    def raw_list(self, items: PaginatedList[Any]) -> list[dict[str, Any]]:
        """Every page of a PyGithub listing, as the JSON GitHub sent."""
        return [raw_json(item) for item in items]

    def issue(self, number: int) -> GhIssue:
        """Issue (or pull request) ``number`` to write to: a lazy object, no request."""
        return self.repo.get_issue(number)

    def read_or_none(self, what: str, fetch: Callable[[], Any]) -> dict[str, Any] | None:
        """One retried read of ``fetch().raw_data``; None when GitHub answers 404 or 410 (not there, or deleted)."""

        def get(_: int) -> dict[str, Any] | None:
            try:
                data: dict[str, Any] = fetch().raw_data
                return data
            except GithubException as exc:
                if exc.status in (404, 410):
                    return None
                raise

        return self.unit(what, get)

    def read_file(self, path: str) -> str | None:
        """A file from the default branch (the config), or None when it does not exist."""

        def get(_: int) -> str | None:
            try:
                content = self.repo.get_contents(path)
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            if isinstance(content, list):
                return None
            return content.decoded_content.decode("utf-8")

        return self.unit(f"read {path}", get)

    def edit(self, number: int, changes: dict[str, Any]) -> dict[str, Any]:
        """PATCH an issue and return GitHub's answer (``Issue.edit`` keeps the new JSON to itself).

        A new body is the token's account's writing from now on: the answer is marked so (GitHub's
        REST answer says nothing about who edited it).
        """
        data: dict[str, Any]
        _, data = self.requester.requestJsonAndCheck("PATCH", self.issue(number).url, input=changes)
        if "body" in changes and isinstance(data, dict):
            writer = self.token_login()  # who wrote it: the token's account (parkbot's own, in a workflow)
            data["editor"] = {"login": writer, "type": "Bot" if writer.endswith("[bot]") else "User"}
        return data

    # -- reading issues -----------------------------------------------------------------------

    def rest_by_label(self, label: str) -> list[dict[str, Any]]:
        """Issues and pull requests carrying ``label`` (REST, ``state=all``), oldest first."""
        return self.unit(
            f"list issues labeled {label}",
            lambda _: self.raw_list(self.repo.get_issues(state="all", labels=[label], direction="asc")),
        )

    def issues_by_label(
        self,
        label: str,
        *,
        states: tuple[str, ...] = ("OPEN", "CLOSED"),
        comments: bool = True,
        pulls: bool = False,
        first: int = queries.PAGE,
        every_page: bool = False,
    ) -> tuple[list[FoundIssue], tuple[int, ...] | None]:
        """Issues carrying ``label``, oldest first, read through GraphQL with who wrote and edited each
        (one request per page of ``first``), and with ``pulls`` the pull requests carrying it too.

        Listing by label is strongly consistent, like REST's (search is not).
        """
        founds: list[FoundIssue] = []
        prs: tuple[int, ...] | None = None
        after: str | None = None
        while True:
            variables = {
                "labels": [label],
                "states": list(states),
                "first": first,
                "after": after,
                "withComments": comments,
                "withPulls": pulls and prs is None,
            }
            data = self.graphql(f"list issues labeled {label}", queries.ISSUES_BY_LABEL, variables) or {}
            repository = data.get("repository") or {}
            connection = repository.get("issues") or {}
            founds += [self.found_from(node) for node in connection.get("nodes") or [] if node]
            if isinstance(repository.get("pullRequests"), dict):
                prs = tuple(int(n["number"]) for n in repository["pullRequests"].get("nodes") or [] if n)
            info = connection.get("pageInfo") or {}
            if not every_page or not info.get("hasNextPage"):
                return founds, prs
            after = info.get("endCursor")

    def issue_by_number(self, number: int) -> FoundIssue | None:
        """Issue ``number`` with its comments (one GraphQL request); None for a pull request or nothing.

        The same request lists the open dashboard issues, kept for this run's dashboard write.
        """
        data = self.graphql(f"read issue #{number}", queries.ISSUE_BY_NUMBER, {"number": number}) or {}
        repository = data.get("repository") or {}
        listing = repository.get("dashboards")
        if isinstance(listing, dict):
            self._dashboards = [
                {"number": n["number"], "title": n.get("title"), "body": n.get("body"), "node_id": n.get("id")}
                for n in listing.get("nodes") or []
                if isinstance(n, dict) and isinstance(n.get("number"), int)
            ]
        node = repository.get("issueOrPullRequest")
        if not node:
            self._missing.add(number)
            return None
        if node.get("__typename") != "Issue":
            return None
        return self.found_from(node)

    def missing(self, number: int) -> bool:
        """Whether the last read of ``number`` found nothing there (deleted, or transferred away)."""
        return number in self._missing

    def found_from(self, node: dict[str, Any]) -> FoundIssue:
        """A GraphQL issue as the REST-shaped copy the writes work from; its comments, when read, are kept."""
        raw = issue_raw(node)
        if "comments" in node:
            self._adopt_comments(raw["number"], node["comments"])
        else:
            self._comments.pop(raw["number"], None)  # a fresh read of the issue: re-read its comments too
        return FoundIssue(raw)

    def history(self, node_id: str) -> list[dict[str, Any]]:
        """The edit history of an issue body or a comment (one request, once per run and text)."""
        if node_id not in self._histories:
            data = self.graphql("read an edit history", queries.HISTORY_OF, {"id": node_id})
            node = (data or {}).get("node") or {}
            self._histories[node_id] = [e for e in (node.get("userContentEdits") or {}).get("nodes") or [] if e]
        return self._histories[node_id]

    # -- the decision issues this run has read or written ---------------------------------------

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

    def first_notice(self, number: int, key: str) -> bool:
        """True the first time this run considers notice ``key`` on issue ``number``."""
        if (number, key) in self._notified:
            return False
        self._notified.add((number, key))
        return True

    # -- comments -----------------------------------------------------------------------------

    def comments_of(self, number: int, *, refresh: bool = False) -> list[dict[str, Any]]:
        """The comments of issue or pull request ``number``, oldest first, with who wrote and edited each.

        Read through GraphQL (one request per 100 comments), which says who last edited a comment.
        """
        if refresh or number not in self._comments:
            self._comments[number] = self._read_comments(number)
        return self._comments[number]

    def comments_read(self, number: int) -> bool:
        """Whether this run holds the comments of ``number`` (read with the issue, or since)."""
        return number in self._comments

    def cached_comments(self, number: int) -> list[dict[str, Any]]:
        """The comments of ``number`` this run holds (no request; none when it has not read them)."""
        return self._comments.get(number, [])

    def set_comments(self, number: int, comments: list[dict[str, Any]]) -> None:
        """What the comments of ``number`` are (``[]`` for an issue this run just created)."""
        self._comments[number] = comments

    def assume_no_comments(self, number: int) -> None:
        """Read ``number`` as having no comments unless this run has read them (none of parkbot's can exist)."""
        self._comments.setdefault(number, [])

    def add_comment(self, number: int, comment: dict[str, Any]) -> None:
        """A comment this run posted on ``number``."""
        self._comments.setdefault(number, []).append(comment)

    def forget_comments(self, number: int) -> None:
        """Read the comments of ``number`` again when next asked."""
        self._comments.pop(number, None)

    def _read_comments(self, number: int, after: str | None = None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            data = self.graphql(
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

    # -- pull requests ------------------------------------------------------------------------

    def pull(self, number: int, *, fresh: bool = False) -> dict[str, Any] | None:
        """Pull request ``number`` (1 request, or none when this run has it; ``fresh``: read during this run)."""
        if number in self._pulls and (not fresh or number in self._fresh_pulls):
            return self._pulls[number]
        pull = self.read_or_none(f"read pull request #{number}", lambda: self.repo.get_pull(number))
        if pull is not None:
            self._pulls[number] = pull
            self._fresh_pulls.add(number)
        return pull

    def keep_pull(self, pull: dict[str, Any]) -> None:
        """A pull request a listing brought along (not "fresh": a fresh read reads it again)."""
        self._pulls[int(pull["number"])] = pull

    def rescan(self, number: int) -> None:
        """Make the next gate of pull request ``number`` look up the branch index even if it is tracked."""
        self._rescans.add(number)

    def wants_rescan(self, number: int) -> bool:
        return number in self._rescans

    def rescanned(self, number: int) -> None:
        self._rescans.discard(number)

    # -- answers, members, the dashboard ------------------------------------------------------

    def note_answered_now(self, decision_id: str) -> None:
        """This run created the decision's answer record (so no pointer to it can exist yet)."""
        self._answered_now.add(decision_id)

    def answered_now(self, decision_id: str) -> bool:
        return decision_id in self._answered_now

    def membership(self, login: str, team: str, check: Callable[[], bool]) -> bool:
        """Whether ``login`` is in ``team``: ``check()`` once per run and pair, then remembered."""
        key = (login.casefold(), team.casefold())
        if key not in self._members:
            self._members[key] = check()
        return self._members[key]

    def dashboards_seen(self) -> list[dict[str, Any]] | None:
        """The open dashboard issues this run has listed (a decision read brings them along), or None."""
        return self._dashboards

    def keep_dashboards(self, listing: list[dict[str, Any]] | None) -> None:
        self._dashboards = listing


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
