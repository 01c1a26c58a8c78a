"""The question log on the backlog ref (:meth:`~parkbot.core.tracker.Tracker.append_log`,
:meth:`~parkbot.core.tracker.Tracker.iter_log`): a refusal as a commit of its own, and the log read back."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from parkbot.core.models import Decision, LogEntry
from parkbot.trackers.git.change import Change
from parkbot.trackers.git.layout import precedent_paths
from parkbot.trackers.git.reads import DecisionReads
from parkbot.trackers.git.repository import BacklogRepository

if TYPE_CHECKING:
    from parkbot.trackers.git.edit import BacklogEdit


class QuestionLog:
    """The log lines no state change carries, and every line read back (oldest first)."""

    def __init__(self, backlog: BacklogRepository, reads: DecisionReads) -> None:
        self.backlog = backlog
        self.reads = reads

    def append_log(self, entry: LogEntry) -> None:
        """One line that no state change carries (a refusal), as a commit of its own."""

        def change(edit: BacklogEdit) -> Change:
            edit.append_log(entry)
            trailers = [f"Parkbot-Decision: {entry.decision}"] if entry.decision else []
            return Change(f"log: {entry.event} {entry.decision or entry.origin}", trailers)

        self.backlog.mutate(change)

    def iter_log(self, *, about: Decision | None = None) -> Iterator[LogEntry]:
        """Every line, oldest first (one pipelined read of the log files).

        With ``about``, only the resolutions indexed under its key or its normalized question: the
        precedent candidates, read from two small files however long the log grows.
        """
        view = self.reads.view()
        if about is not None:
            seen: set[bytes] = set()
            for path in precedent_paths(about.key, about.question):
                data = view.snapshot.read(path) or b""
                fresh = [line for line in data.splitlines() if line.strip() and line not in seen]
                seen.update(fresh)
                yield from view.parse_log(b"\n".join(fresh), path)
            return
        files = view.log_files()
        contents = dict(self.backlog.store.read_many(list(dict.fromkeys(oid for _, oid in files))))
        for path, oid in files:
            yield from view.parse_log(contents[oid], path)
