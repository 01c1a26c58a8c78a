"""Every rule of the decision lifecycle (parkbot.core.lifecycle) that no backend changes, pinned exactly on the
in-memory tracker: what a re-filing keeps and takes, the refusals people read (message and reason), what
escalations, returns and review items record, and the ``--json`` fields of the commands (a contract,
docs/cli.md), the latter through the command line itself on the embedded git backlog.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import InvalidInput, Refused
from parkbot.core.models import Answer, Decision, DoneWithAssumptions, Escalation, parse_result
from parkbot.core.tracker import DependentState, Location
from tests.support.git_helpers import cli_repo
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result

DID = "billing-42-decision-refund"
REVIEW = "billing-42-decision-assumptions"
LATER = NOW + timedelta(hours=1)
CONFIG = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"}, requesters=["erin"])
HERE = Location(backend="memory", path=DID)


def parked(**changes: Any) -> MemoryTracker:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(**changes), CONFIG, now=NOW)
    return tracker


def refile(tracker: MemoryTracker, config: Config = CONFIG, **changes: Any) -> lifecycle.ParkOutcome:
    return lifecycle.park(tracker, result(**changes), config, now=LATER)


def refusal(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    """Run a call that a lifecycle rule must refuse: (reason, message); exit code 3 always."""
    with pytest.raises(Refused) as info:
        call(*args, **kwargs)
    assert info.value.exit_code == 3
    return info.value.reason, info.value.message


def invalid(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(InvalidInput) as info:
        call(*args, **kwargs)
    assert info.value.exit_code == 2
    return info.value.message


def resolve(tracker: MemoryTracker, value: str = "full_original", by: str = "alice", **kw: Any) -> Any:
    return lifecycle.resolve(tracker, CONFIG, DID, value, Actor(by), now=kw.pop("now", NOW), **kw)


def abandon(tracker: MemoryTracker, did: str = DID) -> None:
    config = CONFIG.model_copy(update={"closed_without_answer": "abandon"})
    outcome = lifecycle.closed_by_hand(tracker, config, tracker.items[did], "mallory", now=NOW)
    assert outcome.action == "abandoned"


# --- who owns a new question ----------------------------------------------------------------------


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


# --- re-filing the same question ------------------------------------------------------------------


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
    review = parse_result({"status": "done_with_assumptions", "origin": "billing-42", "assumptions": ["EUR"]})
    assert isinstance(review, DoneWithAssumptions)
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


# --- precedents ------------------------------------------------------------------------------------


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


# --- resolving ------------------------------------------------------------------------------------


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


# --- escalate and return ----------------------------------------------------------------------------


def test_an_escalation_records_the_hop_and_logs_it() -> None:
    tracker = parked()
    outcome = lifecycle.escalate(tracker, CONFIG, DID, Actor("alice"), now=LATER)
    stored = tracker.find(DID)
    assert stored == outcome.decision
    assert (outcome.action, outcome.location, stored.owner, stored.updated_at) == ("updated", HERE, "carol", LATER)
    assert stored.escalations == [
        Escalation(kind="escalate", from_owner="alice", to_owner="carol", by="alice", at=LATER)
    ]
    line = tracker.log[-1]
    assert (line.event, line.by, line.reason, line.at) == ("escalated", "alice", "alice -> carol", LATER)


def test_escalation_refusals_say_why_and_what_to_do_instead() -> None:
    tracker = parked()
    assert refusal(lifecycle.escalate, tracker, CONFIG, DID, Actor("alice"), to="bob") == (
        "not_upward",
        "questions only move up, one level at a time: alice -> carol, not bob",
    )
    assert lifecycle.escalate(tracker, CONFIG, DID, Actor("alice"), to="CAROL").decision.owner == "carol"
    lifecycle.escalate(tracker, CONFIG, DID, Actor("carol"), now=NOW)
    assert refusal(lifecycle.escalate, tracker, CONFIG, DID, Actor("dana")) == (
        "top_of_hierarchy",
        f"dana is at the top of the hierarchy: nobody above can take {DID}. Answer it, or answer with an explicit "
        "default.",
    )


@pytest.mark.parametrize("state", ["resolved", "abandoned"])
def test_only_open_questions_move(state: str) -> None:
    tracker = parked(requester="erin")
    if state == "resolved":
        resolve(tracker)
    else:
        abandon(tracker)
    assert refusal(lifecycle.escalate, tracker, CONFIG, DID, Actor("alice")) == (
        state,
        f"decision {DID} is {state}; only open questions escalate",
    )
    assert refusal(lifecycle.return_to_requester, tracker, CONFIG, DID, Actor("alice")) == (
        state,
        f"decision {DID} is {state}; only open questions move",
    )


def test_a_return_hands_the_question_to_the_requester_and_logs_it() -> None:
    tracker = parked(requester="erin")
    lifecycle.escalate(tracker, CONFIG, DID, Actor("alice"), now=NOW)
    outcome = lifecycle.return_to_requester(tracker, CONFIG, DID, Actor("carol"), now=LATER)
    stored = tracker.find(DID)
    assert stored == outcome.decision
    assert (outcome.action, outcome.location, stored.owner, stored.updated_at) == ("updated", HERE, "erin", LATER)
    assert stored.escalations[-1] == Escalation(
        kind="return", from_owner="carol", to_owner="erin", by="carol", at=LATER
    )
    line = tracker.log[-1]
    assert (line.event, line.by, line.reason, line.at) == ("returned", "carol", "carol -> erin", LATER)
    assert lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("erin")).answer.by == "erin"


def test_a_question_without_a_requester_cannot_be_returned() -> None:
    tracker = parked()
    assert refusal(lifecycle.return_to_requester, tracker, CONFIG, DID, Actor("alice")) == (
        "not_interactive",
        f"{DID} came from a run that is not interactive (no requester): answer it, escalate it, or answer with an "
        "explicit default",
    )


def test_the_clock_stamps_a_move_when_no_time_is_given() -> None:
    tracker = parked(requester="erin")
    lifecycle.escalate(tracker, CONFIG, DID, Actor("alice"))
    lifecycle.return_to_requester(tracker, CONFIG, DID, Actor("carol"))
    assert all(hop.at > NOW for hop in tracker.find(DID).escalations)


# --- review items -----------------------------------------------------------------------------------


def review_result(**changes: Any) -> DoneWithAssumptions:
    data = {"status": "done_with_assumptions", "origin": "billing-42", "assumptions": ["EUR", "net of tax"]}
    parsed = parse_result({**data, **changes})
    assert isinstance(parsed, DoneWithAssumptions)
    return parsed


def reviewed(**changes: Any) -> MemoryTracker:
    tracker = MemoryTracker()
    lifecycle.park_review(tracker, review_result(**changes), CONFIG, now=NOW)
    return tracker


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


# --- what the owner may type ------------------------------------------------------------------------


def test_the_help_lists_each_command_the_owner_can_give() -> None:
    question = parked(allow_free_text=True, requester="erin").find(DID)
    assert lifecycle.help_text(question, CONFIG) == [
        ("/decide remaining_three", "412.00"),
        ("/decide full_original", "690.00"),
        ("/answer <your answer>", "answer in words"),
        ("/default remaining_three", "the same, recorded as an explicit assumption"),
        ("/escalate", "pass the question one level up the hierarchy"),
        ("/return", "hand it back to erin (stated by the agent), who started the run"),
    ]
    review = reviewed().find(REVIEW)
    assert lifecycle.help_text(review, CONFIG) == [
        ("/accept", "accept every stated assumption"),
        ("/override 1 <what it should be>", "EUR"),
        ("/override 2 <what it should be>", "net of tax"),
    ]


# --- a missing decision, and acting on one that is not open ---------------------------------------------


class NotFetched(MemoryTracker):
    """A backend that knows why a lookup may come back empty (the git backlog in a fresh clone)."""

    def missing_hint(self) -> str | None:
        return "the backlog ref was not fetched: git fetch origin refs/parkbot/backlog:refs/parkbot/backlog"

    def poll(self, decision_id: str, previous: Any = None) -> tuple[Decision | None, Any]:
        return self.find(decision_id), "token"


def test_a_missing_decision_says_why_when_the_backend_knows_and_which_id_it_is_otherwise() -> None:
    from parkbot.core.errors import NotFound

    for tracker, ending, about in [
        (
            NotFetched(),
            ": the backlog ref was not fetched: git fetch origin refs/parkbot/backlog:refs/parkbot/backlog",
            None,  # the backend's hint says what to do: a surface adds no "check the id"
        ),
        (MemoryTracker(), "", "check_id"),
    ]:
        for call in (
            lambda t: lifecycle.answer_of(t, CONFIG, DID),
            lambda t: lifecycle.poll_answer(t, CONFIG, DID, None),
        ):
            with pytest.raises(NotFound) as info:
                call(tracker)
            assert (info.value.message, info.value.exit_code) == (f"no decision {DID} in this backlog{ending}", 2)
            assert (info.value.decision, info.value.step, info.value.suggestions) == (DID, about, ())


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


# --- the --json contract (docs/cli.md), through the command line on the git backlog -------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> git.Repo:
    return cli_repo(tmp_path / "repo", monkeypatch, config="owners:\n  default: alice\nprecedents: apply\n")


def run_json(*args: str, stdin: str | None = None) -> tuple[int, Any]:
    outcome = CliRunner().invoke(cli, [*args, "--json"], input=stdin, catch_exceptions=False)
    return outcome.exit_code, json.loads(outcome.stdout)


def needs_input(**changes: Any) -> str:
    return result(**changes).model_dump_json(exclude_none=True)


def where(data: dict[str, Any]) -> dict[str, Any]:
    """The location fields of a --json output on the git backlog."""
    assert data["path"].endswith(f"{data['id']}.json")
    return {"backend": "git", "ref": "refs/parkbot/backlog", "path": data["path"], "number": None, "url": None}


def test_park_json_names_the_decision_its_state_owner_location_and_gates(repo: git.Repo) -> None:
    code, data = run_json("park", "-", stdin=needs_input(dependents=["branch:agent/billing-42"]))
    gate = {"target": "branch:agent/billing-42", "state": "blocked", "blocking": [DID], "resolved": [], "note": None}
    assert (code, data) == (
        0,
        {
            "id": DID,
            "kind": "decision",
            "action": "created",
            "state": "open",
            "owner": "alice",
            "chain": ["alice"],
            **where(data),
            "gates": [gate],
            "precedent": None,
            "answer": None,
        },
    )


def test_park_json_shows_the_precedent_and_the_answer_it_applied(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input(origin="billing-41"))
    run_json("resolve", "billing-41-decision-refund", "--answer", "remaining_three", "--by", "alice")
    code, data = run_json("park", "-", stdin=needs_input())
    assert code == 0
    assert (data["action"], data["state"]) == ("created", "resolved")
    precedent = data["precedent"]
    assert set(precedent) == {"decision", "answer", "answered_by", "answered_at", "location"}
    assert (precedent["decision"], precedent["answer"], precedent["answered_by"]) == (
        "billing-41-decision-refund",
        "remaining_three",
        "alice",
    )
    assert precedent["location"].startswith("refs/parkbot/backlog:")
    answer = data["answer"]
    assert (answer["value"], answer["kind"], answer["by"], answer["citation"]) == (
        "remaining_three",
        "precedent",
        "precedent",
        precedent,
    )


def test_resolve_json_reports_the_answer_whether_it_is_an_assumption_and_the_gates(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input(dependents=["branch:agent/billing-42"]))
    code, data = run_json("resolve", DID, "--answer", "remaining_three", "--default", "--by", "alice")
    assert code == 0
    answered_at = data["answer"].pop("at")
    assert answered_at.endswith("Z")
    assert len(data["answer"].pop("digest")) == 16  # the question and options it was given against
    gate = {"target": "branch:agent/billing-42", "state": "open", "blocking": [], "resolved": [DID], "note": None}
    assert data == {
        "id": DID,
        "action": "resolved",
        "state": "resolved",
        "answer": {
            "value": "remaining_three",
            "kind": "default",
            "by": "alice",
            "source": "cli",
            "citation": None,
            "sources": [],
        },
        "assumption": True,
        **where(data),
        "gates": [gate],
    }


def test_gate_json_lists_what_blocks_and_what_is_answered(repo: git.Repo) -> None:
    head = repo.create_head("agent/billing-42", "main")
    head.commit = git.Commit.create_from_tree(
        repo, head.commit.tree, f"wip\n\nBlocked-by: {DID}\n", parent_commits=[head.commit]
    )
    run_json("park", "-", stdin=needs_input())
    run_json("park", "-", stdin=needs_input(key="currency", title="Currency", dependents=["branch:agent/billing-42"]))
    run_json("resolve", DID, "--answer", "full_original", "--by", "alice")
    code, data = run_json("gate", "--ref", "agent/billing-42")
    assert (code, data) == (
        1,
        {
            "target": "branch:agent/billing-42",
            "state": "blocked",
            "blocking": ["billing-42-decision-currency"],
            "resolved": [DID],
            "note": None,
        },
    )


def test_resume_json_gives_a_fresh_session_everything_to_continue(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input())
    code, context = run_json("resume", DID)
    assert code == 1
    assert context == {
        "id": DID,
        "state": "open",
        "question": result().question,
        "options": [
            {"id": "remaining_three", "label": "412.00"},
            {"id": "full_original", "label": "690.00"},
        ],
        "answer": None,
        "answered_by": None,
        "answered_at": None,
        "assumption": False,
        "precedent": None,
        "guess": "remaining_three",
        "overrides": [],
        "work_so_far": {"verified": ["A-4471"], "pending": ["refund"]},
    }
    run_json("resolve", DID, "--answer", "full_original", "--by", "alice")
    code, context = run_json("resume", DID)
    assert code == 0
    assert (context["state"], context["answer"], context["assumption"], context["precedent"]) == (
        "resolved",
        "full_original",
        False,
        None,
    )
    assert context["answered_by"] == "alice"
    assert context["answered_at"].endswith("Z")


def test_resume_json_cites_the_precedent_an_answer_came_from(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input(origin="billing-41"))
    run_json("resolve", "billing-41-decision-refund", "--answer", "remaining_three", "--by", "alice")
    _, parked = run_json("park", "-", stdin=needs_input())
    code, context = run_json("resume", DID)
    assert code == 0
    assert (context["answer"], context["answered_by"]) == ("remaining_three", "precedent")
    assert context["answered_at"] == parked["answer"]["at"]
    assert context["precedent"] == parked["precedent"]


def test_resume_json_lists_the_overrides_of_a_review(repo: git.Repo) -> None:
    review = {"status": "done_with_assumptions", "origin": "billing-42", "assumptions": ["EUR"]}
    run_json("park", "-", stdin=json.dumps(review))
    run_json("override", REVIEW, "1", "USD", "--by", "alice")
    _, context = run_json("resume", REVIEW)
    (override,) = context["overrides"]
    assert (override["assumption"], override["text"], override["by"]) == (1, "USD", "alice")
    assert override["at"].endswith("Z")


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


def test_a_review_item_is_filed_whatever_the_question_budget() -> None:
    tracker = MemoryTracker()
    for key in ("a", "b", "c"):
        lifecycle.park(tracker, result(key=key, title=key), CONFIG, now=NOW)
    assert lifecycle.park_review(tracker, review_result(), CONFIG, now=NOW).action == "created"
    assert [e.event for e in tracker.log].count("refused") == 0


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
