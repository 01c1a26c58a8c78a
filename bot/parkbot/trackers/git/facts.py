"""Who acts and what can be verified on the embedded backlog: facts only, the rules are in
:mod:`parkbot.core.authority` (the identity part of :class:`~parkbot.core.tracker.Tracker`,
:class:`~parkbot.core.authority.SignedRecords`, :class:`~parkbot.core.tracker.BacklogHints`).

Git has no accounts: a name is whatever a user configured, so nothing here is vouched for unless
answers must be signed (see docs/git-backlog.md).
"""

from __future__ import annotations

from parkbot.core.authority import Actor
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Decision
from parkbot.core.tracker import Role
from parkbot.trackers.git.proofs import Prover
from parkbot.trackers.git.repository import BacklogRepository


class AuthorityFacts:
    """The git user, the answerers a name matches, and whether signatures are checked."""

    def __init__(self, backlog: BacklogRepository, prover: Prover) -> None:
        self.backlog = backlog
        self.prover = prover

    def default_owner(self) -> str:
        settings = self.backlog.settings()
        owner = settings.email or settings.name
        if not owner:
            raise InvalidInput(
                "no git user is configured, so nobody owns new decisions: run "
                "`git config user.email you@example.com`, or set owners.default in .github/parkbot.yml"
            )
        return owner

    def actor(self, claimed: str | None) -> Actor:
        """``--by`` or the git user: self-declared (only a signature proves it, see docs/git-backlog.md)."""
        return Actor(claimed or self.default_owner())

    def is_member(self, login: str, principal: str) -> bool:
        return login.strip().casefold() == principal.strip().casefold()

    def permission_of(self, login: str) -> Role | None:
        return None

    def dependent_authors(self, decision: Decision) -> frozenset[str]:
        """Branch commits name whoever their author claims to be, so nothing here is vouched for."""
        return frozenset()

    def claim(self, decision_id: str) -> bool:
        return False

    def verifies_signatures(self) -> bool:
        """:class:`~parkbot.core.authority.SignedRecords`: True when answers must be signed."""
        return self.prover.active

    def missing_hint(self) -> str | None:
        """:class:`~parkbot.core.tracker.BacklogHints`: how to fetch a backlog a fresh clone does not have."""
        if self.backlog.tip() is not None:
            return None
        remotes = self.backlog.git.output("remote").split()
        if not remotes:
            return None
        remote = "origin" if "origin" in remotes else remotes[0]
        sync = "parkbot sync" if remote == "origin" else f"parkbot sync --remote {remote}"
        ref = self.backlog.ref
        return (
            f"this repository has no {ref} yet (a clone does not fetch it): fetch it with `{sync}` "
            f"or `git fetch {remote} {ref}:{ref}`"
        )
