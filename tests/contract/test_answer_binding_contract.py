"""An answer binds to what the owner saw, on every backend (and in signed-answers mode): the answer records
a digest of the question and options it was given against, and a re-filing that changes them while an
answer is being recorded is refused."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.errors import Refused
from parkbot.core.models import Answer
from tests.support.contract import park, resolve
from tests.support.results import NOW, result

DID = "billing-42-decision-refund"
SIGNED_MODE = True
SWAPPED = ["remaining_three: 690.00, the full total", "full_original: 412.00, the remaining three"]


def test_the_answer_records_the_digest_of_the_text_it_was_given_against(harness: Any) -> None:
    decision = park(harness).decision
    outcome = resolve(harness)
    assert outcome.answer.digest == decision.content_digest()
    assert harness.tracker.find(DID).answer.digest == decision.content_digest()


def test_a_refiling_that_swaps_the_options_while_an_answer_is_recorded_is_refused(harness: Any) -> None:
    decision = park(harness).decision
    answer = Answer(value="full_original", by="alice", at=NOW, digest=decision.content_digest())
    harness.tracker.record_answer(decision, answer)  # step (a) done, the rest not yet
    with pytest.raises(Refused) as info:
        park(harness, options=SWAPPED)
    assert info.value.reason == "answer_pending"
    stored = harness.tracker.find(DID)
    assert [o.label for o in stored.options] == ["412.00", "690.00"]
    assert park(harness).action == "unchanged"  # the same text again is fine
    assert lifecycle.resolve(harness.tracker, harness.config, DID, "full_original", Actor("alice"), now=NOW).action in (
        "completed",
        "resolved",
    )


def test_an_answer_given_before_the_options_changed_is_refused(harness: Any) -> None:
    park(harness)
    later = NOW.replace(hour=13)
    lifecycle.park(harness.tracker, _swapped(), harness.config, now=later)
    with pytest.raises(Refused) as info:
        lifecycle.resolve(harness.tracker, harness.config, DID, "full_original", Actor("alice"), now=later, seen_at=NOW)
    assert info.value.reason == "options_changed"
    assert "the options changed after your comment; answer again" in info.value.message
    assert harness.tracker.find(DID).state == "open"
    seen_after = later.replace(minute=5)
    assert (
        lifecycle.resolve(
            harness.tracker, harness.config, DID, "full_original", Actor("alice"), now=seen_after, seen_at=seen_after
        ).action
        == "resolved"
    )


def _swapped() -> Any:
    return result(options=SWAPPED)
