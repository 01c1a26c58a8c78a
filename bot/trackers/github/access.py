"""Who may answer a decision (team membership, repository roles), and whom a decision is assigned to."""

from __future__ import annotations

import re
from typing import Any

from github import GithubException

from bot.core.authority import ROLE_RANK, Actor
from bot.core.errors import InvalidInput
from bot.core.models import Decision
from bot.core.tracker import Role
from bot.trackers.github.base import TrackerBase, _login, _raw


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


class AccessMixin(TrackerBase):
    """Principals and roles (see the module docstring)."""

    # -- who may answer -----------------------------------------------------------------------

    def is_member(self, login: str, principal: str) -> bool:
        if not _is_team(principal):
            return login.casefold() == principal.lstrip("@").casefold()
        org, _, slug = principal[1:].partition("/")
        key = (login.casefold(), principal.casefold())
        if key not in self._members:

            def check(_: int) -> bool:
                team = self._gh.get_organization(org).get_team_by_slug(slug)  # lazy: no request
                try:
                    membership = team.get_team_membership(login)
                except GithubException as exc:
                    if exc.status == 404:  # not a member (or a team we cannot see)
                        return False
                    raise
                return _raw(membership).get("state") == "active"

            self._members[key] = self._unit(f"check {login} in {principal}", check)
        return self._members[key]

    def actor(self, claimed: str | None) -> Actor:
        """The actor of a command run with this token: the login GitHub says the token belongs to."""
        if not claimed:
            raise InvalidInput("say who acts with --by LOGIN (or PARKBOT_ACTOR)")
        return Actor(claimed, bot=is_bot_login(claimed))

    def dependent_authors(self, decision: Decision) -> frozenset[str]:
        """The authors of the decision's dependent pull requests, as GitHub reports them."""
        authors = set()
        for number in self._pr_numbers(decision):
            pull = self._get_pull(number, fresh=True)
            author = _login(pull.get("user")) if pull else None
            if author:
                authors.add(author.casefold())
        return frozenset(authors)

    def permission_of(self, login: str) -> Role | None:
        """The repository role of ``login``; None for bots and for logins with no access."""
        if is_bot_login(login):
            return None

        def get(_: int) -> dict[str, Any] | None:
            try:
                _, data = self._requester.requestJsonAndCheck(
                    "GET", f"{self._repo_url}/collaborators/{login}/permission"
                )
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            return data

        data = self._unit(f"read the permission of {login}", get)
        if not data:
            return None
        if (data.get("user") or {}).get("type") == "Bot":
            return None
        for key in ("role_name", "permission"):
            role = data.get(key)
            if role in ROLE_RANK:
                return role  # type: ignore[no-any-return]
        return None
