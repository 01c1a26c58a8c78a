"""The one protocol both backends implement, and the small value types that cross it.

The lifecycle (``bot.lifecycle``) holds every rule and calls only these methods, so GitHub and the
embedded git backlog obey exactly the same rules. Adapters own I/O concerns: retries, pagination,
rate limits, compare-and-swap. Each resolution step must be idempotent, because a failed step is
retried by running the whole resolution again.

Optional capabilities
---------------------
A backend may offer more than :class:`Tracker`. Callers look each one up with ``getattr`` and work
without it, so the lifecycle stays backend-agnostic and a backend only implements what it can do well:

* ``poll(decision_id, previous: PollToken | None) -> tuple[Decision | None, PollToken]``
  (:class:`Pollable`): read a decision again *cheaply* for ``parkbot wait``. ``previous`` is the
  token the last poll returned (None the first time); when nothing changed since, the backend may
  answer from it without reading everything again. GitHub sends a conditional request
  (``If-None-Match`` with the ETag of the previous response): a ``304 Not Modified`` costs no rate
  limit. Without ``poll`` (the git backlog: a local read is already cheap) the lifecycle simply
  re-reads with :meth:`Tracker.find` (:func:`bot.lifecycle.poll_answer`).
* ``publish_status(sha, state, description, target_url=None, *, context=...)``: a commit status on an
  exact commit, not only on a dependent's head (:mod:`bot.events.status`); GitHub only.
* ``upsert_dashboard(body, *, title=..., create=True) -> tuple[int, str]``: the one dashboard issue,
  created once and edited in place (:mod:`bot.dashboard`); GitHub only.
* ``decision_at(number)``, ``reply(number, key, text)``, ``comment_url(number, id)``: what comment
  commands need (:mod:`bot.comment_handler`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from bot.models import Answer, Decision, LogEntry

GateState = Literal["open", "blocked"]


@dataclass(frozen=True)
class Location:
    """Where a decision lives: ``number``/``url`` on GitHub, ``ref`` (and ``path``) in git."""

    backend: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None
    url: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class GateResult:
    """Whether a dependent (``#N`` or ``branch:<name>``) may proceed, and what still blocks it."""

    target: str
    blocking: tuple[Decision, ...] = ()
    resolved: tuple[Decision, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> GateState:
        return "blocked" if self.blocking else "open"


@dataclass(frozen=True)
class PollToken:
    """What one poll of a decision leaves for the next (opaque to the lifecycle).

    ``validator`` is whatever lets the backend ask "changed since?" (GitHub: the ETag of the last
    response); ``decision`` is what that response said, returned again when nothing changed.
    """

    decision_id: str
    validator: str | None = None
    decision: Decision | None = None


@runtime_checkable
class Pollable(Protocol):
    """The optional ``poll`` capability (see the module docstring)."""

    def poll(self, decision_id: str, previous: PollToken | None = None) -> tuple[Decision | None, PollToken]:
        """The decision now (None if there is none) and the token for the next poll."""
        ...


@runtime_checkable
class Tracker(Protocol):
    """Storage for decisions. Every method may raise :class:`bot.errors.BackendFailure`."""

    backend: str

    def default_owner(self) -> str:
        """Who answers when the config names nobody (repository owner; git user)."""
        ...

    def claim(self, decision_id: str) -> bool:
        """Reserve an identity before filing. True means no item can exist yet, so no lookup is needed.

        On GitHub this creates the derived label (atomic: a second creator gets 422); backends
        without such a primitive return False and let ``find`` answer.
        """
        ...

    def find(self, decision_id: str) -> Decision | None:
        """The stored decision, or None. ``answer`` is set once the decision is resolved."""
        ...

    def recorded_answer(self, decision: Decision) -> Answer | None:
        """The answer recorded by resolution step (a), even if later steps have not run yet."""
        ...

    def location(self, decision: Decision) -> Location: ...

    def create(self, decision: Decision) -> Location:
        """Create a new item; raise ConcurrentChange if one with this id appeared since ``find``."""
        ...

    def update(self, decision: Decision) -> Location:
        """Write a changed open decision in place (content, owner, escalations, state back to open)."""
        ...

    def block_dependents(self, decision: Decision) -> list[GateResult]:
        """Make each dependent's gate reflect this open, blocking decision."""
        ...

    # -- resolution, in this order; each step idempotent ------------------------------------
    def record_answer(self, decision: Decision, answer: Answer) -> None:
        """(a) Record the answer durably; the decision stays open."""
        ...

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        """(b) Tell every dependent where the answer is (one note each, updated, never duplicated)."""
        ...

    def clear_blocking(self, decision: Decision) -> list[GateResult]:
        """(c) Remove the blocking edges and re-evaluate every dependent's gate."""
        ...

    def close(self, decision: Decision, answer: Answer) -> None:
        """(d) Mark the decision resolved. Only after this does ``find`` report it resolved."""
        ...

    def mark_abandoned(self, decision: Decision, reason: str) -> None:
        """Close without an answer (the owner or config said so); dependents stay blocked."""
        ...

    # -- queries ------------------------------------------------------------------------------
    def linked_decisions(self, target: str) -> list[Decision]:
        """Every decision a dependent is linked to, by any route the backend knows."""
        ...

    def publish_gate(self, result: GateResult) -> None:
        """Make a gate result visible (a commit status on GitHub; nothing to do in git)."""
        ...

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]: ...

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        """Open decisions of this origin task or of this run (either matches), for the question budgets."""
        ...

    # -- the question log -----------------------------------------------------------------------
    def append_log(self, entry: LogEntry) -> None:
        """Append one line; readers tolerate a repeated line (a re-run may append twice)."""
        ...

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        """Every logged line, oldest first: what precedents are looked up in and the report counts.

        With ``about``, a backend may return only the entries that could be precedents for that
        decision (same key or same normalized question), so filing never reads the whole log.
        """
        ...

    def is_member(self, login: str, principal: str) -> bool:
        """Whether ``login`` is ``principal`` (a login or e-mail) or a member of it (``@org/team``)."""
        ...

    def permission_of(self, login: str, decision: Decision | None = None) -> str | None:
        """Repository permission (``admin``/``maintain``/``write``/``read``), None where unknown.

        ``decision`` is the one being answered, so a backend can exclude its dependents' authors.
        """
        ...
