"""Two ``parkbot serve`` instances on one real PostgreSQL: a delivery sent to both is handled exactly once.

The PostgreSQL is started for the module (``tests/postgres_support.py``); without its binaries the tests are
skipped saying why (``.ci/run`` installs them, so CI always runs them).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.support.events import comment_event
from tests.support.postgres import Postgres, why_not
from tests.support.serve import (
    CONFIG_TEXT,
    FakeGitHubServer,
    ServeProcess,
    answer_records,
    installation,
    park,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(why_not() is not None, reason=why_not() or "")]


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    # Not under pytest's temporary folder: only its owner may enter that, and PostgreSQL runs as postgres.
    server = Postgres().start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def github() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer() as server:
        server.fake.put_file(".github/parkbot.yml", CONFIG_TEXT)
        yield server
    server.fake.assert_no_violations()


def jobs_of(url: str, delivery: str) -> list[tuple[str, int]]:
    import psycopg

    with psycopg.connect(url) as db:
        rows = db.execute(
            "SELECT status::text, attempts FROM procrastinate_jobs WHERE args->>'delivery' = %s", (delivery,)
        ).fetchall()
    return [(str(s), int(a)) for s, a in rows]


def test_two_instances_handle_a_delivery_sent_to_both_exactly_once(github: FakeGitHubServer, postgres: str) -> None:
    number = park(github)
    with github.locked() as fake:
        decide = installation(github, comment_event(fake, number, "/decide full_original"))
    with (
        ServeProcess(github, postgres, "--workers", "2") as one,
        ServeProcess(github, postgres, "--workers", "2") as two,
    ):
        trials = 20
        for trial in range(trials):
            payload = installation(github, {"zen": f"trial {trial}", "hook_id": trial})
            answers: list[int] = []

            def send(
                server: ServeProcess, body: dict[str, object] = payload, n: int = trial, out: list[int] = answers
            ) -> None:
                out.append(server.deliver("ping", body, delivery=f"both-{n}").status_code)

            threads = [threading.Thread(target=send, args=(s,)) for s in (one, two)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert answers == [202, 202]
        for trial in range(trials):
            wait_for(lambda t=trial: jobs_of(postgres, f"both-{t}") == [("succeeded", 1)], what=f"trial {trial}")
        # and a real command, sent to both: one answer record, the decision closed once
        one.deliver("issue_comment", decide, delivery="decide-both")
        two.deliver("issue_comment", decide, delivery="decide-both")
        wait_for(lambda: jobs_of(postgres, "decide-both") == [("succeeded", 1)], what="the command handled")
        status = one.status()
    assert status["counts"]["failed"] == 0
    with github.locked() as fake:
        assert fake.issues[number].state == "closed"
        assert len(answer_records(fake, number)) == 1


def test_an_instance_killed_mid_job_leaves_it_to_the_other(github: FakeGitHubServer, postgres: str) -> None:
    number = park(github)
    with github.locked() as fake:
        decide = installation(github, comment_event(fake, number, "/decide full_original"))
    survivor = ServeProcess(github, postgres, "--lease", "2s").start()
    try:
        victim = ServeProcess(github, postgres, "--lease", "2s", "--workers", "1")
        survivor.stop()  # only the victim may take the job
        victim.start()
        github.delay = 0.3
        seen = len(github.fake.requests)
        victim.deliver("issue_comment", decide, delivery="killed-pg")
        wait_for(lambda: len(github.fake.requests) > seen + 2, what="the job under way")
        victim.kill()
        github.delay = 0.0
        survivor = ServeProcess(github, postgres, "--lease", "2s").start()
        wait_for(lambda: jobs_of(postgres, "killed-pg")[:1] == [("succeeded", 2)], timeout=60, what="the job retried")
    finally:
        survivor.stop()
    with github.locked() as fake:
        assert len(answer_records(fake, number)) == 1
