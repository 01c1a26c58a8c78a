"""``/metrics``: Prometheus text, through prometheus_client, on a registry of the server's own.

Counters of this process (deliveries received, duplicates, handled, failed, retried, refused), the handling
time, GitHub requests and the rate limit left per installation; and, read from the queue at each scrape
(so every instance shows the shared queue), its depth by state and the age of the oldest waiting delivery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

if TYPE_CHECKING:
    from parkbot.serve.queue import Queue


class Metrics:
    """The server's metrics, on a registry of its own (several servers in one test process never clash)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.received = Counter("parkbot_deliveries_received", "Signed deliveries accepted", ["event"], registry=r)
        self.duplicates = Counter(
            "parkbot_deliveries_duplicate", "Deliveries already stored (handled once)", registry=r
        )
        self.refused = Counter("parkbot_deliveries_refused", "Deliveries refused", ["reason"], registry=r)
        self.handled = Counter("parkbot_deliveries_handled", "Deliveries handled", ["event"], registry=r)
        self.failed = Counter("parkbot_deliveries_failed", "Deliveries parked as failed", ["event"], registry=r)
        self.retried = Counter("parkbot_deliveries_retried", "Deliveries scheduled again", ["reason"], registry=r)
        self.handling = Histogram(
            "parkbot_handling_seconds",
            "Time to handle one delivery",
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
            registry=r,
        )
        self.requests = Counter(
            "parkbot_github_requests", "GitHub requests sent, per installation", ["installation"], registry=r
        )
        self.rate_remaining = Gauge(
            "parkbot_github_rate_limit_remaining", "Rate limit left, per installation", ["installation"], registry=r
        )
        self.token_mints = Counter(
            "parkbot_installation_tokens_minted", "Installation tokens minted", ["installation"], registry=r
        )
        self.redelivered = Counter(
            "parkbot_redeliveries_requested", "Missed deliveries GitHub was asked to send again", registry=r
        )
        self.depth = Gauge("parkbot_queue_depth", "Deliveries in the queue, by state", ["state"], registry=r)
        self.oldest = Gauge("parkbot_queue_oldest_age_seconds", "Age of the oldest waiting delivery", registry=r)

    def render(self, queue: Queue) -> tuple[bytes, str]:
        """The exposition text, with the queue's gauges read now."""
        status = queue.status()
        for state, count in status.counts.items():
            self.depth.labels(state).set(count)
        self.oldest.set(status.oldest_queued_age)
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
