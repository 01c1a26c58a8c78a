"""What the planner may cite, read from GitHub: files at the default branch's current commit, and merged pulls.

Facts only (``parkbot.core.planner`` holds the rules). The default branch's commit is read once per run
(``GET /repos/{o}/{r}`` for the branch's name, ``GET /commits/{branch}`` for its sha); each file is read at
that very sha (``GET /contents/{path}?ref=<sha>``), so every line cited in one answer comes from one commit.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from github import GithubException

from parkbot.core.models import Decision

if TYPE_CHECKING:
    from parkbot.trackers.github.store import IssueStore


class SourceFiles:
    """:class:`parkbot.core.planner.SourceFiles` and ``MergedDependents`` for one repository."""

    def __init__(self, store: IssueStore) -> None:
        self.store = store
        self._commit: str | None = None

    def default_branch_commit(self) -> str | None:
        if self._commit is None:

            def read(_: int) -> str | None:
                requester, url = self.store.requester, self.store.repo.url
                try:
                    _, repo = requester.requestJsonAndCheck("GET", url)
                    branch = str(repo["default_branch"])
                    _, commit = requester.requestJsonAndCheck("GET", f"{url}/commits/{quote(branch, safe='')}")
                    return str(commit["sha"])
                except GithubException as exc:
                    if exc.status in (404, 409, 422):  # an empty repository has no commit
                        return None
                    raise

            self._commit = self.store.unit("read the default branch's commit", read)
        return self._commit

    def file_at(self, commit: str, path: str) -> str | None:
        def read(_: int) -> str | None:
            try:
                _, data = self.store.requester.requestJsonAndCheck(
                    "GET", f"{self.store.repo.url}/contents/{quote(path)}", parameters={"ref": commit}
                )
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            return _decoded(data)

        return self.store.unit(f"read {path} at {commit[:12]}", read)

    def merged_dependents(self, decision: Decision) -> frozenset[str]:
        merged = set()
        for target in decision.dependents:
            if not target.startswith("#"):
                continue
            number = int(target[1:])

            def read(_: int, number: int = number) -> bool:
                try:
                    return bool(self.store.repo.get_pull(number).merged)
                except GithubException as exc:
                    if exc.status == 404:
                        return False
                    raise

            if self.store.unit(f"read pull request #{number}", read):
                merged.add(target)
        return frozenset(merged)


def _decoded(data: Any) -> str | None:
    """A file's text from the contents API's answer; None for a directory, a link or anything not UTF-8."""
    if not isinstance(data, dict) or data.get("type") != "file" or data.get("encoding") != "base64":
        return None
    try:
        return base64.b64decode(str(data.get("content") or "")).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
