"""The local clone as the rest of parkbot sees it: its working tree (``parkbot init`` writes there) and its
``origin`` remote (the GitHub backend and ``parkbot init`` infer the repository from it), read with git itself."""

from __future__ import annotations

import subprocess
from pathlib import Path


class NoWorkingTree(Exception):
    """``path`` is not inside a git repository, or (``bare``) only inside a bare one."""

    def __init__(self, path: str | Path, *, bare: bool) -> None:
        super().__init__(str(path))
        self.bare = bare


def working_tree(path: str | Path) -> Path:
    """The top of the working tree that holds ``path``; :class:`NoWorkingTree` when there is none."""
    import git

    try:
        found = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise NoWorkingTree(path, bare=False) from None
    if found.working_tree_dir is None:
        raise NoWorkingTree(path, bare=True)
    return Path(found.working_tree_dir)


def origin_url(repo_path: str | Path) -> tuple[str | None, str]:
    """The URL of the ``origin`` remote of the clone at ``repo_path``, or None and why not."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo_path), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None, "git could not be run to read the origin remote"
    if done.returncode != 0:
        return None, f"{Path(repo_path).resolve()} has no origin remote to infer it from"
    return done.stdout.strip(), ""
