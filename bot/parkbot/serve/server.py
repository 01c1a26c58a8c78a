"""Putting ``parkbot serve`` together: settings checked, workers started, missed deliveries recovered, uvicorn run."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Mapping

import uvicorn

from parkbot.core.errors import ParkbotError
from parkbot.serve.handler import DeliveryHandler
from parkbot.serve.metrics import Metrics
from parkbot.serve.queue import Queue
from parkbot.serve.recover import Recovery
from parkbot.serve.settings import webhook_secret
from parkbot.serve.webhooks import create_app
from parkbot.trackers.github import GitHubApp, app_credentials

log = logging.getLogger("parkbot.serve")


def run(
    env: Mapping[str, str],
    *,
    queue: Queue,
    host: str,
    port: int,
    workers: int,
    backoff: float,
    recover_every: float,
) -> None:
    """Check every setting (InvalidInput, exit 2, before listening), then serve until SIGTERM/SIGINT."""
    secret = webhook_secret(env)
    credentials = app_credentials(env)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    app = GitHubApp(credentials)
    metrics = Metrics()
    handler = DeliveryHandler(app, metrics)

    def ready() -> str | None:
        try:
            queue.ping()
        except Exception as exc:
            return f"the queue cannot be reached: {exc}"
        try:
            app.identity()
        except ParkbotError as exc:
            return f"GitHub does not accept the App's key: {exc.message}"
        return None

    asgi = create_app(queue=queue, secret=secret, metrics=metrics, ready=ready, wake=queue.wake)
    recovery = Recovery(app, queue, metrics, every=recover_every)
    config = uvicorn.Config(asgi, host=host, port=port, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    queue.start_workers(handler, metrics, n=workers, backoff=backoff)
    recoverer = threading.Thread(target=recovery.run, daemon=True)
    recoverer.start()
    log.info("parkbot serve: listening on http://%s:%d with %d workers", host, port, workers)
    try:
        server.run()
    finally:
        recovery.stop()
        queue.stop_workers()
        queue.close()
