"""Reading and changing the backlog's files: decisions, answers, the index, notes and the question log.

A :class:`BacklogView` reads one snapshot (or a transaction: what a write sees) in either layout;
:class:`~parkbot.trackers.git.edit.BacklogEdit` (the writing side, importable from here too)
stages changes on a transaction. A file that cannot be parsed is a
:class:`~parkbot.core.errors.BackendFailure` naming it, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from parkbot.core import prebuilt
from parkbot.core.engine import ValidationError
from parkbot.core.errors import BackendFailure
from parkbot.core.models import Answer, Decision, LogEntry, prebuilt_schemas
from parkbot.core.prebuilt import Validates
from parkbot.trackers.git.layout import (
    CONFLICTS,
    DECISIONS,
    INDEX_PREFIX,
    LAYOUT_FILE,
    LOG_ARCHIVE,
    LOG_TAIL,
    answer_path,
    conflicts_path,
    decision_path,
    index_path,
    is_decision_id,
    legacy_links_path,
    legacy_origin_path,
    legacy_run_path,
    links_key,
    notes_path,
    origin_key,
    run_key,
)
from parkbot.trackers.git.objects import TREE_MODE, Snapshot, Transaction


@cache
def _log_lines() -> Validates[list[LogEntry]]:
    """Built when the log is first read (building a validator at import would cost every command)."""
    return prebuilt.adapter(prebuilt_schemas, "log_lines", lambda: list[LogEntry])


@cache
def _bucket() -> Validates[dict[str, list[str]]]:
    return prebuilt.adapter(prebuilt_schemas, "bucket", lambda: dict[str, list[str]])


@cache
def _answers() -> Validates[list[Answer]]:
    return prebuilt.adapter(prebuilt_schemas, "answers", lambda: list[Answer])


#: Decision files a scan reads (pipelined) before parsing them.
DECISION_CHUNK = 512


class BacklogView:
    """The backlog's files as of one snapshot, or of a transaction (its staged changes included)."""

    def __init__(self, reader: Snapshot | Transaction, ref: str) -> None:
        self.reader = reader
        self.ref = ref
        self.store = reader.store
        self.snapshot = reader if isinstance(reader, Snapshot) else reader.snapshot
        self._buckets: dict[str, dict[str, list[str]]] = {}

    def damaged(self, path: str, what: str, detail: object = None) -> BackendFailure:
        """The error for a file that cannot be read as ``what``: it names the file and where to look."""
        if isinstance(detail, ValidationError) and detail.errors():
            first = detail.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            detail = f"{where}: {first['msg']}" if where else first["msg"]
        why = f" ({str(detail).splitlines()[0]})" if detail else ""
        return BackendFailure(
            f"{self.ref}:{path} is not {what}{why}: the backlog ref was damaged or edited by hand. "
            f"`git log -p {self.ref} -- {path}` shows who wrote it; restore it from there."
        )

    @property
    def legacy(self) -> bool:
        """A backlog written before layout 2: no ``LAYOUT`` file, but something else on the ref."""
        return self.reader.read(LAYOUT_FILE) is None and bool(self.snapshot.listdir(""))

    # -- decisions and answers ------------------------------------------------------------------------

    def parse_decision(self, data: bytes, path: str) -> Decision:
        try:
            return Decision.from_json(data)
        except (ValidationError, ValueError) as exc:
            raise self.damaged(path, "a valid decision", exc) from exc

    def decision(self, decision_id: str) -> Decision | None:
        path = decision_path(decision_id)
        data = self.reader.read(path)
        return self.parse_decision(data, path) if data is not None else None

    def answer(self, decision_id: str) -> Answer | None:
        path = answer_path(decision_id)
        data = self.reader.read(path)
        if data is None:
            return None
        try:
            return Answer.model_validate_json(data)
        except (ValidationError, ValueError) as exc:
            raise self.damaged(path, "a valid answer", exc) from exc

    def conflicting_answers(self, decision_id: str) -> list[Answer]:
        """The answers that lost a sync to the one that stands (none, nearly always: one tree lookup)."""
        if not self.snapshot.listdir(CONFLICTS):
            return []
        path = conflicts_path(decision_id)
        data = self.reader.read(path)
        if data is None:
            return []
        try:
            return _answers().validate_json(data)
        except ValidationError as exc:
            raise self.damaged(path, "a valid list of conflicting answers", exc) from exc

    def decisions(self, ids: Iterable[str]) -> list[Decision]:
        """The decisions with these ids that exist, read in one pipelined batch."""
        return list(self.iter_decisions(ids))

    def iter_decisions(self, ids: Iterable[str]) -> Iterator[Decision]:
        """The decisions with these ids that exist, in that order, read in pipelined batches."""
        wanted = list(dict.fromkeys(ids))
        if isinstance(self.reader, Transaction):
            yield from (d for d in (self.decision(i) for i in wanted) if d is not None)
            return
        buckets = self.snapshot.listdir(DECISIONS)
        paths = {i: decision_path(i) for i in wanted}
        needed = {p.split("/")[1] for p in paths.values()}
        self.store.trees(buckets[b][1] for b in sorted(needed) if b in buckets and buckets[b][0] == TREE_MODE)
        located: list[tuple[str, str]] = []
        for path in paths.values():
            entry = self.snapshot.entry(path)
            if entry is not None and entry[0] != TREE_MODE:
                located.append((path, entry[1]))
        yield from self._parse_files(located)

    def decision_ids(self) -> Iterator[str]:
        """Every decision's id, from the names in the tree (no record is read)."""
        buckets = [oid for _, (mode, oid) in sorted(self.snapshot.listdir(DECISIONS).items()) if mode == TREE_MODE]
        for entries in self.store.trees(buckets):
            yield from (
                name.removesuffix(".json")
                for name, (mode, _) in entries.items()
                if mode != TREE_MODE and name.endswith(".json")
            )

    def all_decisions(self) -> Iterator[Decision]:
        """Every decision, in storage order (by hash bucket), read in pipelined batches."""
        buckets = [
            (name, oid) for name, (mode, oid) in sorted(self.snapshot.listdir(DECISIONS).items()) if mode == TREE_MODE
        ]
        files: list[tuple[str, str]] = []
        for (bucket, _), entries in zip(buckets, self.store.trees(oid for _, oid in buckets), strict=True):
            files += [
                (f"{DECISIONS}/{bucket}/{name}", oid)
                for name, (mode, oid) in sorted(entries.items())
                if mode != TREE_MODE and name.endswith(".json")
            ]
        yield from self._parse_files(files)

    def _parse_files(self, files: list[tuple[str, str]]) -> Iterator[Decision]:
        """The decisions in these ``(path, blob)`` files, :data:`DECISION_CHUNK` read at a time: a scan
        holds one chunk of records in memory, never the whole backlog."""
        for start in range(0, len(files), DECISION_CHUNK):
            part = files[start : start + DECISION_CHUNK]
            data = dict(self.store.read_many(list(dict.fromkeys(oid for _, oid in part))))
            for path, oid in part:
                yield self.parse_decision(data[oid], path)

    # -- the index ----------------------------------------------------------------------------------

    def _parse_bucket(self, path: str, data: bytes) -> dict[str, list[str]]:
        try:
            bucket = _bucket().validate_json(data)
        except ValidationError as exc:
            raise self.damaged(path, "a valid index file", exc) from exc
        bad = next((i for ids in bucket.values() for i in ids if not is_decision_id(i)), None)
        if bad is not None:
            raise self.damaged(path, "a valid index file", f"{bad!r} is not a decision id")
        return bucket

    def bucket(self, path: str) -> dict[str, list[str]]:
        found = self._buckets.get(path)
        if found is None:
            data = self.reader.read(path)
            found = self._parse_bucket(path, data) if data is not None else {}
            self._buckets[path] = found
        return found

    def index_ids(self, key: str) -> list[str]:
        return list(self.bucket(index_path(key)).get(key, []))

    def _legacy_ids(self, path: str) -> list[str]:
        data = self.reader.read(path)
        if data is None:
            return []
        try:
            ids = json.loads(data)["decisions"]
        except (ValueError, KeyError, TypeError) as exc:
            raise self.damaged(path, "a valid index file", exc) from exc
        if not isinstance(ids, list) or not all(isinstance(i, str) and is_decision_id(i) for i in ids):
            raise self.damaged(path, "a valid index file", "its decisions are not a list of decision ids")
        return ids

    def link_ids(self, target: str) -> list[str]:
        """The decisions ``target`` (normalized) is blocked by, through the index."""
        if self.legacy:
            return self._legacy_ids(legacy_links_path(target))
        return self.index_ids(links_key(target))

    def candidate_ids(self, origin: str, run: str | None) -> list[str]:
        """Ids that may be open decisions of this origin or run (callers check each decision's state)."""
        if self.legacy:
            paths = [legacy_origin_path(origin), *([legacy_run_path(run)] if run else [])]
            return [i for path in paths for i in self._legacy_ids(path)]
        return self.index_ids(origin_key(origin)) + (self.index_ids(run_key(run)) if run else [])

    def open_ids(self) -> list[str] | None:
        """Every open decision's id, from the index (None in layout 1, which has no such index)."""
        if self.legacy:
            return None
        files = [
            (f"{DECISIONS}/{name}", oid)
            for name, (mode, oid) in sorted(self.snapshot.listdir(DECISIONS).items())
            if mode != TREE_MODE and name.startswith(INDEX_PREFIX)
        ]
        data = dict(self.store.read_many(list(dict.fromkeys(oid for _, oid in files))))
        ids: list[str] = []
        for path, oid in files:
            bucket = self._parse_bucket(path, data[oid])
            ids += [i for key, members in bucket.items() if key.startswith("origin:") for i in members]
        return sorted(set(ids))

    # -- notes and the question log -------------------------------------------------------------------

    def notes(self, target: str) -> dict[str, Any]:
        path = notes_path(target)
        data = self.reader.read(path)
        if data is None:
            return {"target": target, "notes": {}}
        try:
            notes = json.loads(data)
        except ValueError as exc:
            raise self.damaged(path, "a valid notes file", exc) from exc
        if not isinstance(notes, dict) or not isinstance(notes.get("notes"), dict):
            raise self.damaged(path, "a valid notes file")
        return notes

    def parse_log(self, data: bytes, path: str) -> tuple[LogEntry, ...]:
        lines = [line for line in data.splitlines() if line.strip()]
        if not lines:
            return ()
        try:
            return tuple(_log_lines().validate_json(b"[" + b",".join(lines) + b"]"))
        except ValidationError as exc:
            raise self.damaged(path, "a valid question-log file", exc) from exc

    def log_files(self) -> list[tuple[str, str]]:
        """``(path, blob)`` of every log file, oldest first: the sealed segments, then the tail.

        Sealed segments are ``log/<seq>.jsonl`` (layout 1 grouped them: ``log/<group>/<seq>.jsonl``).
        """
        segments: list[tuple[int, str, str]] = []
        for name, (mode, oid) in self.snapshot.listdir(LOG_ARCHIVE).items():
            if mode != TREE_MODE:
                segments.append((self._seq(f"{LOG_ARCHIVE}/{name}"), f"{LOG_ARCHIVE}/{name}", oid))
                continue
            for inner, (inner_mode, blob) in self.store.tree(oid).items():
                if inner_mode != TREE_MODE:
                    path = f"{LOG_ARCHIVE}/{name}/{inner}"
                    segments.append((self._seq(path), path, blob))
        files = [(path, oid) for _, path, oid in sorted(segments)]
        tail = self.snapshot.entry(LOG_TAIL)
        if tail is not None and tail[0] != TREE_MODE:
            files.append((LOG_TAIL, tail[1]))
        return files

    def _seq(self, path: str) -> int:
        name = path.rsplit("/", 1)[1]
        try:
            return int(name.removesuffix(".jsonl"))
        except ValueError as exc:
            raise self.damaged(path, "a numbered question-log segment", exc) from exc

    def last_segment(self) -> int:
        """The sequence number of the last sealed segment (-1 when none is sealed)."""
        files = self.log_files()
        return max((self._seq(path) for path, _ in files if path != LOG_TAIL), default=-1)


def __getattr__(name: str) -> Any:
    """``from parkbot.trackers.git.view import BacklogEdit`` keeps working (the class lives in :mod:`.edit`)."""
    if name == "BacklogEdit":
        from parkbot.trackers.git.edit import BacklogEdit

        return BacklogEdit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
