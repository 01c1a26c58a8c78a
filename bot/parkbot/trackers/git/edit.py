"""Changing the backlog's files: :class:`BacklogEdit` stages changes on a transaction, parsing each index
bucket once and writing it back when the change is finished, and migrates a layout-1 tree in the same
commit as its first change. It reads what it changes as a :class:`~parkbot.trackers.git.view.BacklogView`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from parkbot.core.models import Answer, Decision, LogEntry
from parkbot.trackers.git.layout import (
    LAYOUT_FILE,
    LAYOUT_MARK,
    LEGACY_INDEXES,
    LOG_TAIL,
    answer_path,
    decision_path,
    dump_index,
    dump_json,
    index_path,
    is_decision_id,
    links_key,
    log_segment_path,
    normalize_target,
    notes_path,
    origin_key,
    precedent_paths,
    run_key,
)
from parkbot.trackers.git.objects import TREE_MODE, Transaction
from parkbot.trackers.git.view import BacklogView


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
                if not all(is_decision_id(m) for m in members):
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
