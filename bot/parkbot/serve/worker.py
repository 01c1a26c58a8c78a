"""The workers of ``parkbot serve``: take a job from the queue, handle it, mark it done or schedule it again.

A failed job is retried with exponential backoff (``backoff`` times 2^(attempt-1), at most ten minutes) and, after
the queue's last attempt, parked as failed (``/metrics``, ``parkbot serve --status``). A rate-limited job is
rescheduled for when GitHub allows it again without counting an attempt, never slept on in a worker.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from parkbot.serve.metrics import Metrics
from parkbot.serve.queue import Job, Queue

log = logging.getLogger("parkbot.serve")
MAX_BACKOFF = 600.0


@dataclass
class RetryLater(Exception):
    """Handle this job again after ``delay`` seconds; ``count``: whether it uses up an attempt."""

    reason: str
    delay: float | None = None
    count: bool = True


Handler = Callable[[Job], None]


class Workers:
    """``n`` threads sharing one queue and one handler; ``wake()`` cuts the wait after a new delivery."""

    def __init__(
        self,
        queue: Queue,
        handler: Handler,
        metrics: Metrics,
        *,
        n: int = 4,
        backoff: float = 2.0,
        poll: float = 0.5,
    ) -> None:
        self.queue = queue
        self.handler = handler
        self.metrics = metrics
        self.n = n
        self.backoff = backoff
        self.poll = poll
        self.name = f"{uuid.uuid4().hex[:8]}"
        self._stop = threading.Event()
        self._wake = threading.Condition()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for index in range(self.n):
            thread = threading.Thread(target=self._run, args=(f"{self.name}-{index}",), daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        with self._wake:
            self._wake.notify_all()

    def stop(self, timeout: float = 30.0) -> None:
        """Let running jobs finish (up to ``timeout``), then return; unfinished ones are retried after their lease."""
        self._stop.set()
        self.wake()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _run(self, worker: str) -> None:
        while not self._stop.is_set():
            try:
                job = self.queue.claim(worker)
            except Exception:
                log.exception("parkbot serve: the queue could not be read; trying again")
                job = None
            if job is None:
                with self._wake:
                    self._wake.wait(self.poll)
                continue
            self.run_one(job, worker)

    def run_one(self, job: Job, worker: str) -> None:
        """Handle one claimed job and record its outcome in the queue."""
        started = time.monotonic()
        try:
            self.handler(job)
        except RetryLater as later:
            delay = later.delay if later.delay is not None else self._backoff(job.attempts)
            state = self.queue.retry(job, worker, later.reason, delay=delay, count=later.count)
            self._after_failure(job, state, later.reason, "rate_limit" if not later.count else "error")
            return
        except Exception as exc:
            log.exception("parkbot serve: delivery %s (%s) failed", job.delivery, job.event)
            reason = f"{type(exc).__name__}: {exc}"
            state = self.queue.retry(job, worker, reason, delay=self._backoff(job.attempts))
            self._after_failure(job, state, reason, "error")
            return
        finally:
            self.metrics.handling.observe(time.monotonic() - started)
        if self.queue.done(job, worker):
            self.metrics.handled.labels(job.event).inc()
        else:
            log.warning("parkbot serve: delivery %s was taken over by another worker (lease expired)", job.delivery)

    def _after_failure(self, job: Job, state: str, reason: str, kind: str) -> None:
        if state == "failed":
            self.metrics.failed.labels(job.event).inc()
            log.error("parkbot serve: delivery %s (%s) parked as failed: %s", job.delivery, job.event, reason)
        else:
            self.metrics.retried.labels(kind).inc()
            log.warning("parkbot serve: delivery %s (%s) will be retried: %s", job.delivery, job.event, reason)

    def _backoff(self, attempts: int) -> float:
        return float(min(MAX_BACKOFF, self.backoff * 2 ** max(0, attempts - 1)))
