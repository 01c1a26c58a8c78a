"""One delivery, handled: the same event router the action runs, against the API, as the App.

Each delivery names its repository and installation; the backend is opened (only if a handler needs it)
with that installation's cached token and parkbot's identity ``<app-slug>[bot]``, and the repository's
configuration is read from its default branch through the API. There is no checkout: a pushed commit's
result files and inventory are read at that commit through the API too. An outcome that failed on GitHub's side
(exit 4) is retried; a refusal or bad input (exit 2 or 3) is a result, recorded and done.
"""

from __future__ import annotations

import json
import logging
import tempfile
from typing import Any

from parkbot.backends import Backend, github_backend
from parkbot.core.errors import BackendFailure, InvalidInput, ParkbotError
from parkbot.core.filing import FiledFiles
from parkbot.events import handle_event
from parkbot.serve.metrics import Metrics
from parkbot.serve.queue import Job
from parkbot.serve.worker import RetryLater
from parkbot.trackers.github import ApiCommitReader, GitHubApp, install_pacing

log = logging.getLogger("parkbot.serve")
#: Events about the App itself: nothing for the router to do.
APP_EVENTS = frozenset({"ping", "installation", "installation_repositories", "github_app_authorization"})
#: Seconds before a rate-limited delivery is tried again when GitHub named no time.
RATE_LIMIT_DELAY = 60.0


class DeliveryHandler:
    """Runs a stored delivery through :func:`parkbot.events.handle_event` with the App's installation token."""

    def __init__(self, app: GitHubApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics
        self._empty = tempfile.mkdtemp(prefix="parkbot-serve-")  # no checkout: the router reads nothing local

    def __call__(self, job: Job) -> None:
        if job.event in APP_EVENTS:
            return
        payload: dict[str, Any] = json.loads(job.body)
        repository = (payload.get("repository") or {}).get("full_name")
        installation = (payload.get("installation") or {}).get("id")
        if not isinstance(repository, str):
            log.info("parkbot serve: %s %s names no repository: nothing to do", job.event, job.delivery)
            return
        opened: list[ApiCommitReader] = []

        def connect() -> ApiCommitReader:
            """One client per delivery, shared by the backend and the commit reader (counted once)."""
            if opened:
                return opened[0]
            mints = self.app.mints.get(installation, 0) if isinstance(installation, int) else 0
            client = self.app.client(repository, installation if isinstance(installation, int) else None)
            key = str(installation)

            def count(verb: str, url: str) -> None:
                self.metrics.requests.labels(key).inc()
                remaining = client.github.requester.rate_limiting[0]
                if remaining >= 0:
                    self.metrics.rate_remaining.labels(key).set(remaining)

            install_pacing(client.github.requester, count)
            if isinstance(installation, int) and self.app.mints.get(installation, 0) > mints:
                self.metrics.token_mints.labels(key).inc()
            # A rate limit is never slept on in a worker: no wait is allowed, and the delivery is
            # rescheduled instead (RetryLater below).
            client.transport.bound_waits(0.0, "parkbot serve (a rate-limited delivery is rescheduled)")
            opened.append(ApiCommitReader(client))
            return opened[0]

        def factory() -> Backend:
            return github_backend(connect().client, bot_login=self.app.identity().login, wait=False)

        def read_commit(sha: str, *, results_folder: str, inventory_path: str) -> FiledFiles:
            """There is no checkout: a pushed commit is read through the API."""
            return connect()(sha, results_folder=results_folder, inventory_path=inventory_path)

        try:
            outcome = handle_event(
                job.event, payload, tracker_factory=factory, repo_path=self._empty, commit_reader=read_commit
            )
        except BackendFailure as exc:
            raise _retry(exc.message) from None
        except (InvalidInput, ParkbotError) as exc:
            log.warning("parkbot serve: %s %s: %s", job.event, job.delivery, exc.message)
            return
        failures = [item.message for item in outcome.items if item.exit_code == 4]
        if failures:
            raise _retry("; ".join(failures))
        log.info("parkbot serve: %s %s on %s: %s", job.event, job.delivery, repository, outcome.notice)


def _retry(message: str) -> RetryLater:
    if "rate limit" in message.lower() or "bound on waiting" in message:
        return RetryLater(message, delay=RATE_LIMIT_DELAY, count=False)
    return RetryLater(message)
