"""parkbot.core.lifecycle.resolving: what an answer must be, the refusals an owner reads, the resolution's steps
and what they log, and answering under contention.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import ConcurrentChange, ContentChanged, InvalidInput, Refused
from parkbot.core.models import Answer, Decision, parse_result
from parkbot.core.tracker import Location
from tests.support.lifecycle import CONFIG, HERE, LATER, REVIEW, abandon, invalid, parked, refusal, resolve, reviewed
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID, NOW, result

# --- resolving -------------------------------------------------------------------------- -------------------------


def test_an_answer_is_an_option_or_free_text_where_the_question_allows_it() -> None:
    tracker = parked(allow_free_text=True)
    outcome = resolve(tracker, "Refund half, call the customer", source="comment-9")
    assert (outcome.answer.kind, outcome.answer.value, outcome.answer.source) == (
        "free_text",
        "Refund half, call the customer",
        "comment-9",
    )


def test_an_option_is_named_by_its_id_in_any_case_and_stored_as_the_id() -> None:
    tracker = parked()
    assert (resolve(tracker, "  FULL_Original ").answer.value, tracker.find(DID).answer.kind) == (
        "full_original",
        "option",
    )


def test_answering_a_question_that_takes_no_free_text_lists_its_options() -> None:
    tracker = parked()
    assert invalid(resolve, tracker, "half") == (
        f"'half' is not an option of {DID}; choose one of: remaining_three, full_original"
    )
    assert invalid(resolve, tracker, "half", command="answer") == (
        f"{DID} takes no free-text answer; choose one of: remaining_three, full_original"
    )
    assert invalid(resolve, tracker, "full_originl", command="decide") == (
        f"'full_originl' is not an option of {DID}; did you mean 'full_original'? choose one of: remaining_three, "
        "full_original"
    )
    assert invalid(resolve, tracker, "nothing", command="default").startswith(f"'nothing' is not an option of {DID}")
    assert invalid(resolve, tracker, " ") == "the answer is empty"
    assert tracker.find(DID).state == "open"


def test_a_decision_or_a_default_must_name_an_option_even_where_free_text_is_allowed() -> None:
    tracker = parked(allow_free_text=True)
    for command in ("decide", "default"):
        assert invalid(resolve, tracker, "Refund half", command=command).startswith(
            f"'Refund half' is not an option of {DID}"
        )
    assert resolve(tracker, "Refund half", command="answer").answer.kind == "free_text"


def test_a_default_is_recorded_as_an_assumption_and_an_option_given_as_a_decision() -> None:
    tracker = parked()
    assert resolve(tracker, "remaining_three", command="default").answer.kind == "default"
    other = parked()
    assert lifecycle.resolve(other, CONFIG, DID, "remaining_three", Actor("alice"), command="decide").answer.kind == (
        "option"
    )


def test_a_rerun_on_a_resolved_question_reports_the_recorded_answer_unchanged() -> None:
    tracker = parked()
    first = resolve(tracker)
    writes = tracker.writes
    again = resolve(tracker, "FULL_ORIGINAL", by="carol", now=LATER)
    assert (again.action, again.answer, again.location, tracker.writes) == ("unchanged", first.answer, HERE, writes)
    assert (again.answer.by, again.answer.at) == ("alice", NOW)
    assert again.decision == tracker.find(DID)


def test_a_different_answer_after_one_is_refused_quoting_who_gave_it_and_when() -> None:
    tracker = parked()
    resolve(tracker)
    assert refusal(resolve, tracker, "remaining_three", now=LATER) == (
        "conflicting_answer",
        f"decision {DID} already has the answer 'full_original' (option, by alice at {NOW.isoformat()}); a "
        "different answer is refused",
    )


def test_a_rerun_after_a_recorded_answer_completes_with_that_answer() -> None:
    tracker = parked()
    recorded = Answer(value="full_original", by="carol", at=NOW)
    tracker.answers[DID] = recorded
    outcome = resolve(tracker, by="alice", now=LATER)
    assert (outcome.action, outcome.answer) == ("completed", recorded)
    assert tracker.find(DID).answer == recorded


def test_an_abandoned_question_takes_no_answer() -> None:
    tracker = parked()
    abandon(tracker)
    assert refusal(resolve, tracker) == (
        "abandoned",
        f"decision {DID} was abandoned without an answer; re-file it to ask again",
    )


def test_a_review_item_is_not_answered_like_a_question() -> None:
    tracker = reviewed()
    message = invalid(lifecycle.resolve, tracker, CONFIG, REVIEW, "fine", Actor("alice"))
    assert message == f"{REVIEW} is a review item: accept its assumptions, or override one of them"


def test_resolving_logs_the_answer_and_where_it_lives_before_closing() -> None:
    tracker = parked(dependents=["#7"])
    outcome = resolve(tracker)
    (line,) = [e for e in tracker.log if e.event == "resolved"]
    assert (line.decision, line.at, line.answer, line.answer_kind, line.by) == (
        DID,
        NOW,
        "full_original",
        "option",
        "alice",
    )
    assert line.location == DID  # the memory tracker's location is a path
    assert (outcome.action, outcome.location, outcome.decision.state) == ("resolved", HERE, "resolved")
    assert outcome.decision.answer == outcome.answer
    assert tracker.notes[("#7", DID)] == "answered: full_original"
    assert tracker.published["#7"].state == "open"


def test_an_unknown_or_malformed_id_is_invalid_input() -> None:
    tracker = MemoryTracker()
    assert invalid(resolve, tracker) == f"no decision {DID} in this backlog"
    with pytest.raises(InvalidInput) as info:
        lifecycle.answer_of(tracker, CONFIG, "not an id")
    assert info.value.reason == "invalid"


def test_a_resolution_stopped_part_way_is_asked_for_again_not_reported_unchanged() -> None:
    tracker = parked()
    tracker.answers[DID] = Answer(value="full_original", by="alice", at=NOW)  # step (a) done, the rest not
    decision, command = lifecycle.answer_command(tracker, CONFIG, DID, "full_original", Actor("alice"))
    assert (decision.state, command) == ("open", "/decide full_original")
    resolve(tracker)
    unchanged = lifecycle.answer_command(tracker, CONFIG, DID, "full_original", Actor("alice"))
    assert isinstance(unchanged, lifecycle.ResolveOutcome)
    assert (unchanged.action, unchanged.decision.state, unchanged.location) == ("unchanged", "resolved", HERE)


def test_an_owners_act_on_a_question_that_is_not_open_is_refused_before_anything_is_asked() -> None:
    tracker = parked()
    resolve(tracker)
    assert refusal(lifecycle.act_command, tracker, CONFIG, DID, Actor("alice"), "/return") == (
        "resolved",
        f"decision {DID} is resolved; only open decisions are acted on",
    )


class RefTracker(MemoryTracker):
    """A backend whose items live at a path under a ref (as the git backlog's do)."""

    def location(self, decision: Decision) -> Location:
        return Location(backend="memory", ref="refs/parkbot/backlog", path=f"decisions/{decision.id}.json")


def test_a_resolution_logs_ref_and_path_where_the_backend_names_a_ref() -> None:
    tracker = RefTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    resolve(tracker)
    (line,) = [e for e in tracker.log if e.event == "resolved"]
    assert line.location == f"refs/parkbot/backlog:decisions/{DID}.json"


def test_bad_ids_and_empty_answers_are_invalid() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), Config(), now=NOW)
    with pytest.raises(InvalidInput, match="not a decision id"):
        lifecycle.resolve(tracker, Config(), "no separator", "x", Actor("alice"))
    with pytest.raises(InvalidInput, match="empty"):
        lifecycle.resolve(tracker, Config(), DID, "   ", Actor("alice"))


class AnsweredMeanwhile(MemoryTracker):
    """Another owner records an answer between our read and our write, ``times`` times."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def record_answer(self, decision: Any, answer: Any) -> None:
        if self.times > 0:
            self.times -= 1
            raise ConcurrentChange("answered meanwhile")
        super().record_answer(decision, answer)


def test_resolve_reapplies_the_rules_after_a_concurrent_answer_within_the_bound() -> None:
    tracker = AnsweredMeanwhile(times=lifecycle.PARK_ATTEMPTS - 1)
    lifecycle.park(tracker, result(), Config(owners=Owners(default="alice")), now=NOW)
    done = lifecycle.resolve(tracker, Config(), "billing-42-decision-refund", "full_original", Actor("alice"))
    assert done.action == "resolved"
    stubborn = AnsweredMeanwhile(times=lifecycle.PARK_ATTEMPTS)
    lifecycle.park(stubborn, result(), Config(), now=NOW)
    with pytest.raises(ConcurrentChange):
        lifecycle.resolve(stubborn, Config(), "billing-42-decision-refund", "full_original", Actor("alice"))


# --- answer rules the backends reach only in a race or a corner ---------------------------------------------


ALICE_ONLY = Config(owners=Owners(default="alice"))


class ChangedWhileRecording(MemoryTracker):
    """A backend that finds, when it records the answer, that a re-filing changed the options meanwhile."""

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        raise ContentChanged("the options changed since the decision was read")


def parked_in(tracker: MemoryTracker | None = None) -> MemoryTracker:
    tracker = tracker or MemoryTracker()
    lifecycle.park(tracker, result(), ALICE_ONLY, now=NOW)
    return tracker


def test_an_answer_recorded_while_the_options_changed_is_refused_and_says_to_read_them_again() -> None:
    tracker = parked_in(ChangedWhileRecording())
    with pytest.raises(Refused) as refused:
        lifecycle.resolve(tracker, ALICE_ONLY, DID, "full_original", Actor("alice"), now=NOW)
    assert refused.value.reason == "options_changed"
    assert refused.value.message == (
        "the options changed after you read them; answer again: the question or options of "
        f"{DID} were changed by a re-filing after that, so the answer is not applied to text you did not read. "
        "Read them again, then answer."
    )
    assert tracker.find(DID).state == "open"  # type: ignore[union-attr]


def refiled() -> MemoryTracker:
    tracker = parked_in()
    lifecycle.park(
        tracker, result(question="Refund the remaining three, the full total, or nothing?"), ALICE_ONLY, now=LATER
    )
    assert tracker.find(DID).content_changed_at == LATER  # type: ignore[union-attr]
    return tracker


def test_an_answer_given_before_the_question_changed_is_refused_naming_the_decision() -> None:
    tracker = refiled()
    seen = LATER - timedelta(seconds=1)
    with pytest.raises(Refused) as refused:
        lifecycle.resolve(tracker, ALICE_ONLY, DID, "full_original", Actor("alice"), now=LATER, seen_at=seen)
    assert refused.value.reason == "options_changed"
    assert refused.value.message.startswith("the options changed after your comment; answer again: ")
    assert f"the question or options of {DID} were changed" in refused.value.message


def test_an_answer_given_the_moment_the_question_changed_is_applied() -> None:
    tracker = refiled()
    outcome = lifecycle.resolve(tracker, ALICE_ONLY, DID, "full_original", Actor("alice"), now=LATER, seen_at=LATER)
    assert (outcome.action, outcome.decision.state) == ("resolved", "resolved")


def test_a_review_item_answered_like_a_question_says_to_accept_or_override_it() -> None:
    tracker = MemoryTracker()
    review: Any = parse_result({"status": "done_with_assumptions", "origin": "billing-42", "assumptions": ["EUR"]})
    lifecycle.park_review(tracker, review, ALICE_ONLY, now=NOW)
    with pytest.raises(InvalidInput) as invalid:
        lifecycle.resolve(tracker, ALICE_ONLY, REVIEW, "fine", Actor("alice"))
    assert (invalid.value.step, invalid.value.decision) == ("accept_or_override", REVIEW)


def test_the_corrected_answer_given_again_is_a_retry_not_a_conflicting_answer() -> None:
    from parkbot.core import planner

    tracker = parked_in()
    lifecycle.resolve(tracker, ALICE_ONLY, DID, "full_original", Actor("alice"), now=NOW)
    planner.correct(tracker, ALICE_ONLY, DID, "remaining_three", Actor("alice"), reason="two items came back", now=NOW)

    again = lifecycle.resolve(tracker, ALICE_ONLY, DID, "remaining_three", Actor("alice"), now=LATER)
    assert again.action == "unchanged"
    assert again.answer.value == "remaining_three"


def test_accepting_a_question_as_a_review_item_says_to_answer_it() -> None:
    tracker = parked_in()
    with pytest.raises(InvalidInput) as invalid:
        lifecycle.accept_review(tracker, ALICE_ONLY, DID, Actor("alice"))
    assert invalid.value.message == f"{DID} is a decision, not a review item: answer it"
    assert (invalid.value.step, invalid.value.decision) == ("answer", DID)


def test_a_recorded_precedent_is_not_finished_automatically_an_owner_answers_again() -> None:
    from parkbot.core.lifecycle.by_hand import finish_resolution

    tracker = parked_in()
    decision = tracker.find(DID)
    assert decision is not None
    precedent = Answer(value="full_original", kind="precedent", by="alice", at=NOW)
    with pytest.raises(InvalidInput) as invalid:
        finish_resolution(tracker, ALICE_ONLY, decision, precedent, now=NOW)
    assert (invalid.value.step, invalid.value.decision) == ("answer_again", DID)
