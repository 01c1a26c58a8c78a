"""Reading decisions from the backlog: one snapshot per call, proofs attached (the storage reads of
:class:`~parkbot.core.tracker.Tracker`, :class:`~parkbot.core.tracker.DecisionIds`)."""

from __future__ import annotations

from collections.abc import Iterator

from parkbot.core.models import Answer, Decision
from parkbot.core.tracker import Location
from parkbot.trackers.git.layout import CONFLICTS, check_id, decision_path
from parkbot.trackers.git.proofs import Prover
from parkbot.trackers.git.repository import BacklogRepository
from parkbot.trackers.git.view import BacklogView

#: How many decisions ``iter_decisions`` proves in one batch (one signature lookup per batch).
PROOF_BATCH = 512


class DecisionReads:
    """Decisions as the backlog's tip holds them, each with the proofs its records carry."""

    backend = "git"

    def __init__(self, backlog: BacklogRepository, prover: Prover) -> None:
        self.backlog = backlog
        self.prover = prover

    def view(self) -> BacklogView:
        """The backlog's files at its tip (one snapshot: every read of one call sees the same commit)."""
        return BacklogView(self.backlog.snapshot(), self.backlog.ref)

    def prove(self, decisions: list[Decision], view: BacklogView) -> list[Decision]:
        """Proofs on the records (with signed answers), and the answers that conflicted with a resolution."""
        proven = self.prover.prove(decisions, view.snapshot.commit)
        if not view.snapshot.listdir(CONFLICTS):
            return proven
        return [
            d.with_conflicting_answers(view.conflicting_answers(d.id)) if d.state == "resolved" else d for d in proven
        ]

    def location(self, decision: Decision) -> Location:
        return Location(backend=self.backend, ref=self.backlog.ref, path=decision_path(decision.id))

    def find(self, decision_id: str) -> Decision | None:
        view = self.view()
        found = view.decision(check_id(decision_id))
        return self.prove([found], view)[0] if found is not None else None

    def recorded_answer(self, decision: Decision) -> Answer | None:
        """The answer file of step (a), else the resolved decision's answer; one that verifies first."""
        view = self.view()
        stored = view.decision(decision.id) or decision
        candidates = [a for a in (view.answer(decision.id), stored.answer if stored.state == "resolved" else None) if a]
        if not self.prover.active:
            return candidates[0] if candidates else None
        tip = view.snapshot.commit
        proven = [self.prover.prove_answer(decision.id, a, tip) for a in candidates]
        return next((a for a in proven if a.proof is not None and a.proof.good), proven[0] if proven else None)

    def decision_ids(self) -> Iterator[str]:
        """:class:`~parkbot.core.tracker.DecisionIds`: the ids in the backlog's tree, no record read."""
        return self.view().decision_ids()

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        """Every decision (``open``: only the open ones, read through the index), in storage order.

        With signed answers, ``open`` also yields the decisions stored as resolved whose answer carries
        no authority (the core reads them as open), so it scans every decision instead.
        """
        view = self.view()
        if state is None and not self.prover.active and not view.snapshot.listdir(CONFLICTS):
            yield from view.all_decisions()  # nothing to prove or attach: each decision as it is read
            return
        ids = view.open_ids() if state == "open" and not self.prover.active else None
        source = view.iter_decisions(ids) if ids is not None else view.all_decisions()
        batch: list[Decision] = []
        for decision in source:
            if state is None or decision.state == state or (state == "open" and decision.state == "resolved"):
                batch.append(decision)
            if len(batch) >= PROOF_BATCH:
                yield from self._select(self.prove(batch, view), state, view)
                batch = []
        yield from self._select(self.prove(batch, view), state, view)

    def _select(self, decisions: list[Decision], state: str | None, view: BacklogView) -> list[Decision]:
        if state != "open":
            return decisions
        tip = view.snapshot.commit
        return [d for d in decisions if d.state == "open" or not self.prover.resolution_counts(d, tip)]

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        """Open decisions of this origin or this run, read through the index (not a scan)."""
        view = self.view()
        found = view.decisions(view.candidate_ids(origin, run))
        return [d for d in found if d.state == "open" and (d.origin == origin or (run is not None and d.run == run))]
