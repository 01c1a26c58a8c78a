"""The git backlog against damaged data, odd settings and fresh clones: clear messages, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest
from click.testing import CliRunner, Result

from parkbot.cli import cli
from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.trackers.git import GitTracker, index_path, links_key
from parkbot.trackers.git.change import Change
from parkbot.trackers.git.layout import answer_path, decision_path, notes_path, precedent_paths
from parkbot.trackers.git.view import BacklogEdit
from tests.support.git_helpers import USER_EMAIL, commit_on_branch, make_repo, needs_input, root_of, run_git

DID = "billing-42-decision-refund"
REF = "refs/parkbot/backlog"


@pytest.fixture
def repo(made_repo: git.Repo) -> git.Repo:
    return made_repo


def parkbot(repo: git.Repo | Path, *args: str, stdin: str | None = None) -> Result:
    where = repo if isinstance(repo, Path) else root_of(repo)
    return CliRunner().invoke(cli, [*args, "--repo", str(where)], input=stdin)


def overwrite(repo: git.Repo, path: str, data: bytes) -> None:
    """Commit ``data`` at ``path`` on the backlog ref, as someone editing it by hand would."""

    def change(edit: BacklogEdit) -> Change:
        edit.tx.write(path, data)
        return Change(f"edit {path} by hand")

    with GitTracker(repo) as tracker:
        tracker.backlog.mutate(change)


def no_traceback(result: Result, code: int, *words: str) -> None:
    assert result.exit_code == code, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output


# --- damaged files ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [b"{not json", b'{"id": "billing-42-decision-refund"}', b"\xff\xfe garbage", b""],
    ids=["not-json", "partial-record", "not-utf8", "empty"],
)
def test_a_damaged_decision_file_is_named_by_gate_show_list_and_sync(repo: git.Repo, damage: bytes) -> None:
    root = root_of(repo)
    lifecycle.park(GitTracker(repo), needs_input(dependents=["#4"]), Config())
    commit_on_branch(root, "agent/x", "work", trailers=[("Blocked-by", DID)])
    overwrite(repo, decision_path(DID), damage)
    path = decision_path(DID)
    no_traceback(parkbot(repo, "show", DID), 4, path, "damaged or edited by hand")
    no_traceback(parkbot(repo, "gate", "--ref", "agent/x"), 4, path)
    no_traceback(parkbot(repo, "list", "--state", "all"), 4, path)
    assert json.loads(parkbot(repo, "show", DID, "--json").stdout)["error"] == "backend_failure"


def test_damaged_index_notes_answers_and_log_files_are_named(repo: git.Repo) -> None:
    tracker = GitTracker(repo)
    config = Config()
    lifecycle.park(tracker, needs_input(dependents=["#4"], run="run-1"), config)
    bucket = index_path(links_key("#4"))
    overwrite(repo, bucket, b'{"links:#4": "billing-42-decision-refund"}')
    no_traceback(parkbot(repo, "gate", "--backend", "git", "--ref", "main"), 0)  # another bucket: unaffected
    with pytest.raises(Exception, match="index file") as info:
        lifecycle.gate(GitTracker(repo), config, "#4")
    assert getattr(info.value, "exit_code", None) == 4
    assert bucket in str(info.value)
    overwrite(repo, bucket, json.dumps({links_key("#4"): ["../../etc/passwd"]}).encode())
    with pytest.raises(Exception, match="not a decision id"):
        lifecycle.gate(GitTracker(repo), config, "#4")
    overwrite(repo, bucket, json.dumps({links_key("#4"): [DID]}).encode())

    overwrite(repo, answer_path(DID), b"[1, 2")
    no_traceback(parkbot(repo, "show", DID), 4, answer_path(DID))
    overwrite(repo, answer_path(DID), b'{"value": "remaining", "by": "x", "at": "2026-01-01T00:00:00Z"}')

    overwrite(repo, notes_path("#4"), b"{}")
    no_traceback(parkbot(repo, "resolve", DID, "--answer", "remaining"), 4, notes_path("#4"))

    overwrite(repo, "log.jsonl", b'{"at": "yesterday"}\n')
    no_traceback(parkbot(repo, "report"), 4, "log.jsonl", "question-log")
    question = needs_input().question
    (precedent,) = precedent_paths(None, question)
    overwrite(repo, precedent, b"not a log line\n")
    parked = parkbot(repo, "park", "-", stdin=needs_input(origin="billing-43").model_dump_json())
    no_traceback(parked, 4, precedent)


def test_a_damaged_file_the_remote_changed_is_named_by_sync(tmp_path: Path) -> None:
    seed = make_repo(tmp_path / "seed")
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(root_of(seed)), str(bare))
    seed.close()
    clones = []
    for name in ("a", "b"):
        run_git(tmp_path, "clone", "-q", str(bare), str(tmp_path / name))
        run_git(tmp_path / name, "config", "user.email", USER_EMAIL)
        clones.append(git.Repo(tmp_path / name))
    a, b = clones
    try:
        lifecycle.park(GitTracker(a), needs_input(), Config())
        assert GitTracker(a).sync().action == "pushed"
        assert GitTracker(b).sync().action == "fetched"
        overwrite(a, decision_path(DID), b"{broken")
        GitTracker(a).sync()
        lifecycle.park(GitTracker(b), needs_input(work_so_far={"more": 1}), Config())  # both changed it
        no_traceback(parkbot(root_of(b), "sync"), 4, decision_path(DID))
    finally:
        a.close()
        b.close()


# --- settings --------------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", ["refs/heads/main", "refs/heads/parkbot", "refs/tags/backlog", "refs/remotes/origin/x"])
def test_a_backlog_ref_on_a_branch_tag_or_remote_is_refused(repo: git.Repo, ref: str) -> None:
    root = root_of(repo)
    before = (run_git(root, "rev-parse", "HEAD"), run_git(root, "status", "--porcelain"))
    with pytest.raises(InvalidInput, match="ref of its own"):
        GitTracker(repo, ref=ref)
    (root / ".github").mkdir(exist_ok=True)
    (root / ".github" / "parkbot.yml").write_text(f"backlog_ref: {ref}\n")
    parked = parkbot(repo, "park", "-", stdin=needs_input().model_dump_json())
    assert parked.exit_code == 2, parked.output
    assert ref in parked.output
    (root / ".github" / "parkbot.yml").unlink()
    assert (run_git(root, "rev-parse", "HEAD"), run_git(root, "status", "--porcelain")) == before


def test_sync_with_no_such_remote_names_it_and_the_fix(repo: git.Repo) -> None:
    lifecycle.park(GitTracker(repo), needs_input(), Config())
    result = parkbot(repo, "sync")
    no_traceback(result, 2, "no git remote named 'origin'", "git remote add origin URL", "--remote NAME")
    result = parkbot(repo, "sync", "--remote", "upstream", "--json")
    assert result.exit_code == 2
    assert "no git remote named 'upstream'" in json.loads(result.stdout)["message"]


def test_sync_with_a_remote_git_cannot_reach_is_a_backend_failure(repo: git.Repo, tmp_path: Path) -> None:
    """The remote is configured, so the input is right: it cannot be reached now (exit 4, safe to re-run)."""
    run_git(root_of(repo), "remote", "add", "origin", str(tmp_path / "nowhere"))
    no_traceback(parkbot(repo, "sync"), 4, "is not a git repository git can reach", "git remote -v")
    result = parkbot(repo, "sync", "--json")
    assert (result.exit_code, json.loads(result.stdout)["error"]) == (4, "backend_failure")


# --- a fresh clone --------------------------------------------------------------------------------------


def test_a_fresh_clone_says_how_to_fetch_the_backlog(tmp_path: Path) -> None:
    seed = make_repo(tmp_path / "seed")
    lifecycle.park(GitTracker(seed), needs_input(), Config())
    root = root_of(seed)
    seed.close()
    run_git(tmp_path, "clone", "-q", str(root), str(tmp_path / "clone"))
    clone = tmp_path / "clone"
    fetch = f"git fetch origin {REF}:{REF}"
    no_traceback(parkbot(clone, "show", DID), 2, f"no decision {DID}", "parkbot sync", fetch)
    listed = parkbot(clone, "list")
    no_traceback(listed, 0, "no open decisions", "parkbot sync", fetch)
    assert parkbot(clone, "sync").exit_code == 0
    assert parkbot(clone, "show", DID).exit_code == 0
    shown = parkbot(clone, "show", "billing-42-decision-nope")
    # the backlog is here: no fetching hint, but the closest id and how to list them
    no_traceback(shown, 2, f"did you mean '{DID}'?", "the id with `parkbot list`")
    assert "parkbot sync" not in shown.output


def test_a_repository_without_remotes_gives_no_fetching_hint(repo: git.Repo) -> None:
    shown = parkbot(repo, "show", DID)
    no_traceback(shown, 2, f"no decision {DID}", "check the id")
    assert "fetch" not in shown.output
    assert parkbot(repo, "list").stdout.strip() == "no open decisions"
