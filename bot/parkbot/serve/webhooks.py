"""The HTTP side of ``parkbot serve``: verify a delivery, store it, answer at once.

``POST /api/github/webhooks`` checks ``X-Hub-Signature-256`` (HMAC-SHA256 of the raw body with the webhook
secret, compared in constant time; a SHA-1 ``X-Hub-Signature`` alone is refused), stores the raw delivery
keyed by ``X-GitHub-Delivery`` and answers **202**, also for a delivery already stored (it is handled once).
401: a missing or wrong signature (nothing stored); 400: a malformed delivery; 413: above GitHub's 25 MB.
Handling happens later, in the workers: GitHub wants an answer within 10 seconds.

``GET /healthz``: the process is up. ``GET /readyz``: the queue answers and the App's key is accepted.
``GET /metrics``: Prometheus text (:mod:`.metrics`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from parkbot.serve.metrics import Metrics
from parkbot.serve.queue import Queue

#: GitHub caps webhook payloads at 25 MB.
MAX_BODY = 25 * 1024 * 1024
WEBHOOK_PATH = "/api/github/webhooks"


def signature_ok(secret: bytes, body: bytes, header: str | None) -> bool:
    """Whether ``header`` is ``sha256=<hex HMAC-SHA256 of body>``; constant-time."""
    if not header or not header.startswith("sha256="):
        return False
    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header.strip().encode())


def item_key(event: str, payload: dict[str, Any]) -> str:
    """What orders deliveries: one issue or pull request (``owner/name#N``), a ref for pushes, else the repository."""
    repo = payload.get("repository")
    name = repo.get("full_name") if isinstance(repo, dict) else None
    where = name if isinstance(name, str) else "-"
    for key in ("issue", "pull_request"):
        thing = payload.get(key)
        if isinstance(thing, dict) and isinstance(thing.get("number"), int):
            return f"{where}#{thing['number']}"
    if event == "check_run":
        pulls = (payload.get("check_run") or {}).get("pull_requests") or []
        if pulls and isinstance(pulls[0], dict) and isinstance(pulls[0].get("number"), int):
            return f"{where}#{pulls[0]['number']}"
    if event == "push" and isinstance(payload.get("ref"), str):
        return f"{where}@{payload['ref']}"
    return f"{where}:{event}"


def create_app(
    *,
    queue: Queue,
    secret: bytes,
    metrics: Metrics,
    ready: Callable[[], str | None],
    wake: Callable[[], None] = lambda: None,
) -> Starlette:
    """The ASGI app. ``ready()`` is None when ready, else why not; ``wake()`` tells the workers a job is in."""

    async def webhook(request: Request) -> Response:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_BODY:
            return _refuse(413, "payload too large: GitHub's limit is 25 MB")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return _refuse(413, "payload too large: GitHub's limit is 25 MB")
        raw = bytes(body)
        signature = request.headers.get("x-hub-signature-256")
        if signature is None:
            why = "SHA-1 signatures are refused: " if request.headers.get("x-hub-signature") else ""
            metrics.refused.labels("signature").inc()
            return _refuse(401, why + "X-Hub-Signature-256 is missing")
        if not signature_ok(secret, raw, signature):
            metrics.refused.labels("signature").inc()
            return _refuse(401, "X-Hub-Signature-256 does not match the body")
        event = (request.headers.get("x-github-event") or "").strip()
        delivery = (request.headers.get("x-github-delivery") or "").strip()
        if not event or not delivery or len(delivery) > 100:
            metrics.refused.labels("malformed").inc()
            return _refuse(400, "X-GitHub-Event and X-GitHub-Delivery are required")
        try:
            payload = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            payload = None
        if not isinstance(payload, dict):
            metrics.refused.labels("malformed").inc()
            return _refuse(400, "the body must be a JSON object")
        # One short insert, on the event loop: a hop to a thread costs more than the write (WAL, no fsync).
        stored = queue.put(delivery, event, item_key(event, payload), raw)
        metrics.received.labels(event).inc()
        if not stored:
            metrics.duplicates.inc()
        else:
            wake()
        return JSONResponse({"delivery": delivery, "stored": stored}, status_code=202)

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok\n")

    async def readyz(request: Request) -> Response:
        why = await run_in_threadpool(ready)
        if why is None:
            return PlainTextResponse("ready\n")
        return PlainTextResponse(f"not ready: {why}\n", status_code=503)

    async def metrics_page(request: Request) -> Response:
        text, content_type = await run_in_threadpool(metrics.render, queue)
        return Response(text, media_type=content_type)

    return Starlette(
        routes=[
            Route(WEBHOOK_PATH, webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
            Route("/metrics", metrics_page, methods=["GET"]),
        ]
    )


def _refuse(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)
