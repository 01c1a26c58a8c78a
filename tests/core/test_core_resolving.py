"""The answer rules of parkbot.core.lifecycle.resolving that the backends reach only in a race or a corner:
an answer recorded while a re-filing changed the options, an answer given the moment they changed, a review
item answered like a question. Pinned on the in-memory tracker with the words a person reads."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import ContentChanged, InvalidInput, Refused
from parkbot.core.models import Answer, Decision, parse_result
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result

DID = "billing-42-decision-refund"
REVIEW = "billing-42-decision-assumptions"
LATER = NOW + timedelta(hours=1)
CONFIG = Config(owners=Owners(default="alice"))


class ChangedWhileRecording(MemoryTracker):
    """A backend that finds, when it records the answer, that a re-filing changed the options meanwhile."""

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        raise ContentChanged("the options changed since the decision was read")


def parked(tracker: MemoryTracker | None = None) -> MemoryTracker:
    tracker = tracker or MemoryTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    return tracker


def test_an_answer_recorded_while_the_options_changed_is_refused_and_says_to_read_them_again() -> None:
    tracker = parked(ChangedWhileRecording())
    with pytest.raises(Refused) as refused:
        lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    assert refused.value.reason == "options_changed"
    assert refused.value.message == (
        "the options changed after you read them; answer again: the question or options of "
        f"{DID} were changed by a re-filing after that, so the answer is not applied to text you did not read. "
        "Read them again, then answer."
    )
    assert tracker.find(DID).state == "open"  # type: ignore[union-attr]


def refiled() -> MemoryTracker:
    tracker = parked()
    lifecycle.park(
        tracker, result(question="Refund the remaining three, the full total, or nothing?"), CONFIG, now=LATER
    )
    assert tracker.find(DID).content_changed_at == LATER  # type: ignore[union-attr]
    return tracker


def test_an_answer_given_before_the_question_changed_is_refused_naming_the_decision() -> None:
    tracker = refiled()
    seen = LATER - timedelta(seconds=1)
    with pytest.raises(Refused) as refused:
        lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=LATER, seen_at=seen)
    assert refused.value.reason == "options_changed"
    assert refused.value.message.startswith("the options changed after your comment; answer again: ")
    assert f"the question or options of {DID} were changed" in refused.value.message


def test_an_answer_given_the_moment_the_question_changed_is_applied() -> None:
    tracker = refiled()
    outcome = lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=LATER, seen_at=LATER)
    assert (outcome.action, outcome.decision.state) == ("resolved", "resolved")


def test_a_review_item_answered_like_a_question_says_to_accept_or_override_it() -> None:
    tracker = MemoryTracker()
    review: Any = parse_result({"status": "done_with_assumptions", "origin": "billing-42", "assumptions": ["EUR"]})
    lifecycle.park_review(tracker, review, CONFIG, now=NOW)
    with pytest.raises(InvalidInput) as invalid:
        lifecycle.resolve(tracker, CONFIG, REVIEW, "fine", Actor("alice"))
    assert (invalid.value.step, invalid.value.decision) == ("accept_or_override", REVIEW)


def test_the_corrected_answer_given_again_is_a_retry_not_a_conflicting_answer() -> None:
    from parkbot.core import planner

    tracker = parked()
    lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    planner.correct(tracker, CONFIG, DID, "remaining_three", Actor("alice"), reason="two items came back", now=NOW)

    again = lifecycle.resolve(tracker, CONFIG, DID, "remaining_three", Actor("alice"), now=LATER)
    assert again.action == "unchanged"
    assert again.answer.value == "remaining_three"


def test_accepting_a_question_as_a_review_item_says_to_answer_it() -> None:
    tracker = parked()
    with pytest.raises(InvalidInput) as invalid:
        lifecycle.accept_review(tracker, CONFIG, DID, Actor("alice"))
    assert invalid.value.message == f"{DID} is a decision, not a review item: answer it"
    assert (invalid.value.step, invalid.value.decision) == ("answer", DID)


def test_a_recorded_precedent_is_not_finished_automatically_an_owner_answers_again() -> None:
    from parkbot.core.lifecycle.by_hand import finish_resolution

    tracker = parked()
    decision = tracker.find(DID)
    assert decision is not None
    precedent = Answer(value="full_original", kind="precedent", by="alice", at=NOW)
    with pytest.raises(InvalidInput) as invalid:
        finish_resolution(tracker, CONFIG, decision, precedent, now=NOW)
    assert (invalid.value.step, invalid.value.decision) == ("answer_again", DID)
