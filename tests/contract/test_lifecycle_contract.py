"""Every row of the lifecycle rule table, on every backend (see conftest.HARNESSES)."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.errors import BackendFailure, InvalidInput, NotFound, Refused
from parkbot.core.links import UNVERIFIED_TITLE
from tests.support.contract import park, resolve
from tests.support.faults import FailOnce
from tests.support.results import NOW, result

#: Runs in signed-answers mode too (see conftest): the git backlog with require_signed and real keys.
SIGNED_MODE = True


def act_as(h: Any, login: str) -> None:
    """Whoever acts next signs with their own key, where the harness signs (signed-answers mode)."""
    getattr(h, "act_as", lambda _login: None)(login)


def test_new_id_is_parked_and_assigned(harness: Any) -> None:
    outcome = park(harness)
    assert outcome.action == "created"
    assert outcome.decision.id == "billing-42-decision-refund"
    stored = harness.tracker.find("billing-42-decision-refund")
    assert stored is not None
    assert stored.state == "open"
    assert stored.owner == "alice"
    assert stored.title == "Refund scope for order A-4471"
    assert [o.id for o in stored.options] == ["remaining_three", "full_original"]
    assert stored.work_so_far == {"verified": ["A-4471"], "pending": ["refund"]}
    assert stored.guess == "remaining_three"
    assert outcome.location.backend == harness.tracker.backend


def test_same_id_same_title_is_unchanged_then_updated(harness: Any) -> None:
    park(harness)
    assert park(harness).action == "unchanged"
    updated = park(harness, work_so_far={"verified": ["A-4471", "A-4472"]})
    assert updated.action == "updated"
    stored = harness.tracker.find("billing-42-decision-refund")
    assert stored.work_so_far == {"verified": ["A-4471", "A-4472"]}
    assert [d.id for d in harness.tracker.iter_decisions()] == ["billing-42-decision-refund"]


def test_same_id_other_title_is_a_collision_and_writes_nothing(harness: Any) -> None:
    park(harness)
    with pytest.raises(Refused) as info:
        park(harness, title="Something else entirely", work_so_far={"x": 1})
    assert info.value.reason == "collision"
    assert harness.tracker.find("billing-42-decision-refund").work_so_far == {
        "verified": ["A-4471"],
        "pending": ["refund"],
    }


def test_owner_resolves_and_the_answer_is_recorded(harness: Any) -> None:
    park(harness)
    outcome = resolve(harness)
    assert outcome.action == "resolved"
    stored = harness.tracker.find("billing-42-decision-refund")
    assert stored.state == "resolved"
    assert stored.answer is not None
    assert (stored.answer.value, stored.answer.by, stored.answer.kind) == ("full_original", "alice", "option")
    assert stored.answer.at == NOW


def test_resolved_decision_cannot_be_reopened_by_refiling(harness: Any) -> None:
    park(harness)
    resolve(harness)
    with pytest.raises(Refused) as info:
        park(harness)
    assert info.value.reason == "resolved"
    assert "full_original" in info.value.message
    assert harness.tracker.find("billing-42-decision-refund").state == "resolved"


def test_same_answer_again_is_unchanged_and_a_different_one_refused(harness: Any) -> None:
    park(harness)
    resolve(harness)
    assert resolve(harness).action == "unchanged"
    with pytest.raises(Refused) as info:
        resolve(harness, answer="remaining_three")
    assert info.value.reason == "conflicting_answer"
    assert "'full_original'" in info.value.message


def test_non_owner_is_refused_and_nothing_changes(harness: Any) -> None:
    park(harness)
    with pytest.raises(Refused) as info:
        resolve(harness, by="mallory")
    assert info.value.reason == "not_authorized"
    stored = harness.tracker.find("billing-42-decision-refund")
    assert stored.state == "open"
    assert harness.tracker.recorded_answer(stored) is None


def test_bots_never_resolve(harness: Any) -> None:
    park(harness)
    with pytest.raises(Refused):
        resolve(harness, by="parkbot[bot]")


def test_anyone_above_the_owner_in_the_hierarchy_may_resolve(harness: Any) -> None:
    park(harness)
    assert resolve(harness, by="dana").answer.by == "dana"


def test_answer_must_be_an_option_unless_free_text_is_allowed(harness: Any) -> None:
    park(harness)
    with pytest.raises(InvalidInput, match="remaining_three, full_original"):
        resolve(harness, answer="half")
    assert harness.tracker.find("billing-42-decision-refund").state == "open"


def test_free_text_answer_where_the_decision_has_no_options(harness: Any) -> None:
    park(harness, options=[], guess=None)
    outcome = resolve(harness, answer="Refund 500 and call the customer")
    assert outcome.answer.kind == "free_text"
    assert harness.tracker.find("billing-42-decision-refund").answer.value == "Refund 500 and call the customer"


def test_explicit_default_is_flagged_as_an_assumption(harness: Any) -> None:
    park(harness)
    outcome = resolve(harness, answer="remaining_three", command="default")
    assert outcome.answer.assumption
    assert harness.tracker.find("billing-42-decision-refund").answer.kind == "default"


def test_unknown_decision_is_not_found(harness: Any) -> None:
    with pytest.raises(NotFound):
        resolve(harness)


def test_dependents_are_blocked_until_resolved(harness: Any) -> None:
    target = harness.make_dependent("agent/billing-42")
    park(harness, dependents=[target])
    gate = lifecycle.gate(harness.tracker, harness.config, target)
    assert gate.state == "blocked"
    assert [d.id for d in gate.blocking] == ["billing-42-decision-refund"]
    outcome = resolve(harness)
    assert [g.state for g in outcome.gates] == ["open"]
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "open"


def test_trailer_links_block_until_resolved(harness: Any) -> None:
    target = harness.make_dependent("agent/trailer")
    park(harness)
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "open"
    harness.link_by_trailer(target, "billing-42-decision-refund")
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "blocked"
    resolve(harness)
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "open"


def test_a_trailer_naming_a_decision_nobody_can_find_blocks_and_says_why(harness: Any) -> None:
    """Fail closed on every backend: a link parkbot cannot follow is never a green gate."""
    target = harness.make_dependent("agent/missing")
    park(harness)
    harness.link_by_trailer(target, "billing-42-decision-nothing")
    gate = lifecycle.gate(harness.tracker, harness.config, target)
    assert gate.state == "blocked"
    (blocker,) = gate.blocking
    assert blocker.id == "billing-42-decision-nothing"
    assert blocker.state == "open"
    assert blocker.blocking is True
    # the backend reports the fact, the core's rule says it: the same words on every backend
    assert blocker.problems == ("decision billing-42-decision-nothing: not found",)
    assert blocker.title == UNVERIFIED_TITLE


@pytest.mark.parametrize("written", ["refund-please", "not/an/id"])
def test_a_trailer_naming_no_decision_id_at_all_blocks_and_says_so(harness: Any, written: str) -> None:
    """Not an id by the core's rule (no ``-decision-``, or characters no id has): the same words everywhere."""
    target = harness.make_dependent("agent/typo")
    harness.link_by_trailer(target, written)
    gate = lifecycle.gate(harness.tracker, harness.config, target)
    assert gate.state == "blocked"
    (blocker,) = gate.blocking
    assert blocker.problems == (f"decision {written}: not a decision id parkbot can look up",)
    assert blocker.title == UNVERIFIED_TITLE


def test_a_dependent_stays_blocked_while_another_decision_is_open(harness: Any) -> None:
    target = harness.make_dependent("agent/two")
    park(harness, dependents=[target])
    lifecycle.park(harness.tracker, result(key="currency", title="Currency", dependents=[target]), harness.config)
    outcome = resolve(harness)
    assert [g.state for g in outcome.gates] == ["blocked"]
    gate = lifecycle.gate(harness.tracker, harness.config, target)
    assert [d.id for d in gate.blocking] == ["billing-42-decision-currency"]


def test_non_blocking_decisions_do_not_close_the_gate(harness: Any) -> None:
    target = harness.make_dependent("agent/soft")
    park(harness, dependents=[target], blocking=False)
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "open"


def test_refiling_keeps_recorded_dependents(harness: Any) -> None:
    target = harness.make_dependent("agent/keep")
    park(harness, dependents=[target])
    park(harness, dependents=[])
    assert target in harness.tracker.find("billing-42-decision-refund").dependents
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "blocked"


@pytest.mark.parametrize("step", ["record_answer", "point_dependents", "clear_blocking", "close"])
def test_interrupted_resolution_stays_open_and_a_rerun_converges(harness: Any, step: str) -> None:
    target = harness.make_dependent("agent/interrupted")
    park(harness, dependents=[target])
    flaky = FailOnce(harness.tracker, step)
    with pytest.raises(BackendFailure):
        resolve(harness, tracker=flaky)
    assert harness.tracker.find("billing-42-decision-refund").state == "open"
    if step != "record_answer":  # the answer is recorded: a different one is refused, quoting it
        with pytest.raises(Refused, match="full_original"):
            resolve(harness, answer="remaining_three")
    again = resolve(harness, tracker=flaky)
    assert again.action == ("resolved" if step == "record_answer" else "completed")
    stored = harness.tracker.find("billing-42-decision-refund")
    assert stored.state == "resolved"
    assert stored.answer.value == "full_original"
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "open"
    assert resolve(harness).action == "unchanged"
    assert [d.id for d in harness.tracker.iter_decisions()] == ["billing-42-decision-refund"]


def test_escalation_moves_exactly_one_level_up(harness: Any) -> None:
    park(harness)
    moved = lifecycle.escalate(harness.tracker, harness.config, "billing-42-decision-refund", Actor("alice"), now=NOW)
    assert moved.decision.owner == "carol"
    stored = harness.tracker.find("billing-42-decision-refund")
    assert stored.owner == "carol"
    assert stored.chain() == ["alice", "carol"]
    with pytest.raises(Refused) as sideways:
        lifecycle.escalate(harness.tracker, harness.config, stored.id, Actor("carol"), to="bob")
    assert sideways.value.reason == "not_upward"
    act_as(harness, "carol")
    lifecycle.escalate(harness.tracker, harness.config, stored.id, Actor("carol"), now=NOW)
    with pytest.raises(Refused) as top:
        lifecycle.escalate(harness.tracker, harness.config, stored.id, Actor("dana"))
    assert top.value.reason == "top_of_hierarchy"
    assert harness.tracker.find(stored.id).chain() == ["alice", "carol", "dana"]
    with pytest.raises(Refused):
        resolve(harness, by="alice")  # the question moved up; alice is below its owner now
    act_as(harness, "dana")
    assert resolve(harness, by="dana").action == "resolved"
    assert harness.tracker.find(stored.id).state == "resolved"


def test_listing_filters_by_state(harness: Any) -> None:
    park(harness)
    lifecycle.park(harness.tracker, result(key="currency", title="Currency"), harness.config)
    resolve(harness)
    assert [d.id for d in harness.tracker.iter_decisions("open")] == ["billing-42-decision-currency"]
    assert [d.id for d in harness.tracker.iter_decisions("resolved")] == ["billing-42-decision-refund"]
    assert len(list(harness.tracker.iter_decisions())) == 2
