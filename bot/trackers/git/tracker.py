"""The :class:`~bot.core.tracker.Tracker` of the embedded git backlog: reading, writing, gates, the question log.

History: ``git log refs/parkbot/backlog`` reads as the decision history. Subjects are
``park: created <id>``, ``park: updated <id>``, ``park: reopened <id>``,
``park: link <id> -> <targets>``, ``escalate <id>: <from> -> <to>`` (``return ...`` when a
question is handed back), ``review <id>: assumption <n> overridden by <who>``,
``resolve <id> (1/4): record answer '<value>' by <who>``,
``resolve <id> (2/4): point <n> dependent(s) at the answer``,
``resolve <id> (3/4): clear blocking edges of <targets>``, ``resolve <id> (4/4): close``,
``abandon <id>: <reason>``, ``log: <event> <id>`` and ``sync: merge <remote> <ref>``. Every
decision commit carries a ``Parkbot-Decision: <id>`` trailer. Author and committer are the git
user (``GIT_AUTHOR_*``/``GIT_COMMITTER_*`` respected), else ``parkbot <parkbot@localhost>``.

Concurrency: a mutation is a function of the tree it read. It is committed and published with a
compare-and-swap of the ref (:mod:`bot.trackers.git.refs`); when the ref moved, the mutation is
re-read and re-applied, then :class:`~bot.core.errors.BackendFailure` says it is safe to run again.
Every step writes nothing when its effect is already there, so a re-run adds no commit. ``create``
raises :class:`~bot.core.errors.ConcurrentChange` when the decision appeared meanwhile, and ``update``
when it was resolved meanwhile (a stale re-filing never reopens a resolved decision).

Gates: a dependent is linked to a decision through the links index (the ``dependents`` of a parked
result) or, for a branch, through ``Blocked-by: <decision-id>`` trailers on the commits in
``<base>..<branch>`` (all of the branch's commits when there is no base or the branch is the base;
the base is origin's HEAD, else ``main``, else ``master``). A trailer naming an id the backlog does
not hold (not parked yet, not fetched, a typo, or not an id at all) yields a placeholder open
decision titled "unknown decision (not in the backlog)": the gate fails closed. ``gate`` on a
branch that is not in the repository is an InvalidInput; while parking, such a dependent (named
before it was pushed) is linked through the index only.

Loose objects: like ``git commit``, about one write in 256 runs ``git gc --auto``, which packs (in
the background, as git does) once git's own threshold of loose objects is exceeded; ``auto_gc=False``
turns it off. (Packing exactly the objects a long-lived writer created, in a thread, was measured
and found slower on this 2-core machine: the simple way stays.)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import git
from git.exc import GitCommandError, InvalidGitRepositoryError, NoSuchPathError
from tenacity import RetryError, Retrying

from bot.core.authority import Actor
from bot.core.errors import BackendFailure, ConcurrentChange, InvalidInput, NotFound
from bot.core.identity import SEPARATOR
from bot.core.models import Answer, Decision, LogEntry, utcnow
from bot.core.tracker import DependentState, GateResult, Location, Role
from bot.trackers.git.layout import (
    _ID_PATTERN,
    DEFAULT_REF,
    _check_id,
    _dump,
    answer_path,
    decision_path,
    links_path,
    log_segment_path,
    normalize_target,
    notes_path,
    origin_path,
    precedent_paths,
    run_path,
)
from bot.trackers.git.objects import TREE_MODE, _Objects, _Snapshot, _Tx
from bot.trackers.git.refs import _BAD_REF, CAS_ATTEMPTS, CAS_SECONDS, ZERO_SHA, _RefReader, _RefUpdater, retrying
from bot.trackers.git.sync import _Sharing

FALLBACK_IDENTITY = ("parkbot", "parkbot@localhost")
UNKNOWN_TITLE = "unknown decision (not in the backlog)"
#: A log segment is sealed (a new one started) at this many lines or bytes, so an append rewrites a bounded blob.
LOG_SEGMENT_LINES = 64
LOG_SEGMENT_BYTES = 32 * 1024
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _one_line(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _placeholder(raw: str) -> Decision:
    """An open, blocking stand-in for a trailer naming a decision this backlog does not hold."""
    origin, sep, key = raw.partition(SEPARATOR)
    return Decision(
        id=raw,
        origin=origin if sep else "unknown",
        key=key if sep else raw,
        title=UNKNOWN_TITLE,
        question=(
            f"A commit says `Blocked-by: {raw}`, but the backlog has no such decision. Park it, fetch the "
            "backlog (`parkbot sync`), or correct the trailer."
        ),
        owner="(nobody)",
        state="open",
        blocking=True,
        created_at=_EPOCH,
        updated_at=_EPOCH,
    )


class GitTracker(_Sharing):
    """The :class:`~bot.core.tracker.Tracker` of the embedded backlog (layout, rules: the package docstrings)."""

    backend = "git"

    def __init__(
        self,
        repo: git.Repo,
        *,
        ref: str = DEFAULT_REF,
        base: str | None = None,
        auto_gc: bool = True,
    ) -> None:
        if not ref.startswith("refs/") or _BAD_REF.search(ref):
            raise InvalidInput(f"{ref!r} is not a usable ref name; use a full ref such as {DEFAULT_REF}")
        self.repo = repo
        self.ref = ref
        self.auto_gc = auto_gc
        #: Bounds of the compare-and-swap retry loop (attempts, seconds).
        self.cas_attempts = CAS_ATTEMPTS
        self.cas_seconds = CAS_SECONDS
        self._base_arg = base
        self._base: str | None = None
        self._base_known = False
        self._identity: tuple[str | None, str | None] | None = None
        self._objects = _Objects(repo)
        self._refs = _RefUpdater(repo)
        self._owns_repo = False
        self._ref_reader = _RefReader(Path(repo.common_dir))

    @classmethod
    def open(cls, path: str | Path = ".", *, ref: str = DEFAULT_REF, base: str | None = None) -> GitTracker:
        """The backlog of the repository containing ``path`` (parent directories are searched)."""
        try:
            repo = git.Repo(path, search_parent_directories=True)
        except (InvalidGitRepositoryError, NoSuchPathError) as exc:
            raise InvalidInput(
                f"{Path(path).resolve()} is not inside a git repository; run `git init` or pass --backend github"
            ) from exc
        tracker = cls(repo, ref=ref, base=base)
        tracker._owns_repo = True
        return tracker

    def release(self) -> None:
        """Stop the helper processes (and the repository's, when :meth:`open` created it)."""
        self._refs.close()
        if self._owns_repo:
            self.repo.close()

    def __enter__(self) -> GitTracker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    # -- identity ---------------------------------------------------------------------------

    def _user(self) -> tuple[str | None, str | None]:
        """``user.name`` and ``user.email`` from git config (one process, remembered)."""
        if self._identity is None:
            out = self.repo.git.config("--get-regexp", r"^user\.(name|email)$", with_exceptions=False)
            values: dict[str, str] = {}
            for line in out.splitlines():
                key, _, value = line.partition(" ")
                if value.strip():
                    values[key.lower()] = value.strip()
            self._identity = (values.get("user.name"), values.get("user.email"))
        return self._identity

    def _signature(self, role: str) -> str:
        name, email = self._user()
        name = os.environ.get(f"GIT_{role}_NAME") or name or FALLBACK_IDENTITY[0]
        email = os.environ.get(f"GIT_{role}_EMAIL") or email or FALLBACK_IDENTITY[1]
        clean = str.maketrans("", "", "<>\n")
        offset = datetime.now().astimezone().utcoffset()
        minutes = int(offset.total_seconds() // 60) if offset else 0
        sign = "-" if minutes < 0 else "+"
        tz = f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"
        stamp = int(datetime.now(UTC).timestamp())
        return f"{name.translate(clean).strip()} <{email.translate(clean).strip()}> {stamp} {tz}"

    def default_owner(self) -> str:
        name, email = self._user()
        owner = email or name
        if not owner:
            raise InvalidInput(
                "no git user is configured, so nobody owns new decisions: run "
                "`git config user.email you@example.com`, or set owners.default in .github/parkbot.yml"
            )
        return owner

    def actor(self, claimed: str | None) -> Actor:
        """``--by`` or the git user: self-declared (only a signature proves it, see docs/git-backlog.md)."""
        return Actor(claimed or self.default_owner())

    def is_member(self, login: str, principal: str) -> bool:
        return login.strip().casefold() == principal.strip().casefold()

    def permission_of(self, login: str) -> Role | None:
        return None

    def dependent_authors(self, decision: Decision) -> frozenset[str]:
        """Branch commits name whoever their author claims to be, so nothing here is vouched for."""
        return frozenset()

    def claim(self, decision_id: str) -> bool:
        return False

    def location(self, decision: Decision) -> Location:
        return Location(backend=self.backend, ref=self.ref, path=decision_path(decision.id))

    # -- reading ------------------------------------------------------------------------------

    def _ref_sha(self, ref: str) -> str | None:
        """A ref's commit, read like git does: the loose file, else ``packed-refs`` (never cached stale)."""
        return self._ref_reader.sha(ref)

    def _snapshot(self) -> _Snapshot:
        return _Snapshot(self._objects, self._ref_sha(self.ref))

    @staticmethod
    def _decision_at(reader: _Snapshot | _Tx, decision_id: str) -> Decision | None:
        data = reader.read(decision_path(decision_id))
        return Decision.from_json(data) if data is not None else None

    @staticmethod
    def _answer_at(reader: _Snapshot | _Tx, decision_id: str) -> Answer | None:
        data = reader.read(answer_path(decision_id))
        return Answer.model_validate_json(data) if data is not None else None

    @staticmethod
    def _link_ids(reader: _Snapshot | _Tx, target: str) -> list[str]:
        data = reader.read(links_path(target))
        return list(json.loads(data)["decisions"]) if data is not None else []

    def find(self, decision_id: str) -> Decision | None:
        return self._decision_at(self._snapshot(), _check_id(decision_id))

    def recorded_answer(self, decision: Decision) -> Answer | None:
        snapshot = self._snapshot()
        answer = self._answer_at(snapshot, decision.id)
        if answer is not None:
            return answer
        stored = self._decision_at(snapshot, decision.id) or decision
        return stored.answer if stored.state == "resolved" else None

    def iter_decisions(self, state: str | None = None) -> Iterator[Decision]:
        """Every decision, in storage order (by hash bucket), optionally only those in ``state``."""
        snapshot = self._snapshot()
        for bucket, (mode, bucket_sha) in snapshot.listdir("decisions").items():
            if mode != TREE_MODE:
                continue
            for name, (file_mode, blob) in self._objects.tree(bucket_sha).items():
                if file_mode == TREE_MODE or not name.endswith(".json"):
                    continue
                try:
                    decision = Decision.from_json(self._objects.raw(blob))
                except ValueError as exc:
                    raise BackendFailure(f"decisions/{bucket}/{name} on {self.ref} is not a valid decision") from exc
                if state is None or decision.state == state:
                    yield decision

    def open_decisions(self, *, origin: str, run: str | None = None) -> list[Decision]:
        """Open decisions of this origin or this run, read through the origin/run indexes (not a scan)."""
        snapshot = self._snapshot()
        ids: list[str] = []
        for path in [origin_path(origin), *([run_path(run)] if run else [])]:
            data = snapshot.read(path)
            ids += json.loads(data)["decisions"] if data is not None else []
        found = (self._decision_at(snapshot, did) for did in dict.fromkeys(ids))
        return [
            d
            for d in found
            if d is not None and d.state == "open" and (d.origin == origin or (run is not None and d.run == run))
        ]

    # -- the question log -----------------------------------------------------------------------

    @staticmethod
    def _log_tail(snapshot: _Snapshot) -> tuple[int, str | None]:
        """The sequence number and blob of the last log segment (-1, None when the log is empty)."""
        groups = snapshot.listdir("log")
        if not groups:
            return -1, None
        group = max(groups)
        segments = snapshot.objects.tree(groups[group][1]) if groups[group][0] == TREE_MODE else {}
        if not segments:
            return -1, None
        name = max(segments)
        return int(name.removesuffix(".jsonl")), segments[name][1]

    def _log_into(self, tx: _Tx, entry: LogEntry) -> None:
        """Stage one line at the end of the log (a full segment is sealed and a new one started)."""
        line = (entry.model_dump_json(exclude_none=True) + "\n").encode("utf-8")
        seq, blob = self._log_tail(tx.snapshot)
        staged = tx.changes.get(log_segment_path(seq)) if seq >= 0 else None
        data = staged if staged is not None else (self._objects.raw(blob) if blob else b"")
        if seq < 0 or data.count(b"\n") >= LOG_SEGMENT_LINES or len(data) + len(line) > LOG_SEGMENT_BYTES:
            seq, data = seq + 1, b""
        tx.write(log_segment_path(seq), data + line)
        if entry.event == "resolved":
            for path in precedent_paths(entry.key, entry.question):
                tx.write(path, (tx.read(path) or b"") + line)

    def append_log(self, entry: LogEntry) -> None:
        """One line that no state change carries (a refusal), as a commit of its own."""

        def change(tx: _Tx) -> str:
            self._log_into(tx, entry)
            return f"log: {entry.event} {entry.decision or entry.origin}"

        self._mutate(entry.decision, change)

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        """Every line, oldest first. Parsed segments are cached by blob id (content-addressed).

        With ``about``, only the resolutions indexed under its key or its normalized question: the
        precedent candidates, read from two small files however long the log grows.
        """
        snapshot = self._snapshot()
        if about is not None:
            seen: set[bytes] = set()
            for path in precedent_paths(about.key, about.question):
                for line in (snapshot.read(path) or b"").splitlines():
                    if line.strip() and line not in seen:
                        seen.add(line)
                        yield LogEntry.model_validate_json(line)
            return
        for _, (mode, group) in sorted(snapshot.listdir("log").items()):
            if mode != TREE_MODE:
                continue
            for name, (file_mode, blob) in sorted(self._objects.tree(group).items()):
                if file_mode != TREE_MODE and name.endswith(".jsonl"):
                    yield from self._objects.log_segment(blob)

    # -- gates --------------------------------------------------------------------------------

    def _full_ref(self, name: str) -> str | None:
        candidates = [name] if name.startswith("refs/") else [f"refs/heads/{name}", f"refs/remotes/{name}"]
        return next((ref for ref in candidates if self._ref_sha(ref) is not None), None)

    def base(self) -> str | None:
        """The ref a dependent branch is compared with: origin's HEAD, else ``main``, else ``master``."""
        if not self._base_known:
            if self._base_arg is not None:
                self._base = self._full_ref(self._base_arg) or self._base_arg
            else:
                self._base = self._remote_head() or self._full_ref("main") or self._full_ref("master")
            self._base_known = True
        return self._base

    def _remote_head(self) -> str | None:
        try:
            text = (Path(self.repo.common_dir) / "refs/remotes/origin/HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if text.startswith("ref: ") and self._ref_sha(text[5:]) is not None:
            return text[5:]
        return None

    def _trailer_ids(self, branch: str, *, strict: bool) -> list[str]:
        """Values of ``Blocked-by:`` trailers on the branch's own commits (one ``git log``).

        A branch that does not exist here yields nothing when ``strict`` is false (a dependent named
        before it was pushed) and an :class:`InvalidInput` otherwise (``parkbot gate`` on a typo).
        """
        if branch.startswith("-") or any(c.isspace() for c in branch):
            raise InvalidInput(f"{branch!r} is not a branch name")
        rev = self._full_ref(branch)
        if rev is None:  # a commit id or another revision: ask git (rare, so one more process is fine)
            status, out, _ = self.repo.git.rev_parse(
                "--verify", "--quiet", f"{branch}^{{commit}}", with_extended_output=True, with_exceptions=False
            )
            if status != 0:
                if not strict:
                    return []
                raise InvalidInput(
                    f"branch {branch!r} is not in this repository (neither refs/heads/{branch}, "
                    f"refs/remotes/{branch} nor a commit): fetch it, or name it as a full ref"
                )
            rev = out.strip()
        base = self.base()
        spec = rev if base is None or base == rev else f"{base}..{rev}"
        try:
            out = self.repo.git.log("--no-show-signature", "--format=%(trailers:key=Blocked-by,valueonly)", spec, "--")
        except GitCommandError as exc:
            raise InvalidInput(f"cannot read the commits {spec} (is the base {base!r} valid?): {exc.stderr}") from exc
        return [value.lower() for value in re.split(r"[\s,]+", out) if value]

    def _linked(self, snapshot: _Snapshot, target: str, *, strict: bool) -> list[Decision]:
        ids = self._link_ids(snapshot, target)
        if target.startswith("branch:"):
            ids += self._trailer_ids(target.removeprefix("branch:"), strict=strict)
        linked: list[Decision] = []
        for raw in dict.fromkeys(ids):
            decision = self._decision_at(snapshot, raw) if _ID_PATTERN.match(raw) else None
            linked.append(decision or _placeholder(raw))
        return linked

    def linked_decisions(self, target: str) -> list[Decision]:
        """Decisions from the links index plus, for a branch, its ``Blocked-by:`` trailers.

        Unknown ids in trailers come back as open placeholder decisions (the gate fails closed).
        A branch that cannot be read is an :class:`InvalidInput`.
        """
        return self._linked(self._snapshot(), normalize_target(target), strict=True)

    def _states(self, targets: Iterable[str], decision_id: str) -> list[DependentState]:
        """What still links each dependent besides ``decision_id`` (the core evaluates the gates)."""
        snapshot = self._snapshot()
        return [
            DependentState(
                target, tuple(d for d in self._linked(snapshot, target, strict=False) if d.id != decision_id)
            )
            for target in dict.fromkeys(targets)
        ]

    def publish_gate(self, result: GateResult) -> None:
        """Nothing to write: ``parkbot gate`` reports the result and its exit code."""

    # -- writing ------------------------------------------------------------------------------

    def _commit(self, tree: str, parents: list[str], message: str) -> str:
        lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
        lines.append(f"author {self._signature('AUTHOR')}")
        lines.append(f"committer {self._signature('COMMITTER')}")
        body = "\n".join(lines) + "\n\n" + message.rstrip("\n") + "\n"
        return self._objects.write(b"commit", body.encode("utf-8"))

    def _swap(self, old: str | None, new: str, message: str) -> None:
        """Compare-and-swap the backlog ref: atomic in git, fails if another writer moved it."""
        self._refs.swap(self.ref, new, old or ZERO_SHA)
        if self.auto_gc and new.startswith("00"):
            self._gc_auto()

    def _gc_auto(self) -> None:
        """What ``git commit`` does now and then: let git pack and tidy once its thresholds are exceeded."""
        with contextlib.suppress(GitCommandError):  # packing is an optimisation, never a reason to fail
            self.repo.git.gc("--auto", "--quiet")

    def _retrying(self, attempts: int | None = None) -> Retrying:
        return retrying(attempts or self.cas_attempts, self.cas_seconds)

    def _mutate(self, decision_id: str | None, change: Callable[[_Tx], str | None]) -> str | None:
        """Apply ``change`` to the current tree and commit it; re-read and re-apply on a lost race.

        ``change`` returns the commit subject, or None when there is nothing to write. Returns the
        new commit, or None when nothing changed (so a repeated step writes no commit).
        """
        try:
            for attempt in self._retrying():
                with attempt:
                    snapshot = self._snapshot()
                    tx = _Tx(snapshot)
                    subject = change(tx)
                    if subject is None or not tx.changes:
                        return None
                    tree = tx.build()
                    if tree == snapshot.tree:
                        return None
                    message = subject
                    if decision_id:
                        message += f"\n\nParkbot-Decision: {decision_id}"
                    commit = self._commit(tree, [snapshot.commit] if snapshot.commit else [], message)
                    self._swap(snapshot.commit, commit, subject)
                    return commit
        except RetryError as exc:
            raise BackendFailure(
                f"{self.ref} kept changing under concurrent writers ({self.cas_attempts} attempts); "
                "nothing was lost and it is safe to run the command again"
            ) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _require(self, tx: _Tx, decision: Decision) -> Decision:
        stored = self._decision_at(tx, decision.id)
        if stored is None:
            raise NotFound(f"no decision {decision.id} on {self.ref}")
        return stored

    @staticmethod
    def _add_edges(tx: _Tx, decision_id: str, targets: Iterable[str]) -> list[str]:
        added = []
        for target in dict.fromkeys(normalize_target(t) for t in targets):
            path = links_path(target)
            ids = GitTracker._link_ids(tx, target)
            if decision_id not in ids:
                tx.write(path, _dump({"target": target, "decisions": sorted([*ids, decision_id])}))
                added.append(target)
        return added

    @staticmethod
    def _index(tx: _Tx, decision: Decision) -> None:
        """Record the decision under its origin and its run (never removed; readers filter by state)."""
        keys = [("origin", decision.origin, origin_path(decision.origin))]
        if decision.run:
            keys.append(("run", decision.run, run_path(decision.run)))
        for field, value, path in keys:
            data = tx.read(path)
            ids = json.loads(data)["decisions"] if data is not None else []
            if decision.id not in ids:
                tx.write(path, _dump({field: value, "decisions": sorted([*ids, decision.id])}))

    def create(self, decision: Decision, log: LogEntry) -> Location:
        def change(tx: _Tx) -> str:
            path = decision_path(decision.id)
            if tx.read(path) is not None:
                raise ConcurrentChange(f"decision {decision.id} was filed by another writer meanwhile")
            tx.write(path, decision.to_json().encode("utf-8"))
            self._add_edges(tx, decision.id, decision.dependents)
            self._index(tx, decision)
            self._log_into(tx, log)
            return f"park: created {decision.id}\n\n{_one_line(decision.title, 200)}"

        self._mutate(decision.id, change)
        return self.location(decision)

    def update(self, decision: Decision, log: LogEntry | None = None) -> Location:
        def change(tx: _Tx) -> str:
            stored = self._decision_at(tx, decision.id)
            if stored is not None and stored.state == "resolved" and decision.state != "resolved":
                raise ConcurrentChange(f"decision {decision.id} was resolved meanwhile")
            dependents = list(dict.fromkeys([*(stored.dependents if stored else []), *decision.dependents]))
            merged = decision.model_copy(update={"dependents": dependents})
            tx.write(decision_path(decision.id), merged.to_json().encode("utf-8"))
            self._add_edges(tx, decision.id, decision.dependents)
            self._index(tx, decision)
            if log is not None:
                self._log_into(tx, log)
            if stored is not None and len(decision.escalations) > len(stored.escalations):
                hop = decision.escalations[-1]
                verb = "return" if hop.kind == "return" else "escalate"
                return f"{verb} {decision.id}: {hop.from_owner} -> {hop.to_owner}"
            if stored is not None and len(decision.overrides) > len(stored.overrides):
                override = decision.overrides[-1]
                return f"review {decision.id}: assumption {override.assumption} overridden by {override.by}"
            if stored is not None and stored.state != decision.state:
                return f"park: reopened {decision.id}"
            return f"park: updated {decision.id}"

        self._mutate(decision.id, change)
        return self.location(decision)

    def block_dependents(self, decision: Decision) -> list[DependentState]:
        targets = [normalize_target(t) for t in decision.dependents]

        def change(tx: _Tx) -> str | None:
            added = self._add_edges(tx, decision.id, targets)
            return f"park: link {decision.id} -> {', '.join(added)}" if added else None

        self._mutate(decision.id, change)
        return self._states(targets, decision.id)

    # -- resolution ---------------------------------------------------------------------------

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        def change(tx: _Tx) -> str | None:
            stored = self._require(tx, decision)
            recorded = self._answer_at(tx, decision.id) or (stored.answer if stored.state == "resolved" else None)
            if recorded is not None:
                if recorded.same_answer(answer):
                    return None
                raise ConcurrentChange(f"decision {decision.id} was answered differently meanwhile")
            tx.write(answer_path(decision.id), (answer.model_dump_json(indent=2) + "\n").encode("utf-8"))
            return f"resolve {decision.id} (1/4): record answer {_one_line(answer.value)!r} by {answer.by}"

        self._mutate(decision.id, change)

    def _dependents_of(self, tx: _Tx, decision: Decision) -> list[str]:
        stored = self._decision_at(tx, decision.id)
        both = [*(stored.dependents if stored else []), *decision.dependents]
        return list(dict.fromkeys(normalize_target(t) for t in both))

    def point_dependents(self, decision: Decision, answer: Answer) -> None:
        note = {
            "decision": decision.id,
            "title": decision.title,
            "answer": answer.value,
            "kind": answer.kind,
            "assumption": answer.assumption,
            "by": answer.by,
            "at": answer.at.isoformat(),
            "where": f"{self.ref}:{answer_path(decision.id)}",
        }

        def change(tx: _Tx) -> str | None:
            pointed = []
            for target in self._dependents_of(tx, decision):
                path = notes_path(target)
                data = tx.read(path)
                notes = json.loads(data) if data is not None else {"target": target, "notes": {}}
                if notes["notes"].get(decision.id) != note:
                    notes["notes"][decision.id] = note
                    tx.write(path, _dump(notes))
                    pointed.append(target)
            if not pointed:
                return None
            return f"resolve {decision.id} (2/4): point {len(pointed)} dependent(s) at the answer\n\n" + "\n".join(
                pointed
            )

        self._mutate(decision.id, change)

    def clear_blocking(self, decision: Decision) -> list[DependentState]:
        targets: list[str] = []

        def change(tx: _Tx) -> str | None:
            targets[:] = self._dependents_of(tx, decision)
            cleared = []
            for target in targets:
                ids = self._link_ids(tx, target)
                if decision.id in ids:
                    ids.remove(decision.id)
                    if ids:
                        tx.write(links_path(target), _dump({"target": target, "decisions": ids}))
                    else:
                        tx.delete(links_path(target))
                    cleared.append(target)
            return f"resolve {decision.id} (3/4): clear blocking edges of {', '.join(cleared)}" if cleared else None

        self._mutate(decision.id, change)
        return self._states(targets, decision.id)

    def close(self, decision: Decision, answer: Answer, log: LogEntry) -> None:
        def change(tx: _Tx) -> str | None:
            stored = self._require(tx, decision)
            if stored.state == "resolved":
                if stored.answer is not None and not stored.answer.same_answer(answer):
                    raise ConcurrentChange(f"decision {decision.id} was resolved differently meanwhile")
                return None
            closed = stored.model_copy(
                update={"state": "resolved", "answer": answer, "updated_at": max(utcnow(), stored.updated_at)}
            )
            tx.write(decision_path(decision.id), closed.to_json().encode("utf-8"))
            self._log_into(tx, log)
            return f"resolve {decision.id} (4/4): close"

        self._mutate(decision.id, change)

    def mark_abandoned(self, decision: Decision, reason: str, log: LogEntry) -> None:
        def change(tx: _Tx) -> str | None:
            stored = self._require(tx, decision)
            if stored.state == "abandoned":
                return None
            if stored.state == "resolved":
                raise ConcurrentChange(f"decision {decision.id} was resolved meanwhile")
            abandoned = stored.model_copy(update={"state": "abandoned", "updated_at": max(utcnow(), stored.updated_at)})
            tx.write(decision_path(decision.id), abandoned.to_json().encode("utf-8"))
            self._log_into(tx, log)
            return f"abandon {decision.id}: {_one_line(reason, 120)}"

        self._mutate(decision.id, change)
