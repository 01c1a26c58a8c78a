"""What the embedded backlog costs per write and per read, its layouts, and SHA-256 repositories.

Real repositories in temporary folders; objects are counted with git itself.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.trackers.git import GitTracker, index_path, links_key
from parkbot.trackers.git.layout import digest
from parkbot.trackers.git.view import BacklogView
from tests.support.git_helpers import (
    USER_EMAIL,
    commit_count,
    commit_on_branch,
    make_repo,
    needs_input,
    root_of,
    run_git,
)
from tests.support.results import NOW

REF = "refs/parkbot/backlog"


def loose_objects(path: Path | str) -> int:
    out = run_git(path, "count-objects", "-v")
    return int(dict(line.split(": ") for line in out.splitlines())["count"])


def all_objects(path: Path | str) -> set[str]:
    return set(run_git(path, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split())


@pytest.fixture
def repo(made_repo: git.Repo) -> git.Repo:
    return made_repo


# --- one commit, about ten objects ---------------------------------------------------------------


def test_a_park_is_one_commit_of_at_most_ten_new_objects(repo: git.Repo) -> None:
    tracker = GitTracker(repo, auto_gc=False)  # nothing is packed, so every new object stays loose
    root = root_of(repo)
    config = Config()
    for n in range(5):  # a backlog already in use: the first write also writes the layout mark
        lifecycle.park(tracker, needs_input(origin=f"warm-{n}", run=f"run-{n}", dependents=[f"#{n}"]), config)
    new_objects, commits = [], []
    for n in range(70):  # enough to seal the log tail (64 lines) at least once
        before, count = all_objects(root), commit_count(root)
        outcome = lifecycle.park(
            tracker, needs_input(origin=f"o-{n}", run=f"run-{n}", dependents=[f"#{100 + n}"]), config
        )
        assert outcome.action == "created"
        new_objects.append(len(all_objects(root) - before))
        commits.append(commit_count(root) - count)
    assert set(commits) == {1}
    assert max(new_objects) <= 10, new_objects
    assert sum(new_objects) / len(new_objects) <= 9.5
    assert run_git(root, "ls-tree", "--name-only", REF, "log/").splitlines() == ["log/00000000.jsonl"]  # sealed once
    run_git(root, "fsck", "--no-dangling", "--no-progress")


def test_each_state_change_carries_its_log_line_in_its_own_commit(repo: git.Repo) -> None:
    tracker = GitTracker(repo)
    config = Config(hierarchy={USER_EMAIL: "boss@example.com"})
    did = lifecycle.park(tracker, needs_input(dependents=["#3"]), config).decision.id
    lifecycle.escalate(tracker, config, did, Actor(USER_EMAIL))
    lifecycle.resolve(tracker, config, did, "full_original", Actor("boss@example.com"))
    subjects = run_git(root_of(repo), "log", "--reverse", "--format=%s", REF).splitlines()
    assert not [s for s in subjects if s.startswith("log:")]
    assert [e.event for e in tracker.iter_log()] == ["parked", "escalated", "resolved"]


# --- reads proportional to what they return ------------------------------------------------------


class Counting:
    """Counts the decision files a view parses."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsed: Counter[str] = Counter()
        original = BacklogView.parse_decision

        def parse(view: BacklogView, data: bytes, path: str) -> Decision:
            self.parsed[path] += 1
            return original(view, data, path)

        monkeypatch.setattr(BacklogView, "parse_decision", parse)


def test_listing_open_decisions_reads_only_open_ones(repo: git.Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    tracker = GitTracker(repo)
    config = Config()
    ids = [lifecycle.park(tracker, needs_input(origin=f"o-{n}"), config).decision.id for n in range(12)]
    for did in ids[3:]:
        lifecycle.resolve(tracker, config, did, "remaining", Actor(USER_EMAIL))
    counting = Counting(monkeypatch)
    assert sorted(d.id for d in GitTracker(repo).iter_decisions("open")) == sorted(ids[:3])
    assert len(counting.parsed) == 3
    counting.parsed.clear()
    assert len(list(GitTracker(repo).iter_decisions())) == 12
    assert len(counting.parsed) == 12
    counting.parsed.clear()
    assert [d.id for d in GitTracker(repo).open_decisions(origin="o-1")] == [ids[1]]
    assert len(counting.parsed) == 1


def test_the_index_lists_a_decision_under_its_origin_and_run_only_while_open(repo: git.Repo) -> None:
    tracker = GitTracker(repo)
    config = Config(closed_without_answer="abandon")
    did = lifecycle.park(tracker, needs_input(run="run-1", dependents=["#9"]), config).decision.id
    root = root_of(repo)

    def bucket(key: str) -> list[str]:
        try:
            return json.loads(run_git(root, "show", f"{REF}:{index_path(key)}")).get(key, [])
        except AssertionError:
            return []

    assert bucket("origin:billing-42") == [did]
    assert bucket("run:run-1") == [did]
    assert bucket(links_key("#9")) == [did]
    lifecycle.resolve(tracker, config, did, "remaining", Actor(USER_EMAIL))
    assert bucket("origin:billing-42") == bucket("run:run-1") == bucket(links_key("#9")) == []
    other = lifecycle.park(tracker, needs_input(key="other", title="Other", dependents=["#9"]), config).decision
    lifecycle.closed_by_hand(tracker, config, other, "someone")
    assert bucket("origin:billing-42") == []  # abandoned: not open
    assert bucket(links_key("#9")) == [other.id]  # and still blocking
    assert lifecycle.gate(tracker, config, "#9").state == "blocked"


# --- layout 1 ------------------------------------------------------------------------------------


def _legacy_dump(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write_tree(root: Path, files: dict[str, bytes], parent: str | None = None) -> str:
    """Commit exactly these files on the backlog ref, with plumbing and a private index."""
    index = root / ".git" / "legacy-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    index.unlink(missing_ok=True)
    for path, data in files.items():
        blob = (
            subprocess.run(
                ["git", "hash-object", "-w", "--stdin"], cwd=root, input=data, capture_output=True, check=True
            )
            .stdout.decode()
            .strip()
        )
        subprocess.run(
            ["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"], cwd=root, env=env, check=True
        )
    tree = subprocess.run(["git", "write-tree"], cwd=root, env=env, capture_output=True, text=True, check=True)
    index.unlink()
    commit = run_git(root, "commit-tree", tree.stdout.strip(), *(["-p", parent] if parent else []), "-m", "park: old")
    run_git(root, "update-ref", REF, commit)
    return commit


def legacy_files(decisions: list[Decision], links: dict[str, list[str]], log: list[LogEntry]) -> dict[str, bytes]:
    """A backlog as layout 1 stored it (decisions, links, origins, runs, log segments)."""
    files: dict[str, bytes] = {}
    origins: dict[str, list[str]] = {}
    runs: dict[str, list[str]] = {}
    for decision in decisions:
        files[f"decisions/{digest(decision.id)[:2]}/{decision.id}.json"] = decision.to_json().encode()
        origins.setdefault(decision.origin, []).append(decision.id)
        if decision.run:
            runs.setdefault(decision.run, []).append(decision.id)
    for target, ids in links.items():
        hashed = digest(target)
        files[f"links/{hashed[:2]}/{hashed[:16]}.json"] = _legacy_dump({"target": target, "decisions": ids})
    for origin, ids in origins.items():
        files[f"origins/{digest(origin)[:2]}/{origin}.json"] = _legacy_dump({"origin": origin, "decisions": ids})
    for run, ids in runs.items():
        hashed = digest(run)
        files[f"runs/{hashed[:2]}/{hashed[:16]}.json"] = _legacy_dump({"run": run, "decisions": ids})
    lines = [(e.model_dump_json(exclude_none=True) + "\n").encode() for e in log]
    files["log/000000/00000000.jsonl"] = b"".join(lines[:2])
    files["log/000000/00000001.jsonl"] = b"".join(lines[2:])
    return files


def old_backlog(root: Path) -> tuple[Decision, Decision]:
    first = lifecycle.build_decision(needs_input(origin="old-1", run="run-old", dependents=["#7"]), USER_EMAIL, NOW)
    second = lifecycle.build_decision(needs_input(origin="old-2", dependents=["#8"]), USER_EMAIL, NOW)
    closed = second.model_copy(update={"state": "resolved", "answer": Answer(value="remaining", by=USER_EMAIL, at=NOW)})
    log = [
        lifecycle.log_entry("parked", first, NOW),
        lifecycle.log_entry("parked", second, NOW),
        lifecycle.log_entry("resolved", closed, NOW),
    ]
    write_tree(root, legacy_files([first, closed], {"#7": [first.id]}, log))
    return first, closed


def test_a_layout_1_backlog_is_read_as_it_is_and_migrated_by_the_first_write(repo: git.Repo) -> None:
    root = root_of(repo)
    first, closed = old_backlog(root)
    tracker = GitTracker(repo)
    config = Config()
    # read as it is
    assert tracker.find(first.id).state == "open"
    assert tracker.find(closed.id).answer.value == "remaining"
    assert [d.id for d in lifecycle.gate(tracker, config, "#7").blocking] == [first.id]
    assert [d.id for d in tracker.iter_decisions("open")] == [first.id]
    assert [d.id for d in tracker.open_decisions(origin="other", run="run-old")] == [first.id]
    assert [e.event for e in tracker.iter_log()] == ["parked", "parked", "resolved"]
    before = commit_count(root)
    # the first write migrates, in the same commit
    new = lifecycle.park(tracker, needs_input(origin="new-1", dependents=["#7"]), config).decision
    assert commit_count(root) == before + 1
    top = run_git(root, "ls-tree", "--name-only", REF).splitlines()
    assert "LAYOUT" in top
    assert not {"links", "origins", "runs"} & set(top)
    assert sorted(d.id for d in lifecycle.gate(tracker, config, "#7").blocking) == sorted([first.id, new.id])
    assert sorted(d.id for d in tracker.iter_decisions("open")) == sorted([first.id, new.id])
    assert [d.id for d in tracker.open_decisions(origin="old-1")] == [first.id]
    assert [e.event for e in tracker.iter_log()] == ["parked", "parked", "resolved", "parked"]
    # and the old decision resolves as any other
    lifecycle.resolve(tracker, config, first.id, "full_original", Actor(USER_EMAIL))
    assert [d.id for d in lifecycle.gate(tracker, config, "#7").blocking] == [new.id]
    assert [d.id for d in GitTracker(repo).iter_decisions("open")] == [new.id]
    run_git(root, "fsck", "--no-dangling", "--no-progress")


def test_a_remote_still_written_in_layout_1_merges_into_layout_2(tmp_path: Path) -> None:
    seed = make_repo(tmp_path / "seed")
    first, closed = old_backlog(root_of(seed))
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(root_of(seed)), str(bare))
    run_git(root_of(seed), "push", "-q", str(bare), REF)
    seed.close()
    run_git(tmp_path, "clone", "-q", str(bare), str(tmp_path / "a"))
    run_git(tmp_path / "a", "config", "user.email", USER_EMAIL)
    a = git.Repo(tmp_path / "a")
    try:
        tracker = GitTracker(a)
        assert tracker.sync().action == "fetched"
        mine = lifecycle.park(tracker, needs_input(origin="mine", dependents=["#7"]), Config()).decision
        # meanwhile an old parkbot adds a decision on the remote, still in layout 1
        theirs = lifecycle.build_decision(needs_input(origin="theirs", dependents=["#7"]), USER_EMAIL, NOW)
        files = legacy_files([first, closed, theirs], {"#7": [first.id, theirs.id]}, [])
        old_tip = run_git(bare, "rev-parse", REF)
        _legacy_push(bare, files, old_tip)
        assert tracker.sync().action == "merged"
        ids = sorted([first.id, mine.id, theirs.id])
        assert sorted(d.id for d in lifecycle.gate(tracker, Config(), "#7").blocking) == ids
        assert sorted(d.id for d in tracker.iter_decisions("open")) == ids
        top = run_git(tmp_path / "a", "ls-tree", "--name-only", REF).splitlines()
        assert "LAYOUT" in top
        assert not {"links", "origins", "runs"} & set(top)
    finally:
        a.close()


def _legacy_push(bare: Path, files: dict[str, bytes], parent: str) -> None:
    """Commit ``files`` as the remote's next backlog commit, the way an old writer would."""
    index = bare / "legacy-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index), "GIT_DIR": str(bare)}
    for path, data in files.items():
        blob = (
            subprocess.run(
                ["git", "hash-object", "-w", "--stdin"], input=data, env=env, capture_output=True, check=True
            )
            .stdout.decode()
            .strip()
        )
        subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"], env=env, check=True)
    tree = subprocess.run(["git", "write-tree"], env=env, capture_output=True, text=True, check=True).stdout.strip()
    index.unlink()
    commit = subprocess.run(
        ["git", "commit-tree", tree, "-p", parent, "-m", "park: created by an old parkbot"],
        env={**env, "GIT_AUTHOR_NAME": "Old", "GIT_AUTHOR_EMAIL": "old@example.com",
             "GIT_COMMITTER_NAME": "Old", "GIT_COMMITTER_EMAIL": "old@example.com"},
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    subprocess.run(["git", "update-ref", REF, commit], env=env, check=True)


# --- bounded disk ----------------------------------------------------------------------------------


def test_the_backlog_packs_its_loose_objects_without_anyone_running_gc(repo: git.Repo) -> None:
    tracker = GitTracker(repo)
    tracker.backlog.packer.threshold = 60  # the default is 2000; the mechanism is the same
    root = root_of(repo)
    most = 0
    for n in range(30):
        lifecycle.park(tracker, needs_input(origin=f"o-{n}", dependents=[f"#{n}"]), Config())
        most = max(most, loose_objects(root))
    assert tracker.backlog.packer.packs >= 3
    assert most < 60 + 15  # never much more than the threshold is left loose
    counts = dict(line.split(": ") for line in run_git(root, "count-objects", "-v").splitlines())
    assert int(counts["packs"]) <= 3  # packs are rolled up geometrically, not one per pack run
    assert len(list(GitTracker(repo).iter_decisions())) == 30
    run_git(root, "fsck", "--no-dangling", "--no-progress")


def test_packing_is_shared_between_processes_and_skipped_while_another_packs(repo: git.Repo) -> None:
    first, second = GitTracker(repo), GitTracker(repo)
    for tracker in (first, second):
        tracker.backlog.packer.threshold = 12
    lock = Path(repo.common_dir) / "parkbot" / "pack.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("another packer\n")
    lifecycle.park(first, needs_input(origin="a-1"), Config())
    lifecycle.park(second, needs_input(origin="a-2"), Config())  # the two writes together: over 12 objects
    assert first.backlog.packer.packs == second.backlog.packer.packs == 0  # the other packer holds the lock
    lock.unlink()
    lifecycle.park(first, needs_input(origin="a-3"), Config())
    assert first.backlog.packer.packs == 1
    assert loose_objects(root_of(repo)) < 12


# --- SHA-256 repositories ---------------------------------------------------------------------------


def sha256_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    run_git(path, "init", "-q", "--object-format=sha256", "-b", "main")
    run_git(path, "config", "user.name", "Alice Owner")
    run_git(path, "config", "user.email", USER_EMAIL)
    (path / "README.md").write_text("hello\n", encoding="utf-8")
    run_git(path, "add", "README.md")
    run_git(path, "commit", "-q", "-m", "initial")
    return path


def test_a_sha256_repository_does_the_whole_round_trip(tmp_path: Path) -> None:
    seed = sha256_repo(tmp_path / "seed")
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    clones = []
    for name in ("a", "b"):
        run_git(tmp_path, "clone", "-q", str(bare), str(tmp_path / name))
        run_git(tmp_path / name, "config", "user.email", USER_EMAIL)
        clones.append(tmp_path / name)
    a, b = clones
    assert run_git(a, "rev-parse", "--show-object-format") == "sha256"
    commit_on_branch(a, "agent/x", "work", trailers=[("Blocked-by", "billing-42-decision-refund")])
    runner = CliRunner()

    def parkbot(where: Path, *args: str, stdin: str | None = None) -> Any:
        return runner.invoke(cli, [*args, "--repo", str(where)], input=stdin)

    parked = parkbot(a, "park", "-", stdin=needs_input(dependents=["#4"]).model_dump_json())
    assert parked.exit_code == 0, parked.output
    assert parkbot(a, "gate", "--ref", "agent/x").exit_code == 1
    assert json.loads(parkbot(a, "sync", "--json").stdout)["action"] == "pushed"
    assert json.loads(parkbot(b, "sync", "--json").stdout)["action"] == "fetched"
    resolved = parkbot(b, "resolve", "billing-42-decision-refund", "--answer", "remaining")
    assert resolved.exit_code == 0, resolved.output
    parkbot(a, "park", "-", stdin=needs_input(key="other", title="Other").model_dump_json())
    assert json.loads(parkbot(b, "sync", "--json").stdout)["action"] == "pushed"
    assert json.loads(parkbot(a, "sync", "--json").stdout)["action"] == "merged"
    assert parkbot(a, "gate", "--ref", "agent/x").exit_code == 0
    listed = json.loads(parkbot(a, "list", "--state", "all", "--json").stdout)
    assert {(d["id"], d["state"]) for d in listed["decisions"]} == {
        ("billing-42-decision-refund", "resolved"),
        ("billing-42-decision-other", "open"),
    }
    for clone in (a, b):
        assert len(run_git(clone, "rev-parse", REF)) == 64
        run_git(clone, "fsck", "--no-dangling", "--no-progress")


def test_a_sha1_remote_cannot_be_synced_into_a_sha256_repository(tmp_path: Path, repo: git.Repo) -> None:
    lifecycle.park(GitTracker(repo), needs_input(), Config())
    other = sha256_repo(tmp_path / "other")
    run_git(other, "remote", "add", "origin", str(root_of(repo)))
    with GitTracker.open(other) as tracker, pytest.raises(Exception) as info:
        tracker.sync()
    assert getattr(info.value, "exit_code", None) == 2
    assert "object format" in str(info.value) or "sha256" in str(info.value)
    run_git(other, "fsck", "--no-dangling", "--no-progress")
