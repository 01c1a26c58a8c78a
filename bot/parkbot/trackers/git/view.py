"""Reading and changing the backlog's files: decisions, answers, the index, notes and the question log.

A :class:`BacklogView` reads one snapshot (or a transaction: what a write sees) in either layout;
a :class:`BacklogEdit` stages changes on a transaction, parsing each index bucket once and writing
it back when the change is finished, and migrates a layout-1 tree in the same commit as its first
change. A file that cannot be parsed is a :class:`~parkbot.core.errors.BackendFailure` naming it, never
a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import TypeAdapter, ValidationError

from parkbot.core.errors import BackendFailure
from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.trackers.git.layout import (
    CONFLICTS,
    DECISIONS,
    ID_PATTERN,
    INDEX_PREFIX,
    LAYOUT_FILE,
    LAYOUT_MARK,
    LEGACY_INDEXES,
    LOG_ARCHIVE,
    LOG_TAIL,
    answer_path,
    conflicts_path,
    decision_path,
    dump_index,
    dump_json,
    index_path,
    legacy_links_path,
    legacy_origin_path,
    legacy_run_path,
    links_key,
    log_segment_path,
    normalize_target,
    notes_path,
    origin_key,
    precedent_paths,
    run_key,
)
from parkbot.trackers.git.objects import TREE_MODE, Snapshot, Transaction

_LOG_LINES = TypeAdapter(list[LogEntry])
_ANSWERS = TypeAdapter(list[Answer])
_BUCKET = TypeAdapter(dict[str, list[str]])
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
            return _ANSWERS.validate_json(data)
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
            bucket = _BUCKET.validate_json(data)
        except ValidationError as exc:
            raise self.damaged(path, "a valid index file", exc) from exc
        bad = next((i for ids in bucket.values() for i in ids if not ID_PATTERN.match(i)), None)
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
        if not isinstance(ids, list) or not all(isinstance(i, str) and ID_PATTERN.match(i) for i in ids):
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
            return tuple(_LOG_LINES.validate_json(b"[" + b",".join(lines) + b"]"))
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


class BacklogEdit(BacklogView):
    """Changes to the backlog staged on a transaction; :meth:`finish` writes the touched index buckets."""

    def __init__(self, tx: Transaction, ref: str, *, segment_lines: int, segment_bytes: int) -> None:
        super().__init__(tx, ref)
        self.tx = tx
        self.segment_lines = segment_lines
        self.segment_bytes = segment_bytes
        self._dirty: set[str] = set()
        self._next_segment: int | None = None

    # -- the layout -----------------------------------------------------------------------------------

    def ensure_layout(self) -> None:
        """Write the layout mark; a layout-1 tree is migrated first (in this same commit)."""
        if self.tx.read(LAYOUT_FILE) is not None and not any(self.tx.snapshot.entry(n) for n in LEGACY_INDEXES):
            return
        self.fold_legacy(all_decisions=self.legacy)
        self.tx.write(LAYOUT_FILE, LAYOUT_MARK)

    def fold_legacy(self, *, all_decisions: bool) -> None:
        """Move layout 1's ``links/``, ``origins/`` and ``runs/`` into the index and remove them.

        ``all_decisions`` (a whole layout-1 tree) indexes every open decision; otherwise (a merge
        with a layout-1 side) only the decisions those old indexes name.
        """
        ids: set[str] = set()
        for top in LEGACY_INDEXES:
            for path, data in self._files_under(top):
                try:
                    record = json.loads(data)
                    members = [str(i) for i in record["decisions"]]
                except (ValueError, KeyError, TypeError) as exc:
                    raise self.damaged(path, "a valid index file", exc) from exc
                if not all(ID_PATTERN.match(m) for m in members):
                    raise self.damaged(path, "a valid index file", "its decisions are not a list of decision ids")
                if top == "links":
                    target = normalize_target(str(record.get("target", "")))
                    for member in members:
                        self.add(links_key(target), member)
                else:
                    ids.update(members)
            self.tx.delete(top)
        decisions = self.all_decisions() if all_decisions else iter(self.decisions(sorted(ids)))
        for decision in decisions:
            if decision.state == "open":
                self._index_open(decision, add=True)

    def _files_under(self, top: str) -> list[tuple[str, bytes]]:
        """``(path, content)`` of every file two levels under ``top`` in the snapshot."""
        buckets = [(n, oid) for n, (mode, oid) in sorted(self.snapshot.listdir(top).items()) if mode == TREE_MODE]
        located = [
            (f"{top}/{bucket}/{name}", blob)
            for (bucket, _), entries in zip(buckets, self.store.trees(oid for _, oid in buckets), strict=True)
            for name, (mode, blob) in sorted(entries.items())
            if mode != TREE_MODE
        ]
        data = dict(self.store.read_many(list(dict.fromkeys(oid for _, oid in located))))
        return [(path, data[oid]) for path, oid in located]

    # -- the index ----------------------------------------------------------------------------------

    def add(self, key: str, decision_id: str) -> bool:
        path = index_path(key)
        bucket = self.bucket(path)
        members = bucket.setdefault(key, [])
        if decision_id in members:
            return False
        members.append(decision_id)
        members.sort()
        self._dirty.add(path)
        return True

    def remove(self, key: str, decision_id: str) -> bool:
        path = index_path(key)
        bucket = self.bucket(path)
        members = bucket.get(key, [])
        if decision_id not in members:
            return False
        members.remove(decision_id)
        if not members:
            del bucket[key]
        self._dirty.add(path)
        return True

    def reindex(self, decision: Decision | None, previous: Iterable[Decision]) -> None:
        """List ``decision`` in the index exactly as its state says, whatever ``previous`` versions listed."""
        for version in previous:
            self._index_open(version, add=False)
        if decision is not None and decision.state == "open":
            self._index_open(decision, add=True)

    def _index_open(self, decision: Decision, *, add: bool) -> None:
        keys = [origin_key(decision.origin), *([run_key(decision.run)] if decision.run else [])]
        for key in keys:
            (self.add if add else self.remove)(key, decision.id)

    def finish(self) -> None:
        """Write every touched index bucket (an emptied one is removed)."""
        for path in sorted(self._dirty):
            bucket = self._buckets[path]
            if bucket:
                self.tx.write(path, dump_index(bucket))
            else:
                self.tx.delete(path)
        self._dirty.clear()

    # -- decisions, answers, edges, notes ----------------------------------------------------------

    def put_decision(self, decision: Decision, previous: Decision | None) -> None:
        """Write the decision; the index lists it under its origin and run exactly while it is open."""
        if previous is not None:
            self._index_open(previous, add=False)
        self._index_open(decision, add=decision.state == "open")
        self.tx.write(decision_path(decision.id), decision.to_json().encode("utf-8"))

    def put_answer(self, decision_id: str, answer: Answer) -> None:
        self.tx.write(answer_path(decision_id), (answer.model_dump_json(indent=2) + "\n").encode("utf-8"))

    def add_edges(self, decision_id: str, targets: Iterable[str]) -> list[str]:
        """Record that each dependent waits for the decision; the dependents newly linked."""
        return [t for t in dict.fromkeys(normalize_target(t) for t in targets) if self.add(links_key(t), decision_id)]

    def remove_edge(self, decision_id: str, target: str) -> bool:
        return self.remove(links_key(target), decision_id)

    def put_notes(self, target: str, notes: dict[str, Any]) -> None:
        self.tx.write(notes_path(target), dump_json(notes))

    # -- the question log ----------------------------------------------------------------------------

    def append_log(self, entry: LogEntry) -> None:
        """One line at the end of the log tail; a full tail is sealed into the archive first.

        Sealing moves the tail's blob, unchanged, to ``log/<group>/<seq>.jsonl``, so it adds no blob.
        """
        line = (entry.model_dump_json(exclude_none=True) + "\n").encode("utf-8")
        self.append_line(line)
        if entry.event == "resolved":
            for path in precedent_paths(entry.key, entry.question):
                self.tx.write(path, (self.tx.read(path) or b"") + line)

    def append_line(self, line: bytes) -> None:
        """Append one serialized log line (ending in a newline) to the tail, sealing a full tail first."""
        tail = self.tx.read(LOG_TAIL) or b""
        if tail and (tail.count(b"\n") >= self.segment_lines or len(tail) + len(line) > self.segment_bytes):
            if self._next_segment is None:
                self._next_segment = self.last_segment() + 1
            self.tx.write(log_segment_path(self._next_segment), tail)
            self._next_segment += 1
            tail = b""
        self.tx.write(LOG_TAIL, tail + line)
