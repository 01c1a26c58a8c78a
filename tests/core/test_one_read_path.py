"""Every reader sees the same verified decisions: ``show``, ``list``, ``gate``, ``report`` and ``dashboard``
all read through the core's one read path (:func:`parkbot.core.lifecycle.decisions`), so a forged unsigned
resolution on a backlog with signed answers reads as open everywhere. Real repositories and real keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.git_helpers import run_git
from tests.test_git_signing import ALICE, DID, World, make_world, ok, owner_parks, parkbot


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return make_world(tmp_path, monkeypatch)


def test_a_forged_unsigned_resolution_reads_open_in_every_reader(world: World) -> None:
    owner = owner_parks(world)
    attacker = world.clone("attacker", "nobody")
    ok(parkbot(attacker, "sync"))
    permissive = str(attacker / "permissive.yml")
    ok(parkbot(attacker, "resolve", DID, "--answer", "remaining", "--by", ALICE, "--config", permissive))
    ok(parkbot(attacker, "sync", "--config", permissive))
    ok(parkbot(owner, "sync"))

    assert json.loads(ok(parkbot(owner, "show", DID, "--json")).stdout)["state"] == "open"
    assert json.loads(ok(parkbot(owner, "list", "--json")).stdout)["count"] == 1
    ok(parkbot(owner, "gate", "--ref", "agent/x"), 1)
    report = json.loads(ok(parkbot(owner, "report", "--json")).stdout)
    assert (report["open"], report["resolved"]) == (1, 0)
    assert [d["id"] for d in report["oldest_open"]] == [DID]
    dashboard = json.loads(ok(parkbot(owner, "dashboard", "--print", "--json")).stdout)
    assert dashboard["open"] == 1
    assert DID in dashboard["body"]
    run_git(owner, "log", "-1", "--format=%s", "refs/parkbot/backlog")
