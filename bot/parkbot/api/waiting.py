"""``wait``: poll a decision until it is answered or the window passes, backing off between polls."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

from parkbot.api.results.resume import ResumeContext
from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.durations import Duration
from parkbot.core.models import Decision
from parkbot.core.tracker import PollToken, Tracker

__all__ = ["DEFAULT_POLL", "POLL_SCHEDULE", "poller", "wait", "wait_for_answer"]

#: How often ``wait`` polls, per backend: (first interval, longest interval) in seconds. The git
#: backlog is read locally, so it is polled often (an answer is seen within a second); GitHub polls
#: back off to one a minute, and each poll after the first is a conditional request.
POLL_SCHEDULE: dict[str, tuple[float, float]] = {"git": (0.2, 0.5), "github": (2.0, 60.0)}
DEFAULT_POLL = (2.0, 60.0)


def wait_for_answer(
    poll: Callable[[], Decision],
    timeout: float,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    first: float = DEFAULT_POLL[0],
    longest: float = DEFAULT_POLL[1],
) -> Decision:
    """Poll, backing off from ``first`` to ``longest`` seconds, until the decision is no longer open or
    ``timeout`` seconds passed; the decision as last seen (still ``open`` when the window passed)."""
    deadline = clock() + timeout
    interval = first
    while True:
        decision = poll()
        if decision.state != "open":
            return decision
        remaining = deadline - clock()
        if remaining <= 0:
            return decision
        sleep(min(interval, remaining))
        interval = min(interval * 2, longest)


def poller(tracker: Tracker, config: Config, decision_id: str) -> Callable[[], Decision]:
    """One poll per call, each handing the backend what the previous one saw.

    On GitHub this makes every poll after the first a conditional request (``If-None-Match``), which
    costs no rate limit while the decision is unchanged; elsewhere each poll re-reads
    (:func:`parkbot.core.lifecycle.poll_answer`).
    """
    token: PollToken | None = None

    def poll() -> Decision:
        nonlocal token
        decision, token = lifecycle.poll_answer(tracker, config, decision_id, token)
        return decision

    return poll


def wait(
    tracker: Tracker,
    config: Config,
    backend: str,
    id: str,
    timeout: Duration | timedelta | float | str,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> ResumeContext:
    """Wait up to ``timeout`` for an answer (``0s``: look once), polling as often as ``backend`` allows."""
    seconds = Duration.of(timeout, what="timeout", allow_zero=True).seconds
    first, longest = POLL_SCHEDULE.get(backend, DEFAULT_POLL)
    decision = wait_for_answer(
        poller(tracker, config, id), seconds, sleep=sleep, clock=clock, first=first, longest=longest
    )
    return ResumeContext.of(decision)
