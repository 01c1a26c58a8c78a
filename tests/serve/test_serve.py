"""``parkbot serve`` as users run it: a real process on loopback, GitHub faked over real HTTP, the test as sender.

Each test is the attack or the user's action: forged and SHA-1-only signatures refused with nothing stored,
a duplicate delivery handled once, an owner's ``/decide`` turning a pull request's check green, a worker
killed mid-job whose job is finished once after a restart, deliveries missed while the server was down
recovered through GitHub's deliveries API, and per-item order under a burst.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.support.events import comment_event, pr_event
from tests.support.fakegithub.app import add_delivery
from tests.support.github_helpers import gate_of
from tests.support.serve import (
    CONFIG_TEXT,
    SECRET,
    FakeGitHubServer,
    ServeProcess,
    answer_records,
    installation,
    park,
    sign,
    wait_for,
)


@pytest.fixture(scope="module")
def app_key() -> tuple[str, object]:
    """One RSA key pair for the module's Apps (generating one costs a little)."""
    from tests.support.fakegithub.app import generate_key

    return generate_key()


@pytest.fixture
def github(app_key: tuple[str, object]) -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer(key=app_key) as server:  # type: ignore[arg-type]
        server.fake.put_file(".github/parkbot.yml", CONFIG_TEXT)
        yield server
    server.fake.assert_no_violations()


@pytest.fixture
def queue(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'queue.db'}"


def stored(queue: str) -> list[tuple[str, str, int]]:
    import sqlite3

    path = queue.removeprefix("sqlite:///")
    if not Path(path).exists():
        return []
    with sqlite3.connect(path) as db:
        return db.execute("SELECT delivery, state, attempts FROM deliveries ORDER BY rowid").fetchall()


# --- settings, before listening ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"PARKBOT_APP_ID": ""}, "PARKBOT_APP_ID is not set"),
        ({"PARKBOT_APP_ID": "abc"}, "PARKBOT_APP_ID must be the App's numeric id"),
        ({"PARKBOT_PRIVATE_KEY": ""}, "PARKBOT_PRIVATE_KEY is not set"),
        ({"PARKBOT_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\nnope\n"}, "PARKBOT_PRIVATE_KEY is not a PEM"),
        ({"PARKBOT_PRIVATE_KEY": "", "PARKBOT_PRIVATE_KEY_FILE": "/nonexistent/key.pem"}, "PARKBOT_PRIVATE_KEY_FILE"),
        ({"PARKBOT_WEBHOOK_SECRET": ""}, "PARKBOT_WEBHOOK_SECRET is not set"),
        ({"GITHUB_API_URL": "ftp://example.com"}, "GITHUB_API_URL must be an http(s) URL"),
    ],
)
def test_a_missing_or_malformed_setting_exits_2_naming_it_before_listening(
    github: FakeGitHubServer, queue: str, change: dict[str, str], named: str
) -> None:
    server = ServeProcess(github, queue, env=change)
    done = subprocess.run(server.command(), env=server.env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr
    assert "Traceback" not in done.stderr
    assert "nope" not in done.stderr  # the key is never shown
    with pytest.raises(requests.ConnectionError):
        requests.get(server.url + "/healthz", timeout=1)


def test_a_bad_queue_url_exits_2(github: FakeGitHubServer) -> None:
    server = ServeProcess(github, "redis://localhost/0")
    done = subprocess.run(server.command(), env=server.env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "--queue must be sqlite:///PATH or postgresql://" in done.stderr


# --- the webhook endpoint ----------------------------------------------------------------------------------


def test_forged_and_sha1_only_signatures_are_refused_and_nothing_is_stored(
    github: FakeGitHubServer, queue: str
) -> None:
    payload = installation(github, {"zen": "Keep it logically awesome.", "hook_id": 1})
    body = json.dumps(payload).encode()
    with ServeProcess(github, queue) as server:
        forged = server.deliver("ping", body, signature=sign(body, secret="not the secret"))
        tampered = server.deliver("ping", body + b" ", signature=sign(body))
        missing = server.deliver("ping", body, signature="")
        import hashlib
        import hmac

        sha1 = "sha1=" + hmac.new(SECRET.encode(), body, hashlib.sha1).hexdigest()
        sha1_only = requests.post(
            server.url + "/api/github/webhooks",
            data=body,
            headers={"x-github-event": "ping", "x-github-delivery": "d-sha1", "x-hub-signature": sha1},
            timeout=10,
        )
        assert [r.status_code for r in (forged, tampered, missing, sha1_only)] == [401, 401, 401, 401]
        assert "SHA-1 signatures are refused" in sha1_only.json()["error"]
        assert stored(queue) == []
        good = server.deliver("ping", body, delivery="d-good")
        assert good.status_code == 202
        assert [d for d, _, _ in stored(queue)] == ["d-good"]
        metrics = requests.get(server.url + "/metrics", timeout=10).text
        assert 'parkbot_deliveries_refused_total{reason="signature"} 4.0' in metrics


def test_malformed_and_oversized_deliveries(github: FakeGitHubServer, queue: str) -> None:
    with ServeProcess(github, queue) as server:
        assert server.deliver("ping", b"[1, 2]").status_code == 400
        assert server.deliver("ping", b"{not json").status_code == 400
        assert server.deliver("", b"{}").status_code == 400
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.putrequest("POST", "/api/github/webhooks")
        connection.putheader("content-length", str(26 * 1024 * 1024))  # GitHub never sends more than 25 MB
        connection.putheader("x-hub-signature-256", "sha256=00")
        connection.endheaders()
        connection.send(b"{}")
        big = connection.getresponse()
        connection.close()
        assert big.status == 413
        assert stored(queue) == []
        assert requests.get(server.url + "/healthz", timeout=5).status_code == 200
        assert requests.get(server.url + "/readyz", timeout=10).status_code == 200


def test_readyz_says_when_github_refuses_the_app_key(github: FakeGitHubServer, queue: str) -> None:
    from tests.support.fakegithub.app import generate_key

    other, _ = generate_key()
    with ServeProcess(github, queue, env={"PARKBOT_PRIVATE_KEY": other}) as server:
        ready = requests.get(server.url + "/readyz", timeout=10)
        assert ready.status_code == 503
        assert "does not accept the App's key" in ready.text


# --- handling ------------------------------------------------------------------------------------------------


def test_decide_turns_the_check_green_and_a_duplicate_delivery_is_handled_once(
    github: FakeGitHubServer, queue: str
) -> None:
    number = park(github)
    with github.locked() as fake:
        pull = fake.add_pull(title="Refund flow", body=f"Depends on #{number}", head_ref="refund-flow")
        opened = installation(github, pr_event(fake, pull.number))
    sha = pull.pull.head_sha if pull.pull else ""
    with ServeProcess(github, queue, "--workers", "2") as server:
        assert server.deliver("pull_request", opened).status_code == 202
        wait_for(lambda: _gate(github, sha) == "pending", what="the pending gate")
        with github.locked() as fake:
            decide = installation(github, comment_event(fake, number, "/decide full_original"))
        started = time.monotonic()
        first = server.deliver("issue_comment", decide, delivery="decide-1")
        again = server.deliver("issue_comment", decide, delivery="decide-1")
        assert (first.status_code, again.status_code) == (202, 202)
        assert (first.json()["stored"], again.json()["stored"]) == (True, False)
        wait_for(lambda: _gate(github, sha) == "success", what="the green check")
        elapsed = time.monotonic() - started
        wait_for(lambda: ("decide-1", "done", 1) in stored(queue), what="the delivery done")
        time.sleep(0.5)
        metrics = requests.get(server.url + "/metrics", timeout=10).text
    assert 'parkbot_installation_tokens_minted_total{installation="50000001"} 1.0' in metrics
    assert 'parkbot_github_requests_total{installation="50000001"}' in metrics
    assert 'parkbot_github_rate_limit_remaining{installation="50000001"}' in metrics
    assert "parkbot_deliveries_duplicate_total 1.0" in metrics
    assert elapsed < 10
    with github.locked() as fake:
        assert fake.issues[number].state == "closed"
        assert len(answer_records(fake, number)) == 1
        assert fake.app is not None
        assert len(fake.app.minted) == 1  # one installation token for every delivery of the run
    assert [s for d, s, _ in stored(queue) if d == "decide-1"] == ["done"]


def _gate(github: FakeGitHubServer, sha: str) -> str | None:
    with github.locked() as fake:
        gate = gate_of(fake, sha)
        return gate.state if gate else None


@pytest.mark.slow
def test_a_worker_killed_mid_job_leaves_the_job_to_the_next_one_finished_once(
    github: FakeGitHubServer, queue: str
) -> None:
    number = park(github)
    with github.locked() as fake:
        decide = installation(github, comment_event(fake, number, "/decide full_original"))
    server = ServeProcess(github, queue, "--lease", "2s", "--workers", "1").start()
    try:
        github.delay = 0.3  # GitHub is slow: the job is still running when the server is killed
        with github.locked() as fake:
            seen = len(fake.requests)
        assert server.deliver("issue_comment", decide, delivery="killed-1").status_code == 202
        wait_for(lambda: len(github.fake.requests) > seen + 2, what="the job under way")
        server.kill()  # SIGKILL: no cleanup, the lease is left behind
        assert stored(queue) == [("killed-1", "running", 1)]
    finally:
        server.kill()
    github.delay = 0.0
    with ServeProcess(github, queue, "--lease", "2s", "--workers", "1"):
        wait_for(lambda: stored(queue) == [("killed-1", "done", 2)], what="the job finished after restart")
    with github.locked() as fake:
        assert fake.issues[number].state == "closed"
        assert len(answer_records(fake, number)) == 1


def test_a_failing_job_is_retried_with_backoff_then_parked_as_failed(github: FakeGitHubServer, queue: str) -> None:
    number = park(github)
    with github.locked() as fake:
        decide = installation(github, comment_event(fake, number, "/decide full_original"))
        fake.fail_next("500", count=1000, match=f"/issues/{number}")
    with ServeProcess(github, queue, "--backoff", "1s", "--max-attempts", "2", "--workers", "1") as server:
        server.deliver("issue_comment", decide, delivery="doomed-1")
        wait_for(lambda: stored(queue) == [("doomed-1", "failed", 2)], timeout=120, what="the job parked as failed")
        status = server.status()
        metrics = requests.get(server.url + "/metrics", timeout=10).text
    assert status["counts"]["failed"] == 1
    assert status["failed"][0]["delivery"] == "doomed-1"
    assert 'parkbot_queue_depth{state="failed"} 1.0' in metrics
    assert 'parkbot_deliveries_failed_total{event="issue_comment"} 1.0' in metrics
    with github.locked() as fake:
        fake.clear_faults()


@pytest.mark.slow
def test_deliveries_missed_while_down_are_redelivered_through_the_deliveries_api(
    github: FakeGitHubServer, queue: str
) -> None:
    number = park(github)
    with github.locked() as fake:
        decide = installation(github, comment_event(fake, number, "/decide full_original"))
        missed = add_delivery(fake, "issue_comment", decide, status_code=0)  # GitHub could not connect
        add_delivery(fake, "ping", installation(github, {"zen": "ok"}), status_code=202)  # delivered: left alone
    server = ServeProcess(github, queue)
    assert github.fake.app is not None

    def resend(delivery: object) -> None:  # GitHub, asked to redeliver, sends it again (after answering 202)
        import threading

        def go() -> None:
            time.sleep(0.1)
            server.deliver("issue_comment", decide, delivery=missed.guid)

        threading.Thread(target=go, daemon=True).start()

    github.fake.app.on_redeliver = resend
    with server:
        wait_for(lambda: (missed.guid, "done", 1) in stored(queue), what="the missed delivery handled")
    assert github.fake.app.redelivered == [missed.id]
    with github.locked() as fake:
        assert fake.issues[number].state == "closed"


def test_deliveries_for_one_item_are_handled_in_order_under_a_burst(github: FakeGitHubServer, queue: str) -> None:
    with ServeProcess(github, queue, "--workers", "4") as server:
        for n in range(40):
            payload = installation(github, {"action": "created", "repository": {"full_name": "acme/widgets"}})
            payload["issue"] = {"number": n % 4}
            assert server.deliver("ping", payload, delivery=f"burst-{n:02d}").status_code == 202
        wait_for(lambda: len([s for _, s, _ in stored(queue) if s == "done"]) == 40, what="the burst handled")
    import sqlite3

    with sqlite3.connect(queue.removeprefix("sqlite:///")) as db:
        rows = db.execute("SELECT delivery, item, finished_at FROM deliveries ORDER BY finished_at").fetchall()
    for item in {row[1] for row in rows}:
        order = [d for d, i, _ in rows if i == item]
        assert order == sorted(order), f"{item} handled out of order: {order}"


def test_status_of_an_empty_queue(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "parkbot", "serve", "--status", "--queue", f"sqlite:///{tmp_path / 'q.db'}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "0 queued, 0 running, 0 done, 0 failed" in done.stdout


def test_a_rate_limited_delivery_is_rescheduled_not_slept_on(github: FakeGitHubServer, queue: str) -> None:
    number = park(github)
    with github.locked() as fake:
        decide = installation(github, comment_event(fake, number, "/decide full_original"))
        fake.set_rate_limit(0)  # every request: 403 "API rate limit exceeded", reset an hour away
    with ServeProcess(github, queue, "--workers", "1") as server:
        started = time.monotonic()
        server.deliver("issue_comment", decide, delivery="limited-1")
        wait_for(
            lambda: (
                'parkbot_deliveries_retried_total{reason="rate_limit"} 1.0'
                in requests.get(server.url + "/metrics", timeout=10).text
            ),
            what="the delivery rescheduled",
        )
        assert time.monotonic() - started < 20  # the worker did not wait for the reset
        assert stored(queue) == [("limited-1", "queued", 0)]  # rescheduled without using up an attempt
    with github.locked() as fake:
        fake.set_rate_limit(5000)
        assert fake.issues[number].state == "open"
