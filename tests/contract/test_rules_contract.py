"""Rules a user relies on, pinned exactly (texts, reasons, stored fields), on every backend.

The neighbouring contract suites say what each rule does; these also hold what it says: the refusal a
person reads, the reason a workflow branches on, the fields that land in the stored record. Backends
without repository roles or known dependent authors (the git backlog) skip the tests that need them.
"""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import Refused
from tests.support.contract import answer, needs, park, refused
from tests.support.results import DID, NOW, result

# --- who may answer ------------------------------------------------------------------------------


def test_a_bot_is_told_that_only_a_human_owner_answers(harness: Any) -> None:
    park(harness)
    assert refused(harness, Actor("alice", bot=True)) == "alice is a bot; only a human owner can answer a decision"


def test_a_refused_answer_names_every_owner_from_the_current_one_up(harness: Any) -> None:
    park(harness)
    assert refused(harness, Actor("mallory")) == f"mallory may not answer {DID}: its owners are alice, carol, dana"


def test_the_author_of_a_dependent_is_told_why_and_whom_to_ask(harness: Any) -> None:
    needs(harness, "knows_dependent_authors")
    park(harness, dependents=[harness.make_dependent_by("agent/work", "alice")])
    assert refused(harness, Actor("alice")) == (
        f"alice authored a pull request that waits for {DID}; the author of a dependent never answers the "
        "question it waits for (ask an owner above)"
    )


def test_a_login_without_any_repository_role_is_refused_where_roles_answer(harness: Any) -> None:
    needs(harness, "knows_roles")
    config = harness.config.model_copy(update={"repository_permission_resolves": "write"})
    park(harness, config)
    refused(harness, Actor("stranger"), config)
    harness.grant("writer", "write")
    assert answer(harness, Actor("writer"), config).answer.by == "writer"


def test_the_origins_configured_owner_answers_instead_of_the_default(harness: Any) -> None:
    config = Config(owners=Owners(default="alice", origins={"billing-*": "bob"}), hierarchy={"bob": "carol"})
    outcome = park(harness, config)
    assert outcome.decision.owner == "bob"
    assert refused(harness, Actor("alice"), config) == f"alice may not answer {DID}: its owners are bob, carol"
    assert answer(harness, Actor("bob"), config).answer.by == "bob"


def test_without_a_configured_owner_the_backends_owner_answers_until_the_question_moves_up(harness: Any) -> None:
    first = harness.tracker.default_owner()
    config = Config(hierarchy={first: "carol"})
    assert park(harness, config).decision.owner == first
    refused(harness, Actor("mallory"), config)
    lifecycle.escalate(harness.tracker, config, DID, Actor(first), to="carol")
    assert refused(harness, Actor(first), config) == f"{first} may not answer {DID}: its owners are carol"
    assert answer(harness, Actor("carol"), config).answer.by == "carol"


def test_moving_a_question_is_refused_for_a_bot_with_the_same_reason_as_answering(harness: Any) -> None:
    park(harness)
    for move in (lifecycle.escalate, lifecycle.return_to_requester):
        with pytest.raises(Refused) as info:
            move(harness.tracker, harness.config, DID, Actor("alice", bot=True))
        assert (info.value.reason, info.value.exit_code) == ("not_authorized", 3)
    assert harness.tracker.find(DID).owner == "alice"


# --- where an answer lives ---------------------------------------------------------------------------------


def test_a_resolution_is_logged_with_where_its_answer_lives_and_a_precedent_cites_that(harness: Any) -> None:
    first = lifecycle.park(harness.tracker, result(origin="billing-41"), harness.config, now=NOW).decision.id
    lifecycle.resolve(harness.tracker, harness.config, first, "full_original", Actor("alice"), now=NOW)
    where = harness.tracker.location(harness.tracker.find(first))
    expected = where.url or (f"{where.ref}:{where.path}" if where.ref else where.path)  # a link, else ref:path
    assert expected is not None
    (line,) = [e for e in harness.tracker.iter_log() if e.event == "resolved" and e.decision == first]
    assert line.location == expected
    citation = park(harness).decision.precedent
    assert citation is not None
    assert (citation.decision, citation.location) == (first, expected)
