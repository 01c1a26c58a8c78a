"""Signed answers on the git backlog: every state change that would open a gate counts only when a signed
commit vouches for it. Real repositories, real ``ssh-keygen`` keys, real signatures.

The attacks: anyone who can push ``refs/parkbot/backlog`` rewrites a decision file unsigned, setting
``"state": "resolved", "answer": null`` or ``"blocking": false``; or the agent re-files its own question
with ``blocking: false``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parkbot.core.config import Config
from parkbot.core.models import Decision
from parkbot.trackers.git import GitTracker
from parkbot.trackers.git.change import Change
from parkbot.trackers.git.view import BacklogEdit
from tests.support.git_helpers import needs_input, run_git
from tests.support.signing import DID, World, make_world, ok, owner_parks, parkbot


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)


def forge(clone: Path, **changes: Any) -> None:
    """Rewrite the decision file as a pusher of the backlog ref can: unsigned, no trailer, any field."""

    def rewrite(edit: BacklogEdit) -> Change:
        stored = edit.decision(DID)
        assert stored is not None
        edit.put_decision(Decision.model_validate({**stored.model_dump(), **changes}), stored)
        return Change(f"park: updated {DID}", [f"Parkbot-Decision: {DID}"])

    with GitTracker.open(clone, config=Config()) as tracker:
        tracker.backlog.mutate(rewrite)


def attack(world: World, **changes: Any) -> tuple[Path, dict[str, Any]]:
    owner = owner_parks(world)
    attacker = world.clone("attacker", "nobody")
    ok(parkbot(attacker, "sync"))
    forge(attacker, **changes)
    ok(parkbot(attacker, "sync", "--config", str(attacker / "permissive.yml")))
    return owner, json.loads(ok(parkbot(owner, "sync", "--json")).stdout)


def test_resolved_without_an_answer_unsigned_does_not_open_the_gate(world: World) -> None:
    owner, synced = attack(world, state="resolved", answer=None)
    assert synced["action"] == "fetched"
    assert [i.split(":", 1)[0] for i in synced["ignored"]] == [DID]
    assert "resolved without an answer" in synced["ignored"][0]
    gate = json.loads(ok(parkbot(owner, "gate", "--ref", "agent/x", "--json"), 1).stdout)
    assert gate["blocking"] == [DID]
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert shown["state"] == "open"
    assert any("resolved without an answer" in p for p in shown["problems"])
    assert [d["id"] for d in json.loads(ok(parkbot(owner, "list", "--json")).stdout)["decisions"]] == [DID]
    # the owner's signed answer still resolves it
    ok(parkbot(owner, "resolve", DID, "--answer", "remaining"))
    ok(parkbot(owner, "gate", "--ref", "agent/x"))


def test_blocking_false_unsigned_does_not_open_the_gate(world: World) -> None:
    owner, synced = attack(world, blocking=False)
    assert len(synced["ignored"]) == 1
    assert synced["ignored"][0].startswith(f"{DID}: unverified blocking: false")
    gate = json.loads(ok(parkbot(owner, "gate", "--ref", "agent/x", "--json"), 1).stdout)
    assert gate["blocking"] == [DID]
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert shown["blocking"] is True
    assert any(p.startswith("unverified blocking: false") for p in shown["problems"])


def test_the_agent_refiling_with_blocking_false_is_refused_and_opens_nothing(world: World) -> None:
    owner_parks(world)
    agent = world.clone("agent", "nobody")
    ok(parkbot(agent, "sync"))
    run_git(agent, "fetch", "-q", "origin", "refs/heads/agent/x:refs/heads/agent/x")
    lowered = parkbot(agent, "park", "-", "--json", stdin=needs_input(blocking=False).model_dump_json())
    assert lowered.exit_code == 3, lowered.output
    assert json.loads(lowered.stdout)["error"] == "blocking_lowered"
    ok(parkbot(agent, "gate", "--ref", "agent/x"), 1)  # linked only by its own trailer: still blocked


def test_a_question_filed_optional_counts_as_optional_only_when_its_filing_is_signed(world: World) -> None:
    signed = world.clone("signed", "alice")
    ok(parkbot(signed, "park", "-", stdin=needs_input(blocking=False).model_dump_json()))
    shown = json.loads(ok(parkbot(signed, "show", DID, "--json")).stdout)
    assert (shown["blocking"], shown["problems"]) == (False, [])
    unsigned = world.clone("unsigned", "nobody")
    ok(parkbot(unsigned, "park", "-", stdin=needs_input(key="other", title="Other", blocking=False).model_dump_json()))
    shown = json.loads(ok(parkbot(unsigned, "show", "billing-42-decision-other", "--json")).stdout)
    assert shown["blocking"] is True  # nobody vouches that it blocks nothing
    assert any(p.startswith("unverified blocking: false") for p in shown["problems"])


def test_an_answer_reports_its_dependents_blocked_while_another_question_of_theirs_is_resolved_unsigned(
    world: World,
) -> None:
    """What ``resolve`` says of the gates it opens is what ``parkbot gate`` says: a question of the same
    dependent whose stored resolution nobody signed still blocks it."""
    owner = owner_parks(world)
    other = needs_input(key="scope", dependents=["#5"])
    ok(parkbot(owner, "park", "-", stdin=other.model_dump_json()))
    other_id = f"{other.origin}-decision-scope"
    forged = {"value": "remaining", "by": "alice@example.com", "at": "2026-01-01T00:00:00Z"}

    def rewrite(edit: BacklogEdit) -> Change:
        stored = edit.decision(other_id)
        assert stored is not None
        edit.put_decision(
            Decision.model_validate({**stored.model_dump(), "state": "resolved", "answer": forged}), stored
        )
        return Change(f"park: updated {other_id}", [f"Parkbot-Decision: {other_id}"])

    with GitTracker.open(owner, config=Config()) as tracker:
        tracker.backlog.mutate(rewrite)  # unsigned, as anyone who can write the ref can
    resolved = json.loads(ok(parkbot(owner, "resolve", DID, "--answer", "remaining", "--json")).stdout)
    (gate,) = resolved["gates"]
    assert (gate["target"], gate["state"], gate["blocking"]) == ("#5", "blocked", [other_id])
