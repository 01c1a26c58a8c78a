"""parkbot.core.lifecycle.gates: the gate of a dependent, and the merge-queue gate."""

from __future__ import annotations

from typing import Any

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.models import Decision, NeedsInput
from parkbot.core.tracker import DependentState, GateResult
from tests.support.lifecycle import resolve
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID, NOW, SHORT, result

CONFIG = Config(owners=Owners(default="alice"))
SHA = "a" * 40


def needs_input(key: str, **changes: Any) -> NeedsInput:
    """A yes-or-no question of the shared origin, named by ``key``."""
    return result(SHORT, key=key, question=f"Which way for {key}?", options=["yes: do it", "no: leave it"], **changes)


def test_a_queued_pull_request_with_an_open_blocking_decision_fails_the_queue_commit() -> None:
    tracker = MemoryTracker()
    parked = lifecycle.park(tracker, needs_input("refund", dependents=["#7"]), CONFIG)
    queued = lifecycle.queue_gate(tracker, CONFIG, SHA, [7])
    assert queued.state == "failure"  # fails at once: nobody answers inside the queue's timeout
    assert queued.result.target == f"merge_group:{SHA}"
    assert [d.id for d in queued.result.blocking] == [parked.decision.id]


def test_the_queue_commit_is_blocked_while_any_queued_pull_request_waits() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, needs_input("refund", dependents=["#7"]), CONFIG)
    waiting = lifecycle.park(tracker, needs_input("scope", dependents=["#8"]), CONFIG)
    lifecycle.resolve(tracker, CONFIG, "billing-42-decision-refund", "yes", Actor("alice"))
    queued = lifecycle.queue_gate(tracker, CONFIG, SHA, [7, 8])
    assert queued.state == "failure"
    assert [d.id for d in queued.result.blocking] == [waiting.decision.id]
    assert [d.id for d in queued.result.resolved] == ["billing-42-decision-refund"]


def test_the_queue_commit_passes_once_every_decision_is_answered_or_optional() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, needs_input("refund", dependents=["#7"]), CONFIG)
    lifecycle.park(tracker, needs_input("note", dependents=["#7"], blocking=False), CONFIG)
    lifecycle.resolve(tracker, CONFIG, "billing-42-decision-refund", "no", Actor("alice"))
    queued = lifecycle.queue_gate(tracker, CONFIG, SHA, [7])
    assert queued.state == "success"
    assert queued.result.blocking == ()


def test_a_pull_request_nothing_links_passes() -> None:
    queued = lifecycle.queue_gate(MemoryTracker(), CONFIG, SHA, [9])
    assert queued.state == "success"
    assert queued.result.blocking == ()
    assert queued.result.resolved == ()


def test_a_gates_note_and_waiting_neighbours_are_typed_and_shown_only_where_set() -> None:
    plain = GateResult("#7")
    assert (plain.note, plain.same_commit, plain.details) == (None, (), {})
    held = GateResult("#7", note="no open pull request", same_commit=("#8",))
    assert held.details == {"note": "no open pull request", "same_commit": ["#8"]}


class NoPullRequestYet(MemoryTracker):
    """A backend whose dependents have nothing to carry a gate yet (a branch without a pull request)."""

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        return [DependentState(t, publishable=False, note=f"{t} has no pull request yet") for t in decision.dependents]

    clear_blocking = block_dependents


def test_a_dependent_that_cannot_show_a_gate_yet_is_reported_with_the_backends_note_unpublished() -> None:
    tracker = NoPullRequestYet()
    outcome = lifecycle.park(tracker, result(dependents=["branch:agent/x"]), CONFIG, now=NOW)
    (gate,) = outcome.gates
    assert (gate.target, gate.state, [d.id for d in gate.blocking], gate.details) == (
        "branch:agent/x",
        "blocked",
        [DID],
        {"note": "branch:agent/x has no pull request yet"},
    )
    (answered,) = resolve(tracker).gates
    assert ([d.id for d in answered.resolved], answered.state) == ([DID], "open")
    assert tracker.published == {}


class SharedCommit(MemoryTracker):
    """A backend that publishes gates on commits (GitHub): ``#7`` and ``#8`` are opened at one head."""

    def sharing_commit(self, target: str) -> list[str]:
        return [t for t in ("#7", "#8") if t != target]


def test_answering_one_pull_request_s_question_keeps_the_commit_blocked_while_its_neighbour_waits() -> None:
    tracker = SharedCommit()
    lifecycle.park(tracker, needs_input("refund", dependents=["#7"]), CONFIG, now=NOW)
    waiting = lifecycle.park(tracker, needs_input("scope", dependents=["#8"]), CONFIG, now=NOW)
    outcome = lifecycle.resolve(tracker, CONFIG, "billing-42-decision-refund", "yes", Actor("alice"), now=NOW)
    (published,) = outcome.gates
    assert (published.target, [d.id for d in published.blocking], published.same_commit) == (
        "#7",
        [waiting.decision.id],
        ("#8",),
    )
    assert tracker.published["#7"] == published  # the commit's check stays red for #8
    lifecycle.resolve(tracker, CONFIG, waiting.decision.id, "no", Actor("alice"), now=NOW)
    assert (tracker.published["#8"].state, tracker.published["#8"].same_commit) == ("open", ())
