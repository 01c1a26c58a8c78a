"""Sharing the backlog: fetch, fast-forward or merge by meaning, push with a lease.

The ref pushes and fetches like a branch (``git push origin refs/parkbot/backlog``).
:meth:`Syncer.sync` fetches it into ``refs/parkbot-remotes/<remote>/...``, fast-forwards when
possible, otherwise merges (see :class:`TreeMerger`) into a commit with both parents, and pushes
with a lease. Concurrent pushers are handled like local writers: fetch again and retry (bounded).

Every remote change is kept, in history and in the tree; with ``answers.require_signed`` a remote
answer or escalation that carries no authority is reported in the result (reads never count it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from parkbot.core.errors import BackendFailure, InvalidInput
from parkbot.core.merge import AnswerConflict, SyncResult, Version, earlier, merge_versions
from parkbot.core.models import Answer, LogEntry
from parkbot.trackers.git.layout import (
    ANSWERS,
    CONFLICTS,
    DECISIONS,
    LEGACY_INDEXES,
    LOG_ARCHIVE,
    LOG_TAIL,
    NOTES,
    PRECEDENTS,
    conflicts_path,
    dump_index,
    dump_json,
    is_index_path,
)
from parkbot.trackers.git.objects import ObjectStore, Snapshot, Transaction, changed_files
from parkbot.trackers.git.process import GitFailed
from parkbot.trackers.git.proofs import Prover
from parkbot.trackers.git.refs import TRACKING_NAMESPACE, CasLost, RetriesExhausted
from parkbot.trackers.git.repository import BacklogRepository
from parkbot.trackers.git.view import BacklogView

SYNC_ATTEMPTS = 10


def is_log(path: str) -> bool:
    return path == LOG_TAIL or path.startswith(f"{LOG_ARCHIVE}/")


def _answers(data: bytes | None) -> list[Answer]:
    return [Answer.model_validate(a) for a in json.loads(data)] if data else []


def _dump_answers(answers: list[Answer]) -> bytes:
    return ("[\n" + ",\n".join(a.model_dump_json(indent=2) for a in answers) + "\n]\n").encode("utf-8")


def _same_record(a: Answer, b: Answer) -> bool:
    return (a.value, a.kind, a.by, a.at) == (b.value, b.kind, b.by, b.at)


class Syncer:
    """Shares one repository's backlog with its remotes (owned by the tracker)."""

    def __init__(self, backlog: BacklogRepository, prover: Prover) -> None:
        self.backlog = backlog
        self.prover = prover

    def tracking_ref(self, remote: str) -> str:
        """Where :meth:`sync` keeps the last fetched value of ``remote``'s backlog."""
        return f"{TRACKING_NAMESPACE}{remote}/{self.backlog.ref.removeprefix('refs/')}"

    def sync(self, remote: str = "origin") -> SyncResult:
        """Fetch, fast-forward or merge, push with a lease; retried (bounded) when someone pushed meanwhile."""
        self._check_remote(remote)
        try:
            for attempt in self.backlog.retrying(SYNC_ATTEMPTS):
                with attempt:
                    return self._sync_once(remote)
        except RetriesExhausted as exc:
            raise BackendFailure(
                f"could not sync {self.backlog.ref} with {remote}: it kept changing; it is safe to run again"
            ) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _check_remote(self, remote: str) -> None:
        if not remote or remote.startswith("-") or any(c.isspace() for c in remote):
            raise InvalidInput(f"{remote!r} is not a git remote")
        names = self.backlog.git.output("remote").split()
        if remote in names or "/" in remote or ":" in remote:  # a configured remote, or a URL or path
            return
        known = f" (this repository has: {', '.join(names)})" if names else " (this repository has none)"
        raise InvalidInput(
            f"there is no git remote named {remote!r}{known}: add it with `git remote add {remote} URL`, "
            "or name another with --remote NAME"
        )

    def _sync_once(self, remote: str) -> SyncResult:
        backlog = self.backlog
        tracking = self.tracking_ref(remote)
        theirs = self._fetch(remote, tracking)
        ours = backlog.tip()
        if theirs == ours:
            return SyncResult("up-to-date")
        if theirs is not None and (ours is None or self._is_ancestor(ours, theirs)):
            backlog.refs.swap(backlog.ref, theirs, ours)
            return SyncResult("fetched", tuple(self.prover.audit(backlog.store, backlog.ref, ours, theirs)))
        assert ours is not None  # theirs is None or diverged: there is something of ours to push
        result, action = ours, "pushed"
        ignored: tuple[str, ...] = ()
        conflicts: tuple[AnswerConflict, ...] = ()
        if theirs is not None and not self._is_ancestor(theirs, ours):
            result, conflicts = self._merge(ours, theirs, remote)
            backlog.swap(ours, result)
            action = "merged"
            ignored = tuple(self.prover.audit(backlog.store, backlog.ref, ours, result))
        lease = f"--force-with-lease={backlog.ref}:{theirs or ''}"
        try:
            backlog.git.run("push", "--quiet", "--no-verify", lease, remote, f"{result}:{backlog.ref}")
        except GitFailed as exc:
            if any(word in exc.stderr for word in ("stale info", "rejected", "fetch first", "non-fast-forward")):
                raise CasLost(exc.stderr) from exc  # someone pushed meanwhile: fetch and merge again
            raise self._remote_failure("push", remote, exc) from exc
        backlog.refs.set(tracking, result)
        return SyncResult(action, ignored, conflicts)

    def _remote_failure(self, verb: str, remote: str, exc: GitFailed) -> Exception:
        stderr = exc.stderr
        if "object format" in stderr or "mismatched algorithms" in stderr:
            return InvalidInput(
                f"cannot {verb} {self.backlog.ref} with {remote}: the two repositories use different object formats "
                f"(this one is {self.backlog.object_format}), so they cannot share a backlog: {stderr}"
            )
        if "does not appear to be a git repository" in stderr:
            # The remote is configured but cannot be reached now (a moved path, an unmounted share, a host
            # down): a backend failure, safe to run again once it is back (exit 4), not a mistyped input.
            return BackendFailure(
                f"{remote!r} is not a git repository git can reach: check it with `git remote -v`, or name "
                f"another with --remote NAME ({stderr})"
            )
        return BackendFailure(f"cannot {verb} {self.backlog.ref} with {remote}: {stderr or exc}")

    def _fetch(self, remote: str, tracking: str) -> str | None:
        try:
            self.backlog.git.run(
                "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, f"+{self.backlog.ref}:{tracking}"
            )
        except GitFailed as exc:
            if "couldn't find remote ref" in exc.stderr:
                return None
            raise self._remote_failure("fetch", remote, exc) from exc
        return self.backlog.ref_sha(tracking)

    def _is_ancestor(self, ancestor: str, descendant: str) -> bool:
        done = self.backlog.git.run("merge-base", "--is-ancestor", ancestor, descendant, check=False)
        return done.returncode == 0

    def _merge(self, ours: str, theirs: str, remote: str) -> tuple[str, tuple[AnswerConflict, ...]]:
        backlog = self.backlog
        done = backlog.git.run("merge-base", ours, theirs, check=False)
        base = done.stdout.decode("ascii").strip() if done.returncode == 0 else ""
        merger = TreeMerger(backlog, self.prover, base or None, ours, theirs)
        tree = merger.merge()
        message = f"sync: merge {remote} {backlog.ref}\n\n{len(merger.merged)} path(s) merged by rule"
        if merger.conflicts:
            message += "\n\n" + "\n".join(c.message() for c in merger.conflicts)
        return backlog.write_commit(tree, [ours, theirs], message), tuple(merger.conflicts)


class TreeMerger:
    """Three-way merge of two backlog commits, file by file; files both sides changed merge by meaning.

    Decisions: the core's rule (:func:`parkbot.core.merge.merge_versions`): one resolved with authority
    beats one without, resolved beats open, two different answers with authority keep the earlier and
    report the other (written to ``conflicts/``, until an owner confirms), otherwise the later
    ``updated_at`` (dependents are united). Answers: the one of the side whose decision is resolved
    (both: the earlier), otherwise the earlier. Conflicting answers: united. Index sets (and layout
    1's): an id stays if both sides have it or one side added it; an id either side removed (a cleared
    edge, a closed decision) stays removed. Notes: united per decision. The question log: the lines
    the remote added are appended once, oldest first; precedent files: united. Afterwards each changed
    decision is listed in the index exactly as its merged state says, and a layout-1 side is folded
    into layout 2.
    """

    def __init__(self, backlog: BacklogRepository, prover: Prover, base: str | None, ours: str, theirs: str) -> None:
        self.backlog = backlog
        self.store: ObjectStore = backlog.store
        self.prover = prover
        self.tips = {"base": base, "ours": ours, "theirs": theirs}
        self.views = {name: BacklogView(Snapshot(self.store, tip), backlog.ref) for name, tip in self.tips.items()}
        self.merged: list[str] = []
        self.conflicts: list[AnswerConflict] = []

    def _tree(self, name: str) -> str | None:
        return self.views[name].snapshot.tree

    def merge(self) -> str:
        ours_changes = changed_files(self.store, self._tree("base"), self._tree("ours"))
        theirs_changes = changed_files(self.store, self._tree("base"), self._tree("theirs"))
        tx = Transaction(self.views["ours"].snapshot)
        for path, (base, theirs) in theirs_changes.items():
            if is_log(path):
                continue
            ours = ours_changes[path][1] if path in ours_changes else base
            if ours == theirs:
                continue
            merged = self.store.raw(theirs) if theirs else None
            if ours != base:
                self.merged.append(path)
                merged = self.merge_file(path, base, ours, theirs)
            if merged is None:
                tx.delete(path)
            else:
                tx.write(path, merged)
        first = Snapshot(self.store, None, tx.build())
        edit = self.backlog.edit(Transaction(first))
        edit.ensure_layout()
        for conflict in self.conflicts:
            path = conflicts_path(conflict.decision_id)
            known = _answers(edit.tx.read(path))
            if all(not _same_record(conflict.other, a) for a in known):
                edit.tx.write(path, _dump_answers([*known, conflict.other]))
        for line in self._new_log_lines(ours_changes, theirs_changes):
            edit.append_line(line)
        for path in {*ours_changes, *theirs_changes}:
            if path.startswith(f"{DECISIONS}/") and path.endswith(".json") and not is_index_path(path):
                decision_id = path.rsplit("/", 1)[1].removesuffix(".json")
                versions = [v.decision(decision_id) for v in self.views.values()]
                edit.reindex(edit.decision(decision_id), [v for v in versions if v is not None])
        edit.finish()
        return edit.tx.build()

    # -- files both sides changed ----------------------------------------------------------------------

    def _json(self, oid: str | None, path: str) -> Any:
        if oid is None:
            return None
        try:
            return json.loads(self.store.raw(oid))
        except ValueError as exc:
            raise self.views["ours"].damaged(path, "valid JSON", exc) from exc

    def merge_file(self, path: str, base: str | None, ours: str | None, theirs: str | None) -> bytes | None:
        if path.startswith(f"{PRECEDENTS}/"):
            sides = [self.store.raw(x) if x else b"" for x in (ours, theirs)]
            return self._lines(path, *sides)
        b, o, t = (self._json(x, path) for x in (base, ours, theirs))
        if is_index_path(path):
            merged = self._buckets(b or {}, o or {}, t or {})
            return dump_index(merged) if merged else None
        if path.startswith(tuple(f"{top}/" for top in LEGACY_INDEXES)):
            ids = self._ids(*(set(side["decisions"]) if side else set() for side in (b, o, t)))
            first = next(side for side in (o, t, b) if side)
            return dump_json({**first, "decisions": sorted(ids)}) if ids else None
        if o is None or t is None:  # changed on one side, deleted on the other: keep the change
            oid = ours or theirs
            return self.store.raw(oid) if oid else None
        if path.startswith(f"{DECISIONS}/") and ours and theirs:
            return self._decision(path, ours, theirs)
        if path.startswith(f"{ANSWERS}/"):
            return self._answer(path, o, t)
        if path.startswith(f"{CONFLICTS}/"):
            united = _answers(self.store.raw(ours) if ours else None)
            more = _answers(self.store.raw(theirs) if theirs else None)
            united += [a for a in more if all(not _same_record(a, u) for u in united)]
            return _dump_answers(united)
        if path.startswith(f"{NOTES}/"):
            return dump_json({**o, "notes": {**t.get("notes", {}), **o.get("notes", {})}})
        return self.store.raw(ours) if ours else None  # LAYOUT and anything unknown: ours

    @staticmethod
    def _ids(base: set[str], ours: set[str], theirs: set[str]) -> set[str]:
        return (ours & theirs) | (ours - base) | (theirs - base)

    def _buckets(self, base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, list[str]]:
        merged: dict[str, list[str]] = {}
        for key in sorted({*base, *ours, *theirs}):
            ids = self._ids(*(set(side.get(key, [])) for side in (base, ours, theirs)))
            if ids:
                merged[key] = sorted(ids)
        return merged

    def _decision(self, path: str, ours: str, theirs: str) -> bytes:
        o = self.views["ours"].parse_decision(self.store.raw(ours), path)
        t = self.views["theirs"].parse_decision(self.store.raw(theirs), path)
        sides = [
            Version(d, self.prover.resolution_counts(d, self.tips[side])) for d, side in ((o, "ours"), (t, "theirs"))
        ]
        winner, conflict = merge_versions(*sides)
        if conflict is not None:
            self.conflicts.append(conflict)
        return winner.to_json().encode("utf-8")

    def _answer(self, path: str, ours: Any, theirs: Any) -> bytes:
        decision = f"{DECISIONS}/" + path.removeprefix(f"{ANSWERS}/")
        resolved = []
        for side, data in (("ours", ours), ("theirs", theirs)):
            raw = self.views[side].snapshot.read(decision)
            if raw is not None and json.loads(raw).get("state") == "resolved":
                resolved.append(data)
        candidates = resolved if len(resolved) == 1 else [ours, theirs]
        try:
            first, second = (Answer.model_validate(a) for a in (candidates[0], candidates[-1]))
        except ValueError as exc:
            raise self.views["ours"].damaged(path, "a valid answer", exc) from exc
        kept = candidates[0] if earlier(first, second) is first else candidates[-1]
        return (json.dumps(kept, indent=2) + "\n").encode("utf-8")

    # -- the question log ---------------------------------------------------------------------------

    def _entry_time(self, path: str, line: bytes) -> str:
        try:
            return LogEntry.model_validate_json(line).at.isoformat()
        except ValueError as exc:
            raise self.views["theirs"].damaged(path, "a valid question-log file", exc) from exc

    def _lines(self, path: str, *sides: bytes) -> bytes:
        """Both sides' lines (each once), oldest first."""
        lines = list(dict.fromkeys(line for side in sides for line in side.splitlines() if line.strip()))
        lines.sort(key=lambda line: self._entry_time(path, line))
        return b"".join(line + b"\n" for line in lines)

    def _file_lines(self, oids: Iterable[str | None]) -> set[bytes]:
        return {line for oid in oids if oid for line in self.store.raw(oid).splitlines() if line.strip()}

    def _new_log_lines(
        self, ours: dict[str, tuple[str | None, str | None]], theirs: dict[str, tuple[str | None, str | None]]
    ) -> list[bytes]:
        """The lines the remote added to the log that ours does not have, oldest first."""
        known = self._file_lines(b for changes in (ours, theirs) for p, (b, _) in changes.items() if is_log(p))
        known |= self._file_lines(o for p, (_, o) in ours.items() if is_log(p))
        added: dict[bytes, str] = {}
        for path, (_, oid) in theirs.items():
            if is_log(path) and oid:
                for line in self.store.raw(oid).splitlines():
                    if line.strip() and line not in known and line not in added:
                        added[line] = self._entry_time(path, line)
        if added:
            self.merged.append(LOG_TAIL)
        return [line + b"\n" for line in sorted(added, key=lambda line: added[line])]
