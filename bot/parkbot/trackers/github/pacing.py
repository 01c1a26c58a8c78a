"""Pacing content creation to GitHub's documented limits, and showing the waits a run has to make.

GitHub's secondary rate limits allow, "in general, no more than 80 content-generating requests per
minute and no more than 500 content-generating requests per hour"
(https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits).
Which requests count is not documented endpoint by endpoint, so every mutating request (``POST``,
``PATCH``, ``PUT``, ``DELETE``, GraphQL included) counts here: at parkbot's volumes (a few writes per
event) being conservative costs nothing, and a push filing dozens of decisions stays under the limit
instead of being refused half-way.

* :class:`ContentPacer` keeps the times of this run's recent writes and says how long the next one
  must wait so that no sliding window holds more than its limit (its own requests only: other runs
  sharing the token are caught by the rate-limit answers, which :mod:`~parkbot.trackers.github.client`
  waits out).
* :func:`install` routes PyGithub's requests through a hook, so nothing that writes can bypass it.
* A :class:`WaitReporter` shows a wait as it happens: a countdown on a terminal (stderr, only when it
  is a TTY), one ``::notice::`` in GitHub Actions, a log line otherwise.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable, Mapping
from typing import IO, Any, Protocol

from parkbot.workflow_commands import annotation

log = logging.getLogger("parkbot.github")

#: GitHub's documented content-creation limits: (requests, per seconds).
CONTENT_LIMITS: tuple[tuple[int, float], ...] = ((80, 60.0), (500, 3600.0))
#: Seconds added to every pacing wait: GitHub counts a request when it arrives, parkbot when it leaves.
MARGIN = 1.0
#: Requests that create (or change) content: the only ones paced.
WRITE_VERBS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
#: PyGithub's request methods that every other one goes through (the ``...AndCheck`` variants,
#: pagination and GraphQL call these on the same requester).
_REQUEST_METHODS = ("requestJson", "requestMultipart", "requestBlob")


class ContentPacer:
    """Sliding windows over this run's content-creating requests (see the module docstring)."""

    def __init__(self, limits: tuple[tuple[int, float], ...] = CONTENT_LIMITS, margin: float = MARGIN) -> None:
        self.limits = tuple((count, float(window)) for count, window in limits if count > 0)
        self.margin = margin
        longest = max((window for _, window in self.limits), default=0.0)
        self._longest = longest
        self._sent: deque[float] = deque()

    def delay(self, now: float) -> float:
        """Seconds to wait before the next content-creating request may go (0: now)."""
        self._forget(now)
        wait = 0.0
        sent = list(self._sent)
        for count, window in self.limits:
            recent = [t for t in sent if t > now - window]
            if len(recent) >= count:
                # The request that frees a slot is the count-th most recent one.
                wait = max(wait, recent[-count] + window + self.margin - now)
        return wait

    def record(self, now: float) -> None:
        """One content-creating request went out at ``now``."""
        self._sent.append(now)
        self._forget(now)

    @property
    def sent(self) -> int:
        """Requests within the longest window."""
        return len(self._sent)

    def _forget(self, now: float) -> None:
        while self._sent and self._sent[0] <= now - self._longest:
            self._sent.popleft()


def install(requester: Any, before: Callable[[str, str], None]) -> None:
    """Call ``before(verb, url)`` ahead of every request ``requester`` (PyGithub's) sends.

    The hook is set on the instance: ``Github(lazy=True)`` hands this one requester to every object
    parkbot uses (``get_repo`` without ``lazy=`` does not copy it).
    """
    for name in _REQUEST_METHODS:
        original = getattr(requester, name)

        def hooked(verb: str, url: str, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            before(verb, url)
            return _original(verb, url, *args, **kwargs)

        setattr(requester, name, hooked)


# --- showing waits ---------------------------------------------------------------------------------


class WaitReporter(Protocol):
    """Shows one wait: :meth:`begin`, then :meth:`tick` once a second if :attr:`ticking`, then :meth:`end`."""

    ticking: bool

    def begin(self, seconds: float, reason: str, bound: float) -> None: ...

    def tick(self, left: float) -> None: ...

    def end(self) -> None: ...


def _seconds(value: float) -> str:
    value = max(0, math.ceil(value))
    return f"{value // 60}m {value % 60:02d}s" if value >= 60 else f"{value}s"


class LogReporter:
    """Only a log line (the default: tests, pipes, anything that is neither a terminal nor Actions)."""

    ticking = False

    def begin(self, seconds: float, reason: str, bound: float) -> None:
        log.warning("%s: waiting %s (at most %s in this run)", reason, _seconds(seconds), _seconds(bound))

    def tick(self, left: float) -> None:
        return None

    def end(self) -> None:
        return None


class TerminalReporter(LogReporter):
    """A countdown on one line of a terminal."""

    ticking = True

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self._reason = ""

    def begin(self, seconds: float, reason: str, bound: float) -> None:
        self._reason = reason
        self.tick(seconds)

    def tick(self, left: float) -> None:
        self.stream.write(f"\rparkbot: {self._reason}: waiting, {_seconds(left)} left \x1b[K")
        self.stream.flush()

    def end(self) -> None:
        self.stream.write(f"\rparkbot: {self._reason}: done waiting\x1b[K\n")
        self.stream.flush()


class ActionsReporter(LogReporter):
    """One ``::notice::`` per wait, in the job log and on the run's summary page."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def begin(self, seconds: float, reason: str, bound: float) -> None:
        message = f"parkbot: {reason}: waiting {_seconds(seconds)} (at most {_seconds(bound)} in this run)"
        self.stream.write(annotation("notice", message) + "\n")
        self.stream.flush()


def reporter_for(env: Mapping[str, str], stream: IO[str]) -> WaitReporter:
    """Actions (``GITHUB_ACTIONS=true``): a notice; a terminal: a countdown; anything else: a log line."""
    if env.get("GITHUB_ACTIONS") == "true":
        return ActionsReporter(stream)
    if stream.isatty():
        return TerminalReporter(stream)
    return LogReporter()
