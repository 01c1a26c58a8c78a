"""A stateful fake of GitHub's REST API at the HTTP level, for PyGithub-driven tests.

Why HTTP level: mocking PyGithub objects tests our assumptions about PyGithub; serving
HTTP through ``responses`` runs PyGithub's real code (URL building, pagination through
``Link`` headers, error mapping, conditional requests) against GitHub's documented rules,
and every body is checked against GitHub's OpenAPI description (strict mode).

Usage as a pytest fixture::

    import pytest
    from github import Auth, Github
    from fakegithub import FakeGitHub          # or tests.support.fakegithub, depending on rootdir

    @pytest.fixture
    def fake_github():
        fake = FakeGitHub(owner="acme", repo="widgets")
        with fake.activate():                 # own responses.RequestsMock
            yield fake
        fake.assert_no_violations()           # catches violations a bot swallowed

    def make_client(fake):
        # PyGithub 2.x sleeps between requests and retries by default: switch both off.
        return Github(auth=Auth.Token("t0k"), base_url=fake.base_url, retry=None,
                      seconds_between_requests=0, seconds_between_writes=0, per_page=100)

Harness objects that cannot hold a ``with`` block use ``fake.start()`` / ``fake.stop()``.
If a test already owns a ``responses.RequestsMock`` (``with responses.RequestsMock() as
rsps``), call ``fake.install(rsps)`` instead of ``activate()``.  Several fakes (e.g.
github.com and a GHES ``https://ghe.example.com/api/v3``) can share one mock.

Seed state with the helpers (``add_issue``, ``add_pull``, ``put_file``, ``add_team``,
``set_permission`` ...), drive the bot, then assert on state (``fake.issues``,
``fake.status_of(sha, ctx)``) and on traffic (``fake.requests``, ``fake.count(...)``).

GraphQL is served at the GraphQL URL of the REST root by :mod:`.graphql`: every query is validated
against GitHub's published schema and executed against this state (pinned issues are in
``fake.pinned_issues``).

Who acts: each request acts as the account its token belongs to (``fake.actor``): ``login`` for
``token``, others added with ``add_token(token, login, kind)``. A token is an App installation token
(``app``: the Actions ``GITHUB_TOKEN``, a GitHub App; the only kind that may write check runs) or a
person's (``personal``). Body edits keep GitHub's edit history (who, when, every version):
``edit_issue_body``, ``edit_comment`` and ``delete_revision`` do what a writer can do by hand.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import math
import re
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import requests
import responses

from . import app as app_routes
from . import graphql
from .openapi_check import OpenAPISpec, OpenAPIViolation, load_spec
from .routes import ROUTES, ApiError, Ctx, Reply
from .state import (
    EPOCH,
    CheckRun,
    Comment,
    Commit,
    Edit,
    Issue,
    Label,
    PullInfo,
    Reaction,
    Status,
    Team,
    Token,
    User,
    fake_sha,
)

FAULT_KINDS = ("500", "502", "503", "secondary_rate_limit", "primary_rate_limit", "connection_reset")
ROLES = ("admin", "maintain", "write", "triage", "read", "none")
DOCS = "https://docs.github.com/rest"
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_LEGACY_STATUSES = re.compile(r"/repos/([^/]+)/([^/]+)/statuses/([^/]+)")
_ID_BASES = {
    "user": 100_000,
    "label": 5_000_000_000,
    "issue": 1_900_000_000,
    "comment": 2_700_000_000,
    "status": 30_000_000_000,
    "team": 8_000_000,
    "check_run": 40_000_000_000,
    "edit": 60_000_000,
    "app": 900_000,
    "reaction": 400_000_000,  # ghcost
}
TOKEN_KINDS = ("app", "personal")


class LoggedRequest(NamedTuple):
    """One request as the fake saw it (``status`` 0 when the connection was reset)."""

    method: str
    path: str  # without the base_url prefix, e.g. /repos/acme/widgets/issues
    query: dict[str, str]
    body: Any
    status: int


@dataclass
class _FaultRule:
    kind: str
    remaining: int
    pattern: re.Pattern[str] | None


# ghcost: GitHub's secondary rate limit on content creation ----------------------------------------

SECONDARY_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out "
    "to GitHub Support for help, please include the request ID 0000:1111:2222:3333:44444444."
)
SECONDARY_LIMIT_DOCS = (
    "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)


@dataclass
class ContentLimit:
    """At most ``per_minute`` content-creating requests in any 60 seconds of ``clock`` (refused ones not counted).

    ``advance(latency)`` is called for every request served meanwhile: requests take time.
    """

    per_minute: int
    clock: Callable[[], float]
    advance: Callable[[float], None] | None = None
    latency: float = 0.0
    accepted: list[float] = field(default_factory=list)
    refused: int = 0

    def took_time(self) -> None:
        if self.advance is not None and self.latency:
            self.advance(self.latency)

    def retry_after(self) -> int | None:
        """Seconds until the next content creation is accepted, or None: accept (and count) this one."""
        now = self.clock()
        recent = [t for t in self.accepted if t > now - 60.0]
        if len(recent) < self.per_minute:
            self.accepted.append(now)
            return None
        self.refused += 1
        return max(1, math.ceil(recent[-self.per_minute] + 60.0 - now))


def _creates_content(method: str, path: str, body: Any) -> bool:
    """Every REST write, and GraphQL mutations (GitHub counts both; a GraphQL query is a POST too)."""
    if method not in _WRITE_METHODS:
        return False
    if path.endswith("/graphql"):
        query = body.get("query") if isinstance(body, dict) else None
        return isinstance(query, str) and query.lstrip().startswith("mutation")
    return True


# ------------------------------------------------------------------------------------------------------


class FakeGitHub:
    """One repository (plus users, teams and rate limit) served over fake HTTP."""

    def __init__(
        self,
        owner: str = "acme",
        repo: str = "widgets",
        base_url: str = "https://api.github.com",
        *,
        login: str = "parkbot[bot]",
        token: str | None = None,
        token_kind: str | None = None,
        strict: bool = True,
        default_branch: str = "main",
        private: bool = False,
        spec: OpenAPISpec | None = None,
    ) -> None:
        """``token``: if set, other tokens get 401 Bad credentials (unless added with :meth:`add_token`);
        ``token_kind``: ``app`` (an App installation token, the default for a ``[bot]`` login) or
        ``personal``; ``strict``: OpenAPI checks."""
        self.owner = owner
        self.repo = repo
        self.base_url = base_url.rstrip("/")
        split = urllib.parse.urlsplit(self.base_url)
        self._scheme_host = f"{split.scheme}://{split.netloc}"
        self._prefix = split.path.rstrip("/")
        self.api = self.base_url
        self.web = "https://github.com" if split.netloc == "api.github.com" else self._scheme_host
        self.login = login
        self.token = token
        self.strict = strict
        self.default_branch = default_branch
        self.private = private
        self.spec = spec or load_spec()
        self.repo_id = 700_000_001

        self.users: dict[str, User] = {}
        self.labels: dict[str, Label] = {}  # lower-cased name -> label
        self.issues: dict[int, Issue] = {}  # number -> issue or PR
        #: Issue numbers that left the repository: ``deleted`` (410 Gone) or ``transferred`` (404 here).
        self.gone: dict[int, str] = {}
        self.comments: dict[int, Comment] = {}
        self.commits: dict[str, Commit] = {}
        self.branches: dict[str, str] = {}
        self.statuses: list[Status] = []
        self.files: dict[str, dict[str, str]] = {}  # ref -> path -> text
        self.truncate_trees = False  # answer GET /git/trees as GitHub does past its listing limit
        self.teams: dict[tuple[str, str], Team] = {}
        self.permissions: dict[str, str] = {}  # lower login -> role
        self.pinned_issues: list[int] = []  # pinned through GraphQL (graphql.py), in pinning order
        self.check_runs: list[CheckRun] = []  # in creation order
        kind = token_kind or ("app" if login.endswith("[bot]") else "personal")
        if kind not in TOKEN_KINDS:
            raise ValueError(f"token_kind must be one of {TOKEN_KINDS}")
        #: Who each known token acts as; with ``token`` None any token acts as ``login``.
        self.tokens: dict[str, Token] = {token: Token(login, kind)} if token is not None else {}
        self.token_kind = kind
        #: Who the request being served acts as (the token's account), ``login`` outside requests.
        self.actor = login
        self.actor_kind = kind

        self.requests: list[LoggedRequest] = []
        self.operations: list[str | None] = []  # operationId per logged request
        self.tokens_seen: list[str] = []
        self.openapi_violations: list[str] = []

        self.rate_limit = 5000
        self.rate_remaining = 5000
        self.rate_reset = int(time.time()) + 3600

        self._now = EPOCH
        self._counters: dict[str, int] = {}
        self._next_number = 1
        self._seen = 0
        self._fault_rules: list[_FaultRule] = []
        self._fault_at: dict[int, str] = {}
        self._mock: responses.RequestsMock | None = None
        #: ghcost: GitHub's secondary rate limit on content creation, when switched on (``limit_content_creation``).
        self.content_limit: ContentLimit | None = None
        #: ghcost: reactions on issue comments, oldest first.
        self.reactions: list[Reaction] = []
        #: The GitHub App this repository is an installation of (``install_app``), and what protects it.
        self.app: app_routes.AppState | None = None
        self.rulesets: list[dict[str, Any]] = []  # active rules on the default branch (``require_check``)
        self.protection: dict[str, Any] | None = None  # required checks of the branch protection; None: none
        self.protection_admin = True  # may the token read branch protection (Administration: read)?
        self.workflow_permissions = "read"

        self.add_user(owner, type="Organization")
        self.add_user(login)
        self.set_permission(login, "write")
        self.add_commit(fake_sha(f"{owner}/{repo}@{default_branch}"), "Initial commit", branch=default_branch)

    # ------------------------------------------------------------------ URLs & identity

    @property
    def full_name(self) -> str:
        """``owner/repo``."""
        return f"{self.owner}/{self.repo}"

    @property
    def repo_api(self) -> str:
        """API URL of the repository."""
        return f"{self.api}/repos/{self.owner}/{self.repo}"

    @property
    def repo_web(self) -> str:
        """Web URL of the repository."""
        return f"{self.web}/{self.owner}/{self.repo}"

    # ------------------------------------------------------------------ installation

    @contextlib.contextmanager
    def activate(self) -> Iterator[FakeGitHub]:
        """Serve this fake from a fresh ``responses.RequestsMock`` for the ``with`` block."""
        self.start()
        try:
            yield self
        finally:
            self.stop()

    def start(self) -> FakeGitHub:
        """Begin serving from an own mock, for harnesses that cannot use ``with``; see ``stop``."""
        if self._mock is not None:
            raise RuntimeError("FakeGitHub already started")
        self._mock = responses.RequestsMock(assert_all_requests_are_fired=False)
        self._mock.start()
        self.install(self._mock)
        return self

    def stop(self) -> None:
        """Stop serving (idempotent); real HTTP is no longer intercepted afterwards."""
        if self._mock is not None:
            self._mock.stop()
            self._mock.reset()
            self._mock = None

    def install(self, rsps: responses.RequestsMock) -> None:
        """Register a catch-all callback for this fake's host on an existing mock."""
        # PyGithub spells the default port out (https://api.github.com:443/...)
        split = urllib.parse.urlsplit(self.base_url)
        default_port = {"https": 443, "http": 80}.get(split.scheme)
        port = split.port or default_port
        host = re.escape(f"{split.scheme}://{split.hostname}")
        url = re.compile(f"{host}(:{port})?" + r"(/.*)?$" if port == default_port else f"{host}:{port}(/.*)?$")
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"):
            rsps.add_callback(method, url, callback=self._callback, content_type=None)

    # ------------------------------------------------------------------ clock & ids

    def now(self) -> dt.datetime:
        """The fake clock (starts 2024-01-01T00:00:00Z, ticks one second per write)."""
        return self._now

    def tick(self) -> dt.datetime:
        """Advance the clock by one second and return it."""
        self._now += dt.timedelta(seconds=1)
        return self._now

    def advance_clock(self, seconds: float) -> None:
        """Move the fake clock forward (for ``since`` filters)."""
        self._now += dt.timedelta(seconds=seconds)

    def next_id(self, kind: str) -> int:
        """Database ids per kind, deliberately far from issue numbers."""
        self._counters[kind] = self._counters.get(kind, 0) + 1
        return _ID_BASES.get(kind, 9_000_000) + self._counters[kind]

    # ------------------------------------------------------------------ seeding helpers

    def add_user(self, login: str, type: str | None = None, name: str | None = None) -> User:
        """Get or create a user (``type`` defaults to Bot for ``*[bot]`` logins)."""
        u = self.users.get(login.lower())
        if u is None:
            kind = type or ("Bot" if login.endswith("[bot]") else "User")
            u = User(login=login, id=self.next_id("user"), type=kind, name=name)
            self.users[login.lower()] = u
        elif type is not None:
            u.type = type
        return u

    def add_label(self, name: str, color: str = "ededed", description: str | None = None) -> Label:
        """Create a label directly (no validation; use the API to test GitHub's rules)."""
        lab = Label(self.next_id("label"), name, color, description)
        self.labels[name.lower()] = lab
        return lab

    def ensure_labels(self, names: Iterable[str]) -> list[str]:
        """Canonical names for ``names``, creating unknown labels like GitHub does."""
        out: list[str] = []
        for name in names:
            # An empty description: GitHub's OpenAPI description has a label's description as a required
            # string in pull request listings (pulls/list), so a labelled pull request must validate.
            lab = self.labels.get(name.lower()) or self.add_label(name, description="")
            if lab.name not in out:
                out.append(lab.name)
        return out

    def rename_label(self, lab: Label, new_name: str) -> None:
        """Rename a label everywhere."""
        old = lab.name
        del self.labels[old.lower()]
        lab.name = new_name
        self.labels[new_name.lower()] = lab
        for iss in self.issues.values():
            iss.labels = [new_name if n.lower() == old.lower() else n for n in iss.labels]

    def add_issue(
        self,
        title: str,
        body: str | None = None,
        *,
        labels: Iterable[str] = (),
        assignees: Iterable[str] = (),
        author: str = "dev",
        state: str = "open",
        number: int | None = None,
    ) -> Issue:
        """Create an issue as ``author`` (no API validation)."""
        if number is None:
            number = self._next_number
        if number in self.issues:
            raise ValueError(f"issue #{number} already exists")
        self._next_number = max(self._next_number, number + 1)
        now = self.tick()
        iss = Issue(
            number=number,
            id=self.next_id("issue"),
            title=title,
            body=body,
            user=self.add_user(author).login,
            created_at=now,
            updated_at=now,
            labels=self.ensure_labels(labels),
            assignees=[self.add_user(a).login for a in assignees],
        )
        if state == "closed":
            iss.state, iss.state_reason, iss.closed_at, iss.closed_by = "closed", "completed", now, author
        self.issues[number] = iss
        return iss

    def remove_issue(self, number: int, how: str) -> Issue:
        """Delete an issue (``how="deleted"``, as an admin may) or transfer it to another repository
        (``"transferred"``, as a writer of both may): it, its comments and the native dependencies on it
        leave this repository. REST then answers 410 Gone for a deleted issue and 404 for a transferred
        one (GitHub's answer when the token cannot read the repository it went to); GraphQL finds neither.
        """
        if how not in ("deleted", "transferred"):
            raise ValueError("how is 'deleted' or 'transferred'")
        iss = self.issues.pop(number)
        self.gone[number] = how
        for cid in [cid for cid, c in self.comments.items() if c.issue_number == number]:
            del self.comments[cid]
        for other in self.issues.values():
            other.blocked_by = [i for i in other.blocked_by if i != iss.id]
        return iss

    def add_comment(self, number: int, body: str, author: str = "dev") -> Comment:
        """Comment on issue/PR ``number`` as ``author``."""
        if number not in self.issues:
            raise KeyError(f"no issue #{number}")
        now = self.tick()
        c = Comment(self.next_id("comment"), number, body, self.add_user(author).login, now, now)
        self.comments[c.id] = c
        self.issues[number].updated_at = now
        return c

    def install_app(self, slug: str = "parkbot", app_id: int = 424242, key: tuple[str, Any] | None = None) -> str:
        """Make this repository an installation of GitHub App ``slug``; its private key (PEM). See :mod:`.app`."""
        return app_routes.install_app(self, slug, app_id, key)

    def require_check(self, context: str, app_id: int | None, *, where: str = "ruleset") -> None:
        """Require ``context`` on the default branch from ``app_id`` (a ruleset, or ``where="protection"``)."""
        app_routes.require_check(self, context, app_id, where=where)

    def add_token(self, token: str, login: str, kind: str | None = None) -> Token:
        """Accept ``token`` as acting for ``login`` (``kind``: ``app`` for a ``[bot]`` login, else ``personal``)."""
        kind = kind or ("app" if login.endswith("[bot]") else "personal")
        if kind not in TOKEN_KINDS:
            raise ValueError(f"token kind must be one of {TOKEN_KINDS}")
        self.add_user(login)
        self.tokens[token] = Token(self.users[login.lower()].login, kind)
        return self.tokens[token]

    def record_edit(self, target: Issue | Comment, body: str, editor: str) -> None:
        """Change a body the way GitHub does: the edit history gains the new version, by ``editor``.

        The first edit also records the original version (by the author, at creation), as GitHub's
        history does (``includesCreatedEdit``).
        """
        now = self.tick()
        if not target.edits:
            target.edits.append(Edit(target.user, target.created_at, target.body or "", self.next_id("edit")))
        target.edits.append(Edit(self.add_user(editor).login, now, body, self.next_id("edit")))
        target.body = body
        target.updated_at = now

    def edit_issue_body(self, number: int, body: str, editor: str = "dev") -> Issue:
        """Edit issue ``number``'s body as ``editor`` (anyone with write access may, on GitHub)."""
        iss = self.issues[number]
        self.record_edit(iss, body, editor)
        return iss

    def edit_comment(self, comment_id: int, body: str, editor: str = "dev") -> Comment:
        """Edit comment ``comment_id`` as ``editor`` (anyone with write access may, on GitHub)."""
        c = self.comments[comment_id]
        self.record_edit(c, body, editor)
        self.issues[c.issue_number].updated_at = c.updated_at
        return c

    def delete_revision(self, target: Issue | Comment, index: int, by: str = "dev") -> Edit:
        """Remove version ``index`` (0 = the original) from an edit history, as GitHub lets writers do."""
        edit = target.edits[index]
        edit.body, edit.deleted_at, edit.deleted_by = None, self.tick(), self.add_user(by).login
        return edit

    def add_commit(
        self,
        sha: str | None = None,
        message: str = "commit",
        *,
        author: str = "dev",
        parents: list[str] | None = None,
        branch: str | None = None,
    ) -> Commit:
        """Make a commit known (statuses can only be posted to known commits)."""
        sha = sha or fake_sha(f"{message}-{len(self.commits)}")
        if parents is None:
            parents = [self.branches[branch]] if branch in self.branches else []
        c = Commit(sha, message, self.add_user(author).login, self.tick(), parents)
        self.commits[sha] = c
        if branch is not None:
            self.branches[branch] = sha
        return c

    def add_pull(
        self,
        number: int | None = None,
        title: str = "Pull request",
        body: str | None = "",
        head_sha: str | None = None,
        head_ref: str = "feature",
        base_ref: str | None = None,
        author: str = "dev",
        commits: list[dict[str, str]] | None = None,
        *,
        draft: bool = False,
        labels: Iterable[str] = (),
        head_repo: str | None = None,
    ) -> Issue:
        """Open a PR (stored as an issue with ``pull``); ``commits``: [{sha, message}].

        ``head_repo`` (``owner/name``) makes it a pull request from a fork: its head branch lives there,
        so ``head_ref`` is not one of this repository's branches.
        """
        base_ref = base_ref or self.default_branch
        specs = list(commits or [])
        if head_sha is not None and (not specs or specs[-1].get("sha") != head_sha):
            specs.append({"sha": head_sha, "message": title})
        if not specs:
            specs.append({"sha": fake_sha(f"pr-{number}-{head_ref}-{title}"), "message": title})
        parent = self.branches.get(base_ref)
        shas: list[str] = []
        for spec in specs:
            c = self.add_commit(
                spec.get("sha"),
                spec.get("message", title),
                author=spec.get("author", author),
                parents=[parent] if parent else [],
            )
            shas.append(c.sha)
            parent = c.sha
        if head_repo is None:
            self.branches[head_ref] = shas[-1]
        iss = self.add_issue(title, body, labels=labels, author=author, number=number)
        iss.pull = PullInfo(
            head_sha=shas[-1], head_ref=head_ref, base_ref=base_ref, commits=shas, draft=draft, head_repo=head_repo
        )
        return iss

    def push(self, pr_number: int, sha: str | None = None, message: str = "Update") -> Commit:
        """Simulate a push to a PR's head branch: new head sha, one more commit."""
        iss = self.issues[pr_number]
        if iss.pull is None:
            raise ValueError(f"#{pr_number} is not a pull request")
        c = self.add_commit(sha, message, author=iss.user, parents=[iss.pull.head_sha])
        iss.pull.head_sha = c.sha
        iss.pull.commits.append(c.sha)
        if iss.pull.head_repo is None:
            self.branches[iss.pull.head_ref] = c.sha
        iss.updated_at = self.now()
        return c

    def merge_pull(self, pr_number: int, by: str | None = None) -> None:
        """Mark a PR merged and closed."""
        iss = self.issues[pr_number]
        if iss.pull is None:
            raise ValueError(f"#{pr_number} is not a pull request")
        now = self.tick()
        iss.pull.merged, iss.pull.merged_at, iss.pull.merged_by = True, now, by or self.login
        iss.state, iss.closed_at, iss.closed_by, iss.updated_at = "closed", now, by or self.login, now

    def set_permission(self, login: str, permission: str) -> None:
        """Repository role of ``login``: admin, maintain, write, triage, read or none."""
        if permission not in ROLES:
            raise ValueError(f"permission must be one of {ROLES}")
        self.permissions[self.add_user(login).login.lower()] = permission

    def put_file(self, path: str, text: str, ref: str | None = None) -> None:
        """Store a file at ``ref`` (default branch when None)."""
        self.files.setdefault(self.canonical_ref(ref or self.default_branch), {})[path.strip("/")] = text

    def delete_file(self, path: str, ref: str | None = None) -> None:
        """Remove a file stored with ``put_file``."""
        self.files.get(self.canonical_ref(ref or self.default_branch), {}).pop(path.strip("/"), None)

    def add_team(
        self,
        org: str,
        slug: str,
        members: Iterable[str] = (),
        parent: str | None = None,
        *,
        maintainers: Iterable[str] = (),
        name: str | None = None,
    ) -> Team:
        """Create a team (``parent`` is the slug of an existing team in ``org``)."""
        if parent is not None and (org.lower(), parent.lower()) not in self.teams:
            raise ValueError(f"parent team {org}/{parent} does not exist")
        self.add_user(org, type="Organization")
        t = Team(org, slug, self.next_id("team"), name or slug, parent=parent)
        for login in members:
            t.members[self.add_user(login).login] = "member"
        for login in maintainers:
            t.members[self.add_user(login).login] = "maintainer"
        self.teams[(org.lower(), slug.lower())] = t
        return t

    # ------------------------------------------------------------------ fault injection

    def fail_next(self, kind: str, count: int = 1, match: str | None = None) -> None:
        """Fail the next ``count`` requests (matching ``match``, a regex searched in
        ``"METHOD /path"``, e.g. ``r"^POST .*/comments$"``; for GraphQL ``"POST /graphql graphql/<operation>"``)
        with ``kind``:
        ``500``/``502``/``503``, ``secondary_rate_limit``, ``primary_rate_limit``,
        ``connection_reset``.  Failed requests change no state."""
        self._check_kind(kind)
        self._fault_rules.append(_FaultRule(kind, count, re.compile(match) if match else None))

    def fail_request(self, n: int, kind: str) -> None:
        """Fail the ``n``-th request from now (1 = the very next one) with ``kind``."""
        self._check_kind(kind)
        if n < 1:
            raise ValueError("n is 1-based")
        self._fault_at[self._seen + n] = kind

    def limit_content_creation(
        self,
        per_minute: int,
        clock: Callable[[], float],
        *,
        advance: Callable[[float], None] | None = None,
        latency: float = 0.0,
    ) -> ContentLimit:
        """Answer like GitHub's secondary rate limit once more than ``per_minute`` content-creating requests
        (REST writes, GraphQL mutations) fall within 60 seconds of ``clock``: ``403`` with ``retry-after``
        (the seconds until a slot frees) and GitHub's documented message. Refused requests change nothing
        and do not count. ``clock`` is the tests' virtual clock, shared with the client that sleeps on it;
        with ``advance``, every request served moves it on by ``latency`` seconds (requests take time)."""
        self.content_limit = ContentLimit(per_minute, clock, advance, latency)
        return self.content_limit

    def clear_faults(self) -> None:
        """Drop pending faults."""
        self._fault_rules.clear()
        self._fault_at.clear()

    @staticmethod
    def _check_kind(kind: str) -> None:
        if kind not in FAULT_KINDS:
            raise ValueError(f"fault kind must be one of {FAULT_KINDS}")

    # ------------------------------------------------------------------ log & rate limit

    @property
    def request_count(self) -> int:
        """Number of requests logged since the last ``reset_log``."""
        return len(self.requests)

    def reset_log(self) -> None:
        """Forget logged requests (state and rate limit are kept)."""
        self.requests.clear()
        self.operations.clear()

    def count(self, method: str | None = None, path: str | None = None, operation: str | None = None) -> int:
        """Logged requests with ``method``, ``path`` (regex, full match) and/or operationId."""
        n = 0
        for req, op in zip(self.requests, self.operations, strict=True):
            if method is not None and req.method != method.upper():
                continue
            if path is not None and not re.fullmatch(path, req.path):
                continue
            if operation is not None and op != operation:
                continue
            n += 1
        return n

    def writes(self) -> list[str]:
        """``"METHOD /path"`` of each logged request that changed (or tried to change) state: REST writes
        and GraphQL mutations (``"POST /graphql graphql/pinIssue"``), not GraphQL queries."""
        out = []
        for req, op in zip(self.requests, self.operations, strict=True):
            if op is not None and op.startswith("graphql"):
                if op.removeprefix("graphql/") in graphql.MUTATIONS:
                    out.append(f"{req.method} {req.path} {op}")
            elif req.method in _WRITE_METHODS:
                out.append(f"{req.method} {req.path}")
        return out

    def set_rate_limit(self, remaining: int, limit: int = 5000) -> None:
        """Set the core rate limit; at 0 requests get GitHub's primary-limit 403."""
        self.rate_limit, self.rate_remaining = limit, remaining

    def assert_no_violations(self) -> None:
        """Fail if any OpenAPI violation happened (even one the code under test swallowed)."""
        if self.openapi_violations:
            raise OpenAPIViolation("\n".join(self.openapi_violations))

    # ------------------------------------------------------------------ queries used by routes

    def issue_by_id(self, issue_id: int) -> Issue | None:
        """Look an issue up by database id (dependencies use ids, not numbers)."""
        return next((i for i in self.issues.values() if i.id == issue_id), None)

    def blocking_of(self, iss: Issue) -> list[Issue]:
        """Issues that ``iss`` blocks."""
        return [i for i in self.issues.values() if iss.id in i.blocked_by]

    def comment_count(self, number: int) -> int:
        """Comments on issue ``number``."""
        return sum(1 for c in self.comments.values() if c.issue_number == number)

    def open_issue_count(self) -> int:
        """GitHub's ``open_issues_count`` (PRs included)."""
        return sum(1 for i in self.issues.values() if i.state == "open")

    def permission_of(self, login: str) -> str:
        """Role of ``login`` (owner is admin; others read on public, none on private)."""
        if login.lower() == self.owner.lower():
            return "admin"
        return self.permissions.get(login.lower(), "none" if self.private else "read")

    def author_association(self, login: str) -> str:
        """OWNER / MEMBER (in an org team) / COLLABORATOR (explicit role) / NONE."""
        if login.lower() == self.owner.lower():
            return "OWNER"
        if any(
            t.org.lower() == self.owner.lower() and login.lower() in (m.lower() for m in t.members)
            for t in self.teams.values()
        ):
            return "MEMBER"
        if login.lower() in self.permissions:
            return "COLLABORATOR"
        return "NONE"

    def team_members(self, team: Team) -> dict[str, tuple[str, bool]]:
        """lower login -> (role, inherited) including members of child teams."""
        out: dict[str, tuple[str, bool]] = {m.lower(): (r, False) for m, r in team.members.items()}
        stack = [team]
        seen = {id(team)}
        while stack:
            cur = stack.pop()
            for child in self.teams.values():
                if (
                    child.org.lower() == cur.org.lower()
                    and child.parent
                    and child.parent.lower() == cur.slug.lower()
                    and id(child) not in seen
                ):
                    seen.add(id(child))
                    stack.append(child)
                    for m in child.members:
                        out.setdefault(m.lower(), ("member", True))
        return out

    def resolve_commit(self, ref: str) -> Commit | None:
        """A sha, a unique sha prefix (>= 7), a branch or ``refs/heads/<branch>``."""
        ref = ref.removeprefix("refs/heads/")
        if ref in self.commits:
            return self.commits[ref]
        if ref in self.branches:
            return self.commits[self.branches[ref]]
        if len(ref) >= 7:
            hits = [c for sha, c in self.commits.items() if sha.startswith(ref)]
            if len(hits) == 1:
                return hits[0]
        return None

    def branch_sha(self, ref: str) -> str:
        """Head sha of a branch (a stable made-up one for unknown branches)."""
        return self.branches.get(ref) or fake_sha(f"branch:{ref}")

    def canonical_ref(self, ref: str) -> str:
        """Map ``refs/heads/x`` and branch-head shas to the branch name for file lookups."""
        ref = ref.removeprefix("refs/heads/")
        if ref in self.branches:
            return ref
        for name, sha in self.branches.items():
            if sha == ref:
                return name
        return ref

    def latest_statuses(self, sha: str) -> list[Status]:
        """Most recent status per context (contexts are case-insensitive), newest first."""
        seen: set[str] = set()
        out = []
        for s in reversed(self.statuses):
            if s.sha == sha and s.context.lower() not in seen:
                seen.add(s.context.lower())
                out.append(s)
        return out

    def status_of(self, sha: str, context: str) -> Status | None:
        """The latest ``Status`` for ``sha``/``context`` or None (``.state``, ``.description``)."""
        c = self.resolve_commit(sha)
        if c is None:
            return None
        return next((s for s in self.latest_statuses(c.sha) if s.context.lower() == context.lower()), None)

    def check_of(self, sha: str, name: str, app: str | None = None) -> CheckRun | None:
        """The latest check run ``name`` on ``sha`` (by ``app``, a bot login, when given): what branch
        protection reads for a required check."""
        c = self.resolve_commit(sha)
        if c is None:
            return None
        for run in reversed(self.check_runs):
            if run.head_sha == c.sha and run.name == name and (app is None or run.app.lower() == app.lower()):
                return run
        return None

    # ------------------------------------------------------------------ pagination

    @staticmethod
    def per_page(query: dict[str, str]) -> int:
        """``per_page`` as GitHub reads it (default 30, capped at 100)."""
        try:
            n = int(query.get("per_page", 30))
        except ValueError:
            return 30
        return 30 if n < 1 else min(n, 100)

    @staticmethod
    def page_number(query: dict[str, str]) -> int:
        """``page`` (1-based; junk means 1)."""
        try:
            return max(1, int(query.get("page", 1)))
        except ValueError:
            return 1

    def paginate(self, ctx: Ctx, items: list[Any]) -> Reply:
        """Slice ``items`` and add GitHub's ``Link`` header (prev, next, last, first)."""
        per = self.per_page(ctx.query)
        page = self.page_number(ctx.query)
        last = max(1, math.ceil(len(items) / per))
        base_items = [(k, v) for k, v in ctx.query_items if k != "page"]

        def url(n: int) -> str:
            return f"{self.api}{ctx.path}?{urllib.parse.urlencode([*base_items, ('page', str(n))])}"

        links: list[tuple[str, int]] = []
        if page > 1:
            links.append(("prev", min(page - 1, last)))
        if page < last:
            links += [("next", page + 1), ("last", last)]
        if page > 1:
            links.append(("first", 1))
        headers = {}
        if links:
            headers["link"] = ", ".join(f'<{url(n)}>; rel="{rel}"' for rel, n in links)
        return Reply(200, items[(page - 1) * per : page * per], headers)

    # ------------------------------------------------------------------ OpenAPI checks

    def check_request(self, operation_id: str, body: Any) -> None:
        """Strict mode: the body must match the operation's requestBody schema."""
        if not self.strict:
            return
        errors = self.spec.request_errors(operation_id, body)
        if errors:
            self._violation(f"{operation_id}: request body does not match OpenAPI: " + "; ".join(errors))

    def _check_response(self, operation_id: str, status: int, body: Any) -> None:
        if not self.strict or not 200 <= status < 300:
            return
        errors = self.spec.response_errors(operation_id, status, body)
        if errors:
            self._violation(f"{operation_id}: {status} response does not match OpenAPI: " + "; ".join(errors))

    def _violation(self, message: str) -> None:
        self.openapi_violations.append(message)
        raise OpenAPIViolation(message)

    # ------------------------------------------------------------------ HTTP plumbing

    def _rate_headers(self, remaining: int | None = None, reset: int | None = None) -> dict[str, str]:
        rem = self.rate_remaining if remaining is None else remaining
        return {
            "x-ratelimit-limit": str(self.rate_limit),
            "x-ratelimit-remaining": str(rem),
            "x-ratelimit-reset": str(self.rate_reset if reset is None else reset),
            "x-ratelimit-used": str(self.rate_limit - rem),
            "x-ratelimit-resource": "core",
        }

    def _take_fault(self, method: str, path: str) -> str | None:
        kind = self._fault_at.pop(self._seen, None)
        if kind is not None:
            return kind
        target = f"{method} {path}"
        for rule in self._fault_rules:
            if rule.pattern is None or rule.pattern.search(target):
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._fault_rules.remove(rule)
                return rule.kind
        return None

    def _fault_response(self, kind: str) -> tuple[int, dict[str, str], str] | Exception:
        if kind == "connection_reset":
            return requests.exceptions.ConnectionError(
                "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"
            )
        if kind in ("500", "502", "503"):
            message = {"500": "Server Error", "502": "Bad Gateway", "503": "Service Unavailable"}[kind]
            return int(kind), self._rate_headers(), json.dumps({"message": message, "documentation_url": DOCS})
        if kind == "secondary_rate_limit":
            body = {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you "
                "try again. If you reach out to GitHub Support for help, please include the request ID "
                "0000:1111:2222:3333:44444444.",
                "documentation_url": "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"
                "#about-secondary-rate-limits",
            }
            return 403, {**self._rate_headers(), "retry-after": "1"}, json.dumps(body)
        body = {
            "message": f"API rate limit exceeded for user ID {self.users[self.login.lower()].id}.",
            "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
            "#about-the-primary-rate-limit",
        }
        return 403, self._rate_headers(0, int(time.time()) + 3), json.dumps(body)

    def _callback(self, request: requests.PreparedRequest) -> tuple[int, dict[str, str], str] | Exception:
        split = urllib.parse.urlsplit(request.url or "")
        method = (request.method or "GET").upper()
        path = split.path
        query_items = urllib.parse.parse_qsl(split.query, keep_blank_values=True)
        query = dict(query_items)
        headers = {k.lower(): v if isinstance(v, str) else v.decode("latin-1") for k, v in request.headers.items()}
        raw = request.body
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8")
        if raw is not None and not isinstance(raw, str):  # PyGithub sends text or bytes, never a stream
            raise TypeError(f"the fake reads request bodies of text or bytes, not {type(raw).__name__}")
        try:
            body = json.loads(raw) if raw else None
            bad_json = False
        except ValueError:
            body, bad_json = raw, True
        api_path = path[len(self._prefix) :] if path.startswith(self._prefix + "/") else None

        self._seen += 1
        target = api_path or path
        if graphql.is_graphql(self, method, path):
            target = f"{path} {graphql.operation_of(body)}"  # faults can match one GraphQL operation
        fault = self._take_fault(method, target)
        if fault is not None:
            result = self._fault_response(fault)
            status = 0 if isinstance(result, Exception) else result[0]
            self._log(method, api_path or path, query, body, status, None)
            return result

        if self.content_limit is not None:
            self.content_limit.took_time()
        if self.content_limit is not None and _creates_content(method, api_path or path, body):
            wait = self.content_limit.retry_after()
            if wait is not None:  # ghcost: refused like GitHub's secondary rate limit, nothing changed
                self._log(method, api_path or path, query, body, 403, None)
                limited = {"message": SECONDARY_LIMIT_MESSAGE, "documentation_url": SECONDARY_LIMIT_DOCS}
                return 403, {**self._rate_headers(), "retry-after": str(wait)}, json.dumps(limited)

        if graphql.is_graphql(self, method, path):
            return graphql.serve(self, path, body, headers)

        op_id: str | None = None
        try:
            if api_path is None:
                raise ApiError.not_found()
            if bad_json:
                raise ApiError(400, "Problems parsing JSON")
            self._authenticate(method, headers)
            op_id, params = self._route(method, api_path)
            if (self.actor_kind == "jwt") != (op_id in app_routes.JWT_OPERATIONS) and self.app is not None:
                raise ApiError(
                    401, "A JSON web token could not be decoded" if self.actor_kind != "jwt" else "Bad credentials"
                )
            if self.rate_remaining <= 0 and op_id != "rate-limit/get":
                raise ApiError(
                    403,
                    f"API rate limit exceeded for user ID {self.users[self.login.lower()].id}.",
                )
            ctx = Ctx(self, method, api_path, op_id, params, query, query_items, body, headers)
            if method in _WRITE_METHODS:
                try:
                    ctx.validated()
                except OpenAPIViolation:
                    # logged as the 422 GitHub would send, then raised into the caller
                    self._log(method, api_path, query, body, 422, op_id)
                    raise
            reply = ROUTES[op_id](self, ctx)
        except ApiError as err:
            err_body: dict[str, Any] = {"message": err.message, "documentation_url": self._doc_url(op_id)}
            if err.errors is not None:
                err_body["errors"] = err.errors
            err_body["status"] = str(err.status)
            reply = Reply(err.status, err_body, err.headers)

        return self._finish(method, api_path or path, query, body, headers, op_id, reply)

    def _finish(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        body: Any,
        headers: dict[str, str],
        op_id: str | None,
        reply: Reply,
    ) -> tuple[int, dict[str, str], str]:
        text = "" if reply.body is None else json.dumps(reply.body)
        out_headers = {
            "x-github-api-version-selected": "2022-11-28",
            "x-github-media-type": "github.v3; format=json",
            **reply.headers,
        }
        if reply.body is not None:
            out_headers["content-type"] = "application/json; charset=utf-8"
        status = reply.status
        counted = op_id != "rate-limit/get"
        if method == "GET" and 200 <= status < 300:
            etag = 'W/"' + hashlib.sha256(text.encode()).hexdigest() + '"'
            out_headers["etag"] = etag
            if _etag_matches(headers.get("if-none-match"), etag):
                status, text, counted = 304, "", False
                out_headers.pop("content-type", None)
                out_headers.pop("link", None)
        if counted and self.rate_remaining > 0:
            self.rate_remaining -= 1
        out_headers.update(self._rate_headers())
        self._log(method, path, query, body, status, op_id)
        if op_id is not None and status != 304:
            self._check_response(op_id, status, reply.body)
        return status, out_headers, text

    def _log(self, method: str, path: str, query: dict[str, str], body: Any, status: int, op: str | None) -> None:
        self.requests.append(LoggedRequest(method, path, query, body, status))
        self.operations.append(op)

    def authenticate(self, token: str | None) -> bool:
        """Set who the request acts as (:attr:`actor`) from its token; False for an unknown token."""
        self.actor, self.actor_kind = self.login, self.token_kind
        if token is None:
            return True
        self.tokens_seen.append(token)
        if self.app is not None and app_routes.looks_like_jwt(token):
            return app_routes.authenticate_jwt(self, token)
        known = self.tokens.get(token)
        if known is not None:
            self.actor, self.actor_kind = known.login, known.kind
            return True
        return self.token is None

    def _authenticate(self, method: str, headers: dict[str, str]) -> None:
        auth = headers.get("authorization")
        token = auth.split(" ", 1)[-1].strip() if auth else None
        if not self.authenticate(token):
            raise ApiError(401, "Bad credentials")
        if token is None and method in _WRITE_METHODS:
            raise ApiError(401, "Requires authentication")

    def _route(self, method: str, api_path: str) -> tuple[str, dict[str, str]]:
        found = self.spec.find(method, api_path)
        if found is not None:
            op, params = found
            op_id = op.operation_id
        else:
            legacy = _LEGACY_STATUSES.fullmatch(api_path) if method == "GET" else None
            if legacy is None:
                raise ApiError.not_found()
            # ``GET /repos/{o}/{r}/statuses/{sha}`` (PyGithub's Commit.get_statuses) is the
            # undocumented alias of list-commit-statuses-for-ref.
            op_id = "repos/list-commit-statuses-for-ref"
            params = {
                "owner": urllib.parse.unquote(legacy[1]),
                "repo": urllib.parse.unquote(legacy[2]),
                "ref": urllib.parse.unquote(legacy[3]),
            }
        if "owner" in params and (params["owner"].lower(), params["repo"].lower()) != (
            self.owner.lower(),
            self.repo.lower(),
        ):
            raise ApiError.not_found()
        if op_id not in ROUTES:
            raise ApiError.not_found()
        return op_id, params

    def _doc_url(self, op_id: str | None) -> str:
        if op_id is None:
            return DOCS
        return str(self.spec.raw_op(op_id).get("externalDocs", {}).get("url", DOCS))


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    want = etag.removeprefix("W/")
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == want:
            return True
    return False
