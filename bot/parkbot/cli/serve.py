"""``parkbot serve``: the GitHub App's webhook server (uvicorn running :mod:`parkbot.serve.webhooks`) and its workers.

Every setting is checked before it listens: a missing or malformed one exits 2 naming it.
``parkbot serve --status`` prints the queue (waiting, running, done, failed, and the failed deliveries).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any

import click

from parkbot.cli.params import DurationType
from parkbot.core.durations import Duration
from parkbot.core.errors import InvalidInput, ParkbotError


def _fail(exc: ParkbotError) -> None:
    click.echo(f"parkbot serve: {exc.message}", err=True)
    sys.exit(int(exc.exit_code))


#: What the ``[serve]`` extra brings (psycopg and its pool come with procrastinate).
EXTRA_MODULES = ("starlette", "uvicorn", "prometheus_client", "procrastinate", "psycopg", "psycopg_pool")


def _missing_extra(exc: ImportError) -> None:
    """A plain ``pip install parkbot`` has no web server: say which extra to install (exit 2), never a traceback."""
    if (exc.name or "").split(".")[0] not in EXTRA_MODULES:
        raise exc
    _fail(InvalidInput(f"the App server needs {exc.name}, which is not installed: pip install 'parkbot[serve]'"))


def _status_text(data: dict[str, Any]) -> str:
    counts = data["counts"]
    lines = [
        "parkbot serve: "
        + ", ".join(f"{counts[s]} {s}" for s in ("queued", "running", "done", "failed"))
        + f"; oldest waiting {data['oldest_queued_age']:.0f}s; {data['retried']} retries"
    ]
    if data["failed"]:
        lines.append("failed deliveries (newest first):")
        lines += [f"  {f['delivery']}  {f['event']}  {f['attempts']} attempts  {f['error']}" for f in data["failed"]]
    return "\n".join(lines)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option(
    "--queue",
    "queue_url",
    envvar="PARKBOT_QUEUE",
    default="sqlite:///parkbot-queue.db",
    show_default=True,
    help="sqlite:///PATH (one host) or postgresql://USER@HOST/DB (several instances); env PARKBOT_QUEUE.",
)
@click.option("--workers", default=4, show_default=True, type=click.IntRange(1, 64), help="Deliveries handled at once.")
@click.option(
    "--lease",
    default="60s",
    show_default=True,
    type=DurationType(),
    help="How long a worker holds a job before another may take it over (a killed worker's job is retried then).",
)
@click.option(
    "--max-attempts",
    default=5,
    show_default=True,
    type=click.IntRange(1, 100),
    help="Tries before a delivery is parked as failed.",
)
@click.option(
    "--backoff", default="2s", show_default=True, type=DurationType(), help="First retry delay; doubles each attempt."
)
@click.option(
    "--recover-every",
    default="10m",
    show_default=True,
    type=DurationType(allow_zero=True),
    help="How often to ask GitHub to redeliver deliveries that failed while the server was down (0: only at start).",
)
@click.option(
    "--retention",
    default="7d",
    show_default=True,
    type=DurationType(),
    help="How long a handled delivery stays in the queue (SQLite or PostgreSQL) before it is deleted (at least 3d: "
    "GitHub keeps deliveries three days).",
)
@click.option("--status", "show_status", is_flag=True, help="Print the queue (waiting, failed deliveries) and exit.")
@click.option("--json", "as_json", is_flag=True, help="With --status: one JSON object on stdout.")
def serve(
    host: str,
    port: int,
    queue_url: str,
    workers: int,
    lease: Duration,
    max_attempts: int,
    backoff: Duration,
    recover_every: Duration,
    retention: Duration,
    show_status: bool,
    as_json: bool,
) -> None:
    """Run parkbot as a GitHub App: a webhook server for many repositories, on a durable queue.

    Deliveries to POST /api/github/webhooks are verified (X-Hub-Signature-256), stored and answered 202 at
    once; workers then run the same event router as the action, with the App's installation tokens.
    GET /healthz, /readyz and /metrics (Prometheus) report on it. Settings (environment):
    PARKBOT_APP_ID, PARKBOT_PRIVATE_KEY (PEM) or PARKBOT_PRIVATE_KEY_FILE, PARKBOT_WEBHOOK_SECRET,
    GITHUB_API_URL (GitHub Enterprise Server: https://HOST/api/v3). See docs/serve.md.

    \b
    Example:
      parkbot serve --port 8080 --queue sqlite:////var/lib/parkbot/queue.db
      parkbot serve --status --queue sqlite:////var/lib/parkbot/queue.db
    """
    from parkbot.serve import open_queue

    env = os.environ
    try:
        queue = open_queue(queue_url, lease=lease.seconds, max_attempts=max_attempts, retention=retention.seconds)
    except ParkbotError as exc:
        _fail(exc)
        return
    except ImportError as exc:
        _missing_extra(exc)
        return
    if show_status:
        status = queue.status()
        data = {
            "counts": status.counts,
            "oldest_queued_age": status.oldest_queued_age,
            "retried": status.retried,
            "failed": [{"delivery": d, "event": e, "attempts": a, "error": err} for d, e, a, err in status.failed],
        }
        click.echo(json.dumps(data, indent=2) if as_json else _status_text(data))
        queue.close()
        return
    try:
        from parkbot.serve import run
    except ImportError as exc:
        queue.close()
        _missing_extra(exc)
        return
    try:
        run(
            env,
            queue=queue,
            host=host,
            port=port,
            workers=workers,
            backoff=backoff.seconds,
            recover_every=recover_every.seconds,
        )
    except ParkbotError as exc:
        queue.close()
        _fail(exc)
    logging.shutdown()
