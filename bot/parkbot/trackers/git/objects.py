"""Git objects of the backlog: read and written as git reads and writes them, and the trees built from them.

:class:`ObjectStore` reads loose objects straight from their files (:mod:`~parkbot.trackers.git.loose`)
and the others through one ``git cat-file --batch`` (requests are pipelined, so reading ten
thousand blobs costs a few hundred round trips, not ten thousand). It writes blobs,
trees and unsigned commits as loose objects itself (:mod:`~parkbot.trackers.git.loose_writes`: no
process start), in the repository's object format; where it cannot (objects shared with a group,
kept elsewhere, a write refused by the file system, or content it does not vouch for), ``git
hash-object -w --stdin-paths`` writes them and checks them. parkbot only puts a tree's entries in
git's order. Only content-addressed data (objects, parsed trees, a commit's tree) is cached, so
nothing here can go stale.

A :class:`Snapshot` reads one commit of the backlog ref; a :class:`Transaction` stages file
changes on top of it, and :meth:`Transaction.build` writes the new blobs in one batch and then the
changed trees level by level (one batch per depth), leaving every untouched subtree as it was.
"""

from __future__ import annotations

import os
import re
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, TypeVar

from parkbot.core.errors import BackendFailure
from parkbot.trackers.git.loose import read_loose
from parkbot.trackers.git.process import Git, GitFailed, GitPipe

if TYPE_CHECKING:  # loaded by the first write, never by a command that only reads
    from parkbot.trackers.git.loose_writes import LooseObjects

FILE_MODE = 0o100644
TREE_MODE = 0o040000
GITLINK_MODE = 0o160000
#: How many objects one pipelined read asks for before reading the answers (the requests must fit
#: in a pipe buffer, so git never waits for us while we wait for it).
READ_CHUNK = 128
_CACHE_SIZE = 8192
#: Small objects read or written lately, kept so a write does not read back what it just wrote.
_CACHED_OBJECTS = 1024
_CACHED_OBJECT_BYTES = 64 * 1024


@cache
def _entry_name() -> re.Pattern[str]:
    """The tree entry names parkbot writes (compiled when a tree is first written, not by every read)."""
    return re.compile(r"^(?!\.\.?$)(?!\.git$)[^/\0\n]+$")


Entries = dict[str, tuple[int, str]]  # name -> (mode, object id in hex)


V = TypeVar("V")


def _remember(cache: OrderedDict[str, V], key: str, value: V, *, limit: int = _CACHE_SIZE) -> None:
    cache[key] = value
    if len(cache) > limit:
        cache.popitem(last=False)


#: Where in the repository's git directory a writer keeps the files ``hash-object`` reads (one folder each).
SCRATCH = "parkbot-scratch"


def _make_scratch(git_dir: str) -> str:
    """A new folder of this process's own for scratch files, in the repository's git directory.

    There, not in the system's temporary folder: it is writable wherever a write is made (git writes
    the objects next to it), and making it costs two system calls, where ``tempfile`` (with the
    ``shutil`` and ``random`` it loads) cost a ``park`` more than its own Python work.
    """
    parent = os.path.join(git_dir, SCRATCH)
    os.makedirs(parent, exist_ok=True)
    while True:
        path = os.path.join(parent, f"{os.getpid()}-{os.urandom(6).hex()}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:  # pragma: no cover - 48 random bits taken already
            continue
        return path


def _remove_scratch(path: str) -> None:
    """Remove a scratch folder (it holds plain files only), and the parent when no other writer uses it."""
    try:
        for name in os.listdir(path):
            os.unlink(os.path.join(path, name))
        os.rmdir(path)
        os.rmdir(os.path.dirname(path))
    except OSError:
        pass  # another writer's folder is still there, or this one is gone already


class ObjectStore:
    """Object I/O of one repository through long-lived git helpers."""

    def __init__(self, git: Git, object_format: str, loose: str | None = None) -> None:
        self.git = git
        #: The folder of loose objects read directly (:mod:`~parkbot.trackers.git.loose`); None: git reads all.
        self.loose = loose
        self.object_format = object_format
        self.hex_length = 64 if object_format == "sha256" else 40
        self.zero = "0" * self.hex_length
        self._raw_length = self.hex_length // 2
        self._reader = git.pipe("cat-file", "--batch")
        self._blobs = git.pipe("hash-object", "-w", "--no-filters", "--stdin-paths")
        self._commits = git.pipe("hash-object", "-w", "-t", "commit", "--stdin-paths")
        self._tree_writer = git.pipe("hash-object", "-w", "-t", "tree", "--stdin-paths")
        self._tree_cache: OrderedDict[str, Entries] = OrderedDict()
        self._objects: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._commit_trees: OrderedDict[str, str] = OrderedDict()
        self._scratch: str | None = None
        #: Objects this store wrote or asked git to write (new or not): what the packer counts.
        self.written = 0
        #: Makes the writer of loose objects on first write (None: git writes every object); see :meth:`_direct`.
        self.loose_writer: Callable[[], LooseObjects | None] | None = None
        self._writer: LooseObjects | None = None
        self._writer_asked = False

    def close(self) -> None:
        for pipe in (self._reader, self._blobs, self._commits, self._tree_writer):
            pipe.close()
        if self._scratch is not None:
            _remove_scratch(self._scratch)
            self._scratch = None

    # -- reading --------------------------------------------------------------------------------

    def _answer(self, oid: str) -> tuple[str, bytes] | None:
        header = self._reader.readline().split()
        if len(header) == 2 and header[1] == b"missing":
            return None
        if len(header) != 3:
            raise BackendFailure(f"git cat-file answered {b' '.join(header)!r} for {oid}")
        data = self._reader.read(int(header[2]) + 1)[:-1]
        return header[1].decode("ascii"), data

    def read(self, oid: str) -> tuple[str, bytes]:
        """An object's type and content; a missing object is a :class:`BackendFailure`."""
        cached = self._objects.get(oid)
        if cached is not None:
            self._objects.move_to_end(oid)
            return cached
        found = read_loose(self.loose, oid) if self.loose is not None else None
        if found is None:
            self._reader.send(oid.encode("ascii") + b"\n")
            found = self._answer(oid)
        if found is None:
            raise BackendFailure(f"object {oid} is missing from the repository; is the backlog ref damaged?")
        self._keep(oid, found)
        return found

    def _keep(self, oid: str, found: tuple[str, bytes]) -> None:
        """Remember a small object (content-addressed, so it can never go stale)."""
        if len(found[1]) <= _CACHED_OBJECT_BYTES:
            _remember(self._objects, oid, found, limit=_CACHED_OBJECTS)

    def raw(self, oid: str) -> bytes:
        return self.read(oid)[1]

    def read_many(self, oids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """``(oid, content)`` of every object, in order: those in memory, then the loose files, the rest
        pipelined through git :data:`READ_CHUNK` at a time."""
        for start in range(0, len(oids), READ_CHUNK):
            part = oids[start : start + READ_CHUNK]
            found: dict[str, bytes] = {}
            asked: dict[str, None] = {}
            for oid in part:
                if oid in found or oid in asked:
                    continue
                here = self._objects.get(oid)
                if here is None and self.loose is not None:
                    here = read_loose(self.loose, oid)
                if here is not None:
                    found[oid] = here[1]
                else:
                    asked[oid] = None
            if asked:
                self._reader.send(b"".join(oid.encode("ascii") + b"\n" for oid in asked))
                for oid in asked:
                    answer = self._answer(oid)
                    if answer is None:
                        raise BackendFailure(
                            f"object {oid} is missing from the repository; is the backlog ref damaged?"
                        )
                    found[oid] = answer[1]
            for oid in part:
                yield oid, found[oid]

    def tree(self, oid: str) -> Entries:
        entries = self._tree_cache.get(oid)
        if entries is None:
            kind, data = self.read(oid)
            if kind != "tree":
                raise BackendFailure(f"object {oid} is a {kind}, not a tree; is the backlog ref damaged?")
            entries = self.parse_tree(data, oid)
            _remember(self._tree_cache, oid, entries)
        else:
            self._tree_cache.move_to_end(oid)
        return entries

    def trees(self, oids: Iterable[str]) -> list[Entries]:
        """Several trees, the ones not cached read in one pipelined batch."""
        wanted = list(oids)
        missing = [oid for oid in dict.fromkeys(wanted) if oid not in self._tree_cache]
        for oid, data in self.read_many(missing):
            _remember(self._tree_cache, oid, self.parse_tree(data, oid))
        return [self.tree(oid) for oid in wanted]

    def parse_tree(self, data: bytes, oid: str) -> Entries:
        entries: Entries = {}
        at, size, width = 0, len(data), self._raw_length
        try:
            while at < size:
                space = data.index(b" ", at)
                nul = data.index(b"\0", space)
                mode = int(data[at:space], 8)
                name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
                raw = data[nul + 1 : nul + 1 + width]
                if len(raw) != width:
                    raise ValueError("truncated entry")
                entries[name] = (mode, raw.hex())
                at = nul + 1 + width
        except ValueError as exc:
            raise BackendFailure(f"tree {oid} cannot be read ({exc}); is the backlog ref damaged?") from exc
        return entries

    def commit_tree(self, commit: str) -> str:
        """The tree of ``commit`` (cached: a commit never changes)."""
        tree = self._commit_trees.get(commit)
        if tree is None:
            kind, data = self.read(commit)
            if kind != "commit" or not data.startswith(b"tree "):
                raise BackendFailure(f"object {commit} is not a commit; is the backlog ref damaged?")
            tree = data[5 : 5 + self.hex_length].decode("ascii")
            _remember(self._commit_trees, commit, tree)
        return tree

    # -- writing --------------------------------------------------------------------------------

    def _scratch_files(self, count: int) -> list[str]:
        """Files ``hash-object --stdin-paths`` reads content from (reused: git has read them before we rewrite)."""
        if self._scratch is None:
            self._scratch = _make_scratch(self.git.git_dir)
            weakref.finalize(self, _remove_scratch, self._scratch)
        return [os.path.join(self._scratch, str(n)) for n in range(count)]

    def _hash_files(self, pipe: GitPipe, contents: Sequence[bytes]) -> list[str]:
        paths = self._scratch_files(len(contents))
        for path, data in zip(paths, contents, strict=True):
            # Overwritten in place, never truncated to nothing first: ext4 flushes a file that is
            # truncated and rewritten (auto_da_alloc), which costs milliseconds per blob.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
        pipe.send(b"".join(os.fsencode(path) + b"\n" for path in paths))
        oids = [pipe.readline().strip().decode("ascii") for _ in paths]
        self.written += len(oids)
        return oids

    def _direct(self) -> LooseObjects | None:
        """The writer of loose objects, made on first use; None where git must write them."""
        if not self._writer_asked:
            self._writer_asked = True
            self._writer = self.loose_writer() if self.loose_writer is not None else None
        return self._writer

    def _write(self, kind: str, pipe: GitPipe, contents: Sequence[bytes], *, plain: bool = True) -> list[str]:
        """Write objects directly when the store can and ``plain`` (content checked to be well formed),
        else through ``pipe``; a file system that refuses the direct write hands this and every later
        write to git, which then writes them or fails as it would have."""
        loose = self._direct() if plain else None
        if loose is not None:
            try:
                oids = [loose.write(kind, data) for data in contents]
            except OSError:
                self._writer = None
            else:
                self.written += len(oids)
                return oids
        return self._hash_files(pipe, contents)

    def write_blobs(self, contents: Sequence[bytes]) -> list[str]:
        """Write blobs (one batch) and return their ids."""
        oids = self._write("blob", self._blobs, contents) if contents else []
        for oid, data in zip(oids, contents, strict=True):
            self._keep(oid, ("blob", data))
        return oids

    def write_commit(self, body: bytes) -> str:
        """Write an unsigned commit object whose text is ``body``.

        Written directly only when its header is in the form ``git fsck --strict`` accepts
        (:func:`~parkbot.trackers.git.loose_writes.plain_commit`); git checks any other and refuses a bad one.
        """
        from parkbot.trackers.git.loose_writes import plain_commit

        try:
            return self._write("commit", self._commits, [body], plain=plain_commit(body, self.hex_length))[0]
        except GitFailed as exc:
            raise BackendFailure(f"git refused the commit: {exc.stderr or exc}") from exc

    def remember_commit(self, commit: str, tree: str) -> None:
        _remember(self._commit_trees, commit, tree)

    def write_trees(self, trees: Sequence[Entries]) -> list[str]:
        """Write trees (one batch) and return their ids.

        The entries are put in git's tree format and order here. A batch whose every entry is one git
        takes as it is (:func:`~parkbot.trackers.git.loose_writes.plain_tree`) is written directly, any other
        by ``git hash-object -t tree``, which checks it. (``git mktree`` looks every entry's object up,
        through delta chains in packs: 10 ms for the 512 entries of ``decisions/``.)
        """
        if not trees:
            return []
        from parkbot.trackers.git.loose_writes import plain_tree

        encoded = [self.encode_tree(entries) for entries in trees]
        plain = all(plain_tree(entries, self.hex_length) for entries in trees)
        oids = self._write("tree", self._tree_writer, encoded, plain=plain)
        for oid, entries in zip(oids, trees, strict=True):
            _remember(self._tree_cache, oid, dict(entries))
        return oids

    @staticmethod
    def encode_tree(entries: Entries) -> bytes:
        """A tree object's content: entries sorted as git sorts them (a folder's name as if it ended in ``/``)."""
        encoded = []
        entry_name = _entry_name()
        for name, (mode, oid) in entries.items():
            if not entry_name.match(name):
                raise BackendFailure(f"refusing to write the tree entry name {name!r}")
            raw = name.encode("utf-8", "surrogateescape")
            encoded.append((raw + b"/" if mode == TREE_MODE else raw, b"%o %s\0%s" % (mode, raw, bytes.fromhex(oid))))
        return b"".join(entry for _, entry in sorted(encoded))


class Snapshot:
    """A read-only view of one commit of the backlog ref (or of nothing, before the first write).

    A merge reads a tree that has no commit yet: give ``tree`` instead.
    """

    def __init__(self, store: ObjectStore, commit: str | None, tree: str | None = None) -> None:
        self.store = store
        self.commit = commit
        self.tree = store.commit_tree(commit) if commit else tree

    def entry(self, path: str) -> tuple[int, str] | None:
        if self.tree is None:
            return None
        *dirs, name = path.split("/")
        current = self.tree
        for part in dirs:
            found = self.store.tree(current).get(part)
            if found is None or found[0] != TREE_MODE:
                return None
            current = found[1]
        return self.store.tree(current).get(name)

    def read(self, path: str) -> bytes | None:
        """A file's content, None when there is no file (a folder there is no file either)."""
        found = self.entry(path)
        if found is None or found[0] == TREE_MODE:
            return None
        return self.store.raw(found[1])

    def listdir(self, path: str) -> Entries:
        if self.tree is None:
            return {}
        if not path:
            return self.store.tree(self.tree)
        found = self.entry(path)
        return self.store.tree(found[1]) if found and found[0] == TREE_MODE else {}


class Transaction:
    """File changes staged on top of a snapshot; :meth:`build` writes only the trees on changed paths.

    A change to ``None`` removes whatever is at the path, a file or a whole folder.
    """

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.store = snapshot.store
        self.changes: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        return self.changes[path] if path in self.changes else self.snapshot.read(path)

    def write(self, path: str, data: bytes) -> None:
        if self.read(path) != data:
            self.changes[path] = data

    def delete(self, path: str) -> None:
        if path in self.changes or self.snapshot.entry(path) is not None:
            self.changes[path] = None

    def build(self) -> str:
        """The new root tree (the empty tree when nothing is left)."""
        root = build_tree(self.store, self.snapshot, self.changes)
        return root if root is not None else self.store.write_trees([{}])[0]


def _depth(folder: str) -> int:
    return folder.count("/") + 1 if folder else 0


def build_tree(store: ObjectStore, base: Snapshot, changes: dict[str, bytes | None]) -> str | None:
    """The root tree of ``base`` with ``changes`` applied (None when it ends up empty).

    New blobs are written in one batch, then the changed folders deepest first, one batch per depth.
    """
    files: dict[str, dict[str, bytes | None]] = {}
    for path, data in changes.items():
        folder, _, name = path.rpartition("/")
        files.setdefault(folder, {})[name] = data
    children: dict[str, list[str]] = {}
    affected: set[str] = set()
    for folder in files:
        while folder not in affected:
            affected.add(folder)
            if not folder:
                break
            parent = folder.rpartition("/")[0]
            children.setdefault(parent, []).append(folder)
            folder = parent
    contents = list(dict.fromkeys(data for names in files.values() for data in names.values() if data is not None))
    blob_ids = dict(zip(contents, store.write_blobs(contents), strict=True))
    results: dict[str, str | None] = {}
    for depth in sorted({_depth(f) for f in affected}, reverse=True):
        pending: list[tuple[str, Entries]] = []
        for folder in sorted(f for f in affected if _depth(f) == depth):
            current = base.entry(folder) if folder else ((TREE_MODE, base.tree) if base.tree else None)
            old = current[1] if current and current[0] == TREE_MODE else None
            before = store.tree(old) if old else {}
            entries = dict(before)
            for name, data in files.get(folder, {}).items():
                if data is None:
                    entries.pop(name, None)
                else:
                    entries[name] = (FILE_MODE, blob_ids[data])
            for child in children.get(folder, []):
                name = child.rpartition("/")[2]
                oid = results[child]
                if oid is None:
                    entries.pop(name, None)
                else:
                    entries[name] = (TREE_MODE, oid)
            if not entries:
                results[folder] = None
            elif old is not None and entries == before:
                results[folder] = old
            else:
                pending.append((folder, entries))
        for (folder, _), oid in zip(pending, store.write_trees([e for _, e in pending]), strict=True):
            results[folder] = oid
    return results.get("", base.tree)


def changed_files(
    store: ObjectStore, old: str | None, new: str | None, *, under: Iterable[str] | None = None, prefix: str = ""
) -> dict[str, tuple[str | None, str | None]]:
    """Files that differ between two trees: ``path -> (old blob, new blob)`` (None where absent).

    Identical subtrees are skipped without being read, so a diff costs what changed, not the backlog's
    size. ``under`` limits the top level to these names.
    """
    if old == new:
        return {}
    before = store.tree(old) if old else {}
    after = store.tree(new) if new else {}
    names = set(before) | set(after)
    if under is not None:
        names &= set(under)
    found: dict[str, tuple[str | None, str | None]] = {}
    for name in sorted(names):
        a, b = before.get(name), after.get(name)
        if a == b:
            continue
        path = prefix + name
        a_tree = a[1] if a and a[0] == TREE_MODE else None
        b_tree = b[1] if b and b[0] == TREE_MODE else None
        if a_tree or b_tree:
            found.update(changed_files(store, a_tree, b_tree, prefix=path + "/"))
        a_file = a[1] if a and a[0] != TREE_MODE else None
        b_file = b[1] if b and b[0] != TREE_MODE else None
        if a_file != b_file:
            found[path] = (a_file, b_file)
    return found
