"""Writing decisions to the backlog: filing, linking dependents, the four resolution steps, abandoning
(the writes of :class:`~parkbot.core.tracker.Tracker`, :class:`~parkbot.core.tracker.ConflictingAnswers`).

Each write is one commit, a function of the tree it read (:meth:`BacklogRepository.mutate`); a step whose
effect is already there writes nothing, so a re-run adds no commit. Commit subjects and trailers: the
module docstring of :mod:`parkbot.trackers.git.tracker`.
"""

from __future__ import annotations

from parkbot.core.errors import ConcurrentChange, ContentChanged, NotFound
from parkbot.core.models import Answer, Decision, Escalation, LogEntry, utcnow
from parkbot.core.tracker import DependentState, Location
from parkbot.trackers.git.change import Change
from parkbot.trackers.git.dependents import BranchDependents
from parkbot.trackers.git.edit import BacklogEdit
from parkbot.trackers.git.fingerprints import fingerprint, nonblocking_trailer, record_trailer
from parkbot.trackers.git.layout import answer_path, conflicts_path, normalize_target
from parkbot.trackers.git.proofs import Prover
from parkbot.trackers.git.reads import DecisionReads
from parkbot.trackers.git.repository import BacklogRepository


def _one_line(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


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


class DecisionWrites:
    """Every change a decision goes through, each a commit on the backlog ref (signed where it must be)."""

    def __init__(
        self, backlog: BacklogRepository, prover: Prover, reads: DecisionReads, dependents: BranchDependents
    ) -> None:
        self.backlog = backlog
        self.prover = prover
        self.reads = reads
        self.dependents = dependents

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
            raise NotFound(f"no decision {decision.id} on {self.backlog.ref}")
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
        return self.reads.location(decision)

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
        return self.reads.location(decision)

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        targets = [normalize_target(t) for t in decision.dependents]

        def change(edit: BacklogEdit) -> Change | None:
            added = edit.add_edges(decision.id, targets)
            if not added:
                return None
            return Change(f"park: link {decision.id} -> {', '.join(added)}", [f"Parkbot-Decision: {decision.id}"])

        self.backlog.mutate(change)
        return self.dependents.states(targets, decision.id)

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
            "where": f"{self.backlog.ref}:{answer_path(decision.id)}",
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
        return self.dependents.states(targets, decision.id)

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
