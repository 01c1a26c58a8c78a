"""A link nobody can follow or verify blocks, and says why (parkbot.core.links).

Each backend reports the fact (a link to a decision it cannot find, or finds only in a record parkbot did not
write); these pin the stand-in decision the gate counts and shows, on every backend alike.
"""

from __future__ import annotations

from datetime import UTC, datetime

from parkbot.core.links import UNVERIFIED_TITLE, is_stand_in, unverifiable_link
from parkbot.core.models import Decision

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def test_a_link_to_a_decision_nobody_can_verify_is_an_open_blocking_stand_in_that_says_why() -> None:
    stand_in = unverifiable_link("billing-42-decision-refund", "its record was changed by mallory")
    assert (stand_in.id, stand_in.origin, stand_in.key) == ("billing-42-decision-refund", "billing-42", "refund")
    assert (stand_in.state, stand_in.blocking, stand_in.answer) == ("open", True, None)
    assert stand_in.title == UNVERIFIED_TITLE == "unknown or unverifiable decision"
    assert stand_in.owner == "(nobody)"
    assert stand_in.question == (
        "A dependent links billing-42-decision-refund, but its record was changed by mallory. It waits until "
        "the link is removed or the decision is filed again by parkbot."
    )
    assert stand_in.problems == ("decision billing-42-decision-refund: its record was changed by mallory",)


def test_a_stand_in_is_split_at_the_first_separator_like_every_decision_id() -> None:
    stand_in = unverifiable_link("a-decision-b-decision-c", "not found")
    assert (stand_in.origin, stand_in.key) == ("a", "b-decision-c")


def test_a_link_by_number_names_no_origin() -> None:
    stand_in = unverifiable_link("#12", "not found")
    assert (stand_in.id, stand_in.origin, stand_in.key) == ("#12", "unknown", "#12")
    assert stand_in.problems == ("decision #12: not found",)


def record(title: str, created_at: datetime) -> Decision:
    return Decision(
        id="a-decision-b", origin="a", key="b", title=title, question="q", owner="alice",
        created_at=created_at, updated_at=created_at,
    )  # fmt: skip


def test_only_a_stand_in_is_taken_for_one_never_a_record_titled_like_it() -> None:
    assert is_stand_in(unverifiable_link("#12", "not found"))
    assert not is_stand_in(record(UNVERIFIED_TITLE, datetime(2026, 11, 30, tzinfo=UTC)))
    assert not is_stand_in(record("Refund scope", EPOCH))
    assert not is_stand_in(record("Refund scope", datetime(2026, 11, 30, tzinfo=UTC)))
