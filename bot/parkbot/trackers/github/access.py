"""Who may answer a decision (team membership, repository roles), and whom a decision is assigned to."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from github import GithubException

from parkbot.core.authority import ROLE_RANK, Actor
from parkbot.core.errors import Refused
from parkbot.core.models import Decision
from parkbot.core.tracker import Role
from parkbot.trackers.github.store import login_of, raw_json

if TYPE_CHECKING:
    from parkbot.trackers.github.dependents import Dependents
    from parkbot.trackers.github.store import IssueStore


def _is_team(principal: str) -> bool:
    return principal.startswith("@") and "/" in principal


def is_bot_login(login: str, account_type: str | None = None) -> bool:
    """A GitHub App or the Actions bot: ``type == "Bot"``, or a login ending in ``[bot]``."""
    return account_type == "Bot" or login.casefold().endswith("[bot]")


def assignable_login(owner: str) -> str | None:
    """The login to assign for an owner principal; None for ``@org/team`` and e-mail owners."""
    if _is_team(owner) or "@" in owner.lstrip("@"):
        return None
    login = owner.lstrip("@").strip()
    return login if re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\[bot\])?", login) else None


class Access:
    """Principals and roles (see the module docstring)."""

    def __init__(self, store: IssueStore, dependents: Dependents) -> None:
        self._store = store
        self._dependents = dependents

    # -- who may answer -----------------------------------------------------------------------

    def is_member(self, login: str, principal: str) -> bool:
        if not _is_team(principal):
            return login.casefold() == principal.lstrip("@").casefold()
        org, _, slug = principal[1:].partition("/")
        store = self._store

        def check(_: int) -> bool:
            team = store.github.get_organization(org).get_team_by_slug(slug)  # lazy: no request
            try:
                membership = team.get_team_membership(login)
            except GithubException as exc:
                if exc.status == 404:  # not a member (or a team we cannot see)
                    return False
                raise
            return raw_json(membership).get("state") == "active"

        return store.members.check(login, principal, lambda: store.unit(f"check {login} in {principal}", check))

    def actor(self, claimed: str | None) -> Actor:
        """The actor of a command run with this token: the login GitHub says the token belongs to.

        One request (GraphQL's ``viewer``), or none when a query of this run already said. A ``--by``
        naming anyone else is refused: a token acts for its own account only. The Actions token
        belongs to a bot (``github-actions[bot]``), which never answers: owners answer with a comment
        command, or from the command line with a token of their own.
        """
        login = self._store.token_login()
        if claimed and claimed.strip().lstrip("@").casefold() != login.casefold():
            raise Refused(
                f"--by {claimed}: this GitHub token belongs to {login}, so parkbot acts as {login} and as nobody "
                "else. Run with a token of the person who acts, and leave out --by (or give their own login).",
                reason="not_authorized",
            )
        if is_bot_login(login):
            raise Refused(
                f"this GitHub token belongs to {login}, a bot (the Actions GITHUB_TOKEN is one), and a bot never "
                "answers or moves a decision. Answer with a comment command on the decision issue, "
                "or run parkbot with a token of your own.",
                reason="not_authorized",
            )
        return Actor(login)

    def dependent_authors(self, decision: Decision) -> frozenset[str]:
        """The authors of the open pull requests the decision's own record names as its dependents.

        Only parkbot's record counts, not the labels (anyone with triage can put a label on an old pull
        request the owner once wrote, to lock the owner out), and only open pull requests wait.
        """
        authors = set()
        numbers = [n for target in decision.dependents for n in self._dependents.target_prs(target)]
        for number in dict.fromkeys(numbers):
            pull = self._store.pulls.get(number, fresh=True)
            if not pull or pull.get("state") != "open":
                continue
            author = login_of(pull.get("user"))
            if author:
                authors.add(author.casefold())
        return frozenset(authors)

    def permission_of(self, login: str) -> Role | None:
        """The repository role of ``login``; None for bots and for logins with no access."""
        if is_bot_login(login):
            return None

        def get(_: int) -> dict[str, Any] | None:
            data: dict[str, Any] | None
            try:
                _, data = self._store.requester.requestJsonAndCheck(
                    "GET", f"{self._store.repo_url}/collaborators/{login}/permission"
                )
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            return data

        data = self._store.unit(f"read the permission of {login}", get)
        if not data:
            return None
        if (data.get("user") or {}).get("type") == "Bot":
            return None
        for key in ("role_name", "permission"):
            role = data.get(key)
            if role in ROLE_RANK:
                return role  # type: ignore[no-any-return]
        return None
