"""Handled deliveries (and procrastinate's succeeded jobs of parkbot) are deleted from the PostgreSQL queue after
``--retention``, as on SQLite; queued, running, failed and recently handled ones stay, and a delivery GitHub
sends again within the retention is still handled once.

Time is moved by a fake clock (``parkbot_deliveries``) and by ageing procrastinate's job events in the table
(procrastinate counts a job's age with PostgreSQL's own clock). Each test gets a database of its own on one
real PostgreSQL (``tests/support/postgres.py``); without its binaries the tests are skipped saying why.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator

import pytest

from parkbot.core.errors import InvalidInput
from tests.support.postgres import Postgres, why_not
from tests.support.serve import Clock, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.skipif(why_not() is not None, reason=why_not() or "")]

DAY = 86400.0


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    # Not under pytest's temporary folder: only its owner may enter that, and PostgreSQL runs as postgres.
    postgres = Postgres().start()
    try:
        yield postgres.url
    finally:
        postgres.stop()


@pytest.fixture
def url(server: str) -> str:
    """A new, empty database on the module's server."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def deliveries(url: str) -> dict[str, tuple[str, bytes]]:
    import psycopg

    with psycopg.connect(url) as db:
        rows = db.execute("SELECT delivery, state, body FROM parkbot_deliveries").fetchall()
    return {d: (s, bytes(b)) for d, s, b in rows}


def jobs(url: str) -> dict[str, str]:
    import psycopg

    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT args->>'delivery', status::text FROM procrastinate_jobs WHERE task_name = 'parkbot.delivery'"
        ).fetchall()
    return {str(d): str(s) for d, s in rows}


def age_jobs(url: str, *names: str, days: float) -> None:
    """Move procrastinate's record of these deliveries' jobs ``days`` into the past."""
    import psycopg

    with psycopg.connect(url) as db:
        db.execute(
            "UPDATE procrastinate_events SET at = at - make_interval(secs => %s) WHERE job_id IN "
            "(SELECT id FROM procrastinate_jobs WHERE args->>'delivery' = ANY(%s))",
            (days * DAY, list(names)),
        )


def test_old_handled_deliveries_and_their_jobs_are_purged_and_nothing_else(url: str) -> None:
    from parkbot.serve.metrics import Metrics
    from parkbot.serve.pgqueue import PostgresQueue
    from parkbot.serve.queue import Job

    clock = Clock()
    queue = PostgresQueue(url, retention=7 * DAY, clock=clock, max_attempts=1)
    queue.purge_cron = "0 0 1 1 *"  # the test purges by itself
    release = threading.Event()
    started = threading.Event()

    def handler(job: Job) -> None:
        if job.delivery == "failed":
            raise RuntimeError("GitHub said no")
        if job.delivery == "running":
            started.set()
            release.wait(30)

    queue.start_workers(handler, Metrics(), n=2, backoff=1.0)
    try:
        assert queue.put("old", "issue_comment", "o/r#1", b'{"old": 1}')
        assert queue.put("failed", "issue_comment", "o/r#2", b'{"failed": 1}')
        wait_for(lambda: jobs(url) == {"old": "succeeded", "failed": "failed"}, what="old and failed finished")
        clock.now += 6 * DAY
        assert queue.put("recent", "issue_comment", "o/r#3", b'{"recent": 1}')
        wait_for(lambda: jobs(url).get("recent") == "succeeded", what="recent handled")
        assert queue.put("running", "issue_comment", "o/r#4", b'{"running": 1}')
        assert started.wait(30)
        clock.now += 1 * DAY + 60  # "old" and "failed" are past a week; "recent" is a day old
        age_jobs(url, "old", "failed", days=7 * 1 + 1 / 24)
        age_jobs(url, "recent", days=1)

        assert queue.purge() == 1
        assert deliveries(url) == {
            "failed": ("failed", b'{"failed": 1}'),  # kept for `parkbot serve --status`, with its body
            "recent": ("done", b""),  # handled: its body is already dropped
            "running": ("running", b'{"running": 1}'),
        }
        assert jobs(url) == {"failed": "failed", "recent": "succeeded", "running": "doing"}
        assert not queue.put("recent", "issue_comment", "o/r#3", b'{"recent": 1}')  # GitHub sends it again
        status = queue.status()
        assert status.counts == {"queued": 0, "running": 1, "done": 1, "failed": 1}
        assert [f[0] for f in status.failed] == ["failed"]
        release.set()
        wait_for(lambda: jobs(url).get("running") == "succeeded", what="running handled")
    finally:
        release.set()
        queue.close()
    assert jobs(url) == {"failed": "failed", "recent": "succeeded", "running": "succeeded"}


def test_a_queued_delivery_is_never_purged_however_old(url: str) -> None:
    from parkbot.serve.pgqueue import PostgresQueue

    clock = Clock()
    queue = PostgresQueue(url, retention=3 * DAY, clock=clock)
    try:
        assert queue.put("waiting", "issue_comment", "o/r#1", b"{}")  # no worker: it waits
        clock.now += 30 * DAY
        age_jobs(url, "waiting", days=30)
        assert queue.purge() == 0
        assert deliveries(url) == {"waiting": ("queued", b"{}")}
        assert jobs(url) == {"waiting": "todo"}
    finally:
        queue.close()


def test_a_redelivery_within_the_retention_is_still_refused_as_a_duplicate(url: str) -> None:
    from parkbot.serve.pgqueue import PostgresQueue

    clock = Clock()
    queue = PostgresQueue(url, retention=3 * DAY, clock=clock)
    try:
        assert queue.put("a", "issue_comment", "o/r#1", b"{}")
        queue.mark("a", "done")
        clock.now += 3 * DAY - 60  # GitHub may still redeliver it
        assert queue.purge() == 0
        assert queue.seen("a")
        assert not queue.put("a", "issue_comment", "o/r#1", b"{}")
        assert len(jobs(url)) == 1
        clock.now += 120  # past the retention (and GitHub's three days)
        assert queue.purge() == 1
        assert not queue.seen("a")
    finally:
        queue.close()


def test_a_purge_skips_while_another_instance_purges_and_concurrent_purges_are_fine(url: str) -> None:
    import psycopg

    from parkbot.serve.pgqueue import PURGE_LOCK, PostgresQueue

    clock = Clock()
    one = PostgresQueue(url, retention=3 * DAY, clock=clock)
    two = PostgresQueue(url, retention=3 * DAY, clock=clock)
    try:
        for n in range(40):
            assert one.put(f"d{n}", "issue_comment", f"o/r#{n}", b"{}")
            one.mark(f"d{n}", "done")
        clock.now += 4 * DAY

        with psycopg.connect(url) as db, db.transaction():  # another instance is purging
            db.execute("SELECT pg_advisory_xact_lock(%s)", (PURGE_LOCK,))
            assert one.purge() is None
            assert len(deliveries(url)) == 40

        results: list[int | None] = []
        errors: list[BaseException] = []
        barrier = threading.Barrier(4)

        def purge(queue: PostgresQueue) -> None:
            try:
                barrier.wait()
                results.append(queue.purge())
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=purge, args=(q,)) for q in (one, two, one, two)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert sum(r or 0 for r in results) == 40  # each row deleted once, whoever ran
        assert deliveries(url) == {}
    finally:
        one.close()
        two.close()


def test_two_instances_purge_on_procrastinates_schedule(url: str) -> None:
    import psycopg

    from parkbot.serve.metrics import Metrics
    from parkbot.serve.pgqueue import PURGE_TASK, PostgresQueue

    clock = Clock()
    instances = [PostgresQueue(url, retention=3 * DAY, clock=clock) for _ in range(2)]
    try:
        for n in range(5):
            assert instances[0].put(f"d{n}", "issue_comment", f"o/r#{n}", b"{}")
        for queue in instances:
            queue.purge_cron = "* * * * * */1"  # every second, instead of every hour
            queue.start_workers(lambda job: None, Metrics(), n=1, backoff=1.0)
        wait_for(lambda: set(jobs(url).values()) == {"succeeded"} and len(jobs(url)) == 5, what="all handled")
        assert all(state == "done" for state, _ in deliveries(url).values())
        clock.now += 4 * DAY
        age_jobs(url, *[f"d{n}" for n in range(5)], days=4)
        wait_for(lambda: deliveries(url) == {} and jobs(url) == {}, what="the scheduled purge")
        with psycopg.connect(url) as db:
            purges = db.execute(
                "SELECT status::text, count(*) FROM procrastinate_jobs WHERE task_name = %s GROUP BY status",
                (PURGE_TASK,),
            ).fetchall()
            ticks = db.execute(
                "SELECT defer_timestamp, count(*) FROM procrastinate_periodic_defers WHERE task_name = %s "
                "GROUP BY defer_timestamp HAVING count(*) > 1",
                (PURGE_TASK,),
            ).fetchall()
        assert "failed" not in dict(purges)
        assert ticks == []  # each tick deferred once, whichever instance got there first
    finally:
        for queue in instances:
            queue.close()


def test_deliveries_stored_before_retention_existed_are_purged_too(url: str) -> None:
    import procrastinate
    import psycopg

    from parkbot.serve.pgqueue import PostgresQueue

    clock = Clock()
    with psycopg.connect(url) as db:  # the table as earlier versions created it, with a handled row
        db.execute(
            "CREATE TABLE parkbot_deliveries (delivery TEXT PRIMARY KEY, event TEXT NOT NULL, item TEXT NOT NULL, "
            "body BYTEA NOT NULL, received_at DOUBLE PRECISION NOT NULL, state TEXT NOT NULL DEFAULT 'queued', "
            "attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT)"
        )
        db.execute(
            "INSERT INTO parkbot_deliveries (delivery, event, item, body, received_at, state) VALUES "
            "('legacy', 'ping', 'o/r', '\\x7b7d', %s, 'done'), ('legacy-failed', 'ping', 'o/r', '', %s, 'failed')",
            (clock.now - 8 * DAY, clock.now - 8 * DAY),
        )
    legacy = procrastinate.App(connector=procrastinate.SyncPsycopgConnector(conninfo=url))
    with legacy.open():  # and its job, handled, in procrastinate's default queue
        legacy.schema_manager.apply_schema()
        legacy.configure_task("parkbot.delivery", lock="o/r").defer(delivery="legacy")
    with psycopg.connect(url) as db:
        db.execute("UPDATE procrastinate_jobs SET status = 'doing'")
        db.execute("UPDATE procrastinate_jobs SET status = 'succeeded'")
        assert db.execute("SELECT queue_name FROM procrastinate_jobs").fetchall() == [("default",)]
    age_jobs(url, "legacy", days=8)

    queue = PostgresQueue(url, retention=7 * DAY, clock=clock)
    try:
        assert queue.purge() == 1
        assert set(deliveries(url)) == {"legacy-failed"}
        assert jobs(url) == {}
    finally:
        queue.close()


def test_a_retention_shorter_than_githubs_three_days_is_refused(server: str) -> None:
    from parkbot.serve.pgqueue import PostgresQueue

    with pytest.raises(InvalidInput, match="--retention must be at least 3d"):
        PostgresQueue(server, retention=2 * DAY)
    done = subprocess.run(
        [sys.executable, "-m", "parkbot", "serve", "--status", "--retention", "2d", "--queue", server],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "--retention must be at least 3d" in done.stderr
    assert "got 2d" in done.stderr
    assert "Traceback" not in done.stderr
