"""Who may answer a decision (team membership, repository roles), and whom a decision is assigned to."""

from __future__ import annotations

import re
from typing import Any

from github import GithubException

from bot.lifecycle import PERMISSION_RANK
from bot.models import Decision
from bot.trackers.github.base import TrackerBase, _login, _raw


def _is_team(principal: str) -> bool:
    return principal.startswith("@") and "/" in principal


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

    def permission_of(self, login: str, decision: Decision | None = None) -> str | None:
        """The repository role of ``login``; None for bots and authors of the decision's dependent PRs.

        ``decision`` defaults to the decision this tracker read last (``lifecycle.authorize`` calls
        this right after loading it).
        """
        if login.casefold().endswith("[bot]"):
            return None
        context = decision or self._context
        if context is not None:
            for number in self._pr_numbers(context):
                pull = self._get_pull(number)
                if pull and (_login(pull.get("user")) or "").casefold() == login.casefold():
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
        role = data.get("role_name")
        if role in PERMISSION_RANK:
            return role
        permission = data.get("permission")
        return permission if permission in PERMISSION_RANK else None
