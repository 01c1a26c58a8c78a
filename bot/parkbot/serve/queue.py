"""The durable queue of deliveries: SQLite for one host (here), PostgreSQL through procrastinate (:mod:`.pgqueue`).

Why a small table of our own for SQLite: procrastinate, the library used on PostgreSQL, has no SQLite
backend (it is built on PostgreSQL's ``LISTEN/NOTIFY`` and row locks), and the embedded queue needs only
what one table and SQLite's write lock give: a delivery id as primary key (a delivery GitHub sends twice is
stored once), the item key (one issue or pull request) that orders deliveries, attempts, the time of the
next run, and a **lease with an expiry**: a worker killed mid-job (SIGKILL) leaves its lease to expire, and
the next worker takes the job again. Every claim is one ``BEGIN IMMEDIATE`` transaction, so several
processes on one host may share the file.

Retention: a handled delivery's row (its body is already dropped) is kept ``retention`` seconds after it was
handled, then deleted, so the file does not grow forever. It may not be shorter than the three days GitHub keeps
deliveries: the recovery asks GitHub to redeliver only deliveries the queue has not seen, and a row deleted
sooner would let a delivery GitHub counts as failed be handled twice. Failed rows are kept (``--status`` shows
them until someone looks).

Ordering: a delivery runs only when no earlier delivery of the same item is still queued or running, so
deliveries for one issue or pull request are handled in order, one at a time, and others in parallel.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import unquote, urlsplit

from parkbot.core.errors import InvalidInput

if TYPE_CHECKING:
    from parkbot.serve.metrics import Metrics
    from parkbot.serve.worker import Workers

State = Literal["queued", "running", "done", "failed"]
#: How long a handled delivery's row is kept by default (seconds): a week.
RETENTION = 7 * 86400.0
#: The shortest retention allowed: GitHub keeps (and may redeliver) deliveries for three days.
MIN_RETENTION = 3 * 86400.0
#: How often, at most, handled rows past their retention are deleted (seconds).
PURGE_EVERY = 3600.0


@dataclass(frozen=True)
class Job:
    """One stored delivery, as a worker holds it."""

    delivery: str
    event: str
    item: str
    body: bytes
    attempts: int
    received_at: float


@dataclass(frozen=True)
class QueueStatus:
    """What ``parkbot serve --status`` and ``/metrics`` show."""

    counts: dict[str, int]
    oldest_queued_age: float
    retried: int
    failed: list[tuple[str, str, int, str]]  # (delivery, event, attempts, last error)


class Queue(Protocol):
    """What the server and its workers need of a queue, whatever stores it."""

    def put(self, delivery: str, event: str, item: str, body: bytes) -> bool:
        """Store a delivery once; False when it was already stored (it is then handled once)."""
        ...

    def claim(self, worker: str) -> Job | None:
        """The next job that may run now (in order for its item), leased to ``worker``; None: nothing ready."""
        ...

    def done(self, job: Job, worker: str) -> bool:
        """Mark ``job`` handled; False when ``worker`` had lost its lease (another worker took it)."""
        ...

    def retry(self, job: Job, worker: str, error: str, *, delay: float, count: bool = True) -> State:
        """Run ``job`` again after ``delay`` seconds, or park it as failed after the last attempt."""
        ...

    def seen(self, delivery: str) -> bool:
        """Whether delivery ``delivery`` is stored (in any state)."""
        ...

    def status(self) -> QueueStatus: ...

    def ping(self) -> None:
        """Raise when the queue cannot be reached."""
        ...

    def start_workers(self, handler: Callable[[Job], None], metrics: Metrics, *, n: int, backoff: float) -> None:
        """Start ``n`` workers handling this queue's jobs with ``handler``."""
        ...

    def wake(self) -> None:
        """A delivery was just stored: workers waiting for one may look now."""
        ...

    def stop_workers(self, timeout: float = 30.0) -> None:
        """Let running jobs finish (up to ``timeout``); unfinished ones are taken over after their lease."""
        ...

    def close(self) -> None: ...


SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    delivery TEXT PRIMARY KEY,
    event TEXT NOT NULL,
    item TEXT NOT NULL,
    body BLOB NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    received_at REAL NOT NULL,
    next_run_at REAL NOT NULL,
    lease_until REAL,
    worker TEXT,
    last_error TEXT,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS deliveries_item ON deliveries (item, state);
CREATE INDEX IF NOT EXISTS deliveries_ready ON deliveries (state, next_run_at);
CREATE INDEX IF NOT EXISTS deliveries_finished ON deliveries (state, finished_at);
"""

#: Jobs that may run now: queued and due, or running under an expired lease (its worker died), with no
#: earlier job of the same item still queued or running, and no live lease on the item.
CLAIM = """
SELECT rowid, delivery, event, item, body, attempts, received_at FROM deliveries AS d
WHERE ((d.state = 'queued' AND d.next_run_at <= :now) OR (d.state = 'running' AND d.lease_until < :now))
  AND NOT EXISTS (SELECT 1 FROM deliveries AS e WHERE e.item = d.item AND e.rowid < d.rowid
                  AND e.state IN ('queued', 'running'))
  AND NOT EXISTS (SELECT 1 FROM deliveries AS e WHERE e.item = d.item AND e.rowid <> d.rowid
                  AND e.state = 'running' AND e.lease_until >= :now)
ORDER BY d.rowid LIMIT 1
"""


class SqliteQueue:
    """The embedded queue: one SQLite file (WAL), shared by the server's threads and by other processes."""

    def __init__(
        self,
        path: str | Path,
        *,
        lease: float = 60.0,
        max_attempts: int = 5,
        retention: float = RETENTION,
        clock: Callable[[], float] = time.time,
    ) -> None:
        check_retention(retention)
        self.path = str(path)
        self.lease = lease
        self.max_attempts = max_attempts
        self.retention = retention
        self.clock = clock
        self._purged_at: float | None = None
        self._lock = threading.Lock()
        self._workers: Workers | None = None
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise InvalidInput(f"--queue: cannot open the SQLite queue {self.path}: {exc}") from None

    def put(self, delivery: str, event: str, item: str, body: bytes) -> bool:
        now = self.clock()
        with self._lock:
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO deliveries (delivery, event, item, body, received_at, next_run_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (delivery, event, item, body, now, now),
            )
            return cursor.rowcount == 1

    def purge(self) -> int:
        """Delete handled deliveries finished more than ``retention`` seconds ago; how many."""
        now = self.clock()
        with self._lock:
            cursor = self._db.execute(
                "DELETE FROM deliveries WHERE state = 'done' AND finished_at < ?", (now - self.retention,)
            )
            self._purged_at = now
            return cursor.rowcount

    def _purge_due(self, now: float) -> bool:
        return self._purged_at is None or now - self._purged_at >= PURGE_EVERY

    def claim(self, worker: str) -> Job | None:
        now = self.clock()
        if self._purge_due(now):
            self.purge()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(CLAIM, {"now": now}).fetchone()
                if row is None:
                    self._db.execute("COMMIT")
                    return None
                rowid, delivery, event, item, body, attempts, received = row
                self._db.execute(
                    "UPDATE deliveries SET state = 'running', attempts = attempts + 1, lease_until = ?, worker = ? "
                    "WHERE rowid = ?",
                    (now + self.lease, worker, rowid),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Job(delivery, event, item, bytes(body), attempts + 1, received)

    def done(self, job: Job, worker: str) -> bool:
        with self._lock:
            cursor = self._db.execute(
                "UPDATE deliveries SET state = 'done', finished_at = ?, lease_until = NULL, body = X'' "
                "WHERE delivery = ? AND worker = ? AND state = 'running'",
                (self.clock(), job.delivery, worker),
            )
            return cursor.rowcount == 1

    def retry(self, job: Job, worker: str, error: str, *, delay: float, count: bool = True) -> State:
        state: State = "failed" if count and job.attempts >= self.max_attempts else "queued"
        with self._lock:
            self._db.execute(
                "UPDATE deliveries SET state = ?, next_run_at = ?, lease_until = NULL, last_error = ?, "
                "attempts = attempts - ?, finished_at = ? WHERE delivery = ? AND worker = ? AND state = 'running'",
                (
                    state,
                    self.clock() + delay,
                    error[:2000],
                    0 if count else 1,
                    self.clock() if state == "failed" else None,
                    job.delivery,
                    worker,
                ),
            )
        return state

    def seen(self, delivery: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM deliveries WHERE delivery = ?", (delivery,)).fetchone() is not None

    def status(self) -> QueueStatus:
        now = self.clock()
        with self._lock:
            counts = dict.fromkeys(("queued", "running", "done", "failed"), 0)
            counts.update(dict(self._db.execute("SELECT state, count(*) FROM deliveries GROUP BY state").fetchall()))
            oldest = self._db.execute(
                "SELECT min(received_at) FROM deliveries WHERE state IN ('queued', 'running')"
            ).fetchone()[0]
            retried = self._db.execute(
                "SELECT coalesce(sum(attempts - 1), 0) FROM deliveries WHERE attempts > 1"
            ).fetchone()[0]
            failed = self._db.execute(
                "SELECT delivery, event, attempts, coalesce(last_error, '') FROM deliveries WHERE state = 'failed' "
                "ORDER BY finished_at DESC LIMIT 50"
            ).fetchall()
        return QueueStatus(counts, max(0.0, now - oldest) if oldest is not None else 0.0, int(retried), failed)

    def ping(self) -> None:
        with self._lock:
            self._db.execute("SELECT 1").fetchone()

    def start_workers(self, handler: Callable[[Job], None], metrics: Metrics, *, n: int, backoff: float) -> None:
        from parkbot.serve.worker import Workers

        self._workers = Workers(self, handler, metrics, n=n, backoff=backoff)
        self._workers.start()

    def wake(self) -> None:
        if self._workers is not None:
            self._workers.wake()

    def stop_workers(self, timeout: float = 30.0) -> None:
        if self._workers is not None:
            self._workers.stop(timeout)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def check_retention(retention: float) -> None:
    """Handled deliveries are kept at least as long as GitHub may redeliver them (exit 2 otherwise)."""
    if retention < MIN_RETENTION:
        raise InvalidInput(
            f"--retention must be at least 3d (GitHub keeps deliveries three days, and a delivery forgotten "
            f"sooner could be handled twice), got {retention / 86400:g}d"
        )


def open_queue(url: str, *, lease: float = 60.0, max_attempts: int = 5, retention: float = RETENTION) -> Queue:
    """``sqlite:///PATH`` (one host) or ``postgresql://...`` (several instances); anything else: exit 2."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "sqlite":
        # SQLAlchemy's spelling: sqlite:///relative/path.db, sqlite:////absolute/path.db.
        rest = unquote(url.split("://", 1)[1])
        path = rest[1:] if rest.startswith("/") else ""
        if not path:
            raise InvalidInput(
                "--queue: sqlite:///PATH needs a file path, e.g. sqlite:///queue.db (relative) or "
                "sqlite:////var/lib/parkbot/queue.db (absolute)"
            )
        return SqliteQueue(path, lease=lease, max_attempts=max_attempts, retention=retention)
    if scheme in ("postgresql", "postgres"):
        from parkbot.serve.pgqueue import PostgresQueue

        check_retention(retention)
        return PostgresQueue(url, lease=lease, max_attempts=max_attempts, retention=retention)
    shown = url.split("://", 1)[0] + "://..." if "://" in url else url
    raise InvalidInput(f"--queue must be sqlite:///PATH or postgresql://..., got {shown!r}")
