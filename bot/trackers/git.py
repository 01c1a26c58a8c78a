"""The embedded git backlog: decisions stored on a ref of the repository itself.

Decisions live on their own ref (``refs/parkbot/backlog`` by default), never on a branch. Every
change is one commit on that ref, built in-process (blobs, trees and the commit are written as
loose objects, byte for byte as git writes them; objects are read through GitPython's odb, one
persistent ``git cat-file --batch``) and published with a compare-and-swap of the ref. The
working tree, the index and ``HEAD`` are never touched, so parking works in a dirty checkout, in
the middle of a rebase, or in a bare repository.

Tree layout of the backlog ref::

    decisions/<h2(id)>/<id>.json     the Decision (Decision.to_json()); ``answer`` set once closed
    answers/<h2(id)>/<id>.json       the Answer recorded by resolution step (a), kept after (d)
    links/<h2(t)>/<h16(t)>.json      {"target": t, "decisions": [ids]}: the blocking edges of one
                                     dependent t (``#12`` or ``branch:<name>``); (c) removes them
    notes/<h2(t)>/<h16(t)>.json      {"target": t, "notes": {id: note}}: step (b), one note per
                                     decision a dependent waited for, pointing at its answer
    origins/<h2(o)>/<o>.json         {"origin": o, "decisions": [ids]}  } for the question budgets
    runs/<h2(r)>/<h16(r)>.json       {"run": r, "decisions": [ids]}     } (open_decisions)
    log/<seq // 256>/<seq>.jsonl     the question log, one LogEntry per line, in segments of at
                                     most 64 lines / 32 KiB, so an append rewrites a bounded blob
    precedents/<h2(k)>/<h16(k)>.jsonl  the "resolved" log lines again, indexed by ``key:<key>`` and
                                     ``text:<normalized question>``: the precedent candidates

``h2(x)``/``h16(x)`` are the first 2/16 hex digits of ``sha256(x)``. The two-level fan-out keeps
every tree small (256 buckets; ~40 entries each at 10,000 decisions), so ``find`` reads four small
trees and one blob however large the backlog grows, a gate reads the same plus one ``git log``, and
a write rewrites only the trees on its paths. Nothing lists the backlog except ``iter_decisions``
and ``iter_log``, which are listings by definition.

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

Concurrency: a mutation is a function of the tree it read. The ref is advanced with ``git
update-ref <ref> <new> <old>`` semantics (one transaction per write on a long-lived ``git
update-ref --stdin``, so a write costs no process start); when the ref moved, the mutation is
re-read and re-applied (tenacity, jittered exponential backoff, at most 50 attempts / 30 s), then
:class:`~bot.errors.BackendFailure` says it is safe to run again. Only content-addressed data
(trees, commits, parsed log segments) is cached; the ref is re-read on every attempt. Every step
writes nothing when its effect is already there, so a re-run adds no commit. ``create`` raises
:class:`~bot.errors.ConcurrentChange` when the decision appeared meanwhile, and ``update`` when it
was resolved meanwhile (a stale re-filing never reopens a resolved decision).

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

Sharing: the ref pushes and fetches like a branch (``git push origin refs/parkbot/backlog``).
:meth:`GitTracker.sync` fetches it, fast-forwards when possible, otherwise merges per file (see
:class:`_Merger`: resolved beats open, else the later ``updated_at``; edges cleared on either side
stay cleared; log lines are unioned) into a commit with both parents, and pushes with a lease.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import subprocess
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import git
from git.exc import GitCommandError, InvalidGitRepositoryError, NoSuchPathError
from git.objects.fun import tree_entries_from_data
from pydantic import TypeAdapter
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_random_exponential,
)

from bot.errors import BackendFailure, ConcurrentChange, InvalidInput, NotFound, Refused
from bot.identity import SEPARATOR
from bot.models import Answer, Decision, LogEntry, parse_dependent, utcnow
from bot.policy import normalize_question
from bot.tracker import GateResult, Location

DEFAULT_REF = "refs/parkbot/backlog"
ZERO_SHA = "0" * 40
FILE_MODE = 0o100644
TREE_MODE = 0o040000
FALLBACK_IDENTITY = ("parkbot", "parkbot@localhost")
UNKNOWN_TITLE = "unknown decision (not in the backlog)"
#: Bounds of the compare-and-swap retry loop.
CAS_ATTEMPTS = 50
CAS_SECONDS = 30.0
SYNC_ATTEMPTS = 10
_TREE_CACHE_SIZE = 4096
#: A log segment is sealed (a new one started) at this many lines or bytes, so an append rewrites a bounded blob.
LOG_SEGMENT_LINES = 64
LOG_SEGMENT_BYTES = 32 * 1024
_LOG_SEGMENTS = TypeAdapter(list[LogEntry])
_ENTRY_NAME = re.compile(r"^(?!\.\.?$)(?!\.git$)[^/\0]+$")
_TEMP_COUNTER = itertools.count()
_SHA = re.compile(r"^[0-9a-f]{40}$")
_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_BAD_REF = re.compile(r"(\.\.|[\s~^:?*\[\\]|@\{|//|/\.|\.lock$|/$|\.$)")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# --- paths -----------------------------------------------------------------------------------


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def _check_id(decision_id: str) -> str:
    if not _ID_PATTERN.match(decision_id):
        raise InvalidInput(f"{decision_id!r} is not a decision id: use lowercase letters, digits, '.', '_' and '-'")
    return decision_id


def decision_path(decision_id: str) -> str:
    """Where a decision's record lives on the backlog ref."""
    return f"decisions/{_digest(decision_id)[:2]}/{_check_id(decision_id)}.json"


def answer_path(decision_id: str) -> str:
    """Where the answer recorded by resolution step (a) lives."""
    return f"answers/{_digest(decision_id)[:2]}/{_check_id(decision_id)}.json"


def links_path(target: str) -> str:
    """The blocking edges of one dependent."""
    digest = _digest(target)
    return f"links/{digest[:2]}/{digest[:16]}.json"


def notes_path(target: str) -> str:
    """The answer notes of one dependent (resolution step (b))."""
    digest = _digest(target)
    return f"notes/{digest[:2]}/{digest[:16]}.json"


def origin_path(origin: str) -> str:
    """The ids of every decision an origin task raised (for the question budgets)."""
    return f"origins/{_digest(origin)[:2]}/{_check_id(origin)}.json"


def precedent_paths(entry_key: str | None, question: str | None) -> list[str]:
    """Where a resolution is indexed for the precedent lookup: by key, and by normalized question."""
    keys = ([f"key:{entry_key}"] if entry_key else []) + ([f"text:{normalize_question(question)}"] if question else [])
    return [f"precedents/{(digest := _digest(k))[:2]}/{digest[2:18]}.jsonl" for k in keys]


def run_path(run: str) -> str:
    """The ids of every decision a run raised (for the question budgets)."""
    digest = _digest(run)
    return f"runs/{digest[:2]}/{digest[:16]}.json"


def log_segment_path(seq: int) -> str:
    """One segment of the question log: ``log/<group>/<seq>.jsonl``, 256 segments per group."""
    return f"log/{seq // 256:06d}/{seq:08d}.jsonl"


def normalize_target(target: str) -> str:
    """``#N`` or ``branch:<name>``, as dependents are stored (``refs/heads/`` dropped)."""
    try:
        return parse_dependent(target)
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def _dump(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


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


# --- objects ---------------------------------------------------------------------------------


def _parse_lines(data: bytes) -> tuple[LogEntry, ...]:
    lines = [line for line in data.splitlines() if line.strip()]
    return tuple(_LOG_SEGMENTS.validate_json(b"[" + b",".join(lines) + b"]")) if lines else ()


class _CasLost(Exception):
    """The ref moved between our read and our write (or another writer held its lock)."""


Entries = dict[str, tuple[int, str]]  # name -> (mode, hex sha)


class _Objects:
    """Object I/O. Only content-addressed data is cached, so nothing here can go stale."""

    def __init__(self, repo: git.Repo) -> None:
        self.repo = repo
        # Reads go through the repository's odb (one persistent `git cat-file --batch`). Writes are
        # loose objects written in-process, exactly as git writes them (zlib level 1, temporary file
        # renamed into place): GitPython 3.2's GitCmdObjectDB.store spawns `git hash-object` per
        # object, and gitdb's LooseObjectDB.store is about twice as slow as this.
        self._root = str(repo.odb.root_path())
        self._trees: OrderedDict[str, Entries] = OrderedDict()
        self._commit_trees: OrderedDict[str, str] = OrderedDict()
        self._segments: OrderedDict[str, tuple[LogEntry, ...]] = OrderedDict()
        self._tail: tuple[bytes, tuple[LogEntry, ...]] = (b"", ())
        self._written: OrderedDict[str, bytes] = OrderedDict()  # blobs this process wrote lately

    def raw(self, hexsha: str) -> bytes:
        data = self._written.get(hexsha)
        if data is not None:
            return data
        return self.repo.odb.stream(bytes.fromhex(hexsha)).read()

    def write(self, kind: bytes, data: bytes) -> str:
        raw = b"%s %d\0%s" % (kind, len(data), data)
        hexsha = hashlib.sha1(raw).hexdigest()  # noqa: S324 - git's object id, not a security measure
        if kind == b"commit":
            self._remember(self._commit_trees, hexsha, data[5:45].decode("ascii"))
        elif kind == b"blob":
            self._written[hexsha] = data
            if len(self._written) > 64:
                self._written.popitem(last=False)
        folder = os.path.join(self._root, hexsha[:2])
        path = os.path.join(folder, hexsha[2:])
        try:
            os.utime(path)  # it exists: freshen it, as git does, so a concurrent prune keeps it
            return hexsha
        except FileNotFoundError:
            pass
        except OSError:
            return hexsha  # it exists but is not ours to touch (a shared repository): still usable
        temporary = os.path.join(folder, f"tmp_obj_parkbot_{os.getpid()}_{next(_TEMP_COUNTER)}")
        for attempt in range(5):
            os.makedirs(folder, exist_ok=True)
            try:
                fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
                break
            except FileNotFoundError:  # `git prune-packed` (or gc) removed the empty folder meanwhile
                if attempt == 4:
                    raise
        try:
            os.write(fd, zlib.compress(raw, 1))
        finally:
            os.close(fd)
        os.replace(temporary, path)  # atomic; a concurrent writer of the same object wrote the same bytes
        return hexsha

    def tree(self, hexsha: str) -> Entries:
        entries = self._trees.get(hexsha)
        if entries is None:
            entries = {name: (mode, binsha.hex()) for binsha, mode, name in tree_entries_from_data(self.raw(hexsha))}
            self._remember(self._trees, hexsha, entries)
        else:
            self._trees.move_to_end(hexsha)
        return entries

    def write_tree(self, entries: Entries) -> str:
        def order(name: str) -> str:
            return name + "/" if entries[name][0] == TREE_MODE else name

        parts = []
        for name in sorted(entries, key=order):
            mode, sha = entries[name]
            if not _ENTRY_NAME.match(name):
                raise BackendFailure(f"refusing to write the tree entry name {name!r}")
            parts.append(b"%o %s\0%s" % (mode, name.encode("utf-8"), bytes.fromhex(sha)))
        hexsha = self.write(b"tree", b"".join(parts))
        self._remember(self._trees, hexsha, dict(entries))
        return hexsha

    def commit_tree(self, hexsha: str) -> str:
        tree = self._commit_trees.get(hexsha)
        if tree is None:
            header = self.raw(hexsha)[:46]
            if not header.startswith(b"tree "):
                raise BackendFailure(f"object {hexsha} is not a commit; is the backlog ref damaged?")
            tree = header[5:45].decode("ascii")
            self._remember(self._commit_trees, hexsha, tree)
        return tree

    def log_segment(self, hexsha: str) -> tuple[LogEntry, ...]:
        """A segment's entries. The growing tail segment is parsed incrementally: only new lines."""
        entries = self._segments.get(hexsha)
        if entries is None:
            data = self.raw(hexsha)
            done, previous = self._tail
            if previous and data.startswith(done):
                entries = previous + _parse_lines(data[len(done) :])
            else:
                entries = _parse_lines(data)
            self._tail = (data, entries)
            self._remember(self._segments, hexsha, entries)
        return entries

    @staticmethod
    def _remember(cache: OrderedDict[str, Any], key: str, value: Any) -> None:
        cache[key] = value
        if len(cache) > _TREE_CACHE_SIZE:
            cache.popitem(last=False)


class _Snapshot:
    """A read-only view of one commit of the backlog ref."""

    def __init__(self, objects: _Objects, commit: str | None) -> None:
        self.objects = objects
        self.commit = commit
        self.tree = objects.commit_tree(commit) if commit else None

    def _entry(self, path: str) -> tuple[int, str] | None:
        if self.tree is None:
            return None
        *dirs, name = path.split("/")
        current = self.tree
        for part in dirs:
            entry = self.objects.tree(current).get(part)
            if entry is None or entry[0] != TREE_MODE:
                return None
            current = entry[1]
        return self.objects.tree(current).get(name)

    def read(self, path: str) -> bytes | None:
        entry = self._entry(path)
        if entry is None or entry[0] == TREE_MODE:
            return None
        return self.objects.raw(entry[1])

    def listdir(self, path: str) -> Entries:
        if self.tree is None:
            return {}
        if not path:
            return self.objects.tree(self.tree)
        entry = self._entry(path)
        return self.objects.tree(entry[1]) if entry and entry[0] == TREE_MODE else {}


class _Tx:
    """Staged changes on top of a snapshot; :meth:`build` writes only the trees on changed paths."""

    def __init__(self, snapshot: _Snapshot) -> None:
        self.snapshot = snapshot
        self.changes: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        return self.changes[path] if path in self.changes else self.snapshot.read(path)

    def write(self, path: str, data: bytes) -> None:
        if self.read(path) != data:
            self.changes[path] = data

    def delete(self, path: str) -> None:
        if self.read(path) is not None:
            self.changes[path] = None

    def build(self) -> str:
        return _apply(self.snapshot.objects, self.snapshot.tree, self.changes) or self.snapshot.objects.write_tree({})


def _apply(objects: _Objects, tree: str | None, changes: dict[str, bytes | None]) -> str | None:
    """The tree ``tree`` with ``changes`` applied; None when it ends up empty."""
    entries: Entries = dict(objects.tree(tree)) if tree else {}
    nested: dict[str, dict[str, bytes | None]] = {}
    for path, data in changes.items():
        head, sep, rest = path.partition("/")
        if sep:
            nested.setdefault(head, {})[rest] = data
        elif data is None:
            entries.pop(head, None)
        else:
            entries[head] = (FILE_MODE, objects.write(b"blob", data))
    for name, subchanges in nested.items():
        current = entries.get(name)
        subtree = _apply(objects, current[1] if current and current[0] == TREE_MODE else None, subchanges)
        if subtree is None:
            entries.pop(name, None)
        else:
            entries[name] = (TREE_MODE, subtree)
    return objects.write_tree(entries) if entries else None


class _RefUpdater:
    """Compare-and-swap of refs through one long-lived ``git update-ref --stdin``.

    Each swap is one transaction (``start``/``update <ref> <new> <old>``/``prepare``/``commit``):
    exactly ``git update-ref <ref> <new> <old>``, atomic under git's ref lock, without starting a
    process per write. git ends the process when a transaction fails; the next swap starts a new
    one. Where ``--stdin`` transactions are unavailable, each swap runs ``git update-ref`` instead.
    """

    def __init__(self, repo: git.Repo) -> None:
        self.repo = repo
        self._proc: subprocess.Popen[bytes] | None = None
        self._transactions = True
        self._finalizer: weakref.finalize | None = None

    def swap(self, ref: str, new: str, old: str | None) -> None:
        """Set ``ref`` to ``new`` if it is ``old`` (None: whatever it is); raise _CasLost if it is not."""
        if not self._transactions:
            self._swap_once(ref, new, old)
            return
        proc = self._process()
        update = f"update {ref} {new} {old}" if old else f"update {ref} {new}"
        stdin, stdout = proc.stdin, proc.stdout
        if stdin is None or stdout is None:  # pragma: no cover - Popen was given pipes
            raise BackendFailure("git update-ref has no pipes")
        try:
            stdin.write(f"start\n{update}\nprepare\ncommit\n".encode())
            stdin.flush()
            replies = [stdout.readline() for _ in range(3)]
        except OSError:
            replies = []
        if replies == [b"start: ok\n", b"prepare: ok\n", b"commit: ok\n"]:
            return
        error = self._end()
        if "cannot lock ref" in error:
            raise _CasLost(error)
        if not any(replies) and "unknown command" in error:  # git older than 2.27: no transactions
            self._transactions = False
            self._swap_once(ref, new, old)
            return
        raise BackendFailure(f"cannot update {ref}: {error or 'git update-ref ended unexpectedly'}")

    def _swap_once(self, ref: str, new: str, old: str | None) -> None:
        try:
            self.repo.git.update_ref("-m", "parkbot", ref, new, *([old] if old else []))
        except GitCommandError as exc:
            if "cannot lock ref" in str(exc.stderr):
                raise _CasLost(str(exc.stderr)) from exc
            raise BackendFailure(f"cannot update {ref}: {exc.stderr or exc}") from exc

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [git.Git.GIT_PYTHON_GIT_EXECUTABLE or "git", "update-ref", "-m", "parkbot", "--stdin"],
                cwd=self.repo.git_dir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={**os.environ, "GIT_DIR": self.repo.git_dir},
            )
            self._finalizer = weakref.finalize(self, _stop_and_close, self._proc)
        return self._proc

    def _end(self) -> str:
        """Wait for a failed process to exit and return what it said."""
        proc, self._proc = self._proc, None
        if proc is None:
            return ""
        if self._finalizer is not None:
            self._finalizer.detach()
        _stop(proc)
        if proc.stderr is None:  # pragma: no cover - Popen was given pipes
            return ""
        with proc.stderr:
            return proc.stderr.read().decode("utf-8", "replace").strip()

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._proc = None


def _stop_and_close(proc: subprocess.Popen[bytes]) -> None:
    _stop(proc)
    if proc.stderr:
        proc.stderr.close()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End an ``update-ref --stdin`` process: closing its input makes it exit cleanly."""
    with contextlib.suppress(OSError):
        if proc.stdin:
            proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout:
        proc.stdout.close()


# --- the tracker -----------------------------------------------------------------------------


class GitTracker:
    """The :class:`~bot.tracker.Tracker` of the embedded backlog (module docstring: layout, rules)."""

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
        self._common = Path(repo.common_dir)
        self._packed: tuple[tuple[int, int, int], dict[str, str]] | None = None

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

    def is_member(self, login: str, principal: str) -> bool:
        return login.strip().casefold() == principal.strip().casefold()

    def permission_of(self, login: str, decision: Decision | None = None) -> str | None:
        return None

    def claim(self, decision_id: str) -> bool:
        return False

    def location(self, decision: Decision) -> Location:
        return Location(backend=self.backend, ref=self.ref, path=decision_path(decision.id))

    # -- reading ------------------------------------------------------------------------------

    def _ref_sha(self, ref: str, depth: int = 0) -> str | None:
        """A ref's commit, read like git does: the loose file, else ``packed-refs`` (never cached stale)."""
        try:
            text = (self._common / ref).read_text(encoding="utf-8").strip()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            text = ""
        if text.startswith("ref: ") and depth < 5:
            return self._ref_sha(text[5:].strip(), depth + 1)
        if _SHA.match(text):
            return text
        return self._packed_refs().get(ref)

    def _packed_refs(self) -> dict[str, str]:
        """``packed-refs``, parsed again whenever the file is replaced (git rewrites it by rename)."""
        path = self._common / "packed-refs"
        try:
            stat = path.stat()
        except FileNotFoundError:
            return {}
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if self._packed is None or self._packed[0] != key:
            refs: dict[str, str] = {}
            for line in path.read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if _SHA.match(sha) and name:
                    refs[name.strip()] = sha
            self._packed = (key, refs)
        return self._packed[1]

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

    def append_log(self, entry: LogEntry) -> None:
        """One line at the end of the log; a full segment is sealed and a new one started."""
        line = (entry.model_dump_json(exclude_none=True) + "\n").encode("utf-8")

        def change(tx: _Tx) -> str:
            seq, blob = self._log_tail(tx.snapshot)
            data = self._objects.raw(blob) if blob else b""
            if seq < 0 or data.count(b"\n") >= LOG_SEGMENT_LINES or len(data) + len(line) > LOG_SEGMENT_BYTES:
                seq, data = seq + 1, b""
            tx.write(log_segment_path(seq), data + line)
            if entry.event == "resolved":
                for path in precedent_paths(entry.key, entry.question):
                    tx.write(path, (tx.read(path) or b"") + line)
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

    def _gates(self, targets: Iterable[str], *, ignore: str | None = None) -> list[GateResult]:
        from bot.lifecycle import evaluate_gate  # lifecycle imports the tracker protocol; stay acyclic

        snapshot = self._snapshot()
        return [
            evaluate_gate(target, self._linked(snapshot, target, strict=False), ignore=ignore)
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
        return Retrying(
            stop=stop_after_attempt(attempts or self.cas_attempts) | stop_after_delay(self.cas_seconds),
            wait=wait_random_exponential(multiplier=0.005, max=0.5),
            retry=retry_if_exception_type(_CasLost),
        )

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

    def create(self, decision: Decision) -> Location:
        def change(tx: _Tx) -> str:
            path = decision_path(decision.id)
            if tx.read(path) is not None:
                raise ConcurrentChange(f"decision {decision.id} was filed by another writer meanwhile")
            tx.write(path, decision.to_json().encode("utf-8"))
            self._add_edges(tx, decision.id, decision.dependents)
            self._index(tx, decision)
            return f"park: created {decision.id}\n\n{_one_line(decision.title, 200)}"

        self._mutate(decision.id, change)
        return self.location(decision)

    def update(self, decision: Decision) -> Location:
        def change(tx: _Tx) -> str:
            stored = self._decision_at(tx, decision.id)
            if stored is not None and stored.state == "resolved" and decision.state != "resolved":
                raise ConcurrentChange(f"decision {decision.id} was resolved meanwhile")
            dependents = list(dict.fromkeys([*(stored.dependents if stored else []), *decision.dependents]))
            merged = decision.model_copy(update={"dependents": dependents})
            tx.write(decision_path(decision.id), merged.to_json().encode("utf-8"))
            self._add_edges(tx, decision.id, decision.dependents)
            self._index(tx, decision)
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

    def block_dependents(self, decision: Decision) -> list[GateResult]:
        targets = [normalize_target(t) for t in decision.dependents]

        def change(tx: _Tx) -> str | None:
            added = self._add_edges(tx, decision.id, targets)
            return f"park: link {decision.id} -> {', '.join(added)}" if added else None

        self._mutate(decision.id, change)
        return self._gates(targets)

    # -- resolution ---------------------------------------------------------------------------

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        def change(tx: _Tx) -> str | None:
            stored = self._require(tx, decision)
            recorded = self._answer_at(tx, decision.id) or (stored.answer if stored.state == "resolved" else None)
            if recorded is not None:
                if recorded.same_answer(answer):
                    return None
                raise Refused(
                    f"decision {decision.id} already has the answer {recorded.value!r} "
                    f"(by {recorded.by} at {recorded.at.isoformat()}); a different answer is refused",
                    reason="conflicting_answer",
                )
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

    def clear_blocking(self, decision: Decision) -> list[GateResult]:
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
        # The decision is answered and about to close: it no longer blocks (even through a trailer).
        return self._gates(targets, ignore=decision.id)

    def close(self, decision: Decision, answer: Answer) -> None:
        def change(tx: _Tx) -> str | None:
            stored = self._require(tx, decision)
            if stored.state == "resolved":
                if stored.answer is not None and not stored.answer.same_answer(answer):
                    raise Refused(
                        f"decision {decision.id} is resolved with {stored.answer.value!r}, not {answer.value!r}",
                        reason="conflicting_answer",
                    )
                return None
            closed = stored.model_copy(
                update={"state": "resolved", "answer": answer, "updated_at": max(utcnow(), stored.updated_at)}
            )
            tx.write(decision_path(decision.id), closed.to_json().encode("utf-8"))
            return f"resolve {decision.id} (4/4): close"

        self._mutate(decision.id, change)

    def mark_abandoned(self, decision: Decision, reason: str) -> None:
        def change(tx: _Tx) -> str | None:
            stored = self._require(tx, decision)
            if stored.state == "abandoned":
                return None
            if stored.state == "resolved":
                raise Refused(f"decision {decision.id} is resolved; it cannot be abandoned", reason="resolved")
            abandoned = stored.model_copy(update={"state": "abandoned", "updated_at": max(utcnow(), stored.updated_at)})
            tx.write(decision_path(decision.id), abandoned.to_json().encode("utf-8"))
            return f"abandon {decision.id}: {_one_line(reason, 120)}"

        self._mutate(decision.id, change)

    # -- sharing ------------------------------------------------------------------------------

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
