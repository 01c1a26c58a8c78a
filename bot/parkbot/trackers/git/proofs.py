"""Proofs on what the backlog returns, and the core's authority rule applied to them.

With ``answers.require_signed``, every answer and escalation read from the backlog carries a
:class:`~parkbot.core.models.Proof` (who signed the commit that recorded it, see
:mod:`~parkbot.trackers.git.signatures`). Which proofs carry authority is the core's rule
(:func:`parkbot.core.authority.verified`); the adapter asks it in two places: a write must not replace
an answer that carries authority (it may replace one that does not), and ``sync`` reports the
remote records that carry none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from parkbot.core import authority
from parkbot.core.config import Config
from parkbot.core.models import Answer, Decision, Escalation, Proof
from parkbot.trackers.git.fingerprints import fingerprint, nonblocking_fingerprint
from parkbot.trackers.git.layout import is_index_path
from parkbot.trackers.git.objects import ObjectStore, Snapshot, changed_files
from parkbot.trackers.git.view import BacklogView

if TYPE_CHECKING:  # a Verifier exists only when answers must be signed: the tracker loads it then
    from parkbot.trackers.git.signatures import Verifier


def _optional(decision: Decision) -> bool:
    """A question that says it blocks nothing: that claim needs a signed filing to count."""
    return decision.kind == "decision" and not decision.blocking and decision.state != "resolved"


class Prover:
    """Attaches proofs (when answers must be signed) and judges records by the core's rule."""

    def __init__(self, verifier: Verifier | None, config: Config) -> None:
        self.verifier = verifier
        self.config = config

    @property
    def active(self) -> bool:
        return self.verifier is not None

    def prove(self, decisions: Sequence[Decision], tip: str | None) -> list[Decision]:
        """The decisions with a proof on their answer and on each escalation (unchanged when inactive)."""
        if self.verifier is None or not decisions:
            return list(decisions)
        wanted: list[tuple[str, str]] = []
        for decision in decisions:
            if decision.answer is not None:
                wanted.append((fingerprint("answer", decision.id, decision.answer), decision.answer.by))
            wanted += [(fingerprint("escalation", decision.id, hop), hop.by) for hop in decision.escalations]
            if _optional(decision):
                wanted.append((nonblocking_fingerprint(decision), decision.owner))
        proofs = self.verifier.proofs(tip, wanted)
        return [self._attach(d, proofs) for d in decisions]

    @staticmethod
    def _attach(decision: Decision, proofs: dict[str, Proof]) -> Decision:
        if _optional(decision):
            decision = decision.with_blocking_proof(proofs.get(nonblocking_fingerprint(decision)))
        if decision.answer is None and not decision.escalations:
            return decision
        update: dict[str, object] = {}
        if decision.answer is not None:
            update["answer"] = decision.answer.with_proof(
                proofs.get(fingerprint("answer", decision.id, decision.answer))
            )
        if decision.escalations:
            hops: list[Escalation] = [
                hop.with_proof(proofs.get(fingerprint("escalation", decision.id, hop))) for hop in decision.escalations
            ]
            update["escalations"] = hops
        return decision.model_copy(update=update)

    def prove_answer(self, decision_id: str, answer: Answer, tip: str | None) -> Answer:
        if self.verifier is None:
            return answer
        found = self.verifier.proofs(tip, [(fingerprint("answer", decision_id, answer), answer.by)])
        proven: Answer = answer.with_proof(next(iter(found.values()), None))
        return proven

    def with_answer(self, stored: Decision, answer: Answer, tip: str | None) -> Decision:
        """``stored`` as if resolved with ``answer``, both proven: what the core's rule is asked about."""
        candidate = stored.model_copy(update={"state": "resolved", "answer": answer})
        return self.prove([candidate], tip)[0]

    def counts(self, stored: Decision, answer: Answer, tip: str | None) -> bool:
        """Whether ``answer`` to ``stored`` carries authority (always, unless answers must be signed)."""
        if self.verifier is None:
            return True
        return authority.verified(self.with_answer(stored, answer, tip), self.config).answer is not None

    def standing_escalations(self, stored: Decision, tip: str | None) -> list[Escalation]:
        """The escalations of ``stored`` that carry authority (all of them, unless answers must be signed)."""
        if self.verifier is None:
            return list(stored.escalations)
        return list(authority.verified(self.prove([stored], tip)[0], self.config).escalations)

    def resolution_counts(self, stored: Decision, tip: str | None) -> bool:
        """Whether ``stored`` is resolved with an answer that carries authority."""
        return stored.state == "resolved" and stored.answer is not None and self.counts(stored, stored.answer, tip)

    def audit(self, store: ObjectStore, ref: str, old: str | None, new: str) -> list[str]:
        """The records a change of the ref from ``old`` to ``new`` brought that carry no authority.

        Used by ``sync``: a remote answer or escalation nobody can prove was an owner's is kept (it
        stays in history) but reported, and reads do not count it.
        """
        if self.verifier is None:
            return []
        old_tree = store.commit_tree(old) if old else None
        changed = changed_files(store, old_tree, store.commit_tree(new), under=("decisions", "answers"))
        ids = sorted(
            {
                p.rsplit("/", 1)[-1].removesuffix(".json")
                for p in changed
                if p.endswith(".json") and not is_index_path(p)
            }
        )
        before = BacklogView(Snapshot(store, old), ref)
        after = BacklogView(Snapshot(store, new), ref)
        notes: list[str] = []
        for decision_id in ids:
            seen = set(self._problems(before, decision_id, old))
            notes += [f"{decision_id}: {p}" for p in self._problems(after, decision_id, new) if p not in seen]
        return notes

    def _problems(self, view: BacklogView, decision_id: str, tip: str | None) -> list[str]:
        stored = view.decision(decision_id)
        if stored is None or tip is None:
            return []
        problems = list(authority.verified(self.prove([stored], tip)[0], self.config).problems)
        pending = view.answer(decision_id)
        if pending is not None and stored.state != "resolved":
            problems += authority.verified(self.with_answer(stored, pending, tip), self.config).problems
        return list(dict.fromkeys(p for p in problems if p.startswith("unverified")))
