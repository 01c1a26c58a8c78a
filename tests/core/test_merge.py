"""Which version of a decision wins when two copies of the backlog changed it (parkbot.core.merge), rule by rule.

``parkbot sync`` runs these end to end on real repositories (tests/git/test_git_sync_conflicts.py); here each
rule is pinned on its own: authority first, then resolved over open, then the earlier of two answers, then the
later change; dependents are always united.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from parkbot.core.merge import AnswerConflict, Version, earlier, merge_versions
from parkbot.core.models import Answer, Decision

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)


def decision(**changes: Any) -> Decision:
    data: dict[str, Any] = {
        "id": "billing-42-decision-refund",
        "origin": "billing-42",
        "key": "refund",
        "title": "Refund scope",
        "question": "Refund the remaining three, or the full total?",
        "owner": "alice",
        "created_at": NOW,
        "updated_at": NOW,
    }
    data.update(changes)
    return Decision(**data)


def answer(value: str, at: datetime = NOW, by: str = "alice", **changes: Any) -> Answer:
    return Answer(value=value, by=by, at=at, **changes)


def resolved(value: str, at: datetime = NOW, **changes: Any) -> Decision:
    return decision(state="resolved", answer=answer(value, at), **changes)


def test_a_resolution_that_carries_authority_wins_on_either_side() -> None:
    signed = Version(resolved("full_original", updated_at=NOW), counts=True)
    unsigned = Version(resolved("remaining_three", updated_at=LATER), counts=False)
    for ours, theirs in ((signed, unsigned), (unsigned, signed)):
        merged, conflict = merge_versions(ours, theirs)
        assert merged.answer is not None
        assert merged.answer.value == "full_original"
        assert conflict is None


def test_a_resolved_version_wins_over_an_open_one_on_either_side() -> None:
    answered = Version(resolved("full_original", updated_at=NOW), counts=True)
    still_open = Version(decision(updated_at=LATER), counts=True)
    assert merge_versions(answered, still_open)[0].state == "resolved"
    assert merge_versions(still_open, answered)[0].state == "resolved"


def test_two_answers_that_carry_no_authority_are_no_conflict_the_later_change_wins() -> None:
    ours = Version(resolved("full_original", at=LATER, updated_at=LATER), counts=False)
    theirs = Version(resolved("remaining_three", at=NOW, updated_at=NOW), counts=False)
    merged, conflict = merge_versions(ours, theirs)
    assert merged.answer is not None
    assert merged.answer.value == "full_original"
    assert conflict is None


def test_two_answers_with_authority_keep_the_earlier_and_report_the_other() -> None:
    ours = Version(resolved("full_original", at=LATER, updated_at=LATER), counts=True)
    theirs = Version(resolved("remaining_three", at=NOW, updated_at=NOW), counts=True)
    merged, conflict = merge_versions(ours, theirs)
    assert merged.answer is not None
    assert merged.answer.value == "remaining_three"
    assert conflict is not None
    assert (conflict.kept.value, conflict.other.value) == ("remaining_three", "full_original")


def test_without_answers_the_later_change_wins_and_on_a_tie_ours_stays() -> None:
    ours = Version(decision(title="ours", updated_at=NOW), counts=True)
    theirs = Version(decision(title="theirs", updated_at=LATER), counts=True)
    assert merge_versions(ours, theirs)[0].title == "theirs"
    assert merge_versions(theirs, ours)[0].title == "theirs"
    tied = Version(decision(title="theirs", updated_at=NOW), counts=True)
    assert merge_versions(ours, tied)[0].title == "ours"


def test_dependents_of_both_versions_are_united_once_each_winner_s_first() -> None:
    ours = Version(decision(dependents=["#1", "#2"], updated_at=LATER), counts=True)
    theirs = Version(decision(dependents=["#3", "#1"], updated_at=NOW), counts=True)
    assert merge_versions(ours, theirs)[0].dependents == ["#1", "#2", "#3"]
    assert merge_versions(theirs, ours)[0].dependents == ["#1", "#2", "#3"]


def test_of_two_answers_given_in_the_same_second_the_same_one_stands_on_every_copy() -> None:
    bob = answer("b", by="Bob")
    alice = answer("z", by="alice")
    assert earlier(bob, alice) is alice
    assert earlier(alice, bob) is alice
    first = answer("full_original", source="https://x/1")
    same_again = answer("full_original", source="https://x/2")  # the same answer, recorded twice
    assert earlier(first, same_again) is first


def test_a_conflict_says_both_answers_who_gave_them_and_when() -> None:
    conflict = AnswerConflict(
        "billing-42-decision-refund", answer("remaining_three", NOW), answer("full_original", LATER, by="bob")
    )
    assert conflict.as_dict() == {
        "decision": "billing-42-decision-refund",
        "kept": {"value": "remaining_three", "kind": "option", "by": "alice", "at": "2026-11-30T12:00:00+00:00"},
        "other": {"value": "full_original", "kind": "option", "by": "bob", "at": "2026-11-30T12:05:00+00:00"},
    }
    assert conflict.message() == (
        "billing-42-decision-refund: conflicting answers: 'remaining_three' by alice at 2026-11-30T12:00:00+00:00 "
        "stands (the earlier); 'full_original' by bob at 2026-11-30T12:05:00+00:00 is kept in the history"
    )
