"""Signed answers on the embedded git backlog, with real SSH keys and real signatures (nothing mocked).

The attack these tests stop: anyone who can push the backlog ref commits an answer (``by:`` any
name they like), the owner syncs, and the gate opens. With ``answers.require_signed`` an answer or
escalation counts only when the commit that recorded it is signed by a key the allowed-signers file
of the checkout lists for an owner.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import git
import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor, SignedRecords
from parkbot.core.config import Answers, Config, Owners
from parkbot.core.errors import ConcurrentChange, InvalidInput
from parkbot.core.models import Answer
from parkbot.trackers.git import GitTracker
from parkbot.trackers.git.change import Change
from parkbot.trackers.git.process import Git
from parkbot.trackers.git.view import BacklogEdit
from tests.support.git_helpers import needs_input, run_git
from tests.support.results import NOW
from tests.support.signing import (
    ALICE,
    BOB,
    CAROL,
    CONFIG,
    DID,
    MALLORY,
    REF,
    World,
    keygen,
    make_world,
    ok,
    owner_parks,
    parkbot,
    public,
    signature,
)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A shared remote whose default branch holds the config and the allowed signers (alice, carol, bob)."""
    return make_world(tmp_path, monkeypatch)


# --- the attack ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("forger", "why"),
    [
        ("nobody", "(unsigned)"),  # no signature at all
        ("mallory", "signed with a key that is not in allowed_signers"),  # a key nobody listed
        ("bob", f"{BOB} (not an owner)"),  # listed, but not an owner of this decision
    ],
    ids=["unsigned", "unlisted-key", "listed-non-owner"],
)
def test_a_forged_answer_from_the_remote_does_not_open_the_gate(world: World, forger: str, why: str) -> None:
    owner = owner_parks(world)
    attacker = world.clone("attacker", forger)
    if world.keys[forger].key is not None:
        run_git(attacker, "config", "commit.gpgSign", "true")  # every commit signed with the forger's key
    ok(parkbot(attacker, "sync"))
    # the forger answers in the owner's name, with a config that does not ask for signatures
    permissive = str(attacker / "permissive.yml")
    ok(parkbot(attacker, "resolve", DID, "--answer", "remaining", "--by", ALICE, "--config", permissive))
    ok(parkbot(attacker, "sync", "--config", permissive))

    synced = json.loads(ok(parkbot(owner, "sync", "--json")).stdout)
    assert synced["action"] == "fetched"
    assert len(synced["ignored"]) == 1
    assert synced["ignored"][0].startswith(f"{DID}: unverified answer by")
    assert why in synced["ignored"][0]
    text = ok(parkbot(owner, "sync")).stdout
    assert "up-to-date" in text
    gate = ok(parkbot(owner, "gate", "--ref", "agent/x", "--json"), 1)
    assert json.loads(gate.stdout)["blocking"] == [DID]
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert shown["state"] == "open"
    assert shown["answer"] is None
    assert any(p.startswith("unverified answer by") and why in p for p in shown["problems"])
    listed = json.loads(ok(parkbot(owner, "list", "--json")).stdout)
    assert [d["id"] for d in listed["decisions"]] == [DID]
    assert json.loads(ok(parkbot(owner, "list", "--state", "resolved", "--json")).stdout)["count"] == 0

    # the real owner's signed answer replaces the forged one and opens the gate
    resolved = json.loads(ok(parkbot(owner, "resolve", DID, "--answer", "full_original", "--json")).stdout)
    assert resolved["action"] == "resolved"
    ok(parkbot(owner, "gate", "--ref", "agent/x"))
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert (shown["state"], shown["answer"]["value"], shown["answer"]["by"]) == ("resolved", "full_original", ALICE)
    assert not shown["problems"]
    assert signature(owner).startswith(f"G {ALICE}")
    # and the attacker, syncing back, sees the owner's answer, not their own
    ok(parkbot(owner, "sync"))
    ok(parkbot(attacker, "sync", "--config", permissive))
    assert json.loads(ok(parkbot(attacker, "show", DID, "--json")).stdout)["answer"]["value"] == "full_original"


def test_a_forged_escalation_does_not_move_the_owner(world: World) -> None:
    owner = owner_parks(world)
    attacker = world.clone("attacker", "mallory")
    run_git(attacker, "config", "commit.gpgSign", "true")
    ok(parkbot(attacker, "sync"))
    ok(parkbot(attacker, "escalate", DID, "--by", ALICE, "--config", str(attacker / "permissive.yml")))
    ok(parkbot(attacker, "sync", "--config", str(attacker / "permissive.yml")))
    synced = json.loads(ok(parkbot(owner, "sync", "--json")).stdout)
    unlisted = "signed with a key that is not in allowed_signers"
    assert synced["ignored"] == [f"{DID}: unverified escalation by {ALICE} ({unlisted}): {ALICE} -> {CAROL}"]
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert shown["owner"] == ALICE
    assert shown["chain"] == [ALICE]
    assert shown["escalations"] == []
    # the owner escalates for real: signed, it counts
    ok(parkbot(owner, "escalate", DID))
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert shown["chain"] == [ALICE, CAROL]
    assert not shown["problems"]
    assert signature(owner).startswith(f"G {ALICE}")


def test_an_answer_signed_by_the_owner_on_another_machine_counts_after_sync(world: World) -> None:
    owner = owner_parks(world)
    laptop = world.clone("laptop", "carol")  # carol is above alice: an owner
    ok(parkbot(laptop, "sync"))
    ok(parkbot(laptop, "resolve", DID, "--answer", "remaining"))
    ok(parkbot(laptop, "sync"))
    synced = json.loads(ok(parkbot(owner, "sync", "--json")).stdout)
    assert (synced["action"], synced["ignored"]) == ("fetched", [])
    ok(parkbot(owner, "gate", "--ref", "agent/x"))
    assert json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)["answer"]["by"] == CAROL


# --- writing: signatures are made, or the write is refused -----------------------------------------------


def test_without_a_signing_setup_an_answer_is_refused_with_how_to_set_it_up(world: World) -> None:
    owner = world.clone("owner", "alice", sign=False)
    ok(parkbot(owner, "park", "-", stdin=needs_input().model_dump_json()))
    refused = parkbot(owner, "resolve", DID, "--answer", "remaining")
    assert refused.exit_code == 2
    assert "git config gpg.format ssh" in refused.output
    assert "user.signingkey" in refused.output
    assert "allowed_signers" in refused.output
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert shown["state"] == "open"
    assert shown["answer"] is None
    assert ok(parkbot(owner, "escalate", DID), 2).output.count("gpg.format ssh") == 1
    run_git(owner, "config", "gpg.format", "ssh")
    run_git(owner, "config", "user.signingkey", str(world.keys["alice"].key))
    ok(parkbot(owner, "resolve", DID, "--answer", "remaining"))
    assert len(run_git(owner, "log", "--format=%s", REF).splitlines()) == 3  # park, record, close (no dependents)
    assert signature(owner).startswith(f"G {ALICE}")


def test_every_write_that_records_an_answer_or_escalation_is_signed(world: World) -> None:
    owner = world.clone("owner", "alice")
    ok(parkbot(owner, "park", "-", stdin=needs_input(dependents=["#5"]).model_dump_json()))
    ok(parkbot(owner, "resolve", DID, "--answer", "remaining", "--by", ALICE))
    ok(parkbot(owner, "park", "-", stdin=needs_input(key="other", title="Other").model_dump_json()))
    ok(parkbot(owner, "escalate", "billing-42-decision-other"))
    signers = owner / ".github" / "allowed_signers"
    log = run_git(owner, "-c", f"gpg.ssh.allowedSignersFile={signers}", "log", "--reverse", "--format=%G? %s", REF)
    verdicts = dict(reversed(line.split(" ", 1)) for line in log.splitlines())
    assert verdicts[f"escalate billing-42-decision-other: {ALICE} -> {CAROL}"] == "G"
    assert verdicts[f"resolve {DID} (1/4): record answer 'remaining' by {ALICE}"] == "G"
    assert verdicts[f"resolve {DID} (4/4): close"] == "G"
    assert verdicts[f"resolve {DID} (3/4): clear blocking edges of #5"] == "N"  # records nothing: not signed
    assert verdicts[f"park: created {DID}"] == "N"  # agents park without keys
    trailers = run_git(owner, "log", "--format=%(trailers:key=Parkbot-Record,valueonly)", REF).split()
    assert trailers.count("answer") == 2
    assert trailers.count("escalation") == 1


def test_without_require_signed_commits_are_signed_when_git_config_asks(tmp_path: Path) -> None:
    key = keygen(tmp_path, "alice")
    repo_path = tmp_path / "repo"
    repo_path.mkdir()
    run_git(repo_path, "init", "-q", "-b", "main")
    for setting, value in (("user.email", ALICE), ("user.name", "Alice"), ("gpg.format", "ssh"),
                           ("user.signingkey", str(key)), ("commit.gpgSign", "true")):  # fmt: skip
        run_git(repo_path, "config", setting, value)
    (tmp_path / "signers").write_text(f"{ALICE} {public(key)}\n")
    run_git(repo_path, "commit", "-q", "--allow-empty", "-m", "initial")
    ok(parkbot(repo_path, "park", "-", stdin=needs_input().model_dump_json()))
    ok(parkbot(repo_path, "resolve", DID, "--answer", "remaining"))
    log = run_git(repo_path, "-c", f"gpg.ssh.allowedSignersFile={tmp_path / 'signers'}", "log", "--format=%G?", REF)
    assert log.split() == ["G", "G", "G"]  # park, record, close: every commit, as git config asks
    run_git(repo_path, "config", "user.signingkey", str(tmp_path / "missing-key"))
    refused = parkbot(repo_path, "park", "-", stdin=needs_input(key="other", title="Other").model_dump_json())
    assert refused.exit_code == 2
    assert "commit.gpgSign" in refused.output


# --- reads: proofs on every path the lifecycle uses ----------------------------------------------------


def signed_tracker(world: World, name: str, who: str) -> GitTracker:
    path = world.clone(name, who)
    config = Config(owners=Owners(default=ALICE), hierarchy={ALICE: CAROL}, answers=Answers(require_signed=True))
    return GitTracker(git.Repo(path), config=config)


def test_every_read_path_carries_proofs(world: World) -> None:
    tracker = signed_tracker(world, "owner", "alice")
    run_git(tracker.repo.working_tree_dir, "fetch", "-q", "origin", "refs/heads/agent/x:refs/heads/agent/x")
    assert isinstance(tracker, SignedRecords)
    assert tracker.verifies_signatures()
    config = tracker.config

    def signed_by_alice(record: Any) -> bool:
        return record.proof is not None and record.proof.good and record.proof.signer == ALICE

    lifecycle.park(tracker, needs_input(dependents=["#5"]), config)
    lifecycle.resolve(tracker, config, DID, "remaining", Actor(ALICE))
    for read in (
        tracker.find(DID),
        tracker.linked_decisions("branch:agent/x")[0],  # through the Blocked-by trailer
        next(iter(tracker.iter_decisions())),
        next(iter(tracker.iter_decisions("resolved"))),
    ):
        assert read is not None
        assert read.answer is not None
        assert signed_by_alice(read.answer)
    assert signed_by_alice(tracker.recorded_answer(tracker.find(DID)))  # type: ignore[arg-type]

    other = lifecycle.park(tracker, needs_input(key="other", title="Other", dependents=["#6"]), config).decision
    lifecycle.escalate(tracker, config, other.id, Actor(ALICE))
    for read in (tracker.find(other.id), tracker.linked_decisions("#6")[0], *tracker.iter_decisions("open")):
        assert read is not None
        assert [signed_by_alice(hop) for hop in read.escalations] == [True]
    tracker.record_answer(other, Answer(value="remaining", by=CAROL, at=NOW))
    recorded = tracker.recorded_answer(other)
    assert recorded is not None
    assert signed_by_alice(recorded)  # who signed it: the key that wrote it, whatever `by` says
    escalated = lifecycle.answer_of(tracker, config, other.id)
    assert lifecycle.recorded_answer(tracker, config, escalated) is None  # alice is no longer an owner of it
    tracker.release()


def test_a_verified_answer_is_never_overwritten_and_an_unverified_one_is_replaced(world: World) -> None:
    tracker = signed_tracker(world, "owner", "alice")
    config = tracker.config
    decision = lifecycle.park(tracker, needs_input(), config).decision
    # an unsigned answer record in alice's name, as anyone who can push the ref could write it
    GitTracker(tracker.repo, config=Config()).record_answer(decision, Answer(value="remaining", by=ALICE, at=NOW))
    assert lifecycle.recorded_answer(tracker, config, decision) is None  # carries no authority
    tracker.record_answer(decision, Answer(value="full_original", by=ALICE, at=NOW))  # replaces it
    recorded = lifecycle.recorded_answer(tracker, config, decision)
    assert recorded is not None
    assert recorded.value == "full_original"
    # a different answer recorded concurrently by an owner, signed: a concurrent change, never overwritten
    with pytest.raises(ConcurrentChange):
        tracker.record_answer(decision, Answer(value="remaining", by=CAROL, at=NOW))
    tracker.record_answer(decision, Answer(value="full_original", by=CAROL, at=NOW))  # the same: nothing to do
    assert lifecycle.recorded_answer(tracker, config, decision).value == "full_original"  # type: ignore[union-attr]
    tracker.release()


def test_verification_is_batched_and_remembered_by_commit(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    tracker = signed_tracker(world, "owner", "alice")
    config = tracker.config
    for n in range(4):
        did = lifecycle.park(tracker, needs_input(origin=f"o-{n}"), config).decision.id
        lifecycle.resolve(tracker, config, did, "remaining", Actor(ALICE))
    runs: list[tuple[str, ...]] = []
    original = Git.run

    def recording(self: Git, *args: str, **kwargs: Any) -> Any:
        runs.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Git, "run", recording)
    fresh = GitTracker(tracker.repo, config=config)
    shutil.rmtree(Path(tracker.repo.common_dir) / "parkbot" / "signatures", ignore_errors=True)
    decisions = list(fresh.iter_decisions())
    assert len(decisions) == 4
    assert all(d.answer is not None and d.answer.proof is not None and d.answer.proof.good for d in decisions)
    verifications = [a for a in runs if "--no-walk=unsorted" in a]
    assert len(verifications) == 1  # eight signed commits, one git process
    runs.clear()
    again = GitTracker(tracker.repo, config=config)  # another process: the verdicts are on disk
    assert all(d.answer is not None and d.answer.proof.good for d in again.iter_decisions())  # type: ignore[union-attr]
    assert not [a for a in runs if "--no-walk=unsorted" in a]
    tracker.release()


def test_the_allowed_signers_come_from_the_checkout_never_from_the_backlog_ref(world: World) -> None:
    owner = owner_parks(world)
    attacker = world.clone("attacker", "mallory")
    run_git(attacker, "config", "commit.gpgSign", "true")  # every commit signed with mallory's key
    ok(parkbot(attacker, "sync"))
    # the attacker lists their key, for themselves and for alice, in an allowed-signers file on the backlog ref
    evil = f"{MALLORY} {public(world.keys['mallory'].key)}\n{ALICE} {public(world.keys['mallory'].key)}\n"  # type: ignore[arg-type]

    def plant(edit: BacklogEdit) -> Change:
        edit.tx.write(".github/allowed_signers", evil.encode())
        return Change("plant an allowed-signers file")

    with GitTracker.open(attacker) as tracker:
        tracker.backlog.mutate(plant)
    permissive = str(attacker / "permissive.yml")
    ok(parkbot(attacker, "resolve", DID, "--answer", "remaining", "--by", ALICE, "--config", permissive))
    ok(parkbot(attacker, "sync", "--config", permissive))
    assert signature(attacker).startswith("U")  # signed, with a key the checkout does not list
    synced = json.loads(ok(parkbot(owner, "sync", "--json")).stdout)
    assert synced["ignored"] == [
        f"{DID}: unverified answer by {ALICE} (signed with a key that is not in allowed_signers)"
    ]
    ok(parkbot(owner, "gate", "--ref", "agent/x"), 1)


def test_a_missing_allowed_signers_file_is_a_clear_error(world: World) -> None:
    owner = world.clone("owner", "alice")
    os.remove(owner / ".github" / "allowed_signers")
    ok(parkbot(owner, "park", "-", stdin=needs_input().model_dump_json()))  # parking needs no signatures
    ok(parkbot(owner, "escalate", DID))  # signed: writing needs only the key
    shown = parkbot(owner, "show", DID)  # a signed record to check, and nothing to check it against
    assert shown.exit_code == 2
    assert "allowed_signers" in shown.output
    assert "require_signed" in shown.output


def test_a_bare_repository_needs_an_absolute_allowed_signers_path(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q", "--bare", "bare.git")
    config = Config(owners=Owners(default=ALICE), answers=Answers(require_signed=True))
    with pytest.raises(InvalidInput, match="absolute path"):
        GitTracker(git.Repo(tmp_path / "bare.git"), config=config)
    signers = str(tmp_path / "signers")
    absolute = Config(owners=Owners(default=ALICE), answers=Answers(require_signed=True, allowed_signers=signers))
    assert GitTracker(git.Repo(tmp_path / "bare.git"), config=absolute).verifies_signatures()


# --- the signed contract harness ------------------------------------------------------------------------


def test_the_signed_contract_harness_signs_as_whoever_acts(tmp_path: Path) -> None:
    from tests.contract.harness_git import make_signed_git_harness

    h = make_signed_git_harness(tmp_path)
    try:
        lifecycle.park(h.tracker, needs_input(), h.config)
        h.act_as("mallory")
        lifecycle.resolve(h.tracker, h.config, DID, "remaining", Actor("alice"))
        decision = lifecycle.answer_of(h.tracker, h.config, DID)
        assert decision.state == "open"
        assert decision.problems == ("unverified answer by alice (signed with a key that is not in allowed_signers)",)
        h.act_as("carol")
        assert lifecycle.resolve(h.tracker, h.config, DID, "full_original", Actor("carol")).action == "resolved"
        decision = lifecycle.answer_of(h.tracker, h.config, DID)
        assert decision.state == "resolved"
        assert decision.answer is not None
        assert decision.answer.proof is not None
        assert decision.answer.proof.signer == "carol"
    finally:
        h.close()


def test_a_precedent_applied_by_an_agent_without_a_key_parks_and_stays_open(world: World) -> None:
    owner = world.clone("owner", "alice")
    earlier = "billing-41-decision-refund"
    ok(parkbot(owner, "park", "-", stdin=needs_input(origin="billing-41").model_dump_json()))
    ok(parkbot(owner, "resolve", earlier, "--answer", "remaining"))
    ok(parkbot(owner, "sync"))
    agent = world.clone("agent", "nobody")
    ok(parkbot(agent, "sync"))
    (agent / "agent.yml").write_text(CONFIG + "precedents: apply\n")
    parked = json.loads(ok(parkbot(agent, "park", "-", "--json", "--config", str(agent / "agent.yml"),
                                   stdin=needs_input().model_dump_json())).stdout)  # fmt: skip
    assert parked["precedent"]["decision"] == earlier
    shown = json.loads(ok(parkbot(agent, "show", DID, "--json", "--config", str(agent / "agent.yml"))).stdout)
    assert shown["state"] == "open"  # nobody signed the precedent's application: it carries no authority
    assert shown["problems"] == ["unverified answer by precedent (unsigned)"]


def test_an_owner_answer_identical_to_a_forged_one_is_signed_again_and_counts(world: World) -> None:
    tracker = signed_tracker(world, "owner", "alice")
    config = tracker.config
    decision = lifecycle.park(tracker, needs_input(), config).decision
    forged = Answer(value="remaining", by=ALICE, at=NOW)  # to the second what the owner will answer
    forger = GitTracker(tracker.repo, config=Config())
    forger.record_answer(decision, forged)
    forger.close(decision, forged, lifecycle.log_entry("resolved", decision, NOW))
    assert lifecycle.answer_of(tracker, config, DID).state == "open"
    assert lifecycle.resolve(tracker, config, DID, "remaining", Actor(ALICE), now=NOW).action == "resolved"
    resolved = lifecycle.answer_of(tracker, config, DID)
    assert (resolved.state, resolved.problems) == ("resolved", ())
    assert signature(Path(tracker.repo.working_tree_dir)).startswith(f"G {ALICE}")
    tracker.release()
