"""Where a question cannot move, what the owner is told and which next step each surface words
(parkbot.core.lifecycle.escalation), on the in-memory tracker."""

from __future__ import annotations

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import Refused
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result

DID = "billing-42-decision-refund"


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
