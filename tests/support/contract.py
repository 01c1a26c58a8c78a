"""Steps the contract tests share: park the question, answer it as someone, expect a refusal."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import Refused
from tests.support.results import DID, NOW, result


def park(h: Any, config: Config | None = None, **changes: Any) -> lifecycle.ParkOutcome:
    return lifecycle.park(h.tracker, result(**changes), config or h.config, now=NOW)


def answer(h: Any, by: Actor, config: Config | None = None, value: str = "full_original") -> lifecycle.ResolveOutcome:
    return lifecycle.resolve(h.tracker, config or h.config, DID, value, by, now=NOW)


def refused(h: Any, by: Actor, config: Config | None = None) -> str:
    with pytest.raises(Refused) as info:
        answer(h, by, config)
    assert info.value.reason == "not_authorized"
    assert info.value.exit_code == 3
    stored = h.tracker.find(DID)
    assert stored is not None
    assert stored.state == "open", "a refused answer changes nothing"
    assert h.tracker.recorded_answer(stored) is None
    return info.value.message


def needs(h: Any, capability: str) -> None:
    if not getattr(h, capability):
        pytest.skip(f"the {h.tracker.backend} backend has no {capability.removeprefix('knows_')}")
