"""The embedded git backlog (parkbot.trackers.git) on real repositories: no git call is mocked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner

import parkbot
from parkbot.cli import cli
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import BackendFailure, ConcurrentChange, ExitCode, InvalidInput, Refused
from parkbot.core.models import Answer, LogEntry
from parkbot.core.tracker import Tracker
from parkbot.trackers import git as gitmod
from parkbot.trackers.git import GitTracker, decision_path, index_path, links_key, notes_path
from tests.support.faults import FailOnce
from tests.support.git_helpers import (
    USER_EMAIL,
    backlog_subjects,
    commit_count,
    commit_on_branch,
    make_repo,
    needs_input,
    run_git,
)
from tests.support.results import NOW

DID = "billing-42-decision-refund"
REF = "refs/parkbot/backlog"


@pytest.fixture
def repo(made_repo: git.Repo) -> git.Repo:
    return made_repo


@pytest.fixture
def tracker(repo: git.Repo) -> GitTracker:
    return GitTracker(repo)


@pytest.fixture
def config() -> Config:
    return Config()


def park(tracker: Any, config: Config, **changes: Any) -> lifecycle.ParkOutcome:
    return lifecycle.park(tracker, needs_input(**changes), config)


def resolve(tracker: Any, config: Config, answer: str = "full_original", did: str = DID) -> Any:
    return lifecycle.resolve(tracker, config, did, answer, Actor(USER_EMAIL))


def path_of(repo: git.Repo) -> Path:
    return Path(repo.working_tree_dir or repo.git_dir)


# --- opening ---------------------------------------------------------------------------------


def test_it_is_a_tracker(tracker: GitTracker) -> None:
    assert isinstance(tracker, Tracker)
    assert tracker.backend == "git"


def test_outside_a_repository_is_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as info:
        GitTracker.open(tmp_path)
    assert "is not inside a git repository" in info.value.message
    assert "git init" in info.value.message
    assert info.value.step == "other_backend"  # each surface says how to use another backend in its own words
    assert info.value.exit_code == ExitCode.INVALID
    with pytest.raises(InvalidInput):
        GitTracker.open(tmp_path / "does-not-exist")


def test_open_searches_parent_directories(repo: git.Repo, config: Config) -> None:
    nested = path_of(repo) / "src" / "deep"
    nested.mkdir(parents=True)
    with GitTracker.open(nested) as opened:
        assert Path(opened.repo.working_tree_dir).resolve() == path_of(repo).resolve()
        park(opened, config)
    assert GitTracker(repo).find(DID) is not None


def test_a_bad_ref_name_is_invalid_input(repo: git.Repo) -> None:
    for bad in ("parkbot/backlog", "refs/parkbot/back log", "refs/parkbot/../x", "refs/parkbot/"):
        with pytest.raises(InvalidInput):
            GitTracker(repo, ref=bad)


# --- plumbing only ---------------------------------------------------------------------------


def test_working_tree_index_and_head_are_never_touched(repo: git.Repo, config: Config) -> None:
    root = path_of(repo)
    (root / "README.md").write_text("edited, not staged\n", encoding="utf-8")
    (root / "staged.txt").write_text("staged\n", encoding="utf-8")
    run_git(root, "add", "staged.txt")
    (root / "untracked.txt").write_text("untracked\n", encoding="utf-8")
    commit_on_branch(root, "feature", "work", trailers=[("Blocked-by", DID)])

    def state() -> tuple[Any, ...]:
        quiet = {"GIT_OPTIONAL_LOCKS": "0"}  # `git status` must not refresh the index itself
        return (
            run_git(root, "status", "--porcelain=v1", "--untracked-files=all", env=quiet),
            run_git(root, "diff", env=quiet),
            run_git(root, "diff", "--cached", env=quiet),
            run_git(root, "rev-parse", "HEAD"),
            run_git(root, "symbolic-ref", "HEAD"),
            run_git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"),
            (root / ".git" / "index").read_bytes(),
            sorted(p.name for p in root.iterdir()),
        )

    before = state()
    tracker = GitTracker(repo)
    park(tracker, config, dependents=["feature", "#7"])
    assert lifecycle.gate(tracker, Config(), "branch:feature").state == "blocked"
    resolve(tracker, config)
    park(tracker, config, key="other", title="Other")
    lifecycle.escalate(tracker, Config(hierarchy={USER_EMAIL: "boss"}), "billing-42-decision-other", Actor(USER_EMAIL))
    assert state() == before
    assert (root / "README.md").read_text(encoding="utf-8") == "edited, not staged\n"
    assert commit_count(root) > 5
    run_git(root, "fsck", "--no-dangling", "--no-progress")


# --- history ---------------------------------------------------------------------------------


def test_history_reads_as_the_decision_history(repo: git.Repo, tracker: GitTracker, config: Config) -> None:
    park(tracker, config, dependents=["agent/billing-42"])
    resolve(tracker, config)
    subjects = backlog_subjects(path_of(repo))
    assert subjects == [
        f"park: created {DID}",  # the question-log line travels in the same commit
        f"resolve {DID} (1/4): record answer 'full_original' by {USER_EMAIL}",
        f"resolve {DID} (2/4): point 1 dependent(s) at the answer",
        f"resolve {DID} (3/4): clear blocking edges of branch:agent/billing-42",
        f"resolve {DID} (4/4): close",
    ]
    trailers = run_git(path_of(repo), "log", "--format=%(trailers:key=Parkbot-Decision,valueonly)", REF)
    assert {line for line in trailers.splitlines() if line} == {DID}
    authors = set(run_git(path_of(repo), "log", "--format=%an <%ae>|%cn <%ce>", REF).splitlines())
    assert authors == {f"Alice Owner <{USER_EMAIL}>|Alice Owner <{USER_EMAIL}>"}
    # The decision file is readable with plain git.
    stored = json.loads(run_git(path_of(repo), "show", f"{REF}:{decision_path(DID)}"))
    assert stored["state"] == "resolved"
    assert stored["answer"]["value"] == "full_original"


def test_no_git_user_falls_back_to_parkbot_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(var, raising=False)
    repo = make_repo(tmp_path / "anonymous", user=False)
    try:
        tracker = GitTracker(repo)
        with pytest.raises(InvalidInput, match=r"owners\.default") as info:
            park(tracker, Config())
        assert "git config user.email" in info.value.message
        decision = lifecycle.build_decision(needs_input(), "alice", datetime.now(UTC))
        tracker.create(decision, lifecycle.log_entry("parked", decision, decision.created_at))
        author = run_git(path_of(repo), "log", "-1", "--format=%an <%ae>|%cn <%ce>", REF)
        assert author == "parkbot <parkbot@localhost>|parkbot <parkbot@localhost>"
        assert tracker.find(DID).owner == "alice"
    finally:
        repo.close()


def test_default_owner_is_the_git_user(tracker: GitTracker, config: Config) -> None:
    assert tracker.default_owner() == USER_EMAIL
    assert park(tracker, config).decision.owner == USER_EMAIL
    assert tracker.is_member("ALICE@example.com", USER_EMAIL)
    assert not tracker.is_member("mallory@example.com", USER_EMAIL)
    assert tracker.permission_of("alice") is None
    assert tracker.claim(DID) is False


# --- reading and writing ---------------------------------------------------------------------


def test_find_location_and_listing(tracker: GitTracker, config: Config) -> None:
    assert tracker.find(DID) is None
    outcome = park(tracker, config)
    assert outcome.location.as_dict() == {"backend": "git", "ref": REF, "path": decision_path(DID)}
    assert decision_path(DID).startswith("decisions/")
    assert decision_path(DID).endswith(f"/{DID}.json")
    park(tracker, config, key="currency", title="Currency")
    resolve(tracker, config)
    assert tracker.find(DID).state == "resolved"
    assert tracker.find(DID).answer.value == "full_original"
    open_ids = [d.id for d in tracker.iter_decisions("open")]
    assert open_ids == ["billing-42-decision-currency"]
    assert sorted(d.id for d in tracker.iter_decisions()) == ["billing-42-decision-currency", DID]
    with pytest.raises(InvalidInput):
        tracker.find("../escape-decision-x")


def test_create_of_an_existing_decision_is_a_concurrent_change(tracker: GitTracker, config: Config) -> None:
    decision = park(tracker, config).decision
    before = commit_count(tracker.repo.working_tree_dir)
    with pytest.raises(ConcurrentChange):
        tracker.create(decision, lifecycle.log_entry("parked", decision, decision.created_at))
    assert commit_count(tracker.repo.working_tree_dir) == before


def test_update_keeps_every_edge_and_never_reopens_a_resolved_decision(tracker: GitTracker, config: Config) -> None:
    park(tracker, config, dependents=["#1"])
    stale = tracker.find(DID)
    tracker.update(stale.model_copy(update={"dependents": ["#2"], "question": "changed?"}))
    stored = tracker.find(DID)
    assert stored.question == "changed?"
    assert stored.dependents == ["#1", "#2"]
    assert [d.id for d in tracker.linked_decisions("#1")] == [DID]
    assert [d.id for d in tracker.linked_decisions("#2")] == [DID]
    resolve(tracker, config)
    with pytest.raises(ConcurrentChange):
        tracker.update(stale)
    assert tracker.find(DID).state == "resolved"


def test_every_step_is_idempotent(tracker: GitTracker, config: Config) -> None:
    root = tracker.repo.working_tree_dir
    decision = park(tracker, config, dependents=["agent/x", "#12"]).decision
    answer = Answer(value="full_original", by=USER_EMAIL, at=decision.created_at)

    def writes(step: Any, *args: Any) -> int:
        before = commit_count(root)
        step(*args)
        return commit_count(root) - before

    assert writes(tracker.block_dependents, decision) == 0  # park already linked them
    assert writes(tracker.update, tracker.find(DID)) == 0
    for step, args in [
        (tracker.record_answer, (decision, answer)),
        (tracker.point_dependents, (decision, answer)),
        (tracker.clear_blocking, (decision,)),
        (tracker.close, (decision, answer, lifecycle.log_entry("resolved", decision, NOW))),
    ]:
        assert writes(step, *args) == 1
        assert writes(step, *args) == 0
    assert tracker.find(DID).state == "resolved"
    # A different answer recorded meanwhile is a concurrent change: the lifecycle re-reads and refuses it.
    with pytest.raises(ConcurrentChange):
        tracker.record_answer(decision, answer.model_copy(update={"value": "remaining"}))


def test_the_answer_is_recorded_before_the_decision_closes(tracker: GitTracker, config: Config) -> None:
    decision = park(tracker, config).decision
    answer = Answer(value="remaining", by=USER_EMAIL, at=decision.created_at)
    tracker.record_answer(decision, answer)
    assert tracker.find(DID).state == "open"
    assert tracker.find(DID).answer is None
    assert tracker.recorded_answer(decision).value == "remaining"
    with pytest.raises(Refused, match="remaining"):
        resolve(tracker, config, "full_original")


def test_notes_point_each_dependent_at_the_answer_once(tracker: GitTracker, config: Config) -> None:
    park(tracker, config, dependents=["agent/x", "#12"])
    resolve(tracker, config)
    for target in ("branch:agent/x", "#12"):
        note = json.loads(run_git(tracker.repo.working_tree_dir, "show", f"{REF}:{notes_path(target)}"))
        assert note["target"] == target
        assert list(note["notes"]) == [DID]
        assert note["notes"][DID]["answer"] == "full_original"
        # the blocking edge is gone from the index
        where = f"{REF}:{index_path(links_key(target))}"
        try:
            bucket = json.loads(run_git(tracker.repo.working_tree_dir, "show", where))
        except AssertionError:  # the bucket emptied and was removed
            bucket = {}
        assert links_key(target) not in bucket


@pytest.mark.parametrize("step", ["record_answer", "point_dependents", "clear_blocking", "close"])
def test_an_interrupted_resolution_converges_without_duplicates(tracker: GitTracker, config: Config, step: str) -> None:
    root = tracker.repo.working_tree_dir
    commit_on_branch(root, "agent/x", "work that waits")
    park(tracker, config, dependents=["agent/x"])
    flaky = FailOnce(tracker, step)
    with pytest.raises(BackendFailure):
        resolve(flaky, config)
    assert tracker.find(DID).state == "open"
    again = resolve(flaky, config)
    assert again.action == ("resolved" if step == "record_answer" else "completed")
    assert tracker.find(DID).state == "resolved"
    assert resolve(tracker, config).action == "unchanged"
    steps = Counter(s.split(": ")[0] for s in backlog_subjects(root) if s.startswith("resolve "))
    assert steps == {f"resolve {DID} ({n}/4)": 1 for n in range(1, 5)}
    assert lifecycle.gate(tracker, Config(), "branch:agent/x").state == "open"
    assert [d.id for d in tracker.iter_decisions()] == [DID]


def test_abandoned_decisions_keep_blocking(tracker: GitTracker, config: Config) -> None:
    decision = park(tracker, config, dependents=["#3"]).decision
    tracker.mark_abandoned(decision, "the owner said so", lifecycle.log_entry("abandoned", decision, NOW))
    before = commit_count(tracker.repo.working_tree_dir)
    tracker.mark_abandoned(decision, "again", lifecycle.log_entry("abandoned", decision, NOW))
    assert commit_count(tracker.repo.working_tree_dir) == before
    assert tracker.find(DID).state == "abandoned"
    assert backlog_subjects(tracker.repo.working_tree_dir)[-1] == f"abandon {DID}: the owner said so"
    assert lifecycle.gate(tracker, Config(), "#3").state == "blocked"
    with pytest.raises(Refused):
        resolve(tracker, config)


# --- gates -----------------------------------------------------------------------------------


def test_gate_through_trailers(repo: git.Repo, tracker: GitTracker, config: Config) -> None:
    root = path_of(repo)
    park(tracker, config)
    park(tracker, config, key="currency", title="Currency")
    target = "branch:agent/work"
    commit_on_branch(root, "agent/work", "first", trailers=[("Blocked-by", DID)])
    commit_on_branch(root, "agent/work", "second", trailers=[("Signed-off-by", "a <a@example.com>")])
    gate = lifecycle.gate(tracker, Config(), target)
    assert gate.state == "blocked"
    assert [d.id for d in gate.blocking] == [DID]
    resolve(tracker, config)
    gate = lifecycle.gate(tracker, Config(), target)
    assert gate.state == "open"
    assert [d.id for d in gate.resolved] == [DID]
    # two ids in one trailer, and the trailer key in another case
    commit_on_branch(root, "agent/work", "third", trailers=[("blocked-by", f"{DID}, billing-42-decision-currency")])
    assert [d.id for d in lifecycle.gate(tracker, Config(), target).blocking] == ["billing-42-decision-currency"]
    # the same branch named as a full ref, or by its commit
    assert lifecycle.gate(tracker, Config(), "branch:refs/heads/agent/work").state == "blocked"
    sha = run_git(root, "rev-parse", "agent/work")
    assert lifecycle.gate(tracker, Config(), f"branch:{sha}").state == "blocked"


def test_an_unknown_decision_in_a_trailer_blocks(repo: git.Repo, tracker: GitTracker) -> None:
    commit_on_branch(path_of(repo), "agent/typo", "work", trailers=[("Blocked-by", "billing-42-decision-nope")])
    gate = lifecycle.gate(tracker, Config(), "branch:agent/typo")
    assert gate.state == "blocked"
    (placeholder,) = gate.blocking
    assert placeholder.id == "billing-42-decision-nope"
    assert placeholder.title == gitmod.UNKNOWN_TITLE
    commit_on_branch(path_of(repo), "agent/garbage", "work", trailers=[("Blocked-by", "#12 not/an/id")])
    assert lifecycle.gate(tracker, Config(), "branch:agent/garbage").state == "blocked"


def test_trailers_on_the_base_branch_do_not_count(repo: git.Repo, tracker: GitTracker, config: Config) -> None:
    root = path_of(repo)
    park(tracker, config)
    commit_on_branch(root, "main", "merged long ago", trailers=[("Blocked-by", DID)])
    commit_on_branch(root, "agent/later", "unrelated work")
    assert tracker.base() == "refs/heads/main"
    assert lifecycle.gate(tracker, Config(), "branch:agent/later").state == "open"
    # the base itself: all of its commits count
    assert lifecycle.gate(tracker, Config(), "branch:main").state == "blocked"
    # without any base, all of the branch's commits count
    assert lifecycle.gate(GitTracker(repo, base="agent/later"), Config(), "branch:agent/later").state == "blocked"


def test_links_index_gates_pull_requests_and_branches(tracker: GitTracker, config: Config) -> None:
    targets = ["#12", "branch:agent/not-pushed-yet"]
    outcome = park(tracker, config, dependents=["#12", "agent/not-pushed-yet"])
    assert [(g.target, g.state) for g in outcome.gates] == [(t, "blocked") for t in targets]
    park(tracker, config, key="other", title="Other", dependents=["#12"], blocking=False)
    assert [d.id for d in lifecycle.gate(tracker, Config(), "#12").blocking] == [DID]
    assert {d.id for d in tracker.linked_decisions("12")} == {DID, "billing-42-decision-other"}
    with pytest.raises(InvalidInput, match="agent/not-pushed-yet"):
        lifecycle.gate(tracker, Config(), "branch:agent/not-pushed-yet")  # asked directly: the branch must exist
    outcome = resolve(tracker, config)
    assert [(g.target, g.state) for g in outcome.gates] == [(t, "open") for t in targets]
    assert lifecycle.gate(tracker, Config(), "#12").state == "open"


def test_lookups_do_not_read_the_whole_backlog(repo: git.Repo, config: Config) -> None:
    """find and gate read a fixed number of objects, however many decisions there are."""
    tracker = GitTracker(repo)
    commit_on_branch(path_of(repo), "agent/g", "work", trailers=[("Blocked-by", "bulk-1-decision-q")])
    reads: list[int] = []
    for total in (20, 120):
        for i in range(len(list(tracker.iter_decisions())), total):
            park(tracker, config, origin=f"bulk-{i}", key="q", dependents=["agent/g"] if i == 0 else [])
        cold = GitTracker(repo)  # empty in-memory cache
        counter = Counter()
        store = cold.backlog.store
        read, read_many = store.read, store.read_many

        def counting(oid: str, read: Any = read, counter: Counter = counter) -> Any:
            counter["reads"] += 1
            return read(oid)

        def counting_many(oids: Any, read_many: Any = read_many, counter: Counter = counter) -> Any:
            counter["reads"] += len(oids)
            return read_many(oids)

        store.read = counting  # type: ignore[method-assign]
        store.read_many = counting_many  # type: ignore[method-assign]
        assert cold.find("bulk-7-decision-q") is not None
        assert lifecycle.gate(cold, Config(), "branch:agent/g").state == "blocked"
        reads.append(counter["reads"])
    assert reads[0] == reads[1] <= 16


# --- concurrency -----------------------------------------------------------------------------


def interfering(repo: git.Repo, times: int) -> GitTracker:
    """A tracker with another writer committing between its read and its compare-and-swap."""
    tracker = GitTracker(repo)
    other = GitTracker(repo)
    write_commit = tracker.backlog.write_commit
    count = [0]

    def commit_after_another_writer(*args: Any, **kwargs: Any) -> str:
        if count[0] < times:
            count[0] += 1
            lifecycle.park(other, needs_input(origin=f"other-{count[0]}"), Config())
        return write_commit(*args, **kwargs)

    tracker.backlog.write_commit = commit_after_another_writer  # type: ignore[method-assign]
    return tracker


@pytest.mark.parametrize("transactions", [True, False], ids=["update-ref-stdin", "update-ref-per-write"])
def test_a_lost_race_is_re_read_and_re_applied(repo: git.Repo, config: Config, transactions: bool) -> None:
    tracker = interfering(repo, times=3)
    tracker.backlog.refs.transactions = transactions  # the fallback for git without `update-ref --stdin` transactions
    park(tracker, config)
    ids = {d.id for d in tracker.iter_decisions()}
    assert ids == {DID, "other-1-decision-refund", "other-2-decision-refund", "other-3-decision-refund"}
    subjects = backlog_subjects(path_of(repo))
    assert subjects.count(f"park: created {DID}") == 1


def test_endless_contention_is_a_backend_failure_that_is_safe_to_rerun(repo: git.Repo, config: Config) -> None:
    tracker = interfering(repo, times=10_000)
    tracker.cas_attempts = 3
    with pytest.raises(BackendFailure, match="safe to run"):
        park(tracker, config)
    assert tracker.find(DID) is None
    park(GitTracker(repo), config)
    assert GitTracker(repo).find(DID) is not None


#: Runs in a child process of its own, without the tests' helpers: it builds its questions by hand.
WORKER = textwrap.dedent(
    """
    import sys, time, pathlib
    from parkbot.core import lifecycle
    from parkbot.core.config import Config
    from parkbot.core.models import parse_result
    from parkbot.trackers.git import GitTracker, CasLost

    lost = [0]
    repo, me, ready, go = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
    tracker = GitTracker.open(repo)
    swap = tracker.backlog.refs.swap

    def counting(*args):
        try:
            swap(*args)
        except CasLost:
            lost[0] += 1
            raise

    tracker.backlog.refs.swap = counting
    config = Config()
    results = []
    for i in range(10):
        for origin in ("shared-%d" % i, "%s-%d" % (me, i)):
            results.append(parse_result({
                "status": "needs_input", "origin": origin, "key": "q",
                "question": "Which way for %s?" % origin, "options": ["a: A", "b: B"],
                "dependents": ["#%d" % i],
            }))
    ready.touch()
    while not go.exists():
        time.sleep(0.002)
    for result in results:
        outcome = lifecycle.park(tracker, result, config)
        print(outcome.decision.id, outcome.action, flush=True)
    print("lost-races", lost[0], file=sys.stderr)
    """
)


@pytest.mark.slow
def test_two_processes_parking_at_once_lose_nothing_and_duplicate_nothing(repo: git.Repo, tmp_path: Path) -> None:
    root = path_of(repo)
    env = {**os.environ, "PYTHONPATH": str(Path(parkbot.__file__).resolve().parents[1])}
    go = tmp_path / "go"
    workers = []
    for name in ("p1", "p2"):
        ready = tmp_path / f"ready-{name}"
        cmd = [sys.executable, "-c", WORKER, str(root), name, str(ready), str(go)]
        workers.append((ready, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    deadline = time.monotonic() + 30
    while not all(ready.exists() for ready, _ in workers):
        assert time.monotonic() < deadline, "workers did not start"
        time.sleep(0.01)
    go.touch()
    outputs = []
    lost_races: list[int] = []  # how often a compare-and-swap lost and was re-applied (informative)
    for _, proc in workers:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
        outputs.append(out.decode().split())
        lost_races.append(int(err.decode().split("lost-races")[-1]))
    actions = Counter()
    for out in outputs:
        assert len(out) == 40  # 20 parks, "<id> <action>" each
        for did, action in zip(out[::2], out[1::2], strict=True):
            actions[(did, action)] += 1

    tracker = GitTracker(repo)
    stored = sorted(d.id for d in tracker.iter_decisions())
    expected = sorted(
        [f"shared-{i}-decision-q" for i in range(10)] + [f"p{n}-{i}-decision-q" for n in (1, 2) for i in range(10)]
    )
    assert stored == expected  # no lost item
    for i in range(10):
        shared = f"shared-{i}-decision-q"
        assert actions[(shared, "created")] == 1  # exactly one creator
        assert actions[(shared, "unchanged")] == 1
        assert sorted(d.id for d in tracker.linked_decisions(f"#{i}")) == sorted(
            [shared, f"p1-{i}-decision-q", f"p2-{i}-decision-q"]
        )
    subjects = Counter(backlog_subjects(root))
    assert all(subjects[f"park: created {did}"] == 1 for did in expected)
    assert Counter(e.decision for e in tracker.iter_log() if e.event == "parked") == dict.fromkeys(expected, 1)
    run_git(root, "fsck", "--no-dangling", "--no-progress")
    print(f"compare-and-swap races lost and re-applied: {lost_races}")


# --- budgets and the question log ------------------------------------------------------------


def test_open_decisions_by_origin_and_run(tracker: GitTracker, config: Config) -> None:
    park(tracker, config, key="a", title="A", run="run-1")
    park(tracker, config, key="b", title="B")
    park(tracker, config, origin="other-1", key="c", title="C", run="run-1")
    assert sorted(d.key for d in tracker.open_decisions(origin="billing-42")) == ["a", "b"]
    assert sorted(d.key for d in tracker.open_decisions(origin="nobody", run="run-1")) == ["a", "c"]
    assert sorted(d.key for d in tracker.open_decisions(origin="billing-42", run="run-1")) == ["a", "b", "c"]
    resolve(tracker, config, did="billing-42-decision-a")
    assert [d.key for d in tracker.open_decisions(origin="billing-42")] == ["b"]


def test_the_log_is_appended_in_bounded_segments(tracker: GitTracker) -> None:
    tracker.backlog.segment_lines = 3
    entries = [
        LogEntry.model_validate({"at": f"2026-01-01T00:00:{n:02d}Z", "event": "parked", "origin": f"o-{n}"})
        for n in range(8)
    ]
    for entry in entries:
        tracker.append_log(entry)
    assert [e.origin for e in tracker.iter_log()] == [f"o-{n}" for n in range(8)]
    files = run_git(tracker.repo.working_tree_dir, "ls-tree", "-r", "--name-only", REF, "log/").splitlines()
    assert files == ["log/00000000.jsonl", "log/00000001.jsonl"]
    assert run_git(tracker.repo.working_tree_dir, "show", f"{REF}:log.jsonl").count("\n") == 1  # the tail: 2 lines
    assert [e.origin for e in GitTracker(tracker.repo).iter_log()] == [f"o-{n}" for n in range(8)]  # cold read


# --- sharing ---------------------------------------------------------------------------------


@pytest.fixture
def clones(tmp_path: Path) -> Any:
    seed = make_repo(tmp_path / "seed")
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(path_of(seed)), str(bare))
    seed.close()
    made = []
    for name in ("a", "b"):
        run_git(tmp_path, "clone", "-q", str(bare), str(tmp_path / name))
        run_git(tmp_path / name, "config", "user.name", f"User {name}")
        run_git(tmp_path / name, "config", "user.email", USER_EMAIL)
        made.append(git.Repo(tmp_path / name))
    yield made
    for repo in made:
        repo.close()


def test_push_and_fetch_of_the_ref_share_the_backlog(clones: list[git.Repo], config: Config) -> None:
    a, b = clones
    park(GitTracker(a), config)
    run_git(path_of(a), "push", "-q", "origin", REF)
    run_git(path_of(b), "fetch", "-q", "origin", f"{REF}:{REF}")
    assert GitTracker(b).find(DID).title == "Refund scope (billing-42 refund)"
    assert GitTracker(b).base() == "refs/remotes/origin/main"


def test_sync_merges_two_clones(clones: list[git.Repo], config: Config) -> None:
    a, b = clones
    ta, tb = GitTracker(a), GitTracker(b)
    assert ta.sync().action == "up-to-date"
    park(ta, config, dependents=["#1"])
    assert ta.sync().action == "pushed"
    park(tb, config, key="currency", title="Currency", dependents=["#1"])
    assert tb.sync().action == "merged"  # diverged: merged per file, then pushed
    assert ta.sync().action == "fetched"
    for tracker in (ta, tb):
        assert sorted(d.id for d in tracker.iter_decisions()) == ["billing-42-decision-currency", DID]
        assert sorted(d.id for d in tracker.linked_decisions("#1")) == ["billing-42-decision-currency", DID]
        assert [e.event for e in tracker.iter_log()] == ["parked", "parked"]
    merge = run_git(path_of(b), "log", "-1", "--format=%P%n%s", REF).splitlines()
    assert len(merge[0].split()) == 2
    assert merge[1].startswith("sync: merge origin")

    # Same decision changed on both sides: resolved beats open; a cleared edge stays cleared.
    resolve(ta, config)
    park(tb, config, dependents=["#1", "#2"], work_so_far={"more": True})
    assert ta.sync().action == "pushed"
    assert tb.sync().action == "merged"
    assert ta.sync().action == "fetched"
    for tracker in (ta, tb):
        stored = tracker.find(DID)
        assert stored.state == "resolved"
        assert stored.answer.value == "full_original"
        assert set(stored.dependents) == {"#1", "#2"}
        assert [d.id for d in lifecycle.gate(tracker, Config(), "#1").blocking] == ["billing-42-decision-currency"]
        assert [e.event for e in tracker.iter_log()].count("resolved") == 1
    assert ta.sync().action == "up-to-date"
    assert run_git(path_of(a), "rev-parse", REF) == run_git(path_of(b), "rev-parse", REF)


def racing_sync(repo: git.Repo, other: GitTracker) -> GitTracker:
    """A tracker whose first sync sees someone else push between its fetch and its push."""
    tracker = GitTracker(repo)
    fetch = tracker.syncer._fetch
    raced = [False]

    def fetch_then_race(remote: str, tracking: str) -> str | None:
        fetched = fetch(remote, tracking)
        if not raced[0]:
            raced[0] = True
            park(other, Config(), key="raced", title="Raced")
            assert other.sync().action in ("pushed", "merged")
        return fetched

    tracker.syncer._fetch = fetch_then_race  # type: ignore[method-assign]
    return tracker


def test_sync_retries_when_the_remote_moves_before_the_push(clones: list[git.Repo], config: Config) -> None:
    a, b = clones
    park(GitTracker(a), config)
    assert GitTracker(a).sync().action == "pushed"
    racing = racing_sync(b, other=GitTracker(a))
    park(racing, config, key="currency", title="Currency")
    assert racing.sync().action == "merged"
    expected = ["billing-42-decision-currency", "billing-42-decision-raced", DID]
    assert sorted(d.id for d in racing.iter_decisions()) == expected
    assert GitTracker(a).sync().action == "fetched"
    assert sorted(d.id for d in GitTracker(a).iter_decisions()) == expected


def test_a_fresh_clone_syncs_by_fast_forward(clones: list[git.Repo], config: Config, tmp_path: Path) -> None:
    a, _ = clones
    park(GitTracker(a), config)
    GitTracker(a).sync()
    remote = run_git(path_of(a), "remote", "get-url", "origin")
    run_git(tmp_path, "clone", "-q", remote, str(tmp_path / "c"))
    fresh = git.Repo(tmp_path / "c")
    try:
        tracker = GitTracker(fresh)
        assert tracker.find(DID) is None  # a plain clone does not fetch refs/parkbot/*
        assert tracker.sync().action == "fetched"
        assert tracker.find(DID) is not None
        assert tracker.sync().action == "up-to-date"
    finally:
        fresh.close()


def test_precedent_candidates_come_from_the_index_not_the_whole_log(tracker: GitTracker, config: Config) -> None:
    for n in range(30):
        did = lifecycle.park(
            tracker, needs_input(origin=f"other-{n}", key=f"k{n}", question=f"Unrelated {n}?"), config
        ).decision.id
        lifecycle.resolve(tracker, config, did, "full_original", Actor(USER_EMAIL))
    first = lifecycle.park(tracker, needs_input(origin="billing-41"), config).decision.id
    lifecycle.resolve(tracker, config, first, "remaining", Actor(USER_EMAIL))
    incoming = lifecycle.build_decision(needs_input(origin="billing-42"), "alice", NOW)
    candidates = list(tracker.iter_log(about=incoming))
    assert [(e.decision, e.answer) for e in candidates] == [(first, "remaining")]
    assert sum(1 for e in tracker.iter_log() if e.event == "resolved") == 31


def test_sync_from_the_command_line(clones: list[git.Repo], config: Config) -> None:
    a, b = (Path(repo.working_tree_dir) for repo in clones)
    runner = CliRunner()
    parked = runner.invoke(cli, ["park", "--repo", str(a), "-"], input=needs_input().model_dump_json())
    assert parked.exit_code == 0, parked.output
    assert runner.invoke(cli, ["sync", "--repo", str(a), "--json"]).stdout.count('"pushed"') == 1
    fetched = runner.invoke(cli, ["sync", "--repo", str(b)])
    assert fetched.exit_code == 0
    assert "fetched" in fetched.stdout
    assert runner.invoke(cli, ["show", "--repo", str(b), "billing-42-decision-refund"]).exit_code == 0
