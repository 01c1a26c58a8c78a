"""parkbot.core.lifecycle.parking: who owns a new question, what a re-filing keeps and takes (or refuses), the
precedent a question cites or applies, and filing under contention (a bounded number of lost races).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import ConcurrentChange, Refused
from parkbot.core.models import Answer
from tests.support.lifecycle import CONFIG, HERE, LATER, REVIEW, abandon, parked, refile, refusal, resolve
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID, NOW, result, review_result

# --- who owns a new question ------------------------------------------------------------ -------------------------


def test_a_new_question_goes_to_the_configured_owner_before_the_backends_default() -> None:
    tracker = MemoryTracker(owner="repo-owner")
    config = Config(owners=Owners(default="bob", origins={"search-*": "erin"}))
    assert lifecycle.park(tracker, result(), config, now=NOW).decision.owner == "bob"
    assert lifecycle.park(tracker, result(origin="search-1"), config, now=NOW).decision.owner == "erin"
    assert lifecycle.park(tracker, result(origin="ops-1"), Config(), now=NOW).decision.owner == "repo-owner"


def test_a_new_question_records_what_the_agent_sent() -> None:
    tracker = MemoryTracker()
    outcome = lifecycle.park(
        tracker, result(allow_free_text=True, requester="erin", dependents=["#7", "#7", "#8"]), CONFIG, now=NOW
    )
    stored = tracker.find(DID)
    assert stored == outcome.decision
    assert (stored.origin, stored.key, stored.run, stored.requester) == ("billing-42", "refund", "run-7", "erin")
    assert (stored.allow_free_text, stored.blocking, stored.dependents) == (True, True, ["#7", "#8"])
    assert (stored.created_at, stored.updated_at) == (NOW, NOW)
    assert (outcome.action, outcome.location) == ("created", HERE)
    assert [(g.target, g.state) for g in outcome.gates] == [("#7", "blocked"), ("#8", "blocked")]
    (line,) = tracker.log
    assert (line.event, line.decision, line.at, line.answer, line.answer_kind, line.by) == (
        "parked",
        DID,
        NOW,
        None,
        None,
        None,
    )


# --- re-filing the same question -------------------------------------------------------- -------------------------


def test_a_refiling_takes_every_new_field_of_the_question() -> None:
    tracker = parked(dependents=["#7"], blocking=False)  # optional: blocking only goes up
    outcome = refile(
        tracker,
        question="Refund all of it?",
        options=["yes: all", "no: none"],
        allow_free_text=True,
        blocking=False,
        guess="no",
        run="run-8",
        work_so_far={"step": 2},
        dependents=["#8"],
    )
    stored = tracker.find(DID)
    assert stored == outcome.decision
    assert stored.question == "Refund all of it?"
    assert [(o.id, o.label) for o in stored.options] == [("yes", "all"), ("no", "none")]
    assert (stored.allow_free_text, stored.blocking, stored.guess, stored.run) == (True, False, "no", "run-8")
    assert stored.work_so_far == {"step": 2}
    assert stored.dependents == ["#7", "#8"]  # recorded edges are kept, new ones added after them
    assert (stored.created_at, stored.updated_at, stored.state) == (NOW, LATER, "open")
    assert (outcome.action, outcome.location, outcome.gates) == (
        "updated",
        HERE,
        [],
    )  # an optional question blocks nothing


def test_a_refiling_keeps_the_owner_the_history_and_a_run_it_does_not_name() -> None:
    tracker = parked(requester="erin")
    lifecycle.escalate(tracker, CONFIG, DID, Actor("alice"), now=NOW)
    outcome = refile(tracker, Config(owners=Owners(default="zoe")), run=None, requester=None, work_so_far={"n": 1})
    stored = tracker.find(DID)
    assert (stored.owner, stored.chain(), stored.run, stored.requester) == (
        "carol",
        ["alice", "carol"],
        "run-7",
        "erin",
    )
    assert outcome.decision.owner == "carol"


def test_an_unchanged_refiling_writes_nothing_and_says_where_the_question_is() -> None:
    target = "branch:agent/billing-42"
    tracker = parked(dependents=[target])
    writes = tracker.writes
    outcome = refile(tracker, dependents=[target])
    assert (outcome.action, outcome.location, tracker.writes) == ("unchanged", HERE, writes)
    assert tracker.find(DID).updated_at == NOW
    assert outcome.decision == tracker.find(DID)  # what park reports is what is stored, updated_at included
    assert [(g.target, g.state, [d.id for d in g.blocking]) for g in outcome.gates] == [(target, "blocked", [DID])]


def test_an_updating_refiling_publishes_the_gates_it_blocks() -> None:
    tracker = parked()
    outcome = refile(tracker, dependents=["#9"])
    assert (outcome.action, outcome.location) == ("updated", HERE)
    assert [(g.target, g.state) for g in outcome.gates] == [("#9", "blocked")]
    assert tracker.published["#9"].state == "blocked"


def test_refiling_an_abandoned_question_asks_it_again() -> None:
    tracker = parked(dependents=["#7"])
    abandon(tracker)
    outcome = refile(tracker, dependents=["#7"])  # the same content: only the state changes
    stored = tracker.find(DID)
    assert (outcome.action, stored.state, stored.updated_at) == ("updated", "open", LATER)
    assert [g.state for g in outcome.gates] == ["blocked"]


def test_a_refiling_under_another_title_is_refused_naming_both_titles() -> None:
    tracker = parked()
    assert refusal(refile, tracker, title="Another thing") == (
        "collision",
        f"identity collision: decision {DID} already exists with the title 'Refund scope for order A-4471', not "
        "'Another thing'. Use another key for a different question, or the same title to update it.",
    )


def test_a_question_and_a_review_item_never_share_an_id() -> None:
    tracker = MemoryTracker()
    review = review_result(assumptions=["EUR"])
    lifecycle.park_review(tracker, review, CONFIG, now=NOW)
    title = tracker.find(REVIEW).title
    reason, _ = refusal(lifecycle.park, tracker, result(key="assumptions", title=title), CONFIG, now=NOW)
    assert reason == "collision"


def test_refiling_a_resolved_question_is_refused_quoting_its_answer() -> None:
    tracker = parked()
    resolve(tracker)
    assert refusal(refile, tracker) == (
        "resolved",
        f"decision {DID} is already resolved (answer: 'full_original'); a resolved decision stays resolved. File a "
        "new question under another key if the situation changed.",
    )


def test_refiling_a_question_marked_resolved_without_a_recorded_answer_still_refuses() -> None:
    tracker = parked()
    tracker.items[DID] = tracker.items[DID].model_copy(update={"state": "resolved"})
    reason, message = refusal(refile, tracker)
    assert reason == "resolved"
    assert "(answer: '?')" in message


# --- precedents -------------------------------------------------------------------------- ------------------------


def answered_elsewhere(tracker: MemoryTracker) -> str:
    """billing-41 asked the same question and alice answered it; the answer's id."""
    first = lifecycle.park(tracker, result(origin="billing-41"), CONFIG, now=NOW).decision.id
    lifecycle.resolve(tracker, CONFIG, first, "remaining_three", Actor("alice"), now=NOW)
    return first


def test_with_precedents_off_nothing_is_cited() -> None:
    tracker = MemoryTracker()
    answered_elsewhere(tracker)
    outcome = lifecycle.park(tracker, result(), CONFIG.model_copy(update={"precedents": "off"}), now=LATER)
    assert outcome.decision.precedent is None
    assert tracker.find(DID).precedent is None


def test_a_suggested_precedent_is_cited_and_the_question_stays_open() -> None:
    tracker = MemoryTracker()
    first = answered_elsewhere(tracker)
    outcome = lifecycle.park(tracker, result(dependents=["#7"]), CONFIG, now=LATER)
    stored = tracker.find(DID)
    assert (stored.state, stored.precedent.decision, stored.precedent.answer) == ("open", first, "remaining_three")
    assert [g.state for g in outcome.gates] == ["blocked"]


def test_an_applied_precedent_resolves_the_new_question_at_once_and_opens_its_gates() -> None:
    tracker = MemoryTracker()
    first = answered_elsewhere(tracker)
    apply = CONFIG.model_copy(update={"precedents": "apply"})
    outcome = lifecycle.park(tracker, result(dependents=["#7"]), apply, now=LATER)
    stored = tracker.find(DID)
    assert (outcome.action, outcome.location, stored.state) == ("created", HERE, "resolved")
    assert outcome.decision == stored
    answer = stored.answer
    assert (answer.value, answer.kind, answer.by, answer.at) == ("remaining_three", "precedent", "precedent", LATER)
    assert answer.citation == stored.precedent
    assert tracker.recorded_answer(stored) == answer  # recorded like any answer, before the close
    assert answer.citation.decision == first
    assert [(g.target, g.state) for g in outcome.gates] == [("#7", "open")]
    assert tracker.notes[("#7", DID)] == "answered: remaining_three"
    events = [(e.event, e.decision) for e in tracker.log if e.decision == DID]
    assert events == [("parked", DID), ("resolved", DID)]


class RacingTracker(MemoryTracker):
    """Another writer files the same decision between our lookup and our create, ``times`` times."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def create(self, decision: Any, log: Any) -> Any:
        if self.times > 0:
            self.times -= 1
            self.items[decision.id] = decision
            raise ConcurrentChange("filed meanwhile")
        return super().create(decision, log)


def test_park_rereads_after_losing_a_race_and_updates_the_winner() -> None:
    tracker = RacingTracker(times=1)
    outcome = lifecycle.park(tracker, result(), Config(), now=NOW)
    assert outcome.action == "unchanged"
    assert len(tracker.items) == 1


def test_park_gives_up_after_bounded_contention() -> None:
    class AlwaysRacing(MemoryTracker):
        def find(self, decision_id: str) -> None:
            return None

        def create(self, decision: Any, log: Any) -> Any:
            raise ConcurrentChange("filed meanwhile")

    with pytest.raises(ConcurrentChange):
        lifecycle.park(AlwaysRacing(), result(), Config(), now=NOW)


def test_clock_defaults_are_aware_utc() -> None:
    outcome = lifecycle.park(MemoryTracker(), result(), Config())
    assert outcome.decision.created_at.tzinfo is not None
    assert abs(outcome.decision.created_at - datetime.now(UTC)) < timedelta(minutes=1)


# --- bounded retries and the polling token -------------------------------------------------- ---------------------


class RacesOnCreate(MemoryTracker):
    """Every create loses a race (and the winner's item is not visible yet), ``times`` times."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def find(self, decision_id: str) -> Any:
        return None if self.times > 0 else super().find(decision_id)

    def create(self, decision: Any, log: Any) -> Any:
        if self.times > 0:
            self.times -= 1
            raise ConcurrentChange("filed meanwhile")
        return super().create(decision, log)


def test_park_survives_one_race_fewer_than_the_bound_and_not_the_bound() -> None:
    survived = lifecycle.park(RacesOnCreate(times=lifecycle.PARK_ATTEMPTS - 1), result(), Config(), now=NOW)
    assert survived.action == "created"
    with pytest.raises(ConcurrentChange):
        lifecycle.park(RacesOnCreate(times=lifecycle.PARK_ATTEMPTS), result(), Config(), now=NOW)


# --- what a re-filing may not change, in the words the agent reads -----------------------------------------


ALICE_ONLY = Config(owners=Owners(default="alice"))


def test_a_re_filing_may_not_lower_a_blocking_question_and_says_what_to_do() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), ALICE_ONLY, now=NOW)
    with pytest.raises(Refused) as refused:
        lifecycle.park(tracker, result(blocking=False), ALICE_ONLY, now=NOW)
    assert refused.value.message == (
        f"decision {DID} is blocking, and a re-filing may not lower it to blocking: false (its dependents wait "
        "for an owner's answer). Re-file it with blocking: true, or ask the owner to answer it."
    )


def test_a_re_filing_may_not_change_the_question_while_an_answer_is_being_recorded() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), ALICE_ONLY, now=NOW)
    tracker.answers[DID] = Answer(value="full_original", by="alice", at=NOW)  # step (a) done, the rest not yet
    with pytest.raises(Refused) as refused:
        lifecycle.park(tracker, result(question="Refund nothing at all?"), ALICE_ONLY, now=NOW)
    assert refused.value.message == (
        f"decision {DID} is being answered ('full_original' by alice); a re-filing may not change its question or "
        "options now. Re-file it unchanged, or file a new question under another key."
    )
