"""parkbot.core.lifecycle.waiting: one cheap poll of ``wait``, handing the backend its previous token."""

from __future__ import annotations

from typing import Any

from parkbot.core import lifecycle
from parkbot.core.config import Config
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result


class PollingTracker(MemoryTracker):
    """A tracker with the cheap-poll capability that remembers the tokens it was handed."""

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[Any] = []

    def poll(self, decision_id: str, previous: Any = None) -> tuple[Any, Any]:
        from parkbot.core.tracker import PollToken

        self.handed.append(previous)
        return self.find(decision_id), PollToken(decision_id, validator=f"etag-{len(self.handed)}")


def test_each_poll_hands_the_backend_the_previous_token_of_the_same_decision_only() -> None:
    tracker = PollingTracker()
    lifecycle.park(tracker, result(), Config(), now=NOW)
    did = "billing-42-decision-refund"
    decision, token = lifecycle.poll_answer(tracker, Config(), did)
    assert decision.id == did
    assert token is not None
    assert token.validator == "etag-1"
    _, second = lifecycle.poll_answer(tracker, Config(), did, token)
    assert tracker.handed[1] is token
    assert second is not None
    from parkbot.core.tracker import PollToken

    lifecycle.poll_answer(tracker, Config(), did, PollToken("billing-1-decision-x", validator="stale"))
    assert tracker.handed[0] is None
    assert tracker.handed[-1] is None  # a token of another decision is never used


def test_without_the_poll_capability_a_poll_is_a_plain_read() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), Config(), now=NOW)
    decision, token = lifecycle.poll_answer(tracker, Config(), "billing-42-decision-refund")
    assert (decision.state, token) == ("open", None)
