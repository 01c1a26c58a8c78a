"""The seam between the rules and storage: the :class:`Tracker` protocol, the capabilities a backend may
add to it, and the small value types that cross it.

The lifecycle (:mod:`parkbot.core.lifecycle`) holds every rule and calls only these methods, so GitHub and
the embedded git backlog obey exactly the same rules. Adapters own I/O concerns: retries, pagination,
rate limits, compare-and-swap, signatures, edit history. Each resolution step must be idempotent,
because a failed step is retried by running the whole resolution again.

Adapters report *facts* and never apply rules: which decisions still link a dependent
(:class:`DependentState`), who a login is (:class:`~parkbot.core.authority.Actor`), what a signature proves
(:class:`~parkbot.core.models.Proof`). The core turns facts into gates and refusals.

The value types are ``NamedTuple``s (changed with ``_replace``), not dataclasses: every command loads
this module, and a frozen dataclass compiles its methods when it is defined, about half a millisecond
each. What ``sync`` returns (``SyncResult``) is defined with its merge and loaded on first use.

Capabilities
------------
A backend may offer more than :class:`Tracker`. Each extra is a small, named, runtime-checkable
protocol below; callers test ``isinstance(tracker, Capability)`` and work without it, so the rules
stay backend-agnostic and a backend only implements what it can do well. The contract suite runs
every capability a backend claims.

The capabilities that only the event handlers and ``wait`` ask for (comments, reactions, commit gates,
the dashboard issue, polling, ...) live in :mod:`parkbot.core.capabilities`, with their value types:
they are importable from here as well, and load on first use, so a command on the embedded backlog
never builds them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, runtime_checkable

from parkbot.core.lazy import exports
from parkbot.core.models import Answer, Decision, LogEntry

#: What :mod:`parkbot.core.capabilities` holds, importable from here too.
_CAPABILITIES = (
    "BranchRescan",
    "CommandCommentFacts",
    "CommentReactions",
    "CommentRecord",
    "CommentRecords",
    "CommitGates",
    "DashboardIssue",
    "FindsPullsByCommit",
    "IndexedDependents",
    "IssueComments",
    "LoggedEvents",
    "Pollable",
    "PollToken",
    "SeenDecisions",
    "UnindexedDecisions",
)

if TYPE_CHECKING:
    from parkbot.core.authority import Actor
    from parkbot.core.capabilities import (
        BranchRescan,
        CommandCommentFacts,
        CommentReactions,
        CommentRecord,
        CommentRecords,
        CommitGates,
        DashboardIssue,
        FindsPullsByCommit,
        IndexedDependents,
        IssueComments,
        LoggedEvents,
        Pollable,
        PollToken,
        SeenDecisions,
        UnindexedDecisions,
    )
    from parkbot.core.merge import SyncResult  # ``sync``'s merge only
else:
    #: Loaded on first use (see the module docstring); what ``sync`` returns, with its merge.
    __getattr__, __dir__ = exports(
        __name__, {**dict.fromkeys(_CAPABILITIES, "parkbot.core.capabilities"), "SyncResult": "parkbot.core.merge"}
    )

GateState = Literal["open", "blocked"]
#: The reactions a comment can get (GitHub's set); parkbot uses eyes (taken up), +1 (done), confused (refused).
ReactionContent = Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]
#: A repository role, lowest first: what ``repository_permission_resolves`` compares against.
Role = Literal["read", "triage", "write", "maintain", "admin"]


class Location(NamedTuple):
    """Where a decision lives: ``number``/``url`` on GitHub, ``ref`` (and ``path``) in git."""

    backend: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None
    url: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}


class GateResult(NamedTuple):
    """Whether a dependent (``#N`` or ``branch:<name>``) may proceed, and what still blocks it."""

    target: str
    blocking: tuple[Decision, ...] = ()
    resolved: tuple[Decision, ...] = ()
    #: Why the gate is not shown where it belongs yet (a branch with no open pull request).
    note: str | None = None
    #: The other dependents at the same commit that wait: they hold an otherwise open gate blocked (per commit).
    same_commit: tuple[str, ...] = ()

    @property
    def state(self) -> GateState:
        return "blocked" if self.blocking else "open"

    @property
    def details(self) -> dict[str, Any]:
        """``note`` and ``same_commit`` where set, as the fields of a gate in the event output."""
        shown: dict[str, Any] = {}
        if self.note:
            shown["note"] = self.note
        if self.same_commit:
            shown["same_commit"] = list(self.same_commit)
        return shown


class DependentState(NamedTuple):
    """One dependent of a decision, as the backend sees it right after linking or clearing it.

    ``others`` are the decisions that still link it besides the one being parked or resolved;
    ``publishable`` is False when there is nothing to carry a gate yet (a branch with no pull request),
    and ``note`` says why. The core evaluates the gate from this and asks the backend to publish it.
    """

    target: str
    others: tuple[Decision, ...] = ()
    publishable: bool = True
    note: str | None = None


@runtime_checkable
class Tracker(Protocol):
    """Storage for decisions. Every method may raise :class:`parkbot.core.errors.BackendFailure`."""

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
        """The stored decision in its last verified state, or None. ``answer`` is set once resolved.

        A record the backend cannot vouch for (edited by someone else, an unsigned answer) is not
        returned as if it were true: the decision comes back as it last verifiably was, with
        ``problems`` saying what was found.
        """
        ...

    def recorded_answer(self, decision: Decision) -> Answer | None:
        """The answer recorded by resolution step (a), even if later steps have not run yet."""
        ...

    def location(self, decision: Decision) -> Location: ...

    def create(self, decision: Decision, log: LogEntry) -> Location:
        """Create a new item, with its question-log line in the same write where the backend can.

        Raise ConcurrentChange if one with this id appeared since ``find``.
        """
        ...

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        """Write a changed open decision in place (content, owner, escalations, state back to open)."""
        ...

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        """Record that each dependent waits for this open, blocking decision."""
        ...

    # -- resolution, in this order; each step idempotent ------------------------------------
    def record_answer(self, decision: Decision, answer: Answer) -> None:
        """(a) Record the answer durably; the decision stays open."""
        ...

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        """(b) Tell every dependent where the answer is (one note each, updated, never duplicated)."""
        ...

    def clear_blocking(self, decision: Decision) -> list[DependentState]:
        """(c) Remove the blocking edges; what still links each dependent."""
        ...

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        """(d) Mark the decision resolved, with its log line. Only after this does ``find`` say resolved."""
        ...

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
        """Close without an answer (the owner or config said so); dependents stay blocked."""
        ...

    # -- queries ------------------------------------------------------------------------------
    def linked_decisions(self, target: str) -> list[Decision]:
        """Every decision a dependent is linked to, by any route the backend knows."""
        ...

    def publish_gate(self, result: GateResult) -> None:
        """Make a gate result visible (a check run or commit status on GitHub; nothing to do in git)."""
        ...

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]: ...

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        """Open decisions of this origin task or of this run (either matches), for the question budgets."""
        ...

    # -- the question log -----------------------------------------------------------------------
    def append_log(self, entry: LogEntry) -> None:
        """Append one line that no state change carries (a refusal); a re-run may append it twice."""
        ...

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        """Every logged line, oldest first: what precedents are looked up in and the report counts.

        With ``about``, a backend may return only the entries that could be precedents for that
        decision (same key or same normalized question), so filing never reads the whole log.
        """
        ...

    # -- who may answer: facts only; the rules are in parkbot.core.authority ---------------------------
    def actor(self, claimed: str | None) -> Actor:
        """Who acts when a command runs with this backend's own credentials.

        GitHub: the login of the token (``claimed``, if given, must be that login); git: ``claimed``
        or the git user, which nothing vouches for unless answers are signed.
        """
        ...

    def is_member(self, login: str, principal: str) -> bool:
        """Whether ``login`` is ``principal`` (a login or e-mail) or a member of it (``@org/team``)."""
        ...

    def permission_of(self, login: str) -> Role | None:
        """The repository role of ``login``, None where the backend has no roles or the login none."""
        ...

    def dependent_authors(self, decision: Decision) -> frozenset[str]:
        """Logins (casefolded) of whoever authored the decision's dependents (pull requests), if known."""
        ...


# --- capabilities ----------------------------------------------------------------------------


@runtime_checkable
class ConflictingAnswers(Protocol):
    """A backend where two copies can each record an answer (the git backlog, merged by ``sync``)."""

    def confirm_answer(self, decision: Decision, answer: Answer) -> None:
        """An owner confirmed the answer that stands: the conflicting answers are settled (they stay in history)."""
        ...


@runtime_checkable
class Syncing(Protocol):
    """Share the backlog with a remote (the embedded git backlog)."""

    def sync(self, remote: str = "origin") -> SyncResult: ...


@runtime_checkable
class OwnIdentityRecords(Protocol):
    """A backend whose records count only when its own identity writes them (GitHub: parkbot's login).

    Run with anyone else's credentials (an owner's token on a workstation), an owner's act cannot be
    recorded as parkbot's own: it is left as that owner's comment command on the decision, which
    parkbot records under its own identity when the comment's event reaches it.
    """

    def writes_as_itself(self) -> bool:
        """Whether this run's credentials are the backend's own identity."""
        ...

    def post_command(self, decision: Decision, text: str) -> str:
        """Post ``text`` (a comment command) on the decision as the credentials' owner; its URL."""
        ...


@runtime_checkable
class DecisionIds(Protocol):
    """Every stored decision's id, without reading the decisions (near-miss suggestions for a mistyped id)."""

    def decision_ids(self) -> Iterator[str]: ...


@runtime_checkable
class BacklogHints(Protocol):
    """Why a lookup may come back empty although the item exists elsewhere (a backlog not fetched yet)."""

    def missing_hint(self) -> str | None:
        """What to do when nothing was found, or None when an empty answer needs no explanation."""
        ...


@runtime_checkable
class SharedCommits(Protocol):
    """A backend whose gates are published on commits that several dependents can share."""

    def sharing_commit(self, target: str) -> list[str]:
        """The other open dependents (``#N``) whose head is the commit ``target``'s gate is published on."""
        ...


__all__ = [
    "BacklogHints",
    "BranchRescan",
    "CommandCommentFacts",
    "CommentReactions",
    "CommentRecord",
    "CommentRecords",
    "CommitGates",
    "ConflictingAnswers",
    "DashboardIssue",
    "DecisionIds",
    "DependentState",
    "FindsPullsByCommit",
    "GateResult",
    "GateState",
    "IndexedDependents",
    "IssueComments",
    "Location",
    "LoggedEvents",
    "OwnIdentityRecords",
    "PollToken",
    "Pollable",
    "ReactionContent",
    "Role",
    "SeenDecisions",
    "SharedCommits",
    "SyncResult",
    "Syncing",
    "Tracker",
    "UnindexedDecisions",
]
