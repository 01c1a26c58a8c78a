"""The per-commit gate counts the branches parkbot knows at the commit, not only the open pull requests.

A check run belongs to a commit. A decision filed for ``branch:agent/blocked`` (before any pull request
of it exists) blocks that branch; a pull request from another branch at the same commit must not turn
the commit green, or the blocked work merges through it (or through a pull request of the blocked
branch opened later, in the moments before its first gate runs).
"""

from __future__ import annotations

from parkbot.core import lifecycle
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import CONFIG, DID, NOW, gate_of, make_tracker, needs_input


def test_a_pull_request_at_the_head_of_a_blocked_branch_does_not_turn_the_commit_green(fake: FakeGitHub) -> None:
    blocked = fake.add_commit(message="the agent's work", branch="agent/blocked")
    lifecycle.park(make_tracker(fake), needs_input(dependents=["branch:agent/blocked"]), CONFIG, now=NOW)
    other = fake.add_pull(title="same commit, other branch", head_ref="agent/free", head_sha=blocked.sha)

    result = lifecycle.gate(make_tracker(fake), CONFIG, f"#{other.number}")

    assert [d.id for d in result.blocking] == [DID]
    assert result.details.get("same_commit") == ["branch:agent/blocked"]
    gate = gate_of(fake, blocked.sha)
    assert gate is not None
    assert gate.state == "pending"
    assert DID in gate.description
    assert fake.openapi_violations == []


def test_a_branch_at_another_commit_changes_nothing(fake: FakeGitHub) -> None:
    fake.add_commit(message="the agent's work", branch="agent/blocked")
    lifecycle.park(make_tracker(fake), needs_input(dependents=["branch:agent/blocked"]), CONFIG, now=NOW)
    free = fake.add_commit(message="unrelated", branch="agent/free")
    other = fake.add_pull(title="unrelated", head_ref="agent/free", head_sha=free.sha)
    assert lifecycle.gate(make_tracker(fake), CONFIG, f"#{other.number}").state == "open"
    gate = gate_of(fake, free.sha)
    assert gate is not None
    assert gate.state == "success"


def test_a_fork_s_branch_of_the_same_name_does_not_hide_the_blocked_branch(fake: FakeGitHub) -> None:
    blocked = fake.add_commit(message="the agent's work", branch="agent/blocked")
    lifecycle.park(make_tracker(fake), needs_input(dependents=["branch:agent/blocked"]), CONFIG, now=NOW)
    fork = fake.add_pull(head_ref="agent/blocked", head_sha=blocked.sha, head_repo="mallory/widgets")
    assert fake.branches["agent/blocked"] == blocked.sha  # the fork's branch is not this repository's

    result = lifecycle.gate(make_tracker(fake), CONFIG, f"#{fork.number}")

    assert [d.id for d in result.blocking] == [DID]
    gate = gate_of(fake, blocked.sha)
    assert gate is not None
    assert gate.state == "pending"
