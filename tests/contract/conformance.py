"""Each backend is a :class:`~parkbot.core.tracker.Tracker`, statically: ``mypy --strict`` checks these lines.

The contract suite (the ``test_*_contract.py`` modules beside this one) proves that every backend behaves
alike; these functions prove that each one offers the protocol's methods with the protocol's types, so a
backend that drifts fails type checking before any test runs. Nothing calls them.
"""

from __future__ import annotations

from parkbot.core.tracker import Tracker
from parkbot.trackers.git import GitTracker
from parkbot.trackers.github import GitHubTracker
from tests.support.memory_tracker import MemoryTracker


def memory_is_a_tracker(tracker: MemoryTracker) -> Tracker:
    return tracker


def git_is_a_tracker(tracker: GitTracker) -> Tracker:
    return tracker


def github_is_a_tracker(tracker: GitHubTracker) -> Tracker:
    return tracker
