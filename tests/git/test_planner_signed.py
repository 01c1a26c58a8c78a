"""With signed answers on the git backlog, a planner answer counts only when the configured planner signed it
(real repositories, real ``ssh-keygen`` keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.git_helpers import commit_on_branch, needs_input, run_git
from tests.test_git_signing import DID, Person, World, keygen, ok, parkbot, public

ALICE, PLANNER, MALLORY = "alice@example.com", "planner@example.com", "mallory@evil.example"
CONFIG = f"""\
owners:
  default: {ALICE}
answers:
  require_signed: true
planner:
  by: {PLANNER}
  sources: ["docs/**"]
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setenv("GNUPGHOME", str(tmp_path / "no-gnupg"))
    keys_dir = tmp_path / "keys"
    keys_dir.mkdir()
    keys = {
        n: Person(e, keygen(keys_dir, n)) for n, e in (("alice", ALICE), ("planner", PLANNER), ("mallory", MALLORY))
    }
    keys["forger"] = Person(PLANNER, keys["mallory"].key)  # claims the planner's e-mail, signs with her own key
    seed = tmp_path / "seed"
    seed.mkdir()
    run_git(seed, "init", "-q", "-b", "main")
    (seed / ".github").mkdir()
    (seed / ".github" / "parkbot.yml").write_text(CONFIG)
    signers = [f"{keys[n].email} {public(keys[n].key)}" for n in ("alice", "planner")]  # type: ignore[arg-type]
    (seed / ".github" / "allowed_signers").write_text("\n".join(signers) + "\n")
    (seed / "docs").mkdir()
    (seed / "docs" / "refunds.md").write_text("Refund the full original amount.\n")
    run_git(seed, "add", ".")
    run_git(seed, "-c", "user.name=Seed", "-c", f"user.email={ALICE}", "commit", "-q", "-m", "config and docs")
    commit_on_branch(seed, "agent/x", "work that needs the answer", trailers=[("Blocked-by", DID)])
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    run_git(seed, "push", "-q", str(remote), "refs/heads/agent/x")
    return World(tmp_path, remote, keys)


def parked(world: World) -> None:
    owner = world.clone("owner", "alice")
    ok(parkbot(owner, "park", "-", stdin=needs_input().model_dump_json()))
    ok(parkbot(owner, "sync"))


@pytest.mark.parametrize(("who", "counts"), [("planner", True), ("forger", False)])
def test_a_planner_answer_counts_only_when_the_planner_signed_it(world: World, who: str, counts: bool) -> None:
    parked(world)
    planner = world.clone(who, who)
    run_git(planner, "fetch", "-q", "origin", "refs/heads/agent/x:refs/heads/agent/x")
    ok(parkbot(planner, "sync"))
    args = ["cite", DID, "--answer", "full_original", "--source", "docs/refunds.md#L1", "--by", PLANNER]
    ok(parkbot(planner, *args))
    gate = parkbot(planner, "gate", "--ref", "agent/x", "--json")
    assert (gate.exit_code == 0) is counts, gate.output
    shown = json.loads(parkbot(planner, "show", DID, "--json").stdout)
    assert (shown["state"] == "resolved") is counts
    if not counts:
        assert any("unverified answer" in p for p in shown["problems"])
