"""parkbot.core.lifecycle.reading: a missing decision says why when the backend knows, and which id otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.models import Decision
from tests.support.lifecycle import CONFIG
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID

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
