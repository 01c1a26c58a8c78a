"""Sharing the backlog: fetch, fast-forward or merge per file, push with a lease.

The ref pushes and fetches like a branch (``git push origin refs/parkbot/backlog``).
:meth:`_Sharing.sync` fetches it, fast-forwards when possible, otherwise merges per file (see
:class:`_Merger`: resolved beats open, else the later ``updated_at``; edges cleared on either side
stay cleared; log lines are unioned) into a commit with both parents, and pushes with a lease.
Concurrent pushers are handled like local writers: fetch again and retry (bounded).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import git
from git.exc import GitCommandError
from tenacity import RetryError

from bot.core.errors import BackendFailure
from bot.core.models import Answer, Decision, LogEntry
from bot.trackers.git.layout import _dump
from bot.trackers.git.objects import FILE_MODE, TREE_MODE, Entries, _Objects, _Snapshot
from bot.trackers.git.refs import _CasLost, _RefUpdater

if TYPE_CHECKING:
    from tenacity import Retrying

SYNC_ATTEMPTS = 10


class _Sharing:
    """The sharing half of :class:`~bot.trackers.git.tracker.GitTracker` (mixed into it)."""

    repo: git.Repo
    ref: str
    _objects: _Objects
    _refs: _RefUpdater

    if TYPE_CHECKING:  # provided by GitTracker

        def _ref_sha(self, ref: str) -> str | None: ...
        def _swap(self, old: str | None, new: str, message: str) -> None: ...
        def _commit(self, tree: str, parents: list[str], message: str) -> str: ...
        def _retrying(self, attempts: int | None = None) -> Retrying: ...

    def tracking_ref(self, remote: str) -> str:
        """Where :meth:`sync` keeps the last fetched value of ``remote``'s backlog."""
        return f"refs/parkbot-remotes/{remote}/{self.ref.removeprefix('refs/')}"

    def sync(self, remote: str = "origin") -> str:
        """Share the backlog with ``remote``: fetch, fast-forward or merge, push with a lease.

        Returns what happened: ``up-to-date``, ``fetched`` (fast-forward), ``pushed`` or ``merged``.
        Concurrent pushers are handled like local writers: fetch again and retry (bounded).
        """
        try:
            for attempt in self._retrying(SYNC_ATTEMPTS):
                with attempt:
                    return self._sync_once(remote)
        except RetryError as exc:
            raise BackendFailure(
                f"could not sync {self.ref} with {remote}: it kept changing; it is safe to run again"
            ) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _sync_once(self, remote: str) -> str:
        tracking = self.tracking_ref(remote)
        theirs = self._fetch(remote, tracking)
        ours = self._ref_sha(self.ref)
        if theirs is None and ours is None:
            return "up-to-date"
        if theirs == ours:
            return "up-to-date"
        if ours is None or (theirs is not None and self._is_ancestor(ours, theirs)):
            self._swap(ours, theirs, f"sync: fast-forward from {remote}")  # type: ignore[arg-type]
            return "fetched"
        action = "pushed"
        result = ours
        if theirs is not None and not self._is_ancestor(theirs, ours):
            result = self._merge(ours, theirs, remote)
            self._swap(ours, result, f"sync: merge {remote}")
            action = "merged"
        try:
            lease = f"--force-with-lease={self.ref}:{theirs or ''}"
            self.repo.git.push("--quiet", "--no-verify", lease, remote, f"{result}:{self.ref}")
        except GitCommandError as exc:
            if any(word in str(exc.stderr) for word in ("stale info", "rejected", "fetch first", "non-fast-forward")):
                raise _CasLost(str(exc.stderr)) from exc  # someone pushed meanwhile: fetch and merge again
            raise BackendFailure(f"cannot push {self.ref} to {remote}: {exc.stderr or exc}") from exc
        self._refs.swap(tracking, result, None)
        return action

    def _fetch(self, remote: str, tracking: str) -> str | None:
        try:
            self.repo.git.fetch("--quiet", "--no-tags", "--no-write-fetch-head", remote, f"+{self.ref}:{tracking}")
        except GitCommandError as exc:
            if "couldn't find remote ref" in str(exc.stderr):
                return None
            raise BackendFailure(f"cannot fetch {self.ref} from {remote}: {exc.stderr or exc}") from exc
        return self._ref_sha(tracking)

    def _is_ancestor(self, ancestor: str, descendant: str) -> bool:
        status, _, _ = self.repo.git.merge_base(
            "--is-ancestor", ancestor, descendant, with_extended_output=True, with_exceptions=False
        )
        return status == 0

    def _merge(self, ours: str, theirs: str, remote: str) -> str:
        status, out, _ = self.repo.git.merge_base(ours, theirs, with_extended_output=True, with_exceptions=False)
        base = out.strip() if status == 0 and out.strip() else None
        objects = self._objects
        trees = [objects.commit_tree(c) if c else None for c in (base, ours, theirs)]
        merger = _Merger(objects, _Snapshot(objects, ours), _Snapshot(objects, theirs))
        tree = merger.merge_dir("", *trees) or objects.write_tree({})
        message = f"sync: merge {remote} {self.ref}\n\n{len(merger.merged)} path(s) merged by rule"
        return self._commit(tree, [ours, theirs], message)


class _Merger:
    """Three-way merge of two backlog trees, per file; conflicting files are merged by their meaning.

    Decisions: resolved beats open, otherwise the later ``updated_at`` (dependents are unioned).
    Answers: the one of the side whose decision is resolved, otherwise the earlier. Links: an edge
    stays if both sides have it or one side added it; an edge either side cleared stays cleared.
    Notes: union per decision. Origin/run indexes: union. Log segments: union of lines, by time.
    """

    def __init__(self, objects: _Objects, ours: _Snapshot, theirs: _Snapshot) -> None:
        self.objects = objects
        self.ours = ours
        self.theirs = theirs
        self.merged: list[str] = []

    def merge_dir(self, path: str, base: str | None, ours: str | None, theirs: str | None) -> str | None:
        if ours == theirs or theirs == base:
            return ours
        if ours == base:
            return theirs
        entries = [self.objects.tree(t) if t else {} for t in (base, ours, theirs)]
        result: Entries = {}
        for name in sorted(set().union(*entries)):
            b, o, t = (e.get(name) for e in entries)
            if any(x is not None and x[0] == TREE_MODE for x in (o, t)):
                sha = self.merge_dir(f"{path}{name}/", *(x[1] if x and x[0] == TREE_MODE else None for x in (b, o, t)))
                if sha is not None:
                    result[name] = (TREE_MODE, sha)
                continue
            shas = [x[1] if x else None for x in (b, o, t)]
            sha = self.merge_file(f"{path}{name}", *shas)
            if sha is not None:
                result[name] = (FILE_MODE, sha)
        return self.objects.write_tree(result) if result else None

    def merge_file(self, path: str, base: str | None, ours: str | None, theirs: str | None) -> str | None:
        if ours == theirs or theirs == base:
            return ours
        if ours == base:
            return theirs
        self.merged.append(path)
        if path.startswith(("log/", "precedents/")):
            sides = (self.objects.raw(x) if x else b"" for x in (ours, theirs))
            return self.objects.write(b"blob", self._log_lines(*sides))
        o, t, b = (json.loads(self.objects.raw(sha)) if sha else None for sha in (ours, theirs, base))
        if path.startswith(("links/", "origins/", "runs/")):
            data = self._id_set(b, o, t)
            return self.objects.write(b"blob", _dump(data)) if data else None
        if o is None or t is None:  # changed on one side, deleted on the other: keep the change
            return ours or theirs
        if path.startswith("decisions/"):
            data = self._decision(o, t)
        elif path.startswith("answers/"):
            data = self._answer(path, o, t)
        elif path.startswith("notes/"):
            data = {**o, "notes": {**t.get("notes", {}), **o.get("notes", {})}}
        else:
            return ours
        return self.objects.write(b"blob", data if isinstance(data, bytes) else _dump(data))

    @staticmethod
    def _decision(ours: dict[str, Any], theirs: dict[str, Any]) -> bytes:
        o, t = Decision.model_validate(ours), Decision.model_validate(theirs)
        if (o.state == "resolved") != (t.state == "resolved"):
            winner, loser = (o, t) if o.state == "resolved" else (t, o)
        else:
            winner, loser = (t, o) if t.updated_at > o.updated_at else (o, t)
        dependents = list(dict.fromkeys([*winner.dependents, *loser.dependents]))
        return winner.model_copy(update={"dependents": dependents}).to_json().encode("utf-8")

    def _answer(self, path: str, ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
        decision = "decisions/" + path.removeprefix("answers/")
        for side, data in ((self.ours, ours), (self.theirs, theirs)):
            raw = side.read(decision)
            if raw is not None and json.loads(raw).get("state") == "resolved":
                return data
        return min(ours, theirs, key=lambda a: Answer.model_validate(a).at)

    @staticmethod
    def _id_set(*sides: dict[str, Any] | None) -> dict[str, Any] | None:
        b, o, t = (set(side["decisions"]) if side else set() for side in sides)
        ids = (o & t) | (o - b) | (t - b)
        first = next(side for side in sides if side)
        return {**first, "decisions": sorted(ids)} if ids else None

    @staticmethod
    def _log_lines(ours: bytes, theirs: bytes) -> bytes:
        """Both sides' lines (each once), oldest first."""
        lines = list(dict.fromkeys(line for line in [*ours.splitlines(), *theirs.splitlines()] if line.strip()))
        lines.sort(key=lambda line: LogEntry.model_validate_json(line).at)
        return b"".join(line + b"\n" for line in lines)
