"""The gate of a dependent: blocked while a linked, blocking decision is unresolved; per commit."""

from __future__ import annotations

from parkbot.core.config import Config
from parkbot.core.lifecycle.reading import verify
from parkbot.core.models import Decision
from parkbot.core.tracker import DependentState, GateResult, SharedCommits, Tracker


def block_and_publish(tracker: Tracker, config: Config, decision: Decision) -> list[GateResult]:
    """Link a blocking decision's dependents and publish their (blocked) gates."""
    if not (decision.blocking and decision.dependents):
        return []
    return publish_gates(tracker, config, decision, tracker.block_dependents(decision))


def publish_gates(
    tracker: Tracker, config: Config, decision: Decision, states: list[DependentState]
) -> list[GateResult]:
    """Evaluate each dependent's gate from ``decision`` as it now stands and whatever else still links the
    dependent, and publish it where it can be shown. The other decisions are read as ``parkbot gate`` reads
    them, each with only the authority its records prove: a stored resolution nobody entitled signed
    keeps the dependent blocked here too."""
    results = []
    for state in states:
        linked = [verify(tracker, config, d) for d in state.others if d.id != decision.id]
        result = evaluate_gate(state.target, [decision, *linked])
        if state.note:
            result = result._replace(note=state.note)
        if state.publishable:
            result = per_commit(tracker, config, result=result, current=decision)
            tracker.publish_gate(result)
        results.append(result)
    return results


def evaluate_gate(target: str, linked: list[Decision], *, ignore: str | None = None) -> GateResult:
    """Blocked while any linked, blocking decision is not resolved (abandoned ones keep blocking)."""
    unique = {d.id: d for d in linked if d.id != ignore}
    blocking = tuple(d for d in unique.values() if d.state != "resolved" and d.blocking)
    resolved = tuple(d for d in unique.values() if d.state == "resolved")
    return GateResult(target=target, blocking=blocking, resolved=resolved)


def linked(tracker: Tracker, config: Config, target: str) -> list[Decision]:
    """The decisions a dependent waits for, each with only the authority its records prove."""
    return [verify(tracker, config, d) for d in tracker.linked_decisions(target)]


def gate(tracker: Tracker, config: Config, target: str) -> GateResult:
    """Evaluate and publish the gate of one dependent (``#N`` or ``branch:<name>``)."""
    result = per_commit(tracker, config, evaluate_gate(target, linked(tracker, config, target)))
    tracker.publish_gate(result)
    return result


def per_commit(tracker: Tracker, config: Config, result: GateResult, *, current: Decision | None = None) -> GateResult:
    """The gate is per commit: an open result is published only when no other dependent at that commit waits.

    Branch protection reads the newest check on a commit, whichever pull request it was published
    for, so a second pull request opened at a blocked head must not turn that commit green. The
    blockers of every dependent at the commit are named. ``current`` is a decision as this run has
    just changed it (resolved), which its stored record may not show yet.
    """
    if result.blocking or not isinstance(tracker, SharedCommits):
        return result
    blockers: dict[str, Decision] = {}
    waiting: list[str] = []
    for other in tracker.sharing_commit(result.target):
        found = linked(tracker, config, other)
        if current is not None:
            found = [current if d.id == current.id else d for d in found]
        sibling = evaluate_gate(other, found)
        if sibling.blocking:
            waiting.append(other)
            blockers.update((d.id, d) for d in sibling.blocking)
    if not blockers:
        return result
    return result._replace(blocking=tuple(blockers.values()), same_commit=tuple(waiting))
