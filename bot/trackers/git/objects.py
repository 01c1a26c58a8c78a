"""Git objects of the backlog: loose-object writing, tree building, and cached reads.

Blobs, trees and commits are written as loose objects, byte for byte as git writes them; objects
are read through GitPython's odb (one persistent ``git cat-file --batch``). Only content-addressed
data (trees, commits, parsed log segments) is cached, so nothing here can go stale. A
:class:`_Snapshot` reads one commit of the backlog; a :class:`_Tx` stages changes on top of it and
builds the new tree, rewriting only the trees on the changed paths.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import zlib
from collections import OrderedDict
from typing import Any

import git
from git.objects.fun import tree_entries_from_data
from pydantic import TypeAdapter

from bot.core.errors import BackendFailure
from bot.core.models import LogEntry

FILE_MODE = 0o100644
TREE_MODE = 0o040000
_TREE_CACHE_SIZE = 4096
_LOG_SEGMENTS = TypeAdapter(list[LogEntry])
_ENTRY_NAME = re.compile(r"^(?!\.\.?$)(?!\.git$)[^/\0]+$")
_TEMP_COUNTER = itertools.count()


def _parse_lines(data: bytes) -> tuple[LogEntry, ...]:
    lines = [line for line in data.splitlines() if line.strip()]
    return tuple(_LOG_SEGMENTS.validate_json(b"[" + b",".join(lines) + b"]")) if lines else ()


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
