"""Real git repositories for tests: made in a temporary folder, driven with the git command line.

Nothing here mocks git. Branch commits are made with plumbing (``commit-tree`` + ``update-ref``)
so a test's working tree is only ever changed where the test says so.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import git

from parkbot.core.models import NeedsInput
from tests.support import results

USER_NAME = "Alice Owner"
USER_EMAIL = "alice@example.com"


def run_git(cwd: Path | str, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in ``cwd`` and return its stdout (stripped); raise with stderr on failure."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.strip()


def make_repo(path: Path, *, user: bool = True, name: str = USER_NAME, email: str = USER_EMAIL) -> git.Repo:
    """A repository at ``path`` with one commit (a README) on ``main``; ``user.name``/``user.email`` set if ``user``."""
    path.mkdir(parents=True, exist_ok=True)
    run_git(path, "init", "-q", "-b", "main")
    if user:
        run_git(path, "config", "user.name", name)
        run_git(path, "config", "user.email", email)
    (path / "README.md").write_text("hello\n", encoding="utf-8")
    run_git(path, "add", "README.md")
    run_git(path, "-c", f"user.name={name}", "-c", f"user.email={email}", "commit", "-q", "-m", "initial")
    return git.Repo(path)


#: What a developer's shell may set that would send a test's ``parkbot`` elsewhere.
PARKBOT_ENV = ("PARKBOT_BACKEND", "PARKBOT_ACTOR", "GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_API_URL")


def cli_repo(
    path: Path,
    monkeypatch: Any,
    *,
    config: str | None = None,
    branches: Iterable[str] = (),
    name: str = "Alice",
) -> git.Repo:
    """A repository for ``parkbot`` run as a user would: made as :func:`make_repo` does, with ``config`` as
    ``.github/parkbot.yml`` (uncommitted) and ``branches`` made from ``main``, as the working directory, and
    none of :data:`PARKBOT_ENV` set."""
    repository = make_repo(path, name=name)
    if config is not None:
        (path / ".github").mkdir(exist_ok=True)
        (path / ".github" / "parkbot.yml").write_text(config, encoding="utf-8")
    for branch in branches:
        repository.create_head(branch, "main")
    monkeypatch.chdir(path)
    for variable in PARKBOT_ENV:
        monkeypatch.delenv(variable, raising=False)
    return repository


def root_of(repo: git.Repo) -> Path:
    """The top of ``repo``'s working tree (its git folder when it is bare)."""
    return Path(repo.working_tree_dir or repo.git_dir)


def commit_on_branch(
    path: Path | str,
    branch: str,
    subject: str,
    *,
    trailers: Iterable[tuple[str, str]] = (),
    start: str = "main",
) -> str:
    """Add an empty commit with ``trailers`` to ``branch`` (created from ``start``), without a checkout."""
    ref = f"refs/heads/{branch}"
    try:
        parent = run_git(path, "rev-parse", "--verify", "--quiet", ref)
    except AssertionError:
        parent = run_git(path, "rev-parse", "--verify", start)
    tree = run_git(path, "rev-parse", f"{parent}^{{tree}}")
    message = subject
    lines = [f"{key}: {value}" for key, value in trailers]
    if lines:
        message += "\n\n" + "\n".join(lines)
    identity = {
        "GIT_AUTHOR_NAME": USER_NAME,
        "GIT_AUTHOR_EMAIL": USER_EMAIL,
        "GIT_COMMITTER_NAME": USER_NAME,
        "GIT_COMMITTER_EMAIL": USER_EMAIL,
    }
    sha = run_git(path, "commit-tree", tree, "-p", parent, "-m", message, env=identity)
    run_git(path, "update-ref", ref, sha)
    return sha


def needs_input(origin: str = "billing-42", key: str = "refund", **changes: Any) -> NeedsInput:
    """The question the git tests file, worded after its ``origin`` and ``key``; ``changes`` override any field."""
    worded = {
        "origin": origin,
        "key": key,
        "question": f"Refund scope for {origin}/{key}: the remaining items, or the full original total?",
        "title": f"Refund scope ({origin} {key})",
        "options": ["remaining: the remaining items", "full_original: the full original total"],
        "work_so_far": {"verified": [origin]},
    }
    return results.result(results.SHORT, **{**worded, **changes})


def backlog_subjects(path: Path | str, ref: str = "refs/parkbot/backlog") -> list[str]:
    """Commit subjects on the backlog ref, oldest first."""
    out = run_git(path, "log", "--reverse", "--format=%s", ref)
    return out.splitlines() if out else []


def commit_count(path: Path | str, ref: str = "refs/parkbot/backlog") -> int:
    try:
        return int(run_git(path, "rev-list", "--count", ref))
    except AssertionError:
        return 0
