"""The queue on PostgreSQL, for several instances: procrastinate's job queue, with one table of deliveries.

Why procrastinate: it is a maintained job queue made for PostgreSQL (jobs fetched with ``FOR UPDATE SKIP
LOCKED``, so one worker of all instances takes a job; ``LISTEN/NOTIFY`` wakes them; retries with a strategy;
worker heartbeats, from which a killed worker's job is found and retried) and its ``lock`` runs the jobs
of one lock in order, one at a time: parkbot's per-item order. What it does not do is refuse a job it has
seen before (its ``queueing_lock`` only holds while a job waits), so the raw deliveries live in one table of
their own, ``parkbot_deliveries``, keyed by ``X-GitHub-Delivery``: the instance whose insert wins defers the
job, and a delivery sent to two instances is handled exactly once.

Retention, as on SQLite: a handled delivery's body is dropped when it is handled, and its row is deleted
``retention`` seconds later (never sooner than the three days GitHub may redeliver it, so the dedupe above
still holds); queued, running and failed rows stay. procrastinate's own jobs of parkbot (its queue
``parkbot``) that succeeded are deleted after the same time through procrastinate's
``JobManager.delete_old_jobs``; its jobs table knows nothing of ``parkbot_deliveries``, so that table's rows
are deleted by one statement of ours. The purge is procrastinate's periodic task (hourly; procrastinate
defers each tick once across all instances), and a purge holds a transaction-level advisory lock, so two
purges at once never race: the second one skips.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import procrastinate
import psycopg
import psycopg_pool

from parkbot.core.errors import InvalidInput
from parkbot.serve.metrics import Metrics
from parkbot.serve.queue import RETENTION, Job, QueueStatus, State, check_retention
from parkbot.serve.worker import MAX_BACKOFF, RetryLater

log = logging.getLogger("parkbot.serve")
TASK = "parkbot.delivery"
#: procrastinate's queue of parkbot's jobs: the purge deletes old jobs of this queue only, not other apps'.
QUEUE = "parkbot"
#: The periodic task that deletes handled deliveries and finished jobs past the retention, and when it runs.
PURGE_TASK = "parkbot.purge"
PURGE_CRON = "0 * * * *"
#: Advisory lock keys: the schema's installation, and one purge at a time across instances.
INSTALL_LOCK = 424242
PURGE_LOCK = 424243
#: procrastinate's job states, in the words of ``parkbot serve --status``.
STATES = {"todo": "queued", "doing": "running", "succeeded": "done", "failed": "failed"}

SCHEMA = """
CREATE TABLE IF NOT EXISTS parkbot_deliveries (
    delivery TEXT PRIMARY KEY,
    event TEXT NOT NULL,
    item TEXT NOT NULL,
    body BYTEA NOT NULL,
    received_at DOUBLE PRECISION NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    finished_at DOUBLE PRECISION
);
-- A table of an earlier version gets the time a delivery was handled (checked first: ALTER TABLE would lock it),
-- and jobs it queued in procrastinate's default queue move to parkbot's, whose old jobs the purge deletes.
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_name = 'parkbot_deliveries' AND column_name = 'finished_at') THEN
        ALTER TABLE parkbot_deliveries ADD COLUMN finished_at DOUBLE PRECISION;
    END IF;
    IF to_regclass('parkbot_deliveries_finished') IS NULL THEN
        CREATE INDEX parkbot_deliveries_finished ON parkbot_deliveries (state, finished_at);
    END IF;
END $$;
UPDATE procrastinate_jobs SET queue_name = 'parkbot' WHERE task_name = 'parkbot.delivery' AND queue_name = 'default';
"""


class _Retry(procrastinate.BaseRetryStrategy):
    """Backoff doubling from ``backoff`` up to ten minutes, ``max_attempts`` tries; a rate limit waits as told."""

    def __init__(self, max_attempts: int, backoff: float) -> None:
        self.max_attempts = max_attempts
        self.backoff = backoff

    def get_retry_decision(self, *, exception: BaseException, job: Any) -> procrastinate.RetryDecision | None:
        if isinstance(exception, RetryLater) and not exception.count and exception.delay is not None:
            return procrastinate.RetryDecision(retry_in={"seconds": int(exception.delay)})
        if job.attempts + 1 >= self.max_attempts:
            return None
        delay = min(MAX_BACKOFF, self.backoff * 2**job.attempts)
        return procrastinate.RetryDecision(retry_in={"seconds": max(1, int(delay))})


class PostgresQueue:
    """Deliveries in ``parkbot_deliveries``, jobs in procrastinate's tables; several instances share them."""

    def __init__(
        self,
        url: str,
        *,
        lease: float = 60.0,
        max_attempts: int = 5,
        retention: float = RETENTION,
        clock: Callable[[], float] = time.time,
    ) -> None:
        check_retention(retention)
        self.url = url
        self.lease = lease
        self.max_attempts = max_attempts
        self.retention = retention
        self.clock = clock
        #: procrastinate's periodic schedule of the purge (cron, with an optional sixth column of seconds).
        self.purge_cron = PURGE_CRON
        try:
            self.pool = psycopg_pool.ConnectionPool(url, min_size=1, max_size=8, open=True, timeout=10)
            self.pool.wait(timeout=10)
            self._install()
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            raise InvalidInput(f"--queue: cannot use PostgreSQL at {_shown(url)}: {exc}") from None
        self.app = procrastinate.App(connector=procrastinate.SyncPsycopgConnector())
        self.app.open(self.pool)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def wake(self) -> None:
        """procrastinate's workers are woken by PostgreSQL's NOTIFY."""

    def _install(self) -> None:
        """Create procrastinate's schema and the deliveries table once, whichever instance starts first."""
        with self.pool.connection() as db:
            db.execute("SELECT pg_advisory_lock(%s)", (INSTALL_LOCK,))
            try:
                row = db.execute("SELECT to_regclass('procrastinate_jobs')").fetchone()
                if row is None or row[0] is None:
                    schema = procrastinate.App(connector=procrastinate.SyncPsycopgConnector())
                    schema.open(self.pool)
                    schema.schema_manager.apply_schema()
                db.execute(SCHEMA)
            finally:
                db.execute("SELECT pg_advisory_unlock(%s)", (INSTALL_LOCK,))

    # -- the Queue protocol ------------------------------------------------------------------

    def put(self, delivery: str, event: str, item: str, body: bytes) -> bool:
        with self.pool.connection() as db:
            cursor = db.execute(
                "INSERT INTO parkbot_deliveries (delivery, event, item, body, received_at) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (delivery) DO NOTHING",
                (delivery, event, item, body, self.clock()),
            )
            if cursor.rowcount != 1:
                return False
        try:
            self.app.configure_task(TASK, lock=item, queue=QUEUE).defer(delivery=delivery)
        except Exception:
            with self.pool.connection() as db:  # not queued: forget it, so GitHub's redelivery stores it again
                db.execute("DELETE FROM parkbot_deliveries WHERE delivery = %s", (delivery,))
            raise
        return True

    def claim(self, worker: str) -> Job | None:  # procrastinate's workers take jobs themselves
        return None

    def done(self, job: Job, worker: str) -> bool:
        return True

    def retry(self, job: Job, worker: str, error: str, *, delay: float, count: bool = True) -> State:
        return "queued"

    def seen(self, delivery: str) -> bool:
        with self.pool.connection() as db:
            return (
                db.execute("SELECT 1 FROM parkbot_deliveries WHERE delivery = %s", (delivery,)).fetchone() is not None
            )

    def job(self, delivery: str) -> Job | None:
        with self.pool.connection() as db:
            row = db.execute(
                "SELECT event, item, body, attempts, received_at FROM parkbot_deliveries WHERE delivery = %s",
                (delivery,),
            ).fetchone()
        if row is None:
            return None
        event, item, body, attempts, received = row
        return Job(delivery, event, item, bytes(body), int(attempts), float(received))

    def mark(self, delivery: str, state: str, error: str | None = None) -> None:
        """Record a delivery's state; a handled one drops its body (as on SQLite), a finished one its time."""
        finished = self.clock() if state in ("done", "failed") else None
        with self.pool.connection() as db:
            db.execute(
                "UPDATE parkbot_deliveries SET state = %s, last_error = coalesce(%s, last_error), finished_at = %s, "
                "body = CASE WHEN %s = 'done' THEN ''::bytea ELSE body END WHERE delivery = %s",
                (state, error, finished, state, delivery),
            )

    def purge(self) -> int | None:
        """Delete handled deliveries and parkbot's succeeded jobs finished more than ``retention`` ago; how many
        deliveries, or None when another instance is purging right now (it does the same work)."""
        cutoff = self.clock() - self.retention
        with self.pool.connection() as db, db.transaction():
            locked = db.execute("SELECT pg_try_advisory_xact_lock(%s)", (PURGE_LOCK,)).fetchone()
            if not locked or not locked[0]:
                return None
            # A row handled before finished_at was recorded counts from when it was received.
            deleted = db.execute(
                "DELETE FROM parkbot_deliveries WHERE state = 'done' AND coalesce(finished_at, received_at) < %s",
                (cutoff,),
            ).rowcount
            asyncio.run(self._delete_old_jobs())
        log.info("parkbot serve: purged %d handled deliveries past the retention", deleted)
        return deleted

    async def _delete_old_jobs(self) -> None:
        """procrastinate's own clean-up, on parkbot's queue; it counts whole hours, so round the retention up."""
        app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=self.url))
        async with app.open_async():
            await app.job_manager.delete_old_jobs(nb_hours=math.ceil(self.retention / 3600), queue=QUEUE)

    def status(self) -> QueueStatus:
        with self.pool.connection() as db:
            counts = dict.fromkeys(("queued", "running", "done", "failed"), 0)
            for status, count in db.execute(
                "SELECT status::text, count(*) FROM procrastinate_jobs WHERE task_name = %s GROUP BY status", (TASK,)
            ).fetchall():
                if status in STATES:
                    counts[STATES[status]] += int(count)
            oldest = db.execute(
                "SELECT min(received_at) FROM parkbot_deliveries WHERE state IN ('queued', 'running')"
            ).fetchone()
            retried = db.execute(
                "SELECT coalesce(sum(attempts - 1), 0) FROM procrastinate_jobs WHERE task_name = %s AND attempts > 1",
                (TASK,),
            ).fetchone()
            failed = db.execute(
                "SELECT delivery, event, attempts, coalesce(last_error, '') FROM parkbot_deliveries "
                "WHERE state = 'failed' ORDER BY received_at DESC LIMIT 50"
            ).fetchall()
        age = max(0.0, self.clock() - oldest[0]) if oldest and oldest[0] is not None else 0.0
        return QueueStatus(counts, age, int(retried[0] if retried else 0), [tuple(f) for f in failed])

    def ping(self) -> None:
        with self.pool.connection() as db:
            db.execute("SELECT 1").fetchone()

    def close(self) -> None:
        self.stop_workers()
        self.app.close()
        self.pool.close()

    # -- workers ---------------------------------------------------------------------------------

    def start_workers(self, handler: Callable[[Job], None], metrics: Metrics, *, n: int, backoff: float) -> None:
        """procrastinate's worker, in a thread with its own event loop; a killed instance's jobs are retried."""
        worker_app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=self.url))
        strategy = _Retry(self.max_attempts, backoff)

        @worker_app.task(name=TASK, queue=QUEUE, retry=strategy)
        def run(delivery: str) -> None:
            job = self.job(delivery)
            if job is None:
                return
            with self.pool.connection() as db:
                db.execute(
                    "UPDATE parkbot_deliveries SET attempts = attempts + 1, state = 'running' WHERE delivery = %s",
                    (delivery,),
                )
            started = time.monotonic()
            try:
                handler(job)
            except Exception as exc:
                reason = exc.reason if isinstance(exc, RetryLater) else f"{type(exc).__name__}: {exc}"
                last = job.attempts + 1 >= self.max_attempts and not (isinstance(exc, RetryLater) and not exc.count)
                self.mark(delivery, "failed" if last else "queued", reason)
                (metrics.failed if last else metrics.retried).labels(job.event if last else "error").inc()
                raise
            finally:
                metrics.handling.observe(time.monotonic() - started)
            self.mark(delivery, "done")
            metrics.handled.labels(job.event).inc()

        @worker_app.periodic(cron=self.purge_cron)
        @worker_app.task(name=PURGE_TASK, queue=QUEUE)
        def purge(timestamp: int) -> None:
            try:
                self.purge()
            except Exception:  # logged, and the next tick tries again; a failed job here would never be purged
                log.exception("parkbot serve: handled deliveries past the retention not purged this time")

        async def recover_stalled() -> None:
            while not self._stop.is_set():
                try:
                    for stalled in await worker_app.job_manager.get_stalled_jobs(
                        task_name=TASK, seconds_since_heartbeat=self.lease
                    ):
                        log.warning("parkbot serve: job %s of a stopped worker is retried", stalled.id)
                        await worker_app.job_manager.retry_job(stalled)
                except Exception:
                    log.exception("parkbot serve: could not look for stalled jobs")
                await asyncio.sleep(max(1.0, self.lease / 2))

        async def main() -> None:
            async with worker_app.open_async():
                recovery = asyncio.create_task(recover_stalled())
                try:
                    await worker_app.run_worker_async(
                        concurrency=n,
                        install_signal_handlers=False,
                        update_heartbeat_interval=max(0.5, self.lease / 4),
                        stalled_worker_timeout=self.lease,
                        fetch_job_polling_interval=1.0,
                        delete_jobs="never",
                    )
                finally:
                    recovery.cancel()

        def thread() -> None:
            self._loop = asyncio.new_event_loop()
            try:
                self._loop.run_until_complete(main())
            except asyncio.CancelledError:
                pass
            finally:
                self._loop.close()

        self._thread = threading.Thread(target=thread, daemon=True)
        self._thread.start()

    def stop_workers(self, timeout: float = 30.0) -> None:
        self._stop.set()
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            for task in asyncio.all_tasks(loop):
                loop.call_soon_threadsafe(task.cancel)
            thread.join(timeout)


def _shown(url: str) -> str:
    """The URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{scheme}://{creds.split(':', 1)[0]}@{host}"
    return url
