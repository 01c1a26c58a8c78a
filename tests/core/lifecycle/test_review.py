"""parkbot.core.lifecycle.review: review items (``done_with_assumptions``), what they carry, accepting one, and
overriding one assumption.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import Refused
from parkbot.core.models import Answer
from parkbot.core.tracker import Location
from tests.support.lifecycle import CONFIG, LATER, REVIEW, invalid, parked, refusal, reviewed
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID, NOW, result, review_result


def test_a_review_item_carries_the_checklist_and_what_the_run_left() -> None:
    tracker = MemoryTracker(owner="repo-owner")
    outcome = lifecycle.park_review(
        tracker,
        review_result(run="run-7", work_so_far={"done": True}, dependents=["#7", "#7"]),
        Config(owners=Owners(default="bob")),
        now=NOW,
    )
    stored = tracker.find(REVIEW)
    assert stored == outcome.decision
    assert (outcome.action, stored.kind, stored.key, stored.owner) == ("created", "review", "assumptions", "bob")
    assert stored.title == "Review the assumptions of billing-42"
    assert stored.question == (
        "The agent finished under these stated assumptions. Accept them, or override one:\n1. EUR\n2. net of tax"
    )
    assert (stored.run, stored.work_so_far, stored.dependents, stored.blocking) == (
        "run-7",
        {"done": True},
        ["#7"],
        False,
    )
    assert [a.text for a in stored.assumptions] == ["EUR", "net of tax"]
    assert (stored.created_at, stored.updated_at) == (NOW, NOW)
    assert [e.event for e in tracker.log] == ["parked"]
    by_origin = Config(owners=Owners(default="bob", origins={"billing-*": "erin"}))
    assert lifecycle.park_review(MemoryTracker(), review_result(), by_origin, now=NOW).decision.owner == "erin"
    fallback = MemoryTracker(owner="repo-owner")
    assert lifecycle.park_review(fallback, review_result(title="Check these"), Config(), now=NOW).decision.owner == (
        "repo-owner"
    )
    assert fallback.find(REVIEW).title == "Check these"


def test_accepting_a_review_records_accepted_by_the_owner() -> None:
    tracker = reviewed()
    outcome = lifecycle.accept_review(tracker, CONFIG, REVIEW, Actor("alice"), now=LATER)
    answer = tracker.find(REVIEW).answer
    assert (outcome.action, outcome.location, answer.value, answer.kind, answer.by, answer.at) == (
        "resolved",
        Location(backend="memory", path=REVIEW),
        "accepted",
        "accepted",
        "alice",
        LATER,
    )
    again = lifecycle.accept_review(tracker, CONFIG, REVIEW, Actor("carol"), now=LATER + timedelta(hours=1))
    assert (again.action, again.answer) == ("unchanged", answer)
    assert (again.decision, again.location) == (tracker.find(REVIEW), Location(backend="memory", path=REVIEW))


def test_an_accept_whose_answer_is_recorded_completes_with_it() -> None:
    tracker = reviewed()
    recorded = Answer(value="accepted", kind="accepted", by="carol", at=NOW)
    tracker.answers[REVIEW] = recorded
    outcome = lifecycle.accept_review(tracker, CONFIG, REVIEW, Actor("alice"), now=LATER)
    assert (outcome.action, outcome.answer, tracker.find(REVIEW).answer) == ("completed", recorded, recorded)


def test_a_question_is_not_accepted_or_overridden_like_a_review() -> None:
    tracker = parked()
    message = f"{DID} is a decision, not a review item: answer it"
    assert invalid(lifecycle.accept_review, tracker, CONFIG, DID, Actor("alice")) == message
    assert invalid(lifecycle.override_assumption, tracker, CONFIG, DID, 1, "x", Actor("alice")) == message


def test_only_an_owner_reviews() -> None:
    tracker = reviewed()
    for act in (
        lambda: lifecycle.accept_review(tracker, CONFIG, REVIEW, Actor("mallory")),
        lambda: lifecycle.override_assumption(tracker, CONFIG, REVIEW, 1, "USD", Actor("mallory")),
    ):
        assert refusal(act)[0] == "not_authorized"
    assert tracker.find(REVIEW).state == "open"
    assert tracker.find(REVIEW).overrides == []


def test_an_override_records_who_changed_which_assumption_and_tells_the_dependents() -> None:
    tracker = reviewed(dependents=["#7"])
    outcome = lifecycle.override_assumption(tracker, CONFIG, REVIEW, 2, "  gross  ", Actor("carol"), now=LATER)
    stored = tracker.find(REVIEW)
    assert stored == outcome.decision
    assert (outcome.action, outcome.location, stored.updated_at) == ("updated", Location("memory", path=REVIEW), LATER)
    assert [(o.assumption, o.text, o.by, o.at) for o in stored.overrides] == [(2, "gross", "carol", LATER)]
    assert tracker.notes[("#7", REVIEW)] == "answered: assumption 2 overridden: gross (rework needed)"
    note = tracker.pointed[("#7", REVIEW)]
    assert (note.kind, note.by, note.at) == ("free_text", "carol", LATER)  # an override is no option's answer
    line = tracker.log[-1]
    assert (line.event, line.at, line.by, line.answer, line.reason) == (
        "overridden",
        LATER,
        "carol",
        "gross",
        "assumption 2: net of tax",
    )
    same = lifecycle.override_assumption(tracker, CONFIG, REVIEW, 2, "gross ", Actor("alice"), now=LATER)
    assert (same.action, same.location, same.decision.overrides) == (
        "unchanged",
        Location("memory", path=REVIEW),
        stored.overrides,
    )


def test_a_second_different_override_of_one_assumption_is_refused_quoting_the_first() -> None:
    tracker = reviewed()
    lifecycle.override_assumption(tracker, CONFIG, REVIEW, 1, "USD", Actor("alice"), now=NOW)
    assert refusal(lifecycle.override_assumption, tracker, CONFIG, REVIEW, 1, "GBP", Actor("alice")) == (
        "conflicting_answer",
        f"assumption 1 of {REVIEW} was already overridden with 'USD'",
    )
    assert lifecycle.override_assumption(tracker, CONFIG, REVIEW, 2, "gross", Actor("alice")).action == "updated"


def test_overrides_are_taken_only_while_the_review_is_open_and_name_the_assumptions() -> None:
    tracker = reviewed()
    assert invalid(lifecycle.override_assumption, tracker, CONFIG, REVIEW, 3, "x", Actor("alice")) == (
        f"{REVIEW} has assumptions 1 to 2, not 3"
    )
    lifecycle.accept_review(tracker, CONFIG, REVIEW, Actor("alice"))
    assert refusal(lifecycle.override_assumption, tracker, CONFIG, REVIEW, 1, "USD", Actor("alice")) == (
        "resolved",
        f"the review {REVIEW} is resolved; overrides are taken while it is open",
    )


def test_a_review_item_is_filed_whatever_the_question_budget() -> None:
    tracker = MemoryTracker()
    for key in ("a", "b", "c"):
        lifecycle.park(tracker, result(key=key, title=key), CONFIG, now=NOW)
    assert lifecycle.park_review(tracker, review_result(), CONFIG, now=NOW).action == "created"
    assert [e.event for e in tracker.log].count("refused") == 0


def test_review_item_identity_rules() -> None:
    tracker, config = MemoryTracker(), Config(owners=Owners(default="alice"))
    did = lifecycle.park_review(tracker, review_result(assumptions=["EUR"]), config).decision.id
    with pytest.raises(Refused, match="identity collision"):
        lifecycle.park_review(tracker, review_result(assumptions=["EUR"], title="Another review"), config)
    assert lifecycle.accept_review(tracker, config, did, Actor("alice")).action == "resolved"
    assert lifecycle.accept_review(tracker, config, did, Actor("alice")).action == "unchanged"
    with pytest.raises(Refused, match="already resolved"):
        lifecycle.park_review(tracker, review_result(assumptions=["EUR"]), config)
    with pytest.raises(Refused, match="overrides are taken while it is open"):
        lifecycle.override_assumption(tracker, config, did, 1, "USD", Actor("alice"))
