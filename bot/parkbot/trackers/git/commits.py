"""Reading what an agent filed in a commit: its result files and its inventory, as bytes.

Files are read **from the commit** (``repo.commit(sha).tree / path``), never from the working tree:
whatever a workflow step did to the checkout cannot change what the agent filed. What the bytes mean
(and what is wrong with them) is the core's business (:mod:`parkbot.core.filing`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

import git
from gitdb.exc import BadName, BadObject

from parkbot.core.errors import InvalidInput
from parkbot.core.filing import MAX_FILE_BYTES, MAX_RESULT_FILES, FiledFiles

#: A full commit id (SHA-1 or SHA-256 repositories).
COMMIT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


class CommitUnavailable(InvalidInput):
    """The commit to read is not in the local repository."""


def clean_path(path: str) -> str:
    """A configured path inside the repository: no ``..``, no leading ``./`` or ``/``."""
    parts = [p for p in PurePosixPath(path.strip()).parts if p not in (".", "/")]
    if any(p == ".." for p in parts):
        raise InvalidInput(f"configured path {path!r} may not contain '..'")
    return "/".join(parts)


def open_repo(repo_path: str | Path) -> git.Repo:
    try:
        return git.Repo(repo_path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InvalidInput(
            f"{repo_path} is not inside a git repository: check the repository out first "
            "(actions/checkout) so parkbot can read the pushed commit"
        ) from None


def find_commit(repo: git.Repo, sha: str, *, fetch: bool = True) -> git.Commit:
    """The commit ``sha``; fetched from ``origin`` once if the checkout does not have it."""
    if not COMMIT_ID.match(sha):
        raise InvalidInput(f"{sha!r} is not a full commit sha")
    try:
        return repo.commit(sha)
    except (BadName, BadObject, ValueError):
        pass
    if fetch and "origin" in [r.name for r in repo.remotes]:
        try:
            repo.git.fetch("--no-tags", "--depth=1", "origin", sha, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
            return repo.commit(sha)
        except (git.GitCommandError, BadName, BadObject, ValueError):
            pass
    raise CommitUnavailable(
        f"commit {sha} is not in the checkout at {repo.working_tree_dir}: check it out "
        "(actions/checkout with ref set to that commit) so parkbot can read what the agent filed"
    )


def _blob(tree: git.Tree, path: str) -> git.Blob | None:
    try:
        obj = tree / path
    except KeyError:
        return None
    return obj if isinstance(obj, git.Blob) else None


def _bytes(blob: git.Blob) -> bytes | str:
    """The blob's content, or why it is not read."""
    if blob.size > MAX_FILE_BYTES:
        return f"is {blob.size} bytes; at most {MAX_FILE_BYTES} are read"
    data: bytes = blob.data_stream.read()
    return data


def read_filed(repo: git.Repo, sha: str, *, results_folder: str, inventory_path: str, fetch: bool = True) -> FiledFiles:
    """Every ``*.json`` under ``results_folder`` and the inventory file of commit ``sha``, as bytes."""
    commit = find_commit(repo, sha, fetch=fetch)
    tree = commit.tree
    folder = clean_path(results_folder)
    inventory = clean_path(inventory_path)
    results: list[tuple[str, bytes]] = []
    errors: list[tuple[str, str]] = []
    try:
        node = tree / folder if folder else tree
    except KeyError:
        node = None
    if isinstance(node, git.Tree):
        blobs = sorted(
            (item for item in node.traverse() if isinstance(item, git.Blob) and str(item.path).endswith(".json")),
            key=lambda b: str(b.path),
        )
        if len(blobs) > MAX_RESULT_FILES:
            errors.append((folder, f"holds {len(blobs)} result files; at most {MAX_RESULT_FILES} are read"))
            blobs = blobs[:MAX_RESULT_FILES]
        for blob in blobs:
            path = str(blob.path)
            if path == inventory:
                continue
            content = _bytes(blob)
            if isinstance(content, str):
                errors.append((path, content))
            else:
                results.append((path, content))
    found = _blob(tree, inventory)
    inventory_file: tuple[str, bytes | str] | None = None
    if found is not None:
        inventory_file = (inventory, _bytes(found))
    return FiledFiles(commit.hexsha, tuple(results), inventory_file, tuple(errors))
