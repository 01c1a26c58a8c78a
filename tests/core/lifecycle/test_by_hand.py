"""parkbot.core.lifecycle.by_hand: an item closed or reopened by a person, and finishing a resolution stopped
part way.
"""

from __future__ import annotations

import pytest

from parkbot.core import lifecycle
from parkbot.core.config import Config, Owners
from parkbot.core.models import Answer
from tests.support.lifecycle import CONFIG, HERE, LATER, REVIEW, abandon, invalid, parked, refusal, resolve, reviewed
from tests.support.results import DID, NOW

# --- items closed or reopened by hand -----------------------------------------------------------------


def test_closing_a_resolved_question_by_hand_changes_nothing() -> None:
    tracker = parked()
    resolve(tracker)
    outcome = lifecycle.closed_by_hand(tracker, CONFIG, tracker.find(DID), "mallory", now=LATER)
    assert (outcome.action, outcome.message, outcome.decision) == ("ignored", f"{DID} is resolved", tracker.find(DID))


def test_closing_an_unanswered_question_by_hand_reopens_it_saying_why() -> None:
    tracker = parked(dependents=["#7"])
    outcome = lifecycle.closed_by_hand(tracker, CONFIG, tracker.find(DID), "mallory", now=LATER)
    assert (outcome.action, outcome.location, outcome.decision.state, tracker.find(DID).state) == (
        "reopened",
        HERE,
        "open",
        "open",
    )
    assert outcome.message == (
        "mallory closed this decision without an answer, and a question is only settled by an answer (its dependents "
        "stay blocked). Answer it, or answer with an explicit default. To give up on the question instead, set "
        "`closed_without_answer: abandon` in the configuration."
    )
    assert lifecycle.gate(tracker, CONFIG, "#7").state == "blocked"


def test_closing_an_unanswered_question_by_hand_abandons_it_where_configured() -> None:
    tracker = parked(dependents=["#7"])
    config = CONFIG.model_copy(update={"closed_without_answer": "abandon"})
    outcome = lifecycle.closed_by_hand(tracker, config, tracker.find(DID), "mallory", now=LATER)
    assert (outcome.action, outcome.message, outcome.decision.state) == (
        "abandoned",
        "closed by mallory without an answer",
        "abandoned",
    )
    assert tracker.find(DID).state == "abandoned"
    assert tracker.abandon_reasons[DID] == "closed by mallory without an answer"  # shown on the item
    line = tracker.log[-1]
    assert (line.event, line.decision, line.at, line.by, line.reason) == (
        "abandoned",
        DID,
        LATER,
        "mallory",
        "closed by mallory without an answer",
    )
    assert lifecycle.gate(tracker, CONFIG, "#7").state == "blocked"  # abandoned questions keep blocking
    lifecycle.closed_by_hand(tracker, config, tracker.find(DID), "mallory")
    assert tracker.log[-1].at > NOW  # the clock, when no time is given


@pytest.mark.parametrize(
    ("kind", "value"),
    [("option", "full_original"), ("free_text", "Refund it all"), ("default", "remaining_three")],
)
def test_closing_a_question_whose_answer_is_recorded_finishes_the_resolution(kind: str, value: str) -> None:
    tracker = parked(dependents=["#7"], allow_free_text=True)
    recorded = Answer(value=value, kind=kind, by="carol", at=NOW, source="comment-3")  # type: ignore[arg-type]
    tracker.answers[DID] = recorded
    outcome = lifecycle.closed_by_hand(tracker, CONFIG, tracker.find(DID), "mallory", now=LATER)
    assert (outcome.action, outcome.message) == ("finished", "finished a resolution that had stopped part-way")
    assert outcome.resolution is not None
    assert (outcome.resolution.action, outcome.resolution.answer) == ("completed", recorded)
    assert outcome.decision == outcome.resolution.decision
    assert tracker.find(DID).answer == recorded
    assert lifecycle.gate(tracker, CONFIG, "#7").state == "open"
    line = tracker.log[-1]
    assert (line.event, line.at, line.by, line.answer) == ("resolved", LATER, "carol", value)


def test_closing_a_review_whose_acceptance_is_recorded_finishes_it() -> None:
    tracker = reviewed()
    recorded = Answer(value="accepted", kind="accepted", by="carol", at=NOW)
    tracker.answers[REVIEW] = recorded
    outcome = lifecycle.closed_by_hand(tracker, CONFIG, tracker.find(REVIEW), "mallory", now=LATER)
    assert (outcome.action, outcome.resolution.action, tracker.find(REVIEW).answer) == (
        "finished",
        "completed",
        recorded,
    )
    assert tracker.log[-1].at == LATER


def test_a_recorded_precedent_is_not_finished_by_hand_but_by_resolve() -> None:
    tracker = parked()
    tracker.answers[DID] = Answer(value="full_original", kind="precedent", by="precedent", at=NOW)
    assert invalid(lifecycle.closed_by_hand, tracker, CONFIG, tracker.find(DID), "mallory") == (
        f"{DID}: a precedent answer is recorded but cannot be finished automatically; an owner finishes it by "
        "answering again"
    )


def test_a_recorded_answer_is_finished_only_while_its_author_still_owns_the_question() -> None:
    tracker = parked()
    tracker.answers[DID] = Answer(value="full_original", by="alice", at=NOW)
    moved = Config(owners=Owners(default="erin"))
    reason, _ = refusal(lifecycle.closed_by_hand, tracker, moved, tracker.find(DID), "mallory")
    assert reason == "not_authorized"


def test_reopening_a_resolved_question_by_hand_closes_it_again_with_its_answer() -> None:
    tracker = parked()
    answer = Answer(value="full_original", by="carol", at=NOW)
    tracker.answers[DID] = answer  # the backend reads the reopened item as open, its answer still recorded
    outcome = lifecycle.reopened_by_hand(tracker, CONFIG, tracker.find(DID), "mallory", was_resolved=True)
    assert (outcome.action, outcome.decision.state, outcome.decision.answer) == ("closed_again", "resolved", answer)
    assert outcome.message == (
        "this decision was resolved ('full_original' by carol), and a resolved decision stays resolved. If the "
        "situation changed, file a new question under another key."
    )
    stored = tracker.find(DID)
    assert (stored.state, stored.answer) == ("resolved", answer)
    line = tracker.log[-1]
    assert (line.event, line.at, line.answer, line.by) == ("resolved", NOW, "full_original", "carol")


def test_reopening_a_question_marked_resolved_without_an_answer_changes_nothing() -> None:
    tracker = parked()
    outcome = lifecycle.reopened_by_hand(tracker, CONFIG, tracker.find(DID), "mallory", was_resolved=True)
    assert (outcome.action, outcome.message) == ("ignored", f"{DID} is marked resolved but has no recorded answer")
    assert outcome.decision == tracker.find(DID)
    assert tracker.find(DID).state == "open"


def test_reopening_an_open_question_by_hand_changes_nothing() -> None:
    tracker = parked()
    writes = tracker.writes
    outcome = lifecycle.reopened_by_hand(tracker, CONFIG, tracker.find(DID), "mallory", was_resolved=False)
    assert (outcome.action, outcome.message, tracker.writes) == ("ignored", f"{DID} is open already", writes)
    assert outcome.decision == tracker.find(DID)


@pytest.mark.parametrize("how", ["read-as-abandoned", "said-abandoned"])
def test_reopening_an_abandoned_question_asks_it_again_and_blocks_its_dependents(how: str) -> None:
    tracker = parked(dependents=["#7"])
    abandon(tracker)
    decision = tracker.find(DID)
    if how == "said-abandoned":  # the backend reads it open; the event says it had been abandoned
        decision = decision.model_copy(update={"state": "open"})
    outcome = lifecycle.reopened_by_hand(
        tracker, CONFIG, decision, "mallory", was_resolved=False, was_abandoned=how == "said-abandoned"
    )
    assert (outcome.action, outcome.location, outcome.decision.state, tracker.find(DID).state) == (
        "revived",
        HERE,
        "open",
        "open",
    )
    assert outcome.message == (
        "mallory reopened this question: it is open again and blocks its dependents until it is answered."
    )
    assert [(g.target, g.state) for g in outcome.gates] == [("#7", "blocked")]
    assert tracker.published["#7"].state == "blocked"


def test_reopening_an_abandoned_non_blocking_question_gates_nothing() -> None:
    tracker = parked(dependents=["#7"], blocking=False)
    abandon(tracker)
    outcome = lifecycle.reopened_by_hand(tracker, CONFIG, tracker.find(DID), "mallory", was_resolved=False)
    assert (outcome.action, outcome.gates) == ("revived", [])
