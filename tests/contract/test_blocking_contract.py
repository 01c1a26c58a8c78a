"""Blocking only goes up, on every backend (and in signed-answers mode): a re-filing may raise ``blocking``,
never lower it, so an agent cannot unblock its own dependents by re-filing its question as optional."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.errors import Refused
from tests.support.contract import park

DID = "billing-42-decision-refund"
SIGNED_MODE = True


def test_a_refiling_that_lowers_blocking_is_refused_and_the_gate_stays_closed(harness: Any) -> None:
    target = harness.make_dependent("agent/lowered")
    park(harness, dependents=[target])
    with pytest.raises(Refused) as info:
        park(harness, blocking=False)
    assert info.value.reason == "blocking_lowered"
    assert "blocking" in info.value.message
    assert harness.tracker.find(DID).blocking
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "blocked"


def test_a_refiling_may_raise_blocking(harness: Any) -> None:
    target = harness.make_dependent("agent/raised")
    park(harness, blocking=False)
    assert park(harness, blocking=True, dependents=[target]).action == "updated"
    assert harness.tracker.find(DID).blocking
    assert lifecycle.gate(harness.tracker, harness.config, target).state == "blocked"
