"""Contract harness for the in-memory reference tracker."""

from __future__ import annotations

from pathlib import Path

from bot.core.config import Config, Owners
from tests.memory_tracker import MemoryTracker


class MemoryHarness:
    def __init__(self) -> None:
        self.tracker = MemoryTracker(owner="alice")
        self.config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"})

    def make_dependent(self, name: str) -> str:
        return f"branch:{name}"

    def link_by_trailer(self, target: str, decision_id: str) -> None:
        self.tracker.trailers.setdefault(target, set()).add(decision_id)

    def close(self) -> None:
        pass


def make_memory_harness(tmp_path: Path) -> MemoryHarness:
    return MemoryHarness()
