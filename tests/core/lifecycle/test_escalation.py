"""parkbot.core.lifecycle.escalation: ``escalate`` one level up the hierarchy and ``return`` to the requester,
what each records and logs, and the refusals that say why and what to do instead.
"""

from __future__ import annotations

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import Refused
from parkbot.core.models import Escalation
from tests.support.lifecycle import CONFIG, HERE, LATER, abandon, parked, refusal, resolve
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID, NOW, result

# --- escalate and return ------------------------------------------------------------------ -----------------------


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


def test_closed_decisions_do_not_escalate() -> None:
    tracker = MemoryTracker()
    config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol"})
    lifecycle.park(tracker, result(), config, now=NOW)
    lifecycle.resolve(tracker, config, DID, "full_original", Actor("alice"))
    with pytest.raises(Refused, match="only open questions escalate"):
        lifecycle.escalate(tracker, config, DID, Actor("alice"))


# --- where a question cannot move, what the owner is told and which next step each surface words ------------


def refused(config: Config, call: str, **changes: object) -> Refused:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(**changes), config, now=NOW)
    act = lifecycle.escalate if call == "escalate" else lifecycle.return_to_requester
    with pytest.raises(Refused) as info:
        act(tracker, config, DID, Actor("alice"), now=NOW)
    return info.value


def test_without_a_hierarchy_the_next_step_is_to_add_one_or_answer() -> None:
    error = refused(Config(owners=Owners(default="alice")), "escalate")
    assert (error.reason, error.step, error.decision) == ("no_hierarchy", "add_hierarchy_or_answer", DID)


def test_at_the_top_of_the_hierarchy_the_next_step_is_to_answer_or_default() -> None:
    error = refused(Config(owners=Owners(default="alice"), hierarchy={"bob": "alice"}), "escalate")
    assert (error.reason, error.step, error.decision) == ("top_of_hierarchy", "answer_or_default", DID)


def test_a_requester_the_configuration_does_not_name_is_refused_with_where_to_name_them() -> None:
    error = refused(Config(owners=Owners(default="alice"), requesters=["erin"]), "return", requester="mallory")
    assert error.reason == "requester_not_allowed"
    assert error.message == (
        f"the agent stated 'mallory' as the requester of {DID}'s run, but the configuration does not name them "
        "among the requesters (`requesters:` in .github/parkbot.yml), so the question cannot be handed to them: "
        "answer it, escalate it, or answer with an explicit default"
    )
