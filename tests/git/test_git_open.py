"""Opening the embedded backlog without GitPython, and retrying lost writes without loading tenacity first.

:func:`~parkbot.trackers.git.process.find_repository` asks ``git rev-parse`` where a repository is; it
must agree with GitPython's ``git.Repo(path, search_parent_directories=True)``, which found it
before, on every kind of repository. :func:`~parkbot.trackers.git.refs.attempts` runs the first attempt
of a write on its own and hands a lost one to tenacity, with the same bounds as before. Opening and reading
compile no regular expression (refs, ids and ``Blocked-by:`` values are read by string tests that accept exactly
what the patterns did), and a helper's
errors go to a file in memory (without loading :mod:`tempfile`), read back as before when it dies. Paths
are hashed with the interpreter's own SHA-256 (without loading OpenSSL's binding through :mod:`hashlib`).
"""

from __future__ import annotations

import builtins
import hashlib
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from parkbot.cli import cli
from parkbot.core.errors import InvalidInput
from parkbot.trackers.git import GitTracker, layout, process
from parkbot.trackers.git.dependents import trailer_values
from parkbot.trackers.git.layout import is_decision_id
from parkbot.trackers.git.process import Git, GitFailed, NotARepository, find_repository
from parkbot.trackers.git.refs import CasLost, RetriesExhausted, attempts, check_backlog_ref, is_object_id
from tests.support.git_helpers import make_repo, needs_input, run_git


def real(path: str | os.PathLike[str] | None) -> str | None:
    return None if path is None else os.path.realpath(path)


def as_gitpython_sees_it(path: Path) -> tuple[str | None, str | None, str | None]:
    repo = git.Repo(path, search_parent_directories=True)
    try:
        return real(repo.git_dir), real(repo.common_dir), real(repo.working_tree_dir)
    finally:
        repo.close()


def as_found(path: Path) -> tuple[str | None, str | None, str | None]:
    found = find_repository(path)
    return real(found.git_dir), real(found.common_dir), real(found.working_tree_dir)


@pytest.fixture
def layouts(tmp_path: Path) -> dict[str, Path]:
    """A checkout, a folder deep inside it, its git directory, a linked worktree and a bare clone."""
    main = tmp_path / "main"
    make_repo(main).close()
    (main / "src" / "deep").mkdir(parents=True)
    run_git(main, "worktree", "add", "-q", str(tmp_path / "linked"), "-b", "linked")
    run_git(tmp_path, "clone", "-q", "--bare", str(main), str(tmp_path / "bare.git"))
    return {
        "checkout": main,
        "nested": main / "src" / "deep",
        "git-dir": main / ".git",
        "worktree": tmp_path / "linked",
        "bare": tmp_path / "bare.git",
    }


@pytest.mark.parametrize("kind", ["checkout", "nested", "git-dir", "worktree", "bare"])
def test_the_repository_found_is_the_one_gitpython_found(layouts: dict[str, Path], kind: str) -> None:
    assert as_found(layouts[kind]) == as_gitpython_sees_it(layouts[kind])


def test_a_worktree_shares_the_refs_of_its_main_repository(layouts: dict[str, Path]) -> None:
    linked = find_repository(layouts["worktree"])
    assert real(linked.common_dir) == real(layouts["checkout"] / ".git")
    assert real(linked.git_dir) != real(linked.common_dir)
    assert find_repository(layouts["bare"]).working_tree_dir is None


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_the_object_format_is_asked_in_the_same_process(tmp_path: Path, object_format: str) -> None:
    run_git(tmp_path, "init", "-q", f"--object-format={object_format}", "repo")
    assert find_repository(tmp_path / "repo").object_format == object_format
    with GitTracker.open(tmp_path / "repo") as tracker:
        assert tracker.backlog.object_format == object_format
        assert len(tracker.backlog.store.zero) == {"sha1": 40, "sha256": 64}[object_format]


def git_processes(repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> list[str]:
    """The git commands a parkbot command started (git's own trace), by name."""
    trace = repo.parent / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    CliRunner().invoke(cli, [*args, "--repo", str(repo)])
    monkeypatch.delenv("GIT_TRACE")
    started = [
        line.split("built-in: git ", 1)[1].split()[0]
        for line in trace.read_text().splitlines()
        if "built-in: git " in line
    ]
    trace.unlink()
    return started


def test_show_and_gate_start_git_once_per_helper_they_need(
    layouts: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding the repository and its object format is one ``rev-parse``; loose objects are read from their
    files, and packed ones by one ``cat-file``."""
    repo = layouts["checkout"]
    parked = CliRunner().invoke(cli, ["park", "-", "--repo", str(repo)], input=needs_input().model_dump_json())
    assert parked.exit_code == 0, parked.output
    assert git_processes(repo, monkeypatch, "show", "billing-42-decision-refund") == ["rev-parse"]
    assert git_processes(repo, monkeypatch, "gate", "--ref", "main") == ["rev-parse", "log"]
    subprocess.run(["git", "repack", "-a", "-d", "-q"], cwd=repo, check=True)
    assert git_processes(repo, monkeypatch, "show", "billing-42-decision-refund") == ["rev-parse", "cat-file"]
    assert git_processes(repo, monkeypatch, "gate", "--ref", "main") == ["rev-parse", "cat-file", "log"]


def test_a_file_is_searched_from_its_folder(layouts: dict[str, Path]) -> None:
    assert as_found(layouts["checkout"] / "README.md") == as_found(layouts["checkout"])


def test_git_dir_in_the_environment_does_not_redirect_the_search(
    layouts: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook runs with GIT_DIR set; the repository is still the one containing the path (as with GitPython)."""
    monkeypatch.setenv("GIT_DIR", str(layouts["bare"]))
    assert real(find_repository(layouts["checkout"]).working_tree_dir) == real(layouts["checkout"])


def test_outside_any_repository_git_says_so(tmp_path: Path) -> None:
    with pytest.raises(NotARepository, match="not a git repository"):
        find_repository(tmp_path)
    with pytest.raises(NotARepository, match="does not exist"):
        find_repository(tmp_path / "missing")


def test_opening_a_backlog_outside_a_repository_names_the_folder_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as info:
        GitTracker.open(tmp_path / "missing")
    assert (info.value.message, info.value.reason, info.value.step) == (
        f"{(tmp_path / 'missing').resolve()} is not inside a git repository; run `git init` there",
        "invalid",
        "other_backend",  # the command line adds "or ... --backend github", an MCP error its own words
    )


def test_a_backlog_opened_in_a_linked_worktree_is_the_main_repositorys(layouts: dict[str, Path]) -> None:
    run_git(layouts["checkout"], "update-ref", "refs/parkbot/backlog", "HEAD")
    with GitTracker.open(layouts["worktree"]) as tracker:
        assert tracker.backlog.tip() == run_git(layouts["checkout"], "rev-parse", "HEAD")
        assert real(tracker.repo.working_tree_dir) == real(layouts["worktree"])


# --- attempts ----------------------------------------------------------------------------------


def write(made: list[int], *, losses: int, then: Exception | None = None, count: int = 5, seconds: float = 30.0) -> str:
    """A write that loses its first ``losses`` compare-and-swaps, then raises ``then`` or succeeds; ``made``
    counts its attempts."""
    for attempt in attempts(count, seconds):
        with attempt:
            made.append(1)
            if len(made) <= losses:
                raise CasLost("moved")
            if then is not None:
                raise then
            return "written"
    raise AssertionError("the loop ended without a result")


@pytest.mark.parametrize("losses", [0, 1, 3])
def test_a_lost_attempt_is_made_again_until_one_wins(losses: int) -> None:
    made: list[int] = []
    assert write(made, losses=losses) == "written"
    assert len(made) == losses + 1


@pytest.mark.parametrize("count", [1, 2, 4])
def test_attempts_stop_at_their_count(count: int) -> None:
    made: list[int] = []
    with pytest.raises(RetriesExhausted):
        write(made, losses=10_000, count=count)
    assert len(made) == count


def test_attempts_stop_when_their_time_is_up() -> None:
    made: list[int] = []
    with pytest.raises(RetriesExhausted):
        write(made, losses=10_000, count=1000, seconds=0.0)
    assert len(made) == 1


@pytest.mark.parametrize("losses", [0, 1])
def test_other_errors_are_not_retried(losses: int) -> None:
    made: list[int] = []
    with pytest.raises(ValueError, match="bad"):
        write(made, losses=losses, then=ValueError("bad"))
    assert len(made) == losses + 1


# --- what opening costs: no pattern compiled, no temporary file for a helper's errors ------------------

#: The patterns the ref checks replaced: the string tests must accept exactly what these did.
OBJECT_ID_PATTERN = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
BAD_REF_PATTERN = re.compile(r"(\.\.|[\s~^:?*\[\\]|@\{|//|/\.|\.lock$|/$|\.$)")
HEX = "0123456789abcdefABCDEF"
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
#: Characters near the edges of what ids and trailers allow: case, punctuation, Unicode spaces and digits.
EDGES = list("az09AZ._-,;/ \t\n\r\x0b\x0c\x1c\x1f\x85\u00a0\u2003\u3000\u00e9\u0660")


@given(
    st.one_of(
        st.text(alphabet=HEX, min_size=38, max_size=66),
        st.text(alphabet=HEX, min_size=39, max_size=41).map(lambda t: t + "\n"),
        st.text(alphabet=HEX, min_size=64, max_size=64).map(lambda t: t + "\n\n"),
        st.text(min_size=40, max_size=40),
        st.text(),
    )
)
def test_an_object_id_is_what_the_pattern_accepted(text: str) -> None:
    assert is_object_id(text) == bool(OBJECT_ID_PATTERN.match(text))


@given(st.text(alphabet=st.sampled_from(list("refs/parkbotlk.@{}~^:?*[]\\ \t\n\u00a0\u2003-_")), max_size=30))
def test_a_ref_name_is_refused_exactly_where_the_pattern_refused_it(name: str) -> None:
    ref = "refs/" + name
    try:
        check_backlog_ref(ref, "refs/parkbot/backlog")
        refused = False
    except InvalidInput as exc:
        refused = "not a usable ref name" in exc.message
    assert refused == bool(BAD_REF_PATTERN.search(ref))


@pytest.mark.parametrize("memfd", [True, False])
def test_a_helper_that_dies_says_what_git_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memfd: bool) -> None:
    """Its errors went to a file in memory (or, without ``memfd_create``, a temporary file) and are read back."""
    if not memfd:
        monkeypatch.delattr(os, "memfd_create", raising=False)
    elif not hasattr(os, "memfd_create"):
        pytest.skip("this system has no memfd_create")
    pipe = Git(str(tmp_path / "not-a-repository"), str(tmp_path)).pipe("cat-file", "--batch")

    def ask() -> bytes:
        pipe.send(b"HEAD\n")  # git may be gone already: a broken pipe says what it said too
        return pipe.readline()

    with pytest.raises(GitFailed, match="not a git repository") as info:
        ask()
    assert "ended unexpectedly" in str(info.value)
    with process.error_file() as errors:
        where = Path(f"/proc/self/fd/{errors.fileno()}")
        if where.parent.is_dir():
            assert os.readlink(where).startswith("/memfd:") == memfd


@given(st.one_of(st.text(alphabet=st.sampled_from(EDGES), max_size=12), st.text()))
def test_a_decision_id_is_what_the_pattern_accepted(text: str) -> None:
    assert is_decision_id(text) == bool(ID_PATTERN.match(text))


@given(st.one_of(st.text(alphabet=st.sampled_from(EDGES), max_size=30), st.text()))
def test_blocked_by_values_split_where_the_pattern_split_them(text: str) -> None:
    assert trailer_values(text) == [value.lower() for value in re.split(r"[\s,]+", text) if value]


@given(st.text())
def test_paths_hash_as_hashlib_hashes(value: str) -> None:
    assert layout.digest(value) == hashlib.sha256(value.encode("utf-8")).hexdigest()


def test_without_the_interpreters_own_sha256_hashlib_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_builtin_sha(name: str, *args: Any, **kwargs: Any) -> Any:
        if name in ("_sha2", "_sha256"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_builtin_sha)
    assert layout.builtin_hash("sha256") is hashlib.sha256
    assert layout.builtin_hash("sha256")(b"x").hexdigest() == hashlib.sha256(b"x").hexdigest()
