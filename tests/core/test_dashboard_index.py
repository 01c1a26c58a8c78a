"""What each act of the lifecycle says it changed on the dashboard (parkbot.core.dashboard_index.Changed), and how
those typed changes patch the index: a new decision was not open before, a move hands it to another owner, the
standing answer again changes nothing, and a bounded index counts what it does not list from exactly that.

The acts run for real on the in-memory tracker; the index they patch is compared with a recount of the same backlog.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parkbot.core import dashboard_index, lifecycle, planner
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.dashboard_index import Changed, DashboardIndex, confirmed, gone, merged, patch, recount
from parkbot.core.errors import Refused
from parkbot.core.figures import DashboardFigures, Share, TimeToAnswer
from parkbot.core.models import Decision
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result

CONFIG = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"}, requesters=["erin"])
ABANDON = CONFIG.model_copy(update={"closed_without_answer": "abandon"})
DID = "t-1-decision-k"


def park(tracker: MemoryTracker, n: int = 1, config: Config = CONFIG, **changes: Any) -> lifecycle.ParkOutcome:
    filed = result(origin=f"t-{n}", key="k", title=f"Question {n}", dependents=[f"#{100 + n}"], **changes)
    return lifecycle.park(tracker, filed, config, now=NOW + timedelta(minutes=n))


def owner_of(tracker: MemoryTracker, did: str = DID) -> Actor:
    return Actor(tracker.items[did].owner)


def test_filing_says_new_updated_or_nothing() -> None:
    tracker = MemoryTracker()
    assert park(tracker).changed == Changed(decision_id=DID, was_open=False)
    assert park(tracker).changed is None  # the same result again
    assert park(tracker, question="Reworded?").changed == Changed(decision_id=DID)


def test_a_move_says_it_moved_and_an_answer_takes_the_line_off() -> None:
    tracker = MemoryTracker()
    park(tracker)
    up = lifecycle.escalate(tracker, CONFIG, DID, Actor("alice"))
    assert up.changed == Changed(decision_id=DID, moved=True)
    answered = lifecycle.resolve(tracker, CONFIG, DID, "full_original", owner_of(tracker))
    assert answered.changed == Changed(decision_id=DID)
    again = lifecycle.resolve(tracker, CONFIG, DID, "full_original", owner_of(tracker))
    assert (again.action, again.changed) == ("unchanged", None)


def test_a_return_to_the_requester_moves_it() -> None:
    tracker = MemoryTracker()
    park(tracker, requester="erin")
    assert lifecycle.return_to_requester(tracker, CONFIG, DID, Actor("alice")).changed == Changed(
        decision_id=DID, moved=True
    )


def test_acts_by_hand_say_whether_the_record_was_open_before() -> None:
    tracker = MemoryTracker()
    park(tracker)
    open_one = tracker.items[DID]
    reopened = lifecycle.closed_by_hand(tracker, CONFIG, open_one, "mallory")
    assert (reopened.action, reopened.changed) == ("reopened", Changed(decision_id=DID))  # its record was open
    restored = lifecycle.index_changed_by_hand(tracker, CONFIG, tracker.items[DID], "mallory", "removed a label")
    assert (restored.action, restored.changed) == ("restored", Changed(decision_id=DID))
    abandoned = lifecycle.closed_by_hand(tracker, ABANDON, tracker.items[DID], "mallory")
    assert (abandoned.action, abandoned.changed) == ("abandoned", Changed(decision_id=DID))
    revived = lifecycle.reopened_by_hand(
        tracker, CONFIG, tracker.items[DID], "mallory", was_resolved=False, was_abandoned=True
    )
    assert (revived.action, revived.changed) == ("revived", Changed(decision_id=DID, was_open=False))

    lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"))
    closed = lifecycle.reopened_by_hand(tracker, CONFIG, tracker.items[DID], "mallory", was_resolved=True)
    assert (closed.action, closed.changed) == ("closed_again", Changed(decision_id=DID, was_open=False))
    ignored = lifecycle.closed_by_hand(tracker, CONFIG, tracker.items[DID], "mallory")
    assert (ignored.action, ignored.changed) == ("ignored", None)


def test_an_abandoned_question_filed_again_was_not_open() -> None:
    tracker = MemoryTracker()
    park(tracker)
    lifecycle.closed_by_hand(tracker, ABANDON, tracker.items[DID], "mallory")
    again = park(tracker)
    assert (again.action, again.changed) == ("updated", Changed(decision_id=DID, was_open=False))


def test_a_correction_says_it_changed_unless_it_is_the_standing_answer() -> None:
    tracker = MemoryTracker()
    park(tracker)
    lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"))
    same = planner.correct(tracker, CONFIG, DID, "full_original", Actor("alice"), reason="same")
    assert (same.action, same.changed) == ("unchanged", None)
    other = planner.correct(tracker, CONFIG, DID, "remaining_three", Actor("alice"), reason="the policy changed")
    assert (other.action, other.changed) == ("corrected", Changed(decision_id=DID))


def test_merged_keeps_one_change_per_decision() -> None:
    changes = [
        Changed(decision_id="a", was_open=False),
        None,
        Changed(decision_id="b"),
        Changed(decision_id="a", moved=True),
    ]
    assert merged(changes) == [Changed(decision_id="a", was_open=False, moved=True), Changed(decision_id="b")]
    assert merged([None, None]) == []


def test_a_confirmed_command_and_a_gone_issue_refresh_their_line() -> None:
    assert confirmed("a", None) == Changed(decision_id="a")
    assert confirmed("a", Changed(decision_id="a", moved=True)) == Changed(decision_id="a", moved=True)
    assert gone("a") == Changed(decision_id="a")


# --- typed changes patch the index as a recount would count it ------------------------------------------------

ACTS = ("park", "refile", "resolve", "escalate", "close", "close_abandon", "reopen", "unlabel")


def act(tracker: MemoryTracker, op: str, n: int) -> Changed | None:
    """One act on decision ``n`` as an event would run it; what its outcome says it changed."""
    did = f"t-{n}-decision-k"
    decision = tracker.items.get(did)
    if op == "park" or decision is None:
        try:
            return park(tracker, n).changed
        except Refused:  # resolved already
            return None
    try:
        if op == "refile":
            return park(tracker, n, question=f"Reworded {n}?").changed
        if op == "resolve":
            return lifecycle.resolve(tracker, CONFIG, did, "full_original", owner_of(tracker, did)).changed
        if op == "escalate":
            return lifecycle.escalate(tracker, CONFIG, did, owner_of(tracker, did)).changed
        if op == "close":
            return lifecycle.closed_by_hand(tracker, CONFIG, decision, "mallory").changed
        if op == "close_abandon":
            return lifecycle.closed_by_hand(tracker, ABANDON, decision, "mallory").changed
        if op == "reopen":
            resolved, abandoned = decision.state == "resolved", decision.state == "abandoned"
            return lifecycle.reopened_by_hand(
                tracker, CONFIG, decision, "mallory", was_resolved=resolved, was_abandoned=abandoned
            ).changed
        return lifecycle.index_changed_by_hand(tracker, CONFIG, decision, "mallory", "removed a label").changed
    except Refused:  # not open, top of the hierarchy ...: nothing changed
        return None


def counts(index: DashboardIndex) -> tuple[dict[str, int], int]:
    return index.totals, index.blocking_work


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ACTS), st.integers(0, 7)), max_size=30))
def test_a_bounded_index_patched_from_outcomes_counts_what_a_recount_counts(steps: list[tuple[str, int]]) -> None:
    """More open decisions than the index lists (two per owner): the ones it does not list are counted only from
    what each outcome said (was it open, did it move). Any sequence of acts keeps the counts a recount gives."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dashboard_index, "PER_OWNER", 2)
        tracker = MemoryTracker()
        for n in range(4):  # four open decisions of alice's: two are not listed
            park(tracker, n + 10)
        index = recount(tracker.items.values(), now=NOW, figures=None)
        assert not index.complete
        for op, n in steps:
            changes = merged([act(tracker, op, n)])
            index = patch(index, [(c, tracker.last_seen(c.decision_id)) for c in changes])
            assert counts(index) == counts(recount(tracker.items.values(), now=NOW, figures=None)), (op, n)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ACTS), st.integers(0, 7)), max_size=30))
def test_a_complete_index_patched_from_outcomes_is_the_recount(steps: list[tuple[str, int]]) -> None:
    tracker = MemoryTracker()
    index = recount([], now=NOW, figures=None)
    for op, n in steps:
        changes = merged([act(tracker, op, n)])
        index = patch(index, [(c, tracker.last_seen(c.decision_id)) for c in changes])
        full = recount(tracker.items.values(), now=NOW, figures=None)
        assert (index.entries, counts(index), index.complete) == (full.entries, counts(full), full.complete)


def test_nothing_changed_needs_no_patch() -> None:
    tracker = MemoryTracker()
    park(tracker)
    assert merged([park(tracker).changed]) == []


def listed(index: DashboardIndex) -> list[tuple[str, str]]:
    return [(e.id, e.owner) for e in index.entries]


def test_park_resolve_reopen_and_move_patch_the_lines_they_changed() -> None:
    tracker = MemoryTracker()
    index = None
    for outcome in (park(tracker, 1), park(tracker, 2)):
        assert outcome.changed is not None
        index = patch(index, [(outcome.changed, tracker.last_seen(outcome.decision.id))])
    assert index is not None
    assert listed(index) == [("t-1-decision-k", "alice"), ("t-2-decision-k", "alice")]
    moved = lifecycle.escalate(tracker, CONFIG, "t-2-decision-k", Actor("alice"))
    assert moved.changed is not None
    index = patch(index, [(moved.changed, moved.decision)])
    assert listed(index) == [("t-1-decision-k", "alice"), ("t-2-decision-k", "carol")]
    assert index.totals == {"alice": 1, "carol": 1}
    answered = lifecycle.resolve(tracker, CONFIG, "t-1-decision-k", "full_original", Actor("alice"))
    assert answered.changed is not None
    index = patch(index, [(answered.changed, answered.decision)])
    assert listed(index) == [("t-2-decision-k", "carol")]
    lifecycle.closed_by_hand(tracker, ABANDON, tracker.items["t-2-decision-k"], "mallory")
    revived = lifecycle.reopened_by_hand(
        tracker, CONFIG, tracker.items["t-2-decision-k"], "mallory", was_resolved=False, was_abandoned=True
    )
    assert revived.changed is not None
    index = patch(index, [(revived.changed, revived.decision)])
    assert listed(index) == [("t-2-decision-k", "carol")]
    assert (index.totals, index.blocking_work) == ({"carol": 1}, 1)


def test_what_an_outcome_says_is_about_its_own_decision() -> None:
    tracker = MemoryTracker()
    outcome = park(tracker, 3)
    assert outcome.changed is not None
    assert outcome.changed.decision_id == outcome.decision.id == "t-3-decision-k"
    assert isinstance(outcome.decision, Decision)


# --- the index as the issue body has always carried it ----------------------------------------------------------

#: Indexes an earlier version wrote (``json.dumps(index.to_data(), sort_keys=True)``, the form the GitHub
#: adapter packs into the issue body): every figure, the empty ones as ``null``.
OLD_INDEX = (
    '{"blocking_work":1,"entries":[{"created_at":"2024-06-03T10:00:00Z","dependents":["#9"],"id":"t-1-dec'
    'ision-k","owner":"alice","title":"Q one?"},{"blocking":false,"created_at":"2024-06-04T10:00:00Z","id'
    '":"t-2-decision-k","owner":"bob","title":"Q two?"}],"figures":{"abandoned":1,"answered_by_default":{'
    '"count":1,"n":8,"share":0.125},"answered_by_precedent":{"count":1,"n":8,"share":0.125},"asked":11,"c'
    'omputed_at":"2024-06-30T12:00:00Z","escalated":{"count":1,"n":11,"share":0.09090909090909091},"guess'
    '_vs_answer":{"count":3,"n":7,"share":0.42857142857142855},"recurring":[3,"Order D-77 has 5 line item'
    's already refunded. Refund the remaining 2, or the full original total of 1,250.00?"],"refused_by_ca'
    'p":{"count":2,"n":13,"share":0.15384615384615385},"resolved":8,"since":"2024-06-01T12:00:00Z","time_'
    'to_answer":{"median_seconds":19800.0,"n":8,"p90_seconds":36000.0}},"recounted_at":"2024-06-30T12:00:'
    '00Z","totals":{"alice":1,"bob":1},"v":1}'
)
OLD_EMPTY_FIGURES = (
    '{"blocking_work":1,"entries":[{"created_at":"2024-06-03T10:00:00Z","dependents":["#9"],"id":"t-1-dec'
    'ision-k","owner":"alice","title":"Q one?"}],"figures":{"abandoned":0,"answered_by_default":{"count":'
    '0,"n":0,"share":null},"answered_by_precedent":{"count":0,"n":0,"share":null},"asked":0,"computed_at"'
    ':"2024-06-30T12:00:00Z","escalated":{"count":0,"n":0,"share":null},"guess_vs_answer":{"count":0,"n":'
    '0,"share":null},"recurring":null,"refused_by_cap":{"count":0,"n":0,"share":null},"resolved":0,"since'
    '":"2024-06-01T12:00:00Z","time_to_answer":{"median_seconds":null,"n":0,"p90_seconds":null}},"recount'
    'ed_at":"2024-06-30T12:00:00Z","totals":{"alice":1},"v":1}'
)


def canonical(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@pytest.mark.parametrize("written", [OLD_INDEX, OLD_EMPTY_FIGURES])
def test_an_index_an_earlier_version_wrote_parses_and_is_written_back_byte_for_byte(written: str) -> None:
    index = DashboardIndex.from_data(json.loads(written))
    assert isinstance(index.figures, DashboardFigures)
    assert canonical(index.to_data()) == written


def test_figures_are_typed_and_keep_their_empty_fields_in_the_index() -> None:
    index = DashboardIndex.from_data(json.loads(OLD_INDEX))
    assert index.figures is not None
    assert (index.figures.asked, index.figures.resolved, index.figures.abandoned) == (11, 8, 1)
    assert index.figures.time_to_answer == TimeToAnswer(n=8, median_seconds=19800.0, p90_seconds=36000.0)
    assert index.figures.guess_vs_answer == Share.of(3, 7)
    assert index.figures.recurring is not None
    assert index.figures.recurring[0] == 3
    empty = DashboardIndex.from_data(json.loads(OLD_EMPTY_FIGURES))
    assert empty.figures is not None
    assert empty.figures.time_to_answer == TimeToAnswer(n=0)
    data = empty.to_data()["figures"]
    assert data["recurring"] is None
    assert data["time_to_answer"] == {"n": 0, "median_seconds": None, "p90_seconds": None}


def test_figures_another_version_wrote_are_dropped_and_the_list_kept() -> None:
    data = json.loads(OLD_INDEX)
    data["figures"] = {"asked": "many"}
    index = DashboardIndex.from_data(data)
    assert index.figures is None
    assert [e.id for e in index.entries] == ["t-1-decision-k", "t-2-decision-k"]
    assert index.totals == {"alice": 1, "bob": 1}
