"""Nothing is lost while the server is down: GitHub never redelivers by itself, so the server asks.

At start and then every ``every`` seconds it lists the App's deliveries of the last three days
(``GET /app/hook/deliveries``; GitHub keeps them that long) and, for each delivery id (``guid``) that no
attempt delivered and the queue never stored, asks GitHub to send it again
(``POST /app/hook/deliveries/{id}/attempts``). The redelivery arrives as a normal signed delivery with the
same ``X-GitHub-Delivery``, so it is stored and handled once even if two instances both asked.

On the same schedule it queues a reconcile per installed repository (the ``schedule`` event of the
action), which finishes resolutions a failure left half-done and publishes lost gates again.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import UTC, datetime, timedelta

from parkbot.core.errors import ParkbotError
from parkbot.serve.metrics import Metrics
from parkbot.serve.queue import Queue
from parkbot.trackers.github import GitHubApp

log = logging.getLogger("parkbot.serve")
#: How far back GitHub keeps deliveries.
WINDOW = timedelta(days=3)


class Recovery:
    """Redelivery of missed deliveries, and the scheduled reconcile, at start and every ``every`` seconds."""

    def __init__(self, app: GitHubApp, queue: Queue, metrics: Metrics, *, every: float) -> None:
        self.app = app
        self.queue = queue
        self.metrics = metrics
        self.every = every
        self._stop = threading.Event()
        self._asked: set[str] = set()

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        while not self._stop.is_set():
            try:
                asked = self.redeliver_missed()
                if asked:
                    log.info("parkbot serve: asked GitHub to redeliver %d missed deliveries", asked)
                if self.every:
                    self.queue_reconciles()
            except ParkbotError as exc:
                log.warning("parkbot serve: missed deliveries not recovered this time: %s", exc.message)
            except Exception:
                log.exception("parkbot serve: missed deliveries not recovered this time")
            if not self.every or self._stop.wait(self.every):
                return

    def redeliver_missed(self) -> int:
        """Ask GitHub to redeliver each delivery it failed to make and the queue never stored; how many."""
        deliveries = self.app.deliveries(datetime.now(UTC) - WINDOW)
        delivered = {d.guid for d in deliveries if 200 <= d.status_code < 300}
        latest: dict[str, int] = {}
        for d in deliveries:  # newest first: the first attempt seen of a guid is its latest
            latest.setdefault(d.guid, d.id)
        asked = 0
        for guid, delivery_id in latest.items():
            if guid in delivered or guid in self._asked or self.queue.seen(guid):
                continue
            self.app.redeliver(delivery_id)
            self._asked.add(guid)
            self.metrics.redelivered.inc()
            asked += 1
        return asked

    def queue_reconciles(self) -> None:
        """A ``schedule`` delivery per installed repository: the action's scheduled reconcile, from the server."""
        stamp = int(time.time() // max(self.every, 1.0))
        for installation in self.app.installations():
            for repository in self.app.repositories(installation):
                payload = {
                    "schedule": "parkbot serve",
                    "repository": {"full_name": repository},
                    "installation": {"id": installation},
                }
                body = json.dumps(payload).encode()
                if self.queue.put(f"reconcile:{repository}:{stamp}", "schedule", f"{repository}:schedule", body):
                    self.metrics.received.labels("schedule").inc()
