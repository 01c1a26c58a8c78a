"""What the GitHub tracker fetches and writes, one retried unit per request, and nothing remembered.

Every request, REST or GraphQL, runs as one retried unit (:meth:`Requests.unit`); the reads return
GitHub's JSON in the REST shapes the parts work from. What one run keeps of what it read is the run
cache's (:mod:`parkbot.trackers.github.run_cache`), and :class:`~parkbot.trackers.github.store.IssueStore`
puts the two together. The one thing kept here is parkbot's own login: the only author whose records
count (:mod:`parkbot.trackers.github.trust`), read with the first query of the run.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
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
from parkbot.trackers.github.trust import comment_raw

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


# --- the requests --------------------------------------------------------------------------------


class Requests:
    """Requests to one repository (no caching), and parkbot's own login there."""

    def __init__(self, client: GitHubClient, *, bot_login: str | None = None) -> None:
        self.client = client
        self.transport = client.transport
        self.github = client.github
        self.repo = self.github.get_repo(client.repository)  # lazy: no request
        #: parkbot's own login when set by hand (``bot_login`` / ``PARKBOT_BOT_LOGIN``), else the token's.
        self._configured_login = _checked_login(bot_login) if bot_login else None
        self._token_login: str | None = None  # GraphQL's viewer, read with the first query
        self._also: tuple[str, ...] = ()  # other logins whose records count (``identity`` in the config)

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

    def configure_login(self, bot_login: str | None, also: tuple[str, ...] = ()) -> None:
        """Set parkbot's own login by hand (``bot_login`` in the configuration), and the other logins whose
        records count as parkbot's too (``identity``: moving from the action to the App, each side counts
        the other's records until the move is done)."""
        if bot_login:
            self._configured_login = _checked_login(bot_login)
        self._also = tuple(_checked_login(login) for login in also)

    @property
    def trusted_logins(self) -> tuple[str, ...]:
        """parkbot's own login first, then the others whose records count during a move."""
        own = self.own_login
        return (own, *(login for login in self._also if login.casefold() != own.casefold()))

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

    def rest_by_label(self, label: str) -> list[dict[str, Any]]:
        """Issues and pull requests carrying ``label`` (REST, ``state=all``), oldest first."""
        return self.unit(
            f"list issues labeled {label}",
            lambda _: self.raw_list(self.repo.get_issues(state="all", labels=[label], direction="asc")),
        )

    def read_comments(self, number: int, after: str | None = None) -> list[dict[str, Any]]:
        """The comments of ``number`` from cursor ``after`` on, oldest first, with who wrote and edited each.

        Read through GraphQL (one request per 100 comments), which says who last edited a comment.
        """
        pages = graphql_pages(
            self.graphql,
            f"list the comments of #{number}",
            queries.COMMENTS_PAGE,
            {"number": number},
            lambda data: ((data.get("repository") or {}).get("issueOrPullRequest") or {}).get("comments"),
            after=after,
        )
        return [comment_raw(node) for page in pages for node in page.get("nodes") or [] if node]

    def read_pull(self, number: int) -> dict[str, Any] | None:
        """Pull request ``number`` (one request), or None when it is not there."""
        return self.read_or_none(f"read pull request #{number}", lambda: self.repo.get_pull(number))

    def read_history(self, node_id: str) -> list[dict[str, Any]]:
        """The edit history of an issue body or a comment, newest first (one request per 50 versions).

        Every page is read: anyone who can edit the text can add versions, and fifty edits would push
        parkbot's own version off the first page.
        """
        pages = graphql_pages(
            self.graphql,
            "read an edit history",
            queries.HISTORY_OF,
            {"id": node_id},
            lambda data: (data.get("node") or {}).get("userContentEdits"),
        )
        return [e for page in pages for e in page.get("nodes") or [] if e]


def graphql_pages(
    graphql: Callable[[str, str, dict[str, Any]], Any],
    what: str,
    query: str,
    variables: dict[str, Any],
    connection: Callable[[dict[str, Any]], dict[str, Any] | None],
    *,
    after: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Each page of the connection ``connection`` finds in the answer to ``query``, from cursor ``after``
    to the last page (one request a page through ``graphql``: the cursor is passed as ``$after``)."""
    while True:
        data = graphql(what, query, {**variables, "after": after}) or {}
        page = connection(data) or {}
        yield page
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage") or not info.get("endCursor"):
            return
        after = info.get("endCursor")


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
