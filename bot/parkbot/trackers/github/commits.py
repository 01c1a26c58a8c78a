"""Reading what an agent filed in a pushed commit through the API, when there is no checkout (App mode).

The same input the git adapter's ``read_filed`` gives the filing rules (:class:`~parkbot.core.filing.FiledFiles`),
read **at the commit**: ``GET /commits/{sha}`` (the commit exists and is the one pushed), one
``GET /git/trees/{sha}?recursive=1`` (every path and size), and ``GET /contents/{path}?ref={sha}`` for each
file read (its bytes, base64). A tree GitHub truncated is not guessed at: it is reported as a problem, so the
commit's gate fails rather than a result file being silently skipped.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from pathlib import PurePosixPath
from typing import Any

from github import GithubException

from parkbot.core.errors import InvalidInput
from parkbot.core.filing import MAX_FILE_BYTES, MAX_RESULT_FILES, FiledFiles
from parkbot.trackers.github.client import GitHubClient, backend_failure


def _clean(path: str) -> str:
    """A configured path inside the repository: no ``..``, no leading ``./`` or ``/``."""
    parts = [p for p in PurePosixPath(path.strip()).parts if p not in (".", "/")]
    if any(p == ".." for p in parts):
        raise InvalidInput(f"configured path {path!r} may not contain '..'")
    return "/".join(parts)


class ApiCommitReader:
    """Reads a commit's result files and inventory through GitHub's REST API (one client, one repository)."""

    def __init__(self, client: GitHubClient) -> None:
        self.client = client
        self._client = client
        self._repo_url = f"/repos/{client.repository}"

    def _get(self, what: str, url: str, parameters: dict[str, Any] | None = None) -> Any:
        requester = self._client.github.requester

        def unit(_: int) -> Any:
            _headers, data = requester.requestJsonAndCheck("GET", url, parameters=parameters)
            return data

        try:
            return self._client.transport.run(what, unit)
        except GithubException as exc:
            if exc.status in (404, 409, 422):
                raise InvalidInput(
                    f"GitHub could not {what} in {self._client.repository} ({exc.status}): "
                    "parkbot reads what an agent filed from the pushed commit only"
                ) from None
            raise backend_failure(exc, what, self._client.transport) from None

    def __call__(self, sha: str, *, results_folder: str, inventory_path: str) -> FiledFiles:
        """Every ``*.json`` under ``results_folder`` and the inventory file of commit ``sha``, as bytes."""
        folder = _clean(results_folder)
        inventory = _clean(inventory_path)
        commit = self._get(f"read commit {sha}", f"{self._repo_url}/commits/{sha}")
        head = str(commit.get("sha") or sha) if isinstance(commit, dict) else sha
        tree = self._get(f"read the tree of commit {head}", f"{self._repo_url}/git/trees/{head}", {"recursive": "1"})
        entries = [e for e in (tree.get("tree") or []) if isinstance(e, dict) and e.get("type") == "blob"]
        errors: list[tuple[str, str]] = []
        if tree.get("truncated"):
            errors.append(
                (folder or ".", "GitHub truncated the commit's tree listing, so not every result file could be read")
            )
        prefix = f"{folder}/" if folder else ""
        found = sorted(
            (e for e in entries if str(e.get("path", "")).startswith(prefix) and str(e["path"]).endswith(".json")),
            key=lambda e: str(e["path"]),
        )
        if len(found) > MAX_RESULT_FILES:
            errors.append((folder, f"holds {len(found)} result files; at most {MAX_RESULT_FILES} are read"))
            found = found[:MAX_RESULT_FILES]
        results: list[tuple[str, bytes]] = []
        for entry in found:
            path = str(entry["path"])
            if path == inventory:
                continue
            content = self._bytes(head, entry)
            if isinstance(content, str):
                errors.append((path, content))
            else:
                results.append((path, content))
        inventory_file: tuple[str, bytes | str] | None = None
        for entry in entries:
            if entry.get("path") == inventory:
                inventory_file = (inventory, self._bytes(head, entry))
        return FiledFiles(head, tuple(results), inventory_file, tuple(errors))

    def _bytes(self, sha: str, entry: dict[str, Any]) -> bytes | str:
        """A file's content at the commit, or why it is not read."""
        path = str(entry["path"])
        size = entry.get("size")
        if isinstance(size, int) and size > MAX_FILE_BYTES:
            return f"is {size} bytes; at most {MAX_FILE_BYTES} are read"
        data = self._get(
            f"read {path} at commit {sha}",
            f"{self._repo_url}/contents/{urllib.parse.quote(path)}",
            {"ref": sha},
        )
        if not isinstance(data, dict) or data.get("type") != "file" or data.get("encoding") != "base64":
            return "could not be read through the API (not a file GitHub returned as base64)"
        try:
            return base64.b64decode(str(data.get("content") or ""), validate=False)
        except (binascii.Error, ValueError):
            return "could not be read through the API (its base64 content is damaged)"
