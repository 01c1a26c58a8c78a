"""What the tests of ``parkbot serve`` share: the fake GitHub over real loopback HTTP, a real server process,
and the test acting as GitHub's webhook sender (signed deliveries from ``tests/webhooks/``).

The fake GitHub is the same stateful fake the other tests use (:mod:`tests.fakegithub`), served by a
``ThreadingHTTPServer`` on 127.0.0.1 whose handler dispatches each request into it under one lock, so a
``parkbot serve`` subprocess reaches it through ``GITHUB_API_URL`` like GitHub itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import requests

from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import TOKEN

ROOT = Path(__file__).resolve().parents[2]
SECRET = "it's a secret to everybody"


class FakeGitHubServer:
    """A FakeGitHub reachable over HTTP at ``base_url`` (``http://127.0.0.1:PORT``)."""

    def __init__(self, *, slug: str = "parkbot", app_id: int = 424242, key: tuple[str, Any] | None = None) -> None:
        self.lock = threading.Lock()
        #: Seconds every request waits before it is served (a slow GitHub, to catch a worker mid-job).
        self.delay = 0.0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                if outer.delay:
                    time.sleep(outer.delay)
                prepared = requests.Request(
                    self.command, outer.base_url + self.path, headers=dict(self.headers.items()), data=body
                ).prepare()
                with outer.lock:
                    result = outer.fake._callback(prepared)
                if isinstance(result, Exception):
                    self.close_connection = True
                    return
                status, headers, text = result
                data = text.encode()
                self.send_response(status)
                for name, value in headers.items():
                    if name.lower() not in ("content-length", "transfer-encoding"):
                        self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.fake = FakeGitHub(owner="acme", repo="widgets", base_url=self.base_url, token=TOKEN)
        self.private_key = self.fake.install_app(slug=slug, app_id=app_id, key=key)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeGitHubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @contextlib.contextmanager
    def locked(self) -> Iterator[FakeGitHub]:
        """The fake, with no request being served meanwhile (to seed or inspect it)."""
        with self.lock:
            yield self.fake


class Clock:
    """A queue's clock the test moves by hand (``clock.now += DAY``)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def sign(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class ServeProcess:
    """``python -m parkbot serve`` as users run it, on a free loopback port, against ``github``."""

    def __init__(self, github: FakeGitHubServer, queue: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.github = github
        self.queue = queue
        self.args = args
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PARKBOT_"))},
            "PARKBOT_APP_ID": str(github.fake.app.app_id if github.fake.app else 0),
            "PARKBOT_PRIVATE_KEY": github.private_key,
            "PARKBOT_WEBHOOK_SECRET": SECRET,
            "GITHUB_API_URL": github.base_url,
            "PYTHONPATH": str(ROOT / "bot"),
            **(env or {}),
        }
        self.process: subprocess.Popen[str] | None = None
        self.log = ""

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "parkbot",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--queue",
            self.queue,
            # Missed deliveries are recovered at start only (a test asks for the schedule when it wants it).
            "--recover-every",
            "0",
            *self.args,
        ]

    def start(self, timeout: float = 30.0) -> ServeProcess:
        self.process = subprocess.Popen(
            self.command(), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"parkbot serve exited {self.process.returncode}:\n{self.read_log()}")
            with contextlib.suppress(requests.RequestException):
                if requests.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"parkbot serve did not start:\n{self.read_log()}")

    def read_log(self) -> str:
        if self.process is not None and self.process.stdout is not None and self.process.poll() is not None:
            self.log += self.process.stdout.read()
        return self.log

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(30)
        self.read_log()

    def stop(self) -> None:
        self.kill(signal.SIGTERM)

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def deliver(
        self,
        event: str,
        payload: dict[str, Any] | bytes,
        *,
        delivery: str | None = None,
        signature: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> requests.Response:
        """POST one delivery as GitHub does (signed with the secret unless ``signature`` is given)."""
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        sent = {
            "content-type": "application/json",
            "x-github-event": event,
            "x-github-delivery": delivery or str(uuid.uuid4()),
            "x-hub-signature-256": sign(body) if signature is None else signature,
            "user-agent": "GitHub-Hookshot/test",
            **(headers or {}),
        }
        return requests.post(self.url + "/api/github/webhooks", data=body, headers=sent, timeout=30)

    def status(self) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "parkbot", "serve", "--status", "--json", "--queue", self.queue],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        data: dict[str, Any] = json.loads(done.stdout)
        return data


def wait_for(condition: Callable[[], bool], timeout: float = 30.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


CONFIG_TEXT = "owners: {default: alice}\nhierarchy: {alice: carol}\nprecedents: 'off'\n"


def park(github: FakeGitHubServer) -> int:
    """A decision filed as an earlier run would have (over HTTP, as parkbot's own login)."""
    from parkbot.core import lifecycle
    from parkbot.core.config import parse_config
    from tests.support.github_helpers import make_tracker, needs_input

    outcome = lifecycle.park(make_tracker(github.fake), needs_input(), parse_config(CONFIG_TEXT))
    assert outcome.location.number is not None
    return outcome.location.number


def installation(github: FakeGitHubServer, payload: dict[str, object]) -> dict[str, object]:
    assert github.fake.app is not None
    payload["installation"] = {"id": github.fake.app.installation_id, "node_id": "MDIz"}
    return payload


def answer_records(fake: FakeGitHub, number: int) -> list[str]:
    """The answer records parkbot's App wrote on decision ``number``."""
    return [
        c.body
        for c in fake.comments.values()
        if c.issue_number == number and c.user == fake.login and "<!-- parkbot:answer " in c.body
    ]
