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
not hold (not parked yet, not fetched, a typo, or not an id at all) yields a placeholder open
decision titled "unknown decision (not in the backlog)": the gate fails closed. ``gate`` on a
branch that is not in the repository is an InvalidInput; while parking, such a dependent (named
before it was pushed) is linked through the index only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import ConcurrentChange, ContentChanged, InvalidInput, NotFound
from parkbot.core.identity import SEPARATOR
from parkbot.core.models import Answer, Decision, Escalation, LogEntry, utcnow
from parkbot.core.tracker import DependentState, GateResult, Location, Role, SyncResult
from parkbot.trackers.git import sources
from parkbot.trackers.git.layout import (
    CONFLICTS,
    DEFAULT_REF,
    ID_PATTERN,
    answer_path,
    check_id,
    conflicts_path,
    decision_path,
    normalize_target,
    precedent_paths,
)
from parkbot.trackers.git.process import NotARepository, RepositoryPaths, find_repository
from parkbot.trackers.git.proofs import Prover
from parkbot.trackers.git.refs import check_backlog_ref
from parkbot.trackers.git.repository import BacklogRepository, Change
from parkbot.trackers.git.signatures import Verifier, fingerprint, nonblocking_trailer, record_trailer
from parkbot.trackers.git.sync import Syncer
from parkbot.trackers.git.view import BacklogEdit, BacklogView

UNKNOWN_TITLE = "unknown decision (not in the backlog)"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: How many decisions ``iter_decisions`` proves in one batch (one signature lookup per batch).
PROOF_BATCH = 512


def _one_line(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _placeholder(raw: str) -> Decision:
    """An open, blocking stand-in for a trailer naming a decision this backlog does not hold."""
    origin, sep, key = raw.partition(SEPARATOR)
    return Decision(
        id=raw,
        origin=origin if sep else "unknown",
        key=key if sep else raw,
        title=UNKNOWN_TITLE,
        question=(
            f"A commit says `Blocked-by: {raw}`, but the backlog has no such decision. Park it, fetch the "
            "backlog (`parkbot sync`), or correct the trailer."
        ),
        owner="(nobody)",
        state="open",
        blocking=True,
        created_at=_EPOCH,
        updated_at=_EPOCH,
    )


def _needs_signature(answer: Answer) -> bool:
    """An answer someone gave must be signed (with ``require_signed``); one applied from a precedent has
    no one to sign it, so it is written unsigned and carries no authority: the decision stays open."""
    return answer.kind != "precedent"


def _new_hops(decision: Decision, standing: list[Escalation]) -> list[Escalation]:
    """The escalations ``decision`` records that are not among the ``standing`` ones (by fingerprint, not
    count: with signed answers the lifecycle writes back only the hops that carry authority, and an
    owner's hop identical to a forged one must be recorded, and signed, again)."""
    known = {fingerprint("escalation", decision.id, hop) for hop in standing}
    return [hop for hop in decision.escalations if fingerprint("escalation", decision.id, hop) not in known]


class GitTracker:
    """The :class:`~parkbot.core.tracker.Tracker` of the embedded backlog (layout, rules: the package docstrings)."""

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
        self.backlog.packer.enabled = auto_gc
        self._base_arg = base
        self._base: str | None = None
        self._base_known = False
        verifier = None
        if self.config.answers.require_signed:
            signers = self._signers_path(allowed_signers or self.config.answers.allowed_signers)
            verifier = Verifier(self.backlog.git, self.ref, signers, self.backlog.state_dir / "signatures")
            self.backlog.sign_answers = True
            self.backlog.allowed_signers_name = str(signers)
        self.prover = Prover(verifier, self.config)
        self.syncer = Syncer(self.backlog, self.prover)

    def _signers_path(self, path: str | Path) -> Path:
        """The allowed-signers file, relative to the top of the checkout (reviewed code), never the backlog ref."""
        candidate = Path(path).expanduser()
        if candidate.is_absolute():
            return candidate
        root = self.repo.working_tree_dir
        if root is None:
            raise InvalidInput(
                f"answers.allowed_signers is {str(path)!r}, relative to a checkout, but this repository is bare: "
                "give it as an absolute path"
            )
        return Path(root) / candidate

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

    # -- identity and authority facts ----------------------------------------------------------------

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

    def location(self, decision: Decision) -> Location:
        return Location(backend=self.backend, ref=self.ref, path=decision_path(decision.id))

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
        return (
            f"this repository has no {self.ref} yet (a clone does not fetch it): fetch it with `{sync}` "
            f"or `git fetch {remote} {self.ref}:{self.ref}`"
        )

    # -- reading --------------------------------------------------------------------------------------

    def _view(self) -> BacklogView:
        return BacklogView(self.backlog.snapshot(), self.ref)

    def _prove(self, decisions: list[Decision], view: BacklogView) -> list[Decision]:
        """Proofs on the records (with signed answers), and the answers that conflicted with a resolution."""
        proven = self.prover.prove(decisions, view.snapshot.commit)
        if not view.snapshot.listdir(CONFLICTS):
            return proven
        return [
            d.with_conflicting_answers(view.conflicting_answers(d.id)) if d.state == "resolved" else d for d in proven
        ]

    def find(self, decision_id: str) -> Decision | None:
        view = self._view()
        found = view.decision(check_id(decision_id))
        return self._prove([found], view)[0] if found is not None else None

    def recorded_answer(self, decision: Decision) -> Answer | None:
        """The answer file of step (a), else the resolved decision's answer; one that verifies first."""
        view = self._view()
        stored = view.decision(decision.id) or decision
        candidates = [a for a in (view.answer(decision.id), stored.answer if stored.state == "resolved" else None) if a]
        if not self.prover.active:
            return candidates[0] if candidates else None
        tip = view.snapshot.commit
        proven = [self.prover.prove_answer(decision.id, a, tip) for a in candidates]
        return next((a for a in proven if a.proof is not None and a.proof.good), proven[0] if proven else None)

    def decision_ids(self) -> Iterator[str]:
        """:class:`~parkbot.core.tracker.DecisionIds`: the ids in the backlog's tree, no record read."""
        return self._view().decision_ids()

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        """Every decision (``open``: only the open ones, read through the index), in storage order.

        With signed answers, ``open`` also yields the decisions stored as resolved whose answer carries
        no authority (the core reads them as open), so it scans every decision instead.
        """
        view = self._view()
        ids = view.open_ids() if state == "open" and not self.prover.active else None
        source = view.iter_decisions(ids) if ids is not None else view.all_decisions()
        batch: list[Decision] = []
        for decision in source:
            if state is None or decision.state == state or (state == "open" and decision.state == "resolved"):
                batch.append(decision)
            if len(batch) >= PROOF_BATCH:
                yield from self._select(self._prove(batch, view), state, view)
                batch = []
        yield from self._select(self._prove(batch, view), state, view)

    def _select(self, decisions: list[Decision], state: str | None, view: BacklogView) -> list[Decision]:
        if state != "open":
            return decisions
        tip = view.snapshot.commit
        return [d for d in decisions if d.state == "open" or not self.prover.resolution_counts(d, tip)]

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        """Open decisions of this origin or this run, read through the index (not a scan)."""
        view = self._view()
        found = view.decisions(view.candidate_ids(origin, run))
        return [d for d in found if d.state == "open" and (d.origin == origin or (run is not None and d.run == run))]

    # -- the question log -----------------------------------------------------------------------------

    def append_log(self, entry: LogEntry) -> None:
        """One line that no state change carries (a refusal), as a commit of its own."""

        def change(edit: BacklogEdit) -> Change:
            edit.append_log(entry)
            trailers = [f"Parkbot-Decision: {entry.decision}"] if entry.decision else []
            return Change(f"log: {entry.event} {entry.decision or entry.origin}", trailers)

        self.backlog.mutate(change)

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        """Every line, oldest first (one pipelined read of the log files).

        With ``about``, only the resolutions indexed under its key or its normalized question: the
        precedent candidates, read from two small files however long the log grows.
        """
        view = self._view()
        if about is not None:
            seen: set[bytes] = set()
            for path in precedent_paths(about.key, about.question):
                data = view.snapshot.read(path) or b""
                fresh = [line for line in data.splitlines() if line.strip() and line not in seen]
                seen.update(fresh)
                yield from view.parse_log(b"\n".join(fresh), path)
            return
        files = view.log_files()
        contents = dict(self.backlog.store.read_many(list(dict.fromkeys(oid for _, oid in files))))
        for path, oid in files:
            yield from view.parse_log(contents[oid], path)

    # -- gates ----------------------------------------------------------------------------------------

    def _full_ref(self, name: str) -> str | None:
        candidates = [name] if name.startswith("refs/") else [f"refs/heads/{name}", f"refs/remotes/{name}"]
        return next((ref for ref in candidates if self.backlog.ref_sha(ref) is not None), None)

    def base(self) -> str | None:
        """The ref a dependent branch is compared with: origin's HEAD, else ``main``, else ``master``."""
        if not self._base_known:
            if self._base_arg is not None:
                self._base = self._full_ref(self._base_arg) or self._base_arg
            else:
                self._base = self._remote_head() or self._full_ref("main") or self._full_ref("master")
            self._base_known = True
        return self._base

    def _remote_head(self) -> str | None:
        try:
            text = (self.backlog.common / "refs/remotes/origin/HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if text.startswith("ref: ") and self.backlog.ref_sha(text[5:]) is not None:
            return text[5:]
        return None

    def _trailer_ids(self, branch: str, *, strict: bool) -> list[str]:
        """Values of ``Blocked-by:`` trailers on the branch's own commits (one ``git log``).

        A branch that does not exist here yields nothing when ``strict`` is false (a dependent named
        before it was pushed) and an :class:`InvalidInput` otherwise (``parkbot gate`` on a typo).
        """
        if branch.startswith("-") or any(c.isspace() for c in branch):
            raise InvalidInput(f"{branch!r} is not a branch name")
        git_ = self.backlog.git
        rev = self._full_ref(branch)
        if rev is None:  # a commit id or another revision: ask git (rare, so one more process is fine)
            done = git_.run("rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}", check=False)
            if done.returncode != 0:
                if not strict:
                    return []
                raise InvalidInput(
                    f"branch {branch!r} is not in this repository (neither refs/heads/{branch}, "
                    f"refs/remotes/{branch} nor a commit): fetch it, or name it as a full ref"
                )
            rev = done.stdout.decode("ascii").strip()
        base = self.base()
        spec = rev if base is None or base == rev else f"{base}..{rev}"
        done = git_.run(
            "log", "--no-show-signature", "--format=%(trailers:key=Blocked-by,valueonly)", spec, "--", check=False
        )
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace").strip()
            raise InvalidInput(f"cannot read the commits {spec} (is the base {base!r} valid?): {stderr}")
        out = done.stdout.decode("utf-8", "replace")
        return [value.lower() for value in re.split(r"[\s,]+", out) if value]

    def _linked(self, view: BacklogView, target: str, *, strict: bool) -> list[Decision]:
        ids = view.link_ids(target)
        if target.startswith("branch:"):
            ids += self._trailer_ids(target.removeprefix("branch:"), strict=strict)
        unique = list(dict.fromkeys(ids))
        found = {d.id: d for d in view.decisions(i for i in unique if ID_PATTERN.match(i))}
        return self._prove([found.get(raw) or _placeholder(raw) for raw in unique], view)

    def linked_decisions(self, target: str) -> list[Decision]:
        """Decisions from the index plus, for a branch, its ``Blocked-by:`` trailers.

        Unknown ids in trailers come back as open placeholder decisions (the gate fails closed).
        A branch that cannot be read is an :class:`InvalidInput`.
        """
        return self._linked(self._view(), normalize_target(target), strict=True)

    def _states(self, targets: Iterable[str], decision_id: str) -> list[DependentState]:
        """What still links each dependent besides ``decision_id`` (the core evaluates the gates)."""
        view = self._view()
        return [
            DependentState(target, tuple(d for d in self._linked(view, target, strict=False) if d.id != decision_id))
            for target in dict.fromkeys(targets)
        ]

    def publish_gate(self, result: GateResult) -> None:
        """Nothing to write: ``parkbot gate`` reports the result and its exit code."""

    # -- writing --------------------------------------------------------------------------------------

    @staticmethod
    def _optional_trailers(decision: Decision) -> list[str]:
        """A filing that says ``blocking: false`` names that claim, so a signed commit can vouch for it."""
        optional = decision.kind == "decision" and not decision.blocking and decision.state == "open"
        return [nonblocking_trailer(decision)] if optional else []

    def _vouch_optional(self, decision: Decision) -> bool:
        """Sign a filing of ``blocking: false`` when answers must be signed and the filer has a signing key.

        Without a key the filing is still written, unsigned, and the question reads as blocking (an
        agent that may block nothing cannot be told from one that lowered its own question).
        """
        return (
            bool(self._optional_trailers(decision))
            and self.prover.active
            and self.backlog.settings().signing_key is not None
        )

    def _tip(self, edit: BacklogEdit) -> str | None:
        return edit.snapshot.commit

    def _require(self, edit: BacklogEdit, decision: Decision) -> Decision:
        stored = edit.decision(decision.id)
        if stored is None:
            raise NotFound(f"no decision {decision.id} on {self.ref}")
        return stored

    def _resolved_for_good(self, edit: BacklogEdit, stored: Decision) -> bool:
        """Resolved with an answer that carries authority (with signed answers, a forged one does not)."""
        return stored.state == "resolved" and (
            not self.prover.active or self.prover.resolution_counts(stored, self._tip(edit))
        )

    def create(self, decision: Decision, log: LogEntry) -> Location:
        def change(edit: BacklogEdit) -> Change:
            if edit.decision(decision.id) is not None:
                raise ConcurrentChange(f"decision {decision.id} was filed by another writer meanwhile")
            edit.put_decision(decision, None)
            edit.add_edges(decision.id, decision.dependents)
            edit.append_log(log)
            return Change(
                f"park: created {decision.id}\n\n{_one_line(decision.title, 200)}",
                [f"Parkbot-Decision: {decision.id}", *self._optional_trailers(decision)],
                signed=self._vouch_optional(decision),
            )

        self.backlog.mutate(change)
        return self.location(decision)

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        def change(edit: BacklogEdit) -> Change:
            stored = edit.decision(decision.id)
            if stored is not None and decision.state != "resolved" and self._resolved_for_good(edit, stored):
                raise ConcurrentChange(f"decision {decision.id} was resolved meanwhile")
            dependents = list(dict.fromkeys([*(stored.dependents if stored else []), *decision.dependents]))
            merged = decision.model_copy(update={"dependents": dependents})
            edit.put_decision(merged, stored)
            edit.add_edges(decision.id, decision.dependents)
            if log is not None:
                edit.append_log(log)
            hops = _new_hops(decision, self.prover.standing_escalations(stored, self._tip(edit)) if stored else [])
            overridden = stored is not None and len(decision.overrides) > len(stored.overrides)
            records = [record_trailer("escalation", decision.id, hop) for hop in hops]
            trailers = [f"Parkbot-Decision: {decision.id}", *records, *self._optional_trailers(merged)]
            signed = bool(hops) or overridden or self._vouch_optional(merged)
            if stored is not None and hops:
                hop = hops[-1]
                verb = "return" if hop.kind == "return" else "escalate"
                subject = f"{verb} {decision.id}: {hop.from_owner} -> {hop.to_owner}"
                return Change(subject, trailers, signed, always=True)
            if overridden:
                override = decision.overrides[-1]
                subject = f"review {decision.id}: assumption {override.assumption} overridden by {override.by}"
                return Change(subject, trailers, signed)
            if stored is not None and stored.state != decision.state:
                return Change(f"park: reopened {decision.id}", trailers, signed)
            return Change(f"park: updated {decision.id}", trailers, signed)

        self.backlog.mutate(change)
        return self.location(decision)

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        targets = [normalize_target(t) for t in decision.dependents]

        def change(edit: BacklogEdit) -> Change | None:
            added = edit.add_edges(decision.id, targets)
            if not added:
                return None
            return Change(f"park: link {decision.id} -> {', '.join(added)}", [f"Parkbot-Decision: {decision.id}"])

        self.backlog.mutate(change)
        return self._states(targets, decision.id)

    # -- resolution -----------------------------------------------------------------------------------

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        """(a) Record the answer. One recorded before stands (same: nothing to do; different: a
        concurrent change), unless answers must be signed and it carries no authority: then ours
        replaces it."""

        def change(edit: BacklogEdit) -> Change | None:
            stored = self._require(edit, decision)
            if answer.digest is not None and stored.state == "open" and stored.content_digest() != answer.digest:
                raise ContentChanged(f"the question or options of {decision.id} changed while it was being answered")
            tip = self._tip(edit)
            recorded = [
                a for a in (edit.answer(decision.id), stored.answer if stored.state == "resolved" else None) if a
            ]
            standing = [a for a in recorded if self.prover.counts(stored, a, tip)]
            if standing:
                if standing[0].same_answer(answer):
                    return None
                raise ConcurrentChange(f"decision {decision.id} was answered differently meanwhile")
            edit.put_answer(decision.id, answer)
            return Change(
                f"resolve {decision.id} (1/4): record answer {_one_line(answer.value)!r} by {answer.by}",
                [f"Parkbot-Decision: {decision.id}", record_trailer("answer", decision.id, answer)],
                signed=_needs_signature(answer),
                always=bool(recorded),  # replacing a record that carries no authority, perhaps by an identical one
            )

        self.backlog.mutate(change)

    def _dependents_of(self, edit: BacklogEdit, decision: Decision) -> list[str]:
        stored = edit.decision(decision.id)
        both = [*(stored.dependents if stored else []), *decision.dependents]
        return list(dict.fromkeys(normalize_target(t) for t in both))

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        note = {
            "decision": decision.id,
            "title": decision.title,
            "answer": answer.value,
            "kind": answer.kind,
            "assumption": answer.assumption,
            "by": answer.by,
            "at": answer.at.isoformat(),
            "where": f"{self.ref}:{answer_path(decision.id)}",
        }

        def change(edit: BacklogEdit) -> Change | None:
            pointed = []
            for target in self._dependents_of(edit, decision):
                notes = edit.notes(target)
                if notes["notes"].get(decision.id) != note:
                    notes["notes"][decision.id] = note
                    edit.put_notes(target, notes)
                    pointed.append(target)
            if not pointed:
                return None
            return Change(
                f"resolve {decision.id} (2/4): point {len(pointed)} dependent(s) at the answer\n\n"
                + "\n".join(pointed),
                [f"Parkbot-Decision: {decision.id}"],
            )

        self.backlog.mutate(change)

    def clear_blocking(self, decision: Decision) -> list[DependentState]:
        targets: list[str] = []

        def change(edit: BacklogEdit) -> Change | None:
            targets[:] = self._dependents_of(edit, decision)
            cleared = [target for target in targets if edit.remove_edge(decision.id, target)]
            if not cleared:
                return None
            return Change(
                f"resolve {decision.id} (3/4): clear blocking edges of {', '.join(cleared)}",
                [f"Parkbot-Decision: {decision.id}"],
            )

        self.backlog.mutate(change)
        return self._states(targets, decision.id)

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        def change(edit: BacklogEdit) -> Change | None:
            stored = self._require(edit, decision)
            if self._resolved_for_good(edit, stored):
                if stored.answer is not None and not stored.answer.same_answer(answer):
                    raise ConcurrentChange(f"decision {decision.id} was resolved differently meanwhile")
                return None
            closed = stored.model_copy(
                update={"state": "resolved", "answer": answer, "updated_at": max(utcnow(), stored.updated_at)}
            )
            edit.put_decision(closed, stored)
            edit.append_log(log)
            return Change(
                f"resolve {decision.id} (4/4): close",
                [f"Parkbot-Decision: {decision.id}", record_trailer("answer", decision.id, answer)],
                signed=_needs_signature(answer),
                always=stored.state == "resolved",  # a resolution that carried no authority, recorded again
            )

        self.backlog.mutate(change)

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
        def change(edit: BacklogEdit) -> Change | None:
            stored = self._require(edit, decision)
            if stored.state == "abandoned":
                return None
            if self._resolved_for_good(edit, stored):
                raise ConcurrentChange(f"decision {decision.id} was resolved meanwhile")
            abandoned = stored.model_copy(update={"state": "abandoned", "updated_at": max(utcnow(), stored.updated_at)})
            edit.put_decision(abandoned, stored)
            edit.append_log(log)
            return Change(f"abandon {decision.id}: {_one_line(reason, 120)}", [f"Parkbot-Decision: {decision.id}"])

        self.backlog.mutate(change)

    def confirm_answer(self, decision: Decision, answer: Answer) -> None:
        """:class:`~parkbot.core.tracker.ConflictingAnswers`: an owner gave the standing answer again; the answers
        that conflicted with it are settled (removed from the tree, kept in the history)."""

        def change(edit: BacklogEdit) -> Change | None:
            path = conflicts_path(decision.id)
            if edit.tx.read(path) is None:
                return None
            edit.tx.delete(path)
            return Change(
                f"resolve {decision.id}: {answer.by} confirms the answer {_one_line(answer.value)!r}",
                [f"Parkbot-Decision: {decision.id}", record_trailer("answer", decision.id, answer)],
                signed=_needs_signature(answer),
            )

        self.backlog.mutate(change)

    # -- sharing --------------------------------------------------------------------------------------

    def sync(self, remote: str = "origin") -> SyncResult:
        """:class:`~parkbot.core.tracker.Syncing`: see :class:`~parkbot.trackers.git.sync.Syncer`."""
        return self.syncer.sync(remote)

    def tracking_ref(self, remote: str) -> str:
        return self.syncer.tracking_ref(remote)

    # -- what a planner may cite (parkbot.core.planner.SourceFiles, MergedDependents) ---------------------

    def default_branch_commit(self) -> str | None:
        """The default branch's current commit (origin's HEAD, else main, else master)."""
        base = self.base()
        return self.backlog.ref_sha(base) if base else None

    def file_at(self, commit: str, path: str) -> str | None:
        return sources.file_at(self.backlog, commit, path)

    def merged_dependents(self, decision: Decision) -> frozenset[str]:
        """Dependent branches already contained in the default branch."""
        base = self.base()
        if base is None:
            return frozenset()
        merged = set()
        for target in decision.dependents:
            if target.startswith("branch:"):
                ref = self._full_ref(target.removeprefix("branch:"))
                if ref is not None and sources.is_merged(self.backlog, ref, base):
                    merged.add(target)
        return frozenset(merged)
