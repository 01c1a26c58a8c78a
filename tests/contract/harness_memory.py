"""Contract harness for the in-memory reference tracker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from parkbot.core.config import Config, Owners
from tests.support.memory_tracker import MemoryTracker


class MemoryHarness:
    def __init__(self) -> None:
        self.tracker = MemoryTracker(owner="alice")
        self.config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"})

    def make_dependent(self, name: str) -> str:
        return f"branch:{name}"

    def link_by_trailer(self, target: str, decision_id: str) -> None:
        self.tracker.trailers.setdefault(target, set()).add(decision_id)

    #: What this backend can tell about who may answer (see test_authority_contract.py).
    knows_roles = True
    knows_dependent_authors = True

    def grant(self, login: str, role: str) -> None:
        self.tracker.roles[login.casefold()] = role  # type: ignore[assignment]

    def make_dependent_by(self, name: str, author: str) -> str:
        target = self.make_dependent(name)
        self.tracker.authors[target] = author
        return target

    def owner_backlog(self, backlog: Any, login: str) -> Any:
        """Acting as an owner needs no other credentials here: the backlog itself."""
        return backlog

    def deliver(self, config: Any = None) -> None:
        """Nothing waits for a workflow here: acts are recorded at once."""

    def close(self) -> None:
        pass


def make_memory_harness(tmp_path: Path) -> MemoryHarness:
    return MemoryHarness()
