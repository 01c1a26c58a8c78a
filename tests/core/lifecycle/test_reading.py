"""parkbot.core.lifecycle.reading: a missing decision says why when the backend knows, and which id otherwise;
answers that lost a sync are named next to the one that stands."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.errors import NotFound
from parkbot.core.models import Answer, Decision
from tests.support.lifecycle import CONFIG, resolve
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID, NOW, result

# --- a missing decision, and acting on one that is not open ---------------------------------------------


class NotFetched(MemoryTracker):
    """A backend that knows why a lookup may come back empty (the git backlog in a fresh clone)."""

    def missing_hint(self) -> str | None:
        return "the backlog ref was not fetched: git fetch origin refs/parkbot/backlog:refs/parkbot/backlog"

    def poll(self, decision_id: str, previous: Any = None) -> tuple[Decision | None, Any]:
        return self.find(decision_id), "token"


def test_a_missing_decision_says_why_when_the_backend_knows_and_which_id_it_is_otherwise() -> None:
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


def test_a_mistyped_id_offers_the_nearest_stored_ids_unless_the_backend_says_why_nothing_is_found() -> None:
    mistyped = "billing-42-decision-refnd"
    hint = ": the backlog ref was not fetched: git fetch origin refs/parkbot/backlog:refs/parkbot/backlog"
    for tracker, ending, near in [
        (MemoryTracker(), f"; did you mean {DID!r}?", (DID,)),
        (NotFetched(), hint, ()),  # the backend's hint is the whole explanation: no id is guessed next to it
    ]:
        lifecycle.park(tracker, result(), CONFIG, now=NOW)
        with pytest.raises(NotFound) as info:
            lifecycle.answer_of(tracker, CONFIG, mistyped)
        assert (info.value.message, info.value.suggestions) == (f"no decision {mistyped} in this backlog{ending}", near)


# --- answers given on another copy of the backlog -----------------------------------------------------------


def test_an_answer_that_lost_a_sync_is_named_and_the_earlier_answer_stands_until_an_owner_confirms_it() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    resolve(tracker, "full_original", "alice")
    tracker.conflicts = [Answer(value="remaining_three", by="carol", at=NOW)]
    decision = lifecycle.answer_of(tracker, CONFIG, DID)
    assert (decision.state, decision.answer.value if decision.answer else None) == ("resolved", "full_original")
    assert decision.problems == (
        f"conflicting answer 'remaining_three' by carol at {NOW.isoformat()} (given on another copy of the backlog, "
        "kept in its history); the earlier answer 'full_original' stands until an owner confirms it by giving it again",
    )
