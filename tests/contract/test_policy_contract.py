"""Supervision policy on every backend: budgets, upward-only moves, defaults, review items, precedents."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Limits, Owners
from parkbot.core.errors import InvalidInput, Refused
from tests.support.results import NOW, result, review_result


def with_config(harness: Any, **changes: Any) -> Config:
    config: Config = harness.config.model_copy(update=changes)
    harness.config = config
    return config


def ask(harness: Any, key: str, **changes: Any) -> lifecycle.ParkOutcome:
    return lifecycle.park(harness.tracker, result(key=key, title=f"Question {key}", **changes), harness.config, now=NOW)


def test_cap_per_origin_refuses_the_next_question_and_logs_it(harness: Any) -> None:
    for key in ("a", "b", "c"):
        ask(harness, key)
    with pytest.raises(Refused) as info:
        ask(harness, "d")
    assert info.value.reason == "cap_reached"
    assert "re-delegated" in info.value.message
    assert harness.tracker.find("billing-42-decision-d") is None
    refused = [e for e in harness.tracker.iter_log() if e.event == "refused"]
    assert [(e.decision, e.reason) for e in refused] == [("billing-42-decision-d", "cap_per_origin")]


def test_refiling_an_existing_question_never_counts_twice(harness: Any) -> None:
    for key in ("a", "b", "c"):
        ask(harness, key)
    assert ask(harness, "a").action == "unchanged"
    assert ask(harness, "c", work_so_far={"more": True}).action == "updated"


def test_cap_per_run_reached_mid_run(harness: Any) -> None:
    with_config(harness, limits=Limits(open_per_run=2))
    ask(harness, "a", origin="task-1", run="run-9")
    ask(harness, "b", origin="task-2", run="run-9")
    with pytest.raises(Refused, match="run run-9"):
        ask(harness, "c", origin="task-3", run="run-9")
    assert ask(harness, "c", origin="task-3", run="run-10").action == "created"


def test_resolved_questions_free_the_budget(harness: Any) -> None:
    for key in ("a", "b", "c"):
        ask(harness, key)
    lifecycle.resolve(harness.tracker, harness.config, "billing-42-decision-a", "full_original", Actor("alice"))
    assert ask(harness, "d").action == "created"


def test_one_blocking_question_per_origin_in_strict_mode(harness: Any) -> None:
    with_config(harness, limits=Limits(one_blocking_question_per_origin=True))
    ask(harness, "a")
    assert ask(harness, "soft", blocking=False).action == "created"
    with pytest.raises(Refused, match="one outstanding blocking question"):
        ask(harness, "b")


def test_three_level_escalation_then_top_refused(harness: Any) -> None:
    with_config(harness, owners=Owners(default="agent-7"), hierarchy={"agent-7": "lead", "lead": "cto"})
    did = ask(harness, "a").decision.id
    with pytest.raises(Refused, match="only move up"):
        lifecycle.escalate(harness.tracker, harness.config, did, Actor("agent-7"), to="agent-8")  # sideways
    lifecycle.escalate(harness.tracker, harness.config, did, Actor("agent-7"))
    with pytest.raises(Refused, match="only move up"):
        lifecycle.escalate(harness.tracker, harness.config, did, Actor("lead"), to="agent-7")  # down
    lifecycle.escalate(harness.tracker, harness.config, did, Actor("lead"))
    with pytest.raises(Refused, match="top of the hierarchy"):
        lifecycle.escalate(harness.tracker, harness.config, did, Actor("cto"))
    stored = harness.tracker.find(did)
    assert stored.chain() == ["agent-7", "lead", "cto"]
    assert [e.event for e in harness.tracker.iter_log() if e.decision == did] == ["parked", "escalated", "escalated"]


def test_return_to_requester_only_for_interactive_runs(harness: Any) -> None:
    did = ask(harness, "a").decision.id
    with pytest.raises(Refused, match="not interactive"):
        lifecycle.return_to_requester(harness.tracker, harness.config, did, Actor("alice"))
    did2 = ask(harness, "b", requester="erin").decision.id
    with pytest.raises(Refused) as unlisted:  # the agent's word alone hands the question to nobody
        lifecycle.return_to_requester(harness.tracker, harness.config, did2, Actor("alice"))
    assert unlisted.value.reason == "requester_not_allowed"
    config = harness.config.model_copy(update={"requesters": ["erin"]})
    moved = lifecycle.return_to_requester(harness.tracker, config, did2, Actor("alice"))
    assert moved.decision.owner == "erin"
    assert lifecycle.resolve(harness.tracker, config, did2, "full_original", Actor("erin")).action == "resolved"


def test_default_answer_is_visible_as_an_assumption_everywhere(harness: Any) -> None:
    target = harness.make_dependent("agent/default")
    did = ask(harness, "a", dependents=[target]).decision.id
    lifecycle.resolve(harness.tracker, harness.config, did, "remaining_three", Actor("alice"), command="default")
    stored = harness.tracker.find(did)
    assert stored.answer.kind == "default"
    assert stored.answer.assumption is True
    logged = [e for e in harness.tracker.iter_log() if e.event == "resolved"]
    assert [(e.answer, e.answer_kind) for e in logged] == [("remaining_three", "default")]


def test_review_item_is_non_blocking_idempotent_and_accepted(harness: Any) -> None:
    target = harness.make_dependent("agent/review")
    first = lifecycle.park_review(harness.tracker, review_result(dependents=[target]), harness.config, now=NOW)
    assert first.action == "created"
    assert first.decision.kind == "review"
    assert (
        lifecycle.park_review(harness.tracker, review_result(dependents=[target]), harness.config).action == "unchanged"
    )
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "open"
    for key in ("a", "b", "c"):  # review items do not use the question budget
        ask(harness, key)
    done = lifecycle.accept_review(harness.tracker, harness.config, first.decision.id, Actor("alice"))
    assert done.answer.kind == "accepted"
    assert harness.tracker.find(first.decision.id).state == "resolved"
    with pytest.raises(InvalidInput, match="not a review"):
        lifecycle.accept_review(harness.tracker, harness.config, "billing-42-decision-a", Actor("alice"))
    with pytest.raises(InvalidInput, match="is a review item"):
        lifecycle.resolve(harness.tracker, harness.config, first.decision.id, "fine", Actor("alice"))


def test_override_turns_an_assumption_into_a_recorded_answer(harness: Any) -> None:
    did = lifecycle.park_review(harness.tracker, review_result(), harness.config).decision.id
    with pytest.raises(InvalidInput, match="1 to 2"):
        lifecycle.override_assumption(harness.tracker, harness.config, did, 3, "USD", Actor("alice"))
    lifecycle.override_assumption(harness.tracker, harness.config, did, 1, "USD", Actor("alice"))
    stored = harness.tracker.find(did)
    assert [(o.assumption, o.text, o.by) for o in stored.overrides] == [(1, "USD", "alice")]
    again = lifecycle.override_assumption(harness.tracker, harness.config, did, 1, "USD", Actor("alice"))
    assert again.action == "unchanged"
    with pytest.raises(Refused, match="already overridden"):
        lifecycle.override_assumption(harness.tracker, harness.config, did, 1, "GBP", Actor("alice"))


def test_precedent_is_suggested_with_a_citation(harness: Any) -> None:
    first = ask(harness, "refund", origin="billing-41").decision.id
    lifecycle.resolve(harness.tracker, harness.config, first, "full_original", Actor("alice"))
    second = ask(harness, "refund", origin="billing-42")
    assert second.decision.state == "open"
    citation = harness.tracker.find(second.decision.id).precedent
    assert citation is not None
    assert (citation.decision, citation.answer, citation.answered_by) == (first, "full_original", "alice")


def test_precedent_applied_when_configured(harness: Any) -> None:
    first = ask(harness, "refund", origin="billing-41").decision.id
    lifecycle.resolve(harness.tracker, harness.config, first, "full_original", Actor("alice"))
    with_config(harness, precedents="apply")
    target = harness.make_dependent("agent/precedent")
    second = ask(harness, "refund", origin="billing-42", dependents=[target])
    stored = harness.tracker.find(second.decision.id)
    assert stored.state == "resolved"
    assert (stored.answer.by, stored.answer.kind, stored.answer.value) == ("precedent", "precedent", "full_original")
    assert stored.answer.citation.decision == first
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "open"


def test_no_precedent_from_a_different_question_or_a_default(harness: Any) -> None:
    with_config(harness, precedents="apply")
    first = ask(harness, "refund", origin="billing-41").decision.id
    lifecycle.resolve(harness.tracker, harness.config, first, "full_original", Actor("alice"), command="default")
    other = ask(harness, "refund", origin="billing-42")
    assert other.decision.state == "open"
    assert other.decision.precedent is None
    unrelated = ask(
        harness, "currency", origin="search-1", question="Which currency?", options=["eur", "usd"], guess="eur"
    )
    assert unrelated.decision.precedent is None


# --- rules a mutation of the lifecycle would break unseen ----------------------------------------------


def test_the_last_assumption_can_be_overridden_and_none_past_it(harness: Any) -> None:
    did = lifecycle.park_review(harness.tracker, review_result(), harness.config).decision.id
    for outside in (0, 3):
        with pytest.raises(InvalidInput, match="assumptions 1 to 2"):
            lifecycle.override_assumption(harness.tracker, harness.config, did, outside, "x", Actor("alice"))
    done = lifecycle.override_assumption(harness.tracker, harness.config, did, 2, "gross", Actor("alice"))
    assert [(o.assumption, o.text) for o in done.decision.overrides] == [(2, "gross")]


def test_the_checklist_numbers_are_the_numbers_override_takes_and_the_log_names_that_assumption(
    harness: Any,
) -> None:
    parked = lifecycle.park_review(harness.tracker, review_result(), harness.config, now=NOW)
    assert "\n1. EUR\n2. net of tax" in parked.decision.question
    lifecycle.override_assumption(harness.tracker, harness.config, parked.decision.id, 2, "gross", Actor("alice"))
    (logged,) = [e for e in harness.tracker.iter_log() if e.event == "overridden"]
    assert logged.reason == "assumption 2: net of tax"
    assert (logged.answer, logged.by) == ("gross", "alice")


def test_a_refiled_review_takes_the_new_assumptions(harness: Any) -> None:
    did = lifecycle.park_review(harness.tracker, review_result(), harness.config).decision.id
    again = lifecycle.park_review(harness.tracker, review_result(assumptions=["EUR", "gross"]), harness.config)
    assert again.action == "updated"
    assert [a.text for a in harness.tracker.find(did).assumptions] == ["EUR", "gross"]


def test_a_refiling_without_a_run_keeps_the_run_it_was_filed_under(harness: Any) -> None:
    did = ask(harness, "a", run="run-7").decision.id
    ask(harness, "a", run=None)
    assert harness.tracker.find(did).run == "run-7"
    ask(harness, "a", run="run-8")
    assert harness.tracker.find(did).run == "run-8"


def test_updated_at_moves_only_when_something_changed(harness: Any) -> None:
    from datetime import timedelta

    did = ask(harness, "a").decision.id
    later = NOW + timedelta(hours=1)
    unchanged = lifecycle.park(harness.tracker, result(key="a", title="Question a"), harness.config, now=later)
    assert unchanged.action == "unchanged"
    assert harness.tracker.find(did).updated_at == NOW
    changed = lifecycle.park(
        harness.tracker, result(key="a", title="Question a", work_so_far={"more": 1}), harness.config, now=later
    )
    assert changed.action == "updated"
    assert harness.tracker.find(did).updated_at == later
    latest = later + timedelta(hours=1)
    lifecycle.escalate(harness.tracker, harness.config, did, Actor("alice"), now=latest)
    assert harness.tracker.find(did).updated_at == latest


def test_a_gate_lists_what_is_answered_and_what_still_blocks(harness: Any) -> None:
    target = harness.make_dependent("agent/two")
    first = ask(harness, "a", dependents=[target]).decision.id
    second = ask(harness, "b", dependents=[target]).decision.id
    outcome = lifecycle.resolve(harness.tracker, harness.config, first, "full_original", Actor("alice"))
    (gate,) = [g for g in outcome.gates if g.target == target]
    assert [d.id for d in gate.blocking] == [second]
    assert [d.id for d in gate.resolved] == [first]
    later = lifecycle.gate(harness.tracker, harness.config, target)
    assert [d.id for d in later.blocking] == [second]
    assert first not in [d.id for d in later.blocking]
