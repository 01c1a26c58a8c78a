"""Handled deliveries are deleted from the SQLite queue after their retention (a fake clock moves time),
so the database does not grow forever; what is still waiting, failed, or handled recently stays."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from parkbot.core.errors import InvalidInput
from parkbot.serve.queue import PURGE_EVERY, SqliteQueue
from tests.support.serve import Clock

DAY = 86400.0


def rows(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT delivery, state FROM deliveries").fetchall())


def handle(queue: SqliteQueue, delivery: str) -> None:
    assert queue.put(delivery, "issue_comment", f"o/r#{delivery}", b"{}")
    job = queue.claim("w")
    assert job is not None
    assert job.delivery == delivery
    assert queue.done(job, "w")


def test_done_rows_are_purged_after_the_retention_and_nothing_else_is(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "queue.db"
    queue = SqliteQueue(path, clock=clock, retention=7 * DAY, max_attempts=1)
    handle(queue, "old")
    assert queue.put("failed", "issue_comment", "o/r#f", b"{}")
    job = queue.claim("w")
    assert job is not None
    assert queue.retry(job, "w", "boom", delay=0) == "failed"

    clock.now += 6 * DAY
    handle(queue, "recent")
    assert queue.put("waiting", "issue_comment", "o/r#w", b"{}")
    clock.now += 1 * DAY + 60  # "old" is now past a week; "recent" is a day old
    assert queue.claim("w") is not None  # a claim purges (at most once an hour)
    assert rows(path) == {"failed": "failed", "recent": "done", "waiting": "running"}
    assert queue.status().counts["done"] == 1

    handle_later = SqliteQueue(path, clock=clock, retention=7 * DAY)
    clock.now += 7 * DAY
    assert handle_later.purge() == 1  # "recent", now past its week
    assert set(rows(path)) == {"failed", "waiting"}


def test_purging_runs_at_most_once_an_hour(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "queue.db"
    queue = SqliteQueue(path, clock=clock, retention=3 * DAY)
    handle(queue, "a")  # the first claim purged (nothing to delete) and set the hour
    clock.now += 3 * DAY - PURGE_EVERY / 2
    handle(queue, "b")  # purged here: "a" not old enough yet
    clock.now += PURGE_EVERY / 2 + 1  # "a" is past its retention, but the last purge was less than an hour ago
    assert queue.claim("w") is None
    assert set(rows(path)) == {"a", "b"}
    clock.now += PURGE_EVERY
    assert queue.claim("w") is None
    assert set(rows(path)) == {"b"}


def test_a_retention_shorter_than_githubs_three_days_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="--retention must be at least 3d"):
        SqliteQueue(tmp_path / "q.db", retention=2 * DAY)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "parkbot",
            "serve",
            "--status",
            "--retention",
            "1d",
            "--queue",
            f"sqlite:///{tmp_path}/q.db",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "--retention must be at least 3d" in done.stderr
    assert "Traceback" not in done.stderr
