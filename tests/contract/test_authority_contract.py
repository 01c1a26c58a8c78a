"""Who may answer, on every backend: only an owner's own act answers a decision (see parkbot.core.authority).

Each rule here is one a user relies on: an agent never answers its own question, however it tries.
Backends without repository roles or without known dependent authors (the git backlog) skip the
tests that need them; the rules themselves live once, in the core.
"""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import Refused
from tests.support.contract import answer, needs, park, refused
from tests.support.results import DID, NOW


def test_a_bot_never_answers_even_as_the_owner(harness: Any) -> None:
    park(harness)
    assert "is a bot" in refused(harness, Actor("alice", bot=True))
    assert answer(harness, Actor("alice")).action == "resolved"


def test_the_owner_and_everyone_above_may_answer_and_nobody_else(harness: Any) -> None:
    park(harness)
    message = refused(harness, Actor("mallory"))
    assert "its owners are alice, carol, dana" in message
    assert answer(harness, Actor("dana")).answer.by == "dana"  # two levels above alice


def test_after_an_escalation_the_owner_below_no_longer_answers(harness: Any) -> None:
    park(harness)
    lifecycle.escalate(harness.tracker, harness.config, DID, Actor("alice"), now=NOW)
    assert "its owners are carol, dana" in refused(harness, Actor("alice"))
    assert answer(harness, Actor("carol")).action == "resolved"


def test_owners_come_from_the_configuration_not_from_the_stored_record(harness: Any) -> None:
    """Rewriting the record's owner (anyone who can edit it could) gives the writer no authority."""
    park(harness)
    stored = harness.tracker.find(DID)
    harness.tracker.update(stored.model_copy(update={"owner": "mallory"}))
    refused(harness, Actor("mallory"))
    assert answer(harness, Actor("alice")).action == "resolved"


def test_a_changed_configuration_moves_ownership(harness: Any) -> None:
    park(harness)
    moved = Config(owners=Owners(default="erin"))
    refused(harness, Actor("alice"), moved)
    assert answer(harness, Actor("erin"), moved).answer.by == "erin"


ROLES = ["read", "triage", "write", "maintain", "admin"]


@pytest.mark.parametrize("needed", ["write", "maintain", "admin"])
def test_repository_roles_answer_from_the_configured_rank_up(harness: Any, needed: str) -> None:
    needs(harness, "knows_roles")
    config = harness.config.model_copy(update={"repository_permission_resolves": needed})
    park(harness, config)
    rank = ROLES.index(needed)
    for role in ROLES[:rank]:
        harness.grant(f"user-{role}", role)
        refused(harness, Actor(f"user-{role}"), config)
    harness.grant(f"user-{needed}", needed)
    assert answer(harness, Actor(f"user-{needed}"), config).answer.by == f"user-{needed}"


def test_repository_roles_count_only_when_configured(harness: Any) -> None:
    needs(harness, "knows_roles")
    park(harness)
    harness.grant("root", "admin")
    refused(harness, Actor("root"))


def test_the_author_of_a_dependent_pull_request_never_answers_even_as_the_owner(harness: Any) -> None:
    needs(harness, "knows_dependent_authors")
    target = harness.make_dependent_by("agent/work", "alice")
    park(harness, dependents=[target])
    assert "authored a pull request that waits for" in refused(harness, Actor("alice"))
    assert answer(harness, Actor("carol")).action == "resolved"


def test_the_author_of_a_dependent_never_answers_through_repository_roles(harness: Any) -> None:
    needs(harness, "knows_roles")
    needs(harness, "knows_dependent_authors")
    config = harness.config.model_copy(update={"repository_permission_resolves": "write"})
    target = harness.make_dependent_by("agent/work", "agent-dev")
    park(harness, config, dependents=[target])
    harness.grant("agent-dev", "admin")
    refused(harness, Actor("agent-dev"), config)


def test_escalating_is_an_owners_act_too(harness: Any) -> None:
    park(harness)
    with pytest.raises(Refused) as info:
        lifecycle.escalate(harness.tracker, harness.config, DID, Actor("mallory"), now=NOW)
    assert info.value.reason == "not_authorized"
    assert harness.tracker.find(DID).owner == "alice"


def test_without_a_hierarchy_a_stranger_is_told_who_may_act_and_an_owner_that_escalation_is_unavailable(
    harness: Any,
) -> None:
    flat = harness.config.model_copy(update={"hierarchy": {}})
    park(harness, flat)
    with pytest.raises(Refused) as stranger:
        lifecycle.escalate(harness.tracker, flat, DID, Actor("mallory"), now=NOW)
    assert stranger.value.reason == "not_authorized"
    with pytest.raises(Refused) as owner:
        lifecycle.escalate(harness.tracker, flat, DID, Actor("alice"), now=NOW)
    assert (owner.value.reason, owner.value.exit_code) == ("no_hierarchy", 3)
    assert owner.value.message == (
        "escalation is not available here: the configuration has no hierarchy. "
        "Answer the question, or answer with an explicit default."
    )
    assert harness.tracker.find(DID).owner == "alice"
