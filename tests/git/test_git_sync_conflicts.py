"""``parkbot sync`` never loses an answer. Two clones answer the same decision differently; the earlier
(verified) answer stands, the other is reported (``sync --json`` lists it under ``conflicts``, exit 3), kept
in the history, and ``show`` names the conflict until an owner confirms the answer that stands. Real
repositories; the second test with real keys and ``answers.require_signed``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from parkbot.cli import cli
from parkbot.core.merge import Version, merge_versions
from parkbot.core.models import Answer
from tests.contract.test_lifecycle_contract import NOW
from tests.support.git_helpers import make_repo, needs_input, run_git
from tests.test_git_signing import ALICE, CAROL, DID, World, make_world, ok, owner_parks


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)


REF = "refs/parkbot/backlog"
CONFIG = f"owners:\n  default: {ALICE}\nhierarchy:\n  {ALICE}: {CAROL}\n"


def parkbot(where: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, [*args, "--repo", str(where)], input=stdin)


def two_clones(tmp_path: Path) -> tuple[Path, Path]:
    seed = tmp_path / "seed"
    make_repo(seed)
    (seed / ".github").mkdir()
    (seed / ".github" / "parkbot.yml").write_text(CONFIG)
    run_git(seed, "add", ".")
    run_git(seed, "commit", "-q", "-m", "config")
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    clones = []
    for name, email in (("alice", ALICE), ("carol", CAROL)):
        path = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(remote), str(path))
        run_git(path, "config", "user.email", email)
        run_git(path, "config", "user.name", name.title())
        clones.append(path)
    ok(parkbot(clones[0], "park", "-", stdin=needs_input(dependents=["#5"]).model_dump_json()))
    ok(parkbot(clones[0], "sync"))
    ok(parkbot(clones[1], "sync"))
    return clones[0], clones[1]


def test_two_clones_answering_differently_keep_the_earlier_answer_and_report_the_other(tmp_path: Path) -> None:
    alice, carol = two_clones(tmp_path)
    ok(parkbot(alice, "resolve", DID, "--answer", "remaining"))  # first
    time.sleep(1.1)  # answers are recorded to the second
    ok(parkbot(carol, "resolve", DID, "--answer", "full_original"))  # later, on another machine
    ok(parkbot(alice, "sync"))
    merged = parkbot(carol, "sync", "--json")
    assert merged.exit_code == 3, merged.output
    synced = json.loads(merged.stdout)
    assert synced["action"] == "merged"
    (conflict,) = synced["conflicts"]
    assert conflict["decision"] == DID
    assert (conflict["kept"]["value"], conflict["kept"]["by"]) == ("remaining", ALICE)
    assert (conflict["other"]["value"], conflict["other"]["by"]) == ("full_original", CAROL)
    assert conflict["kept"]["at"] < conflict["other"]["at"]
    # the earlier answer stands on both machines; the other is kept in the history
    ok(parkbot(alice, "sync"))
    for clone in (alice, carol):
        shown = json.loads(ok(parkbot(clone, "show", DID, "--json")).stdout)
        assert (shown["state"], shown["answer"]["value"]) == ("resolved", "remaining")
        assert any("full_original" in p and CAROL in p for p in shown["problems"]), shown["problems"]
        text = ok(parkbot(clone, "show", DID)).stdout
        assert "full_original" in text
    assert "record answer 'full_original'" in run_git(carol, "log", "--format=%s", REF)
    # an owner confirms the answer that stands: the conflict is settled
    confirmed = json.loads(ok(parkbot(carol, "resolve", DID, "--answer", "remaining", "--json")).stdout)
    assert confirmed["action"] == "confirmed"
    shown = json.loads(ok(parkbot(carol, "show", DID, "--json")).stdout)
    assert shown["problems"] == []
    assert json.loads(ok(parkbot(carol, "resolve", DID, "--answer", "remaining", "--json")).stdout)["action"] == (
        "unchanged"
    )


def test_with_signed_answers_the_earlier_verified_answer_stands(world: World) -> None:
    owner = owner_parks(world)
    laptop = world.clone("laptop", "carol")
    ok(parkbot(laptop, "sync"))
    ok(parkbot(owner, "resolve", DID, "--answer", "remaining"))
    time.sleep(1.1)
    ok(parkbot(laptop, "resolve", DID, "--answer", "full_original"))
    ok(parkbot(laptop, "sync"))
    merged = parkbot(owner, "sync", "--json")
    assert merged.exit_code == 3, merged.output
    (conflict,) = json.loads(merged.stdout)["conflicts"]
    assert (conflict["kept"]["by"], conflict["other"]["by"]) == (ALICE, CAROL)
    shown = json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)
    assert (shown["state"], shown["answer"]["value"]) == ("resolved", "remaining")
    ok(parkbot(owner, "gate", "--ref", "agent/x"))


@pytest.mark.parametrize("swap", [False, True], ids=["ours-first", "theirs-first"])
def test_the_merge_rule_is_pure_and_symmetric(swap: bool) -> None:
    from parkbot.core import lifecycle

    base = lifecycle.build_decision(needs_input(), ALICE, NOW)
    early = Answer(value="remaining", by=ALICE, at=NOW)
    late = Answer(value="full_original", by=CAROL, at=NOW.replace(hour=13))
    a = Version(base.model_copy(update={"state": "resolved", "answer": early, "updated_at": early.at}), True)
    b = Version(base.model_copy(update={"state": "resolved", "answer": late, "updated_at": late.at}), True)
    winner, conflict = merge_versions(*((b, a) if swap else (a, b)))
    assert winner.answer == early
    assert conflict is not None
    assert (conflict.kept, conflict.other) == (early, late)
    unverified = Version(b.decision, False)
    winner, conflict = merge_versions(unverified, Version(a.decision, True))
    assert (winner.answer, conflict) == (early, None)  # one without authority is no conflict: it is ignored
    same = Version(
        base.model_copy(update={"state": "resolved", "answer": early.model_copy(update={"by": CAROL})}), True
    )
    assert merge_versions(a, same)[1] is None  # the same answer twice is no conflict
