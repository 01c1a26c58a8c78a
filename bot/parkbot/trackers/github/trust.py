"""Whose words a GitHub text carries: its author, and whoever last edited it. Pure functions, no I/O.

Anyone with write access to a repository can edit any comment and any issue body, post as another
bot, and delete versions from an edit history. parkbot therefore counts a record (a decision issue's
hidden block, an answer comment, a log line) as its own only when the text as it stands now was
written by parkbot's own login: unedited and authored by it, or last edited by it. GitHub's GraphQL
API says who that was (``author``, ``lastEditedAt``, ``editor``) and keeps every earlier version
(``userContentEdits``), from which :func:`own_version` recovers the last one parkbot wrote.

GraphQL reports a Bot by its slug (``parkbot``, ``__typename: "Bot"``) where REST says
``parkbot[bot]``: :func:`actor_login` gives the REST spelling, so one comparison fits both.

The GraphQL nodes are turned into the REST shapes the rest of the adapter reads
(:func:`issue_raw`, :func:`comment_raw`), with two more keys: ``last_edited_at`` and ``editor``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

BOT_SUFFIX = "[bot]"


def actor_login(actor: Mapping[str, Any] | None) -> str | None:
    """The REST spelling of a GraphQL actor's login (``parkbot[bot]`` for the Bot ``parkbot``)."""
    if not actor or not isinstance(actor.get("login"), str):
        return None  # a deleted account ("ghost"): nobody can vouch for it
    login: str = actor["login"]
    if actor.get("__typename") == "Bot" and not login.endswith(BOT_SUFFIX):
        login += BOT_SUFFIX
    return login


def same_login(a: str | None, b: str | None) -> bool:
    """Logins are case-insensitive on GitHub; an unknown account is nobody's."""
    if not a or not b:
        return False
    return a.casefold() == b.casefold()


def is_parkbot(login: str | None, trusted: tuple[str, ...]) -> bool:
    """Whether ``login`` writes records that count as parkbot's (one of the ``trusted`` logins)."""
    return login is not None and any(login.casefold() == t.casefold() for t in trusted)


def rest_user(actor: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A GraphQL ``Actor`` as REST's ``user`` object (``login`` and ``type``), or None for nobody."""
    login = actor_login(actor)
    if login is None or actor is None:
        return None
    kind = actor.get("__typename") or ("Bot" if login.endswith(BOT_SUFFIX) else "User")
    return {"login": login, "type": kind}


def issue_raw(node: Mapping[str, Any]) -> dict[str, Any]:
    """A GraphQL ``Issue`` (``ParkbotIssue``) in the shape of REST's issue JSON, plus edit facts."""
    return {
        "number": int(node["number"]),
        "id": int(node["fullDatabaseId"]),
        "node_id": node["id"],
        "title": node.get("title") or "",
        "body": node.get("body") or "",
        "state": str(node.get("state") or "OPEN").lower(),
        "html_url": node.get("url"),
        "created_at": node.get("createdAt"),
        "labels": [{"name": label["name"]} for label in (node.get("labels") or {}).get("nodes") or [] if label],
        "assignees": [{"login": a["login"]} for a in (node.get("assignees") or {}).get("nodes") or [] if a],
        "user": rest_user(node.get("author")),
        "last_edited_at": node.get("lastEditedAt"),
        "editor": rest_user(node.get("editor")),
    }


def comment_raw(node: Mapping[str, Any]) -> dict[str, Any]:
    """A GraphQL ``IssueComment`` (``ParkbotComment``) in the shape of REST's comment JSON, plus edit facts."""
    return {
        "id": int(node["fullDatabaseId"]),
        "node_id": node["id"],
        "body": node.get("body") or "",
        "html_url": node.get("url"),
        "created_at": node.get("createdAt"),
        "user": rest_user(node.get("author")),
        "last_edited_at": node.get("lastEditedAt"),
        "editor": rest_user(node.get("editor")),
    }


def author_of(raw: Mapping[str, Any]) -> str | None:
    return ((raw.get("user") or {}).get("login")) or None


def last_writer(raw: Mapping[str, Any]) -> str | None:
    """Who wrote the text as it stands: the last editor, or the author of an unedited text.

    A REST answer carries no edit facts; it comes from parkbot's own writes (which set ``editor``
    when they change a body) or from listings of texts only their author can have written.
    """
    if raw.get("last_edited_at") or raw.get("editor"):
        return ((raw.get("editor") or {}).get("login")) or None
    return author_of(raw)


def written_by(raw: Mapping[str, Any], login: str) -> bool:
    """Whether the text as it stands now was written by ``login`` (and nobody changed it since)."""
    return same_login(last_writer(raw), login)


def change(raw: Mapping[str, Any]) -> str:
    """Who made the text what it is, and when, for people: ``mallory at 2024-01-01T00:00:05Z``."""
    who = last_writer(raw) or "a deleted account"
    when = raw.get("last_edited_at")
    return f"{who} at {when}" if when else who


def own_version(edits: Iterable[Mapping[str, Any]], login: str) -> str | None:
    """The newest version of a text that ``login`` wrote and that is still in its edit history.

    ``edits`` are GraphQL ``UserContentEdit`` nodes in any order (sorted here by ``editedAt``); a
    version someone deleted from the history has no text and is skipped.
    """
    ordered = sorted((e for e in edits if e), key=lambda e: str(e.get("editedAt") or ""), reverse=True)
    for edit in ordered:
        if edit.get("deletedAt") or edit.get("diff") is None:
            continue
        if same_login(actor_login(edit.get("editor")), login):
            return str(edit["diff"])
    return None
