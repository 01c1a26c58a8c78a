"""What a write commits (:class:`Change`) and the git settings it is committed with (:class:`UserSettings`).

Loaded by the first write (:meth:`~parkbot.trackers.git.repository.BacklogRepository.mutate`), never by a
command that only reads the backlog.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Change(NamedTuple):
    """What a write commits: its message (subject, then an optional body) and trailers.

    ``signed`` marks a write that records an answer or an escalation: it is signed when answers
    must be signed (and must then be, or the write is refused). ``always`` commits even when the tree
    does not change: an owner's record identical to one nobody can vouch for is recorded again, signed.
    """

    message: str
    trailers: Sequence[str] = ()
    signed: bool = False
    always: bool = False


class UserSettings(NamedTuple):
    """The git settings parkbot honours: who the user is, and whether and how they sign commits."""

    name: str | None = None
    email: str | None = None
    gpg_sign: bool = False
    signing_format: str = "openpgp"
    signing_key: str | None = None
