"""In-memory state of the fake: one repository, its users and its organisation's teams.

Why plain dataclasses: tests inspect and seed this state directly (``fake.issues[3]``),
and the HTTP layer renders it into GitHub-shaped JSON on every request, so there is a
single source of truth and no stale cached payloads.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field

EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)


def iso(t: dt.datetime | None) -> str | None:
    """GitHub's timestamp format (UTC, seconds, ``Z``)."""
    return None if t is None else t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> dt.datetime:
    """Parse the ISO-8601 timestamps GitHub accepts in ``since`` parameters."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(dt.UTC)


def fake_sha(seed: str) -> str:
    """A deterministic 40-hex commit-like id."""
    return hashlib.sha1(seed.encode(), usedforsecurity=False).hexdigest()


@dataclass
class User:
    """A GitHub account; ``type`` is ``User``, ``Bot`` or ``Organization``."""

    login: str
    id: int
    type: str = "User"
    site_admin: bool = False
    name: str | None = None


@dataclass
class Token:
    """Whom a token acts as: ``app`` is a GitHub App installation token (the Actions ``GITHUB_TOKEN`` is
    one), ``personal`` a person's token. Only App tokens may write check runs."""

    login: str
    kind: str = "app"


@dataclass
class Edit:
    """One version in an issue body's or a comment's edit history, as GitHub keeps it.

    ``body`` is the text of that version (GraphQL's ``UserContentEdit.diff``); ``deleted_by`` is who
    removed it from the history (then ``body`` is None), which anyone with write access may do.
    """

    editor: str
    edited_at: dt.datetime
    body: str | None
    id: int = 0
    deleted_at: dt.datetime | None = None
    deleted_by: str | None = None


@dataclass
class Label:
    """A repository label; names are unique case-insensitively."""

    id: int
    name: str
    color: str = "ededed"
    description: str | None = None
    default: bool = False


@dataclass
class Commit:
    """A commit the fake knows about (pull request commits, pushes, ``add_commit``)."""

    sha: str
    message: str
    author: str = "dev"
    date: dt.datetime = EPOCH
    parents: list[str] = field(default_factory=list)


@dataclass
class PullInfo:
    """The pull-request half of an issue that is a PR."""

    head_sha: str
    head_ref: str
    base_ref: str = "main"
    commits: list[str] = field(default_factory=list)  # shas, oldest first
    merged: bool = False
    merged_at: dt.datetime | None = None
    merged_by: str | None = None
    draft: bool = False
    #: ``owner/name`` of the fork the head branch lives in; None when it is this repository's own branch.
    head_repo: str | None = None

    @property
    def head_owner(self) -> str | None:
        """The fork's owner, or None for a branch of this repository."""
        return self.head_repo.split("/", 1)[0] if self.head_repo else None


@dataclass
class Issue:
    """An issue or (when ``pull`` is set) a pull request, as GitHub stores both."""

    number: int
    id: int
    title: str
    body: str | None
    user: str
    created_at: dt.datetime
    updated_at: dt.datetime
    state: str = "open"
    state_reason: str | None = None
    labels: list[str] = field(default_factory=list)  # canonical label names
    assignees: list[str] = field(default_factory=list)
    closed_at: dt.datetime | None = None
    closed_by: str | None = None
    locked: bool = False
    pull: PullInfo | None = None
    blocked_by: list[int] = field(default_factory=list)  # issue ids, in insertion order
    edits: list[Edit] = field(default_factory=list)  # body versions, oldest first (empty: never edited)

    @property
    def is_pull(self) -> bool:
        """True for pull requests."""
        return self.pull is not None


@dataclass
class Comment:
    """An issue (or PR conversation) comment."""

    id: int
    issue_number: int
    body: str
    user: str
    created_at: dt.datetime
    updated_at: dt.datetime
    edits: list[Edit] = field(default_factory=list)  # body versions, oldest first (empty: never edited)


@dataclass
class Status:
    """One commit status; the combined status keeps the latest per context."""

    id: int
    sha: str
    state: str
    context: str
    description: str | None
    target_url: str | None
    creator: str
    created_at: dt.datetime
    updated_at: dt.datetime


@dataclass
class CheckRun:
    """One check run; branch protection reads the latest run of a name by the app it expects."""

    id: int
    name: str
    head_sha: str
    app: str  # login of the App (bot) that created it, e.g. ``parkbot[bot]``
    status: str
    conclusion: str | None
    started_at: dt.datetime
    completed_at: dt.datetime | None
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    details_url: str | None = None
    external_id: str | None = None


@dataclass
class Team:
    """An organisation team; members maps login -> role (``member``/``maintainer``)."""

    org: str
    slug: str
    id: int
    name: str
    members: dict[str, str] = field(default_factory=dict)
    parent: str | None = None  # slug of the parent team
    description: str | None = None


# ghcost: reactions -----------------------------------------------------------------------------------


@dataclass
class Reaction:
    """A reaction on an issue comment; one per (comment, user, content), as on GitHub."""

    id: int
    comment_id: int
    user: str
    content: str
    created_at: dt.datetime
