"""The :class:`~parkbot.core.tracker.Tracker` of the embedded git backlog: reading, writing, gates, the question log.

History: ``git log refs/parkbot/backlog`` reads as the decision history. Subjects are
``park: created <id>``, ``park: updated <id>``, ``park: reopened <id>``,
``park: link <id> -> <targets>``, ``escalate <id>: <from> -> <to>`` (``return ...`` when a
question is handed back), ``review <id>: assumption <n> overridden by <who>``,
``resolve <id> (1/4): record answer '<value>' by <who>``,
``resolve <id> (2/4): point <n> dependent(s) at the answer``,
``resolve <id> (3/4): clear blocking edges of <targets>``, ``resolve <id> (4/4): close``,
``abandon <id>: <reason>``, ``log: <event> <id>`` and ``sync: merge <remote> <ref>``. Every
decision commit carries a ``Parkbot-Decision: <id>`` trailer, and every commit that records an
answer or an escalation a ``Parkbot-Record:`` trailer per record (:mod:`~parkbot.trackers.git.signatures`).
A state change carries its question-log line in the same commit: a park is one commit.

Concurrency: a mutation is a function of the tree it read (:meth:`BacklogRepository.mutate`).
Every step writes nothing when its effect is already there, so a re-run adds no commit. ``create``
raises :class:`~parkbot.core.errors.ConcurrentChange` when the decision appeared meanwhile, ``update``
when it was resolved meanwhile (a stale re-filing never reopens a resolved decision), and
``record_answer`` when a different answer that carries authority was recorded meanwhile.

Signed answers: with ``answers.require_signed``, writes that record an answer or an escalation
are signed with the user's git signing setup (refused, exit 2, when that fails), and every answer
and escalation read back carries a :class:`~parkbot.core.models.Proof` checked against the
allowed-signers file of the checkout (never the backlog ref). A record without authority does not
stop an owner: the owner's signed answer replaces it.

Gates: a dependent is linked to a decision through the index (the ``dependents`` of a parked
result) or, for a branch, through ``Blocked-by: <decision-id>`` trailers on the commits in
``<base>..<branch>`` (all of the branch's commits when there is no base or the branch is the base;
the base is origin's HEAD, else ``main``, else ``master``). A trailer naming an id the backlog does
not hold (not parked yet, not fetched, a typo, or not an id at all) is reported as what it is ("not
found", "not a decision id parkbot can look up") and blocks as the core's stand-in
(:func:`parkbot.core.links.unverifiable_link`): the gate fails closed, with the reason GitHub gives too.
``gate`` on a branch that is not in the repository is an InvalidInput; while parking, such a dependent
(named before it was pushed) is linked through the index only.

Parts: :class:`GitTracker` is a facade over parts that each implement one or a few of the protocols of
:mod:`parkbot.core.tracker`: :class:`~parkbot.trackers.git.reads.DecisionReads` (reading),
:class:`~parkbot.trackers.git.writes.DecisionWrites` (filing and resolution),
:class:`~parkbot.trackers.git.question_log.QuestionLog`, :class:`~parkbot.trackers.git.facts.AuthorityFacts`
(who acts, what is verified), :class:`~parkbot.trackers.git.dependents.BranchDependents` (links and gates),
:class:`~parkbot.trackers.git.sources.PlannerSources` (what a planner may cite) and, loaded by ``sync``
only, :class:`~parkbot.trackers.git.sync.Syncer`.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.links import UNVERIFIED_TITLE
from parkbot.trackers.git.dependents import BranchDependents
from parkbot.trackers.git.facts import AuthorityFacts
from parkbot.trackers.git.forward import Forward, Later
from parkbot.trackers.git.layout import DEFAULT_REF
from parkbot.trackers.git.process import NotARepository, RepositoryPaths, find_repository
from parkbot.trackers.git.proofs import Prover
from parkbot.trackers.git.reads import PROOF_BATCH, DecisionReads
from parkbot.trackers.git.refs import check_backlog_ref
from parkbot.trackers.git.repository import BacklogRepository

if TYPE_CHECKING:
    from parkbot.core.merge import SyncResult
    from parkbot.trackers.git.question_log import QuestionLog
    from parkbot.trackers.git.sources import PlannerSources
    from parkbot.trackers.git.sync import Syncer
    from parkbot.trackers.git.writes import DecisionWrites
else:  # the parts that write, and the planner's: imported when a command first uses one (reads never do)
    DecisionWrites = Later("parkbot.trackers.git.writes", "DecisionWrites")
    QuestionLog = Later("parkbot.trackers.git.question_log", "QuestionLog")
    PlannerSources = Later("parkbot.trackers.git.sources", "PlannerSources")

#: The title a link the backlog cannot follow shows (the core's stand-in, the same on every backend).
UNKNOWN_TITLE = UNVERIFIED_TITLE

__all__ = ["PROOF_BATCH", "UNKNOWN_TITLE", "GitTracker"]


def _signers_path(repo: RepositoryPaths, path: str | Path) -> Path:
    """The allowed-signers file, relative to the top of the checkout (reviewed code), never the backlog ref."""
    candidate = Path(path).expanduser()
    if candidate.is_absolute():
        return candidate
    root = repo.working_tree_dir
    if root is None:
        raise InvalidInput(
            f"answers.allowed_signers is {str(path)!r}, relative to a checkout, but this repository is bare: "
            "give it as an absolute path"
        )
    return Path(root) / candidate


class GitTracker:
    """The :class:`~parkbot.core.tracker.Tracker` of the embedded backlog (layout, rules: the package docstrings).

    A facade: it opens the repository, composes the parts and names which part answers each method.
    """

    backend = "git"

    def __init__(
        self,
        repo: RepositoryPaths,
        *,
        ref: str | None = None,
        base: str | None = None,
        auto_gc: bool = True,
        config: Config | None = None,
        allowed_signers: str | Path | None = None,
    ) -> None:
        self.config = config or Config()
        self.ref = check_backlog_ref(ref or self.config.backlog_ref, DEFAULT_REF)
        self.repo = repo
        self.backlog = BacklogRepository(repo, self.ref)
        if not auto_gc:
            self.backlog.packer.enabled = False
        verifier = None
        if self.config.answers.require_signed:
            from parkbot.trackers.git.signatures import Verifier  # verification code only for signed answers

            signers = _signers_path(repo, allowed_signers or self.config.answers.allowed_signers)
            verifier = Verifier(self.backlog.git, self.ref, signers, self.backlog.state_dir / "signatures")
            self.backlog.sign_answers = True
            self.backlog.allowed_signers_name = str(signers)
        self.prover = Prover(verifier, self.config)
        self.reading = DecisionReads(self.backlog, self.prover)
        self.facts = AuthorityFacts(self.backlog, self.prover)
        self.dependents = BranchDependents(self.backlog, self.reading, base=base)

    # -- the parts made on first use (a command that only reads loads none of them) ----------------------

    @cached_property
    def writing(self) -> DecisionWrites:
        return DecisionWrites(self.backlog, self.prover, self.reading, self.dependents)

    @cached_property
    def question_log(self) -> QuestionLog:
        return QuestionLog(self.backlog, self.reading)

    @cached_property
    def sources(self) -> PlannerSources:
        return PlannerSources(self.backlog, self.dependents)

    @classmethod
    def open(
        cls,
        path: str | Path = ".",
        *,
        ref: str | None = None,
        base: str | None = None,
        config: Config | None = None,
    ) -> GitTracker:
        """The backlog of the repository containing ``path`` (parent directories are searched by git)."""
        try:
            repo = find_repository(path)
        except NotARepository as exc:
            said = str(exc)
            why = "" if "not a git repository" in said or "does not exist" in said else f" (git: {said})"
            raise InvalidInput(
                f"{Path(path).resolve()} is not inside a git repository{why}; run `git init` there",
                step="other_backend",
            ) from exc
        return cls(repo, ref=ref, base=base, config=config)

    def release(self) -> None:
        """Stop the helper processes."""
        self.backlog.close()

    def __enter__(self) -> GitTracker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    @property
    def cas_attempts(self) -> int:
        return self.backlog.cas_attempts

    @cas_attempts.setter
    def cas_attempts(self, value: int) -> None:
        self.backlog.cas_attempts = value

    # -- identity and authority facts (Tracker, SignedRecords, BacklogHints) ----------------------------
    default_owner = Forward("facts", AuthorityFacts.default_owner)
    actor = Forward("facts", AuthorityFacts.actor)
    is_member = Forward("facts", AuthorityFacts.is_member)
    permission_of = Forward("facts", AuthorityFacts.permission_of)
    dependent_authors = Forward("facts", AuthorityFacts.dependent_authors)
    claim = Forward("facts", AuthorityFacts.claim)
    verifies_signatures = Forward("facts", AuthorityFacts.verifies_signatures)
    missing_hint = Forward("facts", AuthorityFacts.missing_hint)

    # -- reading (Tracker, DecisionIds) -----------------------------------------------------------------
    location = Forward("reading", DecisionReads.location)
    find = Forward("reading", DecisionReads.find)
    recorded_answer = Forward("reading", DecisionReads.recorded_answer)
    decision_ids = Forward("reading", DecisionReads.decision_ids)
    iter_decisions = Forward("reading", DecisionReads.iter_decisions)
    open_decisions = Forward("reading", DecisionReads.open_decisions)

    # -- the question log (Tracker) ---------------------------------------------------------------------
    append_log = Forward("question_log", QuestionLog.append_log)
    iter_log = Forward("question_log", QuestionLog.iter_log)

    # -- dependents and gates (Tracker) -----------------------------------------------------------------
    base = Forward("dependents", BranchDependents.base)
    linked_decisions = Forward("dependents", BranchDependents.linked_decisions)
    publish_gate = Forward("dependents", BranchDependents.publish_gate)

    # -- writing and resolution (Tracker, ConflictingAnswers) -------------------------------------------
    create = Forward("writing", DecisionWrites.create)
    update = Forward("writing", DecisionWrites.update)
    block_dependents = Forward("writing", DecisionWrites.block_dependents)
    record_answer = Forward("writing", DecisionWrites.record_answer)
    point_dependents = Forward("writing", DecisionWrites.point_dependents)
    clear_blocking = Forward("writing", DecisionWrites.clear_blocking)
    close = Forward("writing", DecisionWrites.close)
    mark_abandoned = Forward("writing", DecisionWrites.mark_abandoned)
    confirm_answer = Forward("writing", DecisionWrites.confirm_answer)

    # -- what a planner may cite (parkbot.core.planner.SourceFiles, MergedDependents) -------------------
    default_branch_commit = Forward("sources", PlannerSources.default_branch_commit)
    file_at = Forward("sources", PlannerSources.file_at)
    merged_dependents = Forward("sources", PlannerSources.merged_dependents)

    # -- sharing (Syncing): the merge code is loaded by ``parkbot sync`` only ---------------------------

    def sync(self, remote: str = "origin") -> SyncResult:
        """:class:`~parkbot.core.tracker.Syncing`: see :class:`~parkbot.trackers.git.sync.Syncer`."""
        return self.syncer.sync(remote)

    def tracking_ref(self, remote: str) -> str:
        return self.syncer.tracking_ref(remote)

    @cached_property
    def syncer(self) -> Syncer:
        """Made for ``parkbot sync`` only: no other command loads the merge code."""
        from parkbot.trackers.git.sync import Syncer

        return Syncer(self.backlog, self.prover)


if TYPE_CHECKING:
    from parkbot.core.authority import SignedRecords
    from parkbot.core.planner import MergedDependents, SourceFiles
    from parkbot.core.tracker import BacklogHints, ConflictingAnswers, DecisionIds, Syncing, Tracker

    def _conforms(
        tracker: GitTracker,
    ) -> tuple[Tracker, ConflictingAnswers, DecisionIds, BacklogHints, Syncing, SignedRecords, SourceFiles]:
        """mypy checks here that the facade offers every protocol it claims, its forwards included."""
        return (tracker, tracker, tracker, tracker, tracker, tracker, tracker)

    def _merged(tracker: GitTracker) -> MergedDependents:
        return tracker
