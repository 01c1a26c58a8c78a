"""The lifecycle tests' shared scene: one question parked on the in-memory tracker, and the calls that act on it.

Used by the files of tests/core/lifecycle/ (one per act); each pins the exact refusal (reason, message) or
invalid-input message a person reads.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import InvalidInput, Refused
from parkbot.core.tracker import Location
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import DID, NOW, result, review_result

REVIEW = "billing-42-decision-assumptions"
LATER = NOW + timedelta(hours=1)
CONFIG = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"}, requesters=["erin"])
HERE = Location(backend="memory", path=DID)


def parked(**changes: Any) -> MemoryTracker:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(**changes), CONFIG, now=NOW)
    return tracker


def refile(tracker: MemoryTracker, config: Config = CONFIG, **changes: Any) -> lifecycle.ParkOutcome:
    return lifecycle.park(tracker, result(**changes), config, now=LATER)


def refusal(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    """Run a call that a lifecycle rule must refuse: (reason, message); exit code 3 always."""
    with pytest.raises(Refused) as info:
        call(*args, **kwargs)
    assert info.value.exit_code == 3
    return info.value.reason, info.value.message


def invalid(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(InvalidInput) as info:
        call(*args, **kwargs)
    assert info.value.exit_code == 2
    return info.value.message


def resolve(tracker: MemoryTracker, value: str = "full_original", by: str = "alice", **kw: Any) -> Any:
    return lifecycle.resolve(tracker, CONFIG, DID, value, Actor(by), now=kw.pop("now", NOW), **kw)


def abandon(tracker: MemoryTracker, did: str = DID) -> None:
    config = CONFIG.model_copy(update={"closed_without_answer": "abandon"})
    outcome = lifecycle.closed_by_hand(tracker, config, tracker.items[did], "mallory", now=NOW)
    assert outcome.action == "abandoned"


# --- review items -----------------------------------------------------------------------------------


def reviewed(**changes: Any) -> MemoryTracker:
    tracker = MemoryTracker()
    lifecycle.park_review(tracker, review_result(**changes), CONFIG, now=NOW)
    return tracker
