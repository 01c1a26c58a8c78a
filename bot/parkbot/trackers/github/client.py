"""The PyGithub client and the retry policy: the only place that touches transport concerns.

Settings come from the standard Actions variables, read only when asked (:func:`settings_from_env`
takes the environment as an argument; nothing is read at import time):

* ``GITHUB_API_URL``: the REST root, default ``https://api.github.com``; GitHub Enterprise Server's
  ``https://<host>/api/v3`` works the same;
* ``GITHUB_TOKEN``: the token (never shown: not in messages, logs, reprs or exceptions). A token is
  one line of printable characters: one holding a line break (CR or LF) or another control character
  is refused before any request (it would otherwise end the ``Authorization`` header early);
* ``GITHUB_REPOSITORY``: ``owner/name``.

PyGithub's own throttling and urllib3 retries are switched off (``retry=None``,
``seconds_between_requests=0``, ``seconds_between_writes=0``) so that exactly one policy decides:
:class:`Transport` retries a unit of work on 5xx and connection errors (bounded in attempts and in
time), and **waits out rate limits** as GitHub's documentation asks: a ``Retry-After`` for that many
seconds, ``x-ratelimit-remaining: 0`` until ``x-ratelimit-reset``, a secondary limit that names no time
for at least a minute, doubling. Those waits have a bound of their own per run
(:attr:`RetryPolicy.rate_limit_wait`, default 5 minutes; ``github: {rate_limit_wait: ...}`` in the
config, or ``PARKBOT_RATE_LIMIT_WAIT``), and each is shown as it happens (:mod:`.pacing`). Content
creation is also *paced* to GitHub's documented limits before it is sent (:class:`.pacing.ContentPacer`).
After a bound it raises :class:`~parkbot.core.errors.BackendFailure` (exit 4) saying the command is safe to
re-run, which holds because every tracker operation is idempotent.

A *unit* is one logical step (a read with all its pages, or a check-then-write such as "find my
comment, then edit or create it"), so a retried unit re-checks before it writes again.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import requests
import urllib3
from github import Auth, Github, GithubException
from tenacity import RetryCallState, Retrying, retry_if_exception

from parkbot.core.errors import BackendFailure
from parkbot.trackers.github.pacing import (
    CONTENT_LIMITS,
    WRITE_VERBS,
    ContentPacer,
    LogReporter,
    WaitReporter,
    install,
    reporter_for,
)
from parkbot.trackers.github.settings import (  # noqa: F401 - the settings, named here too
    DEFAULT_API_URL,
    GitHubSettings,
    check_token,
    settings_from_env,
)

PER_PAGE = 100
#: How long one run may wait out rate limits by default (seconds).
DEFAULT_RATE_LIMIT_WAIT = 300.0
#: The environment variable that overrides ``github.rate_limit_wait`` of the config.
RATE_LIMIT_WAIT_ENV = "PARKBOT_RATE_LIMIT_WAIT"
log = logging.getLogger("parkbot.github")
T = TypeVar("T")


# --- retry policy ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds and clocks; tests inject ``sleep``/``clock`` so retries and waits cost no time.

    ``max_attempts`` bounds the tries of one unit (rate-limited ones included, as GitHub asks: "throw
    an error after a specific number of retries"); ``max_seconds`` bounds the time one unit spends
    retrying errors, not counting rate-limit waits; ``rate_limit_wait`` bounds the total time one run
    spends waiting out rate limits and pacing. ``content_limits`` are the content-creation windows.
    """

    max_attempts: int = 5
    max_seconds: float = 60.0
    base_delay: float = 1.0
    max_delay: float = 30.0
    rate_limit_wait: float = DEFAULT_RATE_LIMIT_WAIT
    #: The first wait after a secondary rate limit that names no time ("at least one minute").
    unnamed_limit_wait: float = 60.0
    content_limits: tuple[tuple[int, float], ...] = CONTENT_LIMITS
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time

    @classmethod
    def instant(
        cls,
        max_attempts: int = 5,
        max_seconds: float = 60.0,
        clock: VirtualClock | None = None,
        **changes: Any,
    ) -> RetryPolicy:
        """Same decisions, no real sleeping: a virtual clock advanced by each 'sleep'.

        ``wall_clock`` stays real so ``x-ratelimit-reset`` (an epoch time) is read correctly.
        """
        clock = clock or VirtualClock()
        return cls(max_attempts=max_attempts, max_seconds=max_seconds, sleep=clock.sleep, clock=clock.now, **changes)


class VirtualClock:
    """A clock that only moves when something 'sleeps' on it (tests read ``slept``)."""

    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds

    def advance(self, seconds: float) -> None:
        """Time passing without anyone sleeping (a request taking a while, in a test's fake GitHub)."""
        self.t += seconds


_CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    urllib3.exceptions.ProtocolError,
    urllib3.exceptions.TimeoutError,
    ConnectionError,  # the builtin: ConnectionResetError and friends
    TimeoutError,
)


@dataclass(frozen=True)
class Verdict:
    """Whether to try again, after how long (None: the caller's backoff), and whether GitHub limited the rate."""

    retry: bool
    wait: float | None
    reason: str
    limited: bool = False


def _header(headers: Mapping[str, Any] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return str(value)
    return None


def _retry_after(value: str | None, now: float) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now)
    except (TypeError, ValueError):
        return None


def _message(exc: GithubException) -> str:
    data = exc.data
    if isinstance(data, dict):
        return str(data.get("message") or "")
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return str(data or exc.message or "")


def classify(exc: BaseException, wall_now: float) -> Verdict:
    """Whether a failure is transient, and how long GitHub asks us to wait (None: back off)."""
    if isinstance(exc, _CONNECTION_ERRORS):
        return Verdict(True, None, f"connection error ({type(exc).__name__})")
    if not isinstance(exc, GithubException):
        return Verdict(False, None, type(exc).__name__)
    status = exc.status or 0
    if status >= 500:
        return Verdict(True, None, f"GitHub answered {status}")
    if status in (403, 429):
        message = _message(exc).lower()
        secondary = "secondary rate limit" in message or "abuse" in message
        kind = "secondary rate limit" if secondary else "rate limit"
        retry_after = _retry_after(_header(exc.headers, "retry-after"), wall_now)
        if retry_after is not None:
            return Verdict(True, retry_after, f"GitHub's {kind} ({status}, Retry-After {retry_after:.0f}s)", True)
        if _header(exc.headers, "x-ratelimit-remaining") == "0":
            reset = _header(exc.headers, "x-ratelimit-reset")
            try:
                wait = max(0.0, float(reset) - wall_now) + 1.0 if reset is not None else None
            except ValueError:
                wait = None
            if wait is not None:
                name = kind if secondary else "primary rate limit"
                return Verdict(True, wait, f"GitHub's {name} is exhausted (resets in {wait:.0f}s)", True)
            if not secondary:
                return Verdict(False, None, "primary rate limit exhausted")
        if secondary:
            return Verdict(True, None, f"GitHub's secondary rate limit ({status})", True)
        if status == 429:
            return Verdict(True, None, "GitHub's rate limit (429)", True)
    return Verdict(False, None, f"GitHub answered {status}")


@dataclass
class _LimitedSoFar:
    """How often, and how long, one unit has been held back by rate limits."""

    count: int = 0
    waited: float = 0.0


class Transport:
    """Runs units of GitHub work under the retry policy, waits out rate limits and paces content creation.

    One transport serves one run (one command, one event), so what it counts (the time waited, the
    content-creating requests sent) is per run.
    """

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        secrets: tuple[str, ...] = (),
        *,
        reporter: WaitReporter | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self._secrets = tuple(s for s in secrets if s)
        self.reporter: WaitReporter = reporter or LogReporter()
        self.pacer = ContentPacer(self.policy.content_limits)
        #: Seconds this run has spent waiting out rate limits and pacing, and the bound on them.
        self.waited = 0.0
        self.rate_limit_wait = self.policy.rate_limit_wait
        #: Where :attr:`rate_limit_wait` came from (the environment's setting wins over the config's).
        self.wait_bound_source = "the default"

    def bound_waits(self, seconds: float, source: str) -> None:
        """Let this run wait at most ``seconds`` for rate limits, unless the environment already said."""
        if self.wait_bound_source == RATE_LIMIT_WAIT_ENV and source != RATE_LIMIT_WAIT_ENV:
            return
        self.rate_limit_wait = max(0.0, float(seconds))
        self.wait_bound_source = source

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    # -- waiting ------------------------------------------------------------------------------

    def _bound_text(self) -> str:
        return (
            f"{self.rate_limit_wait:.0f}s (github.rate_limit_wait in .github/parkbot.yml, or {RATE_LIMIT_WAIT_ENV}; "
            f"this run's comes from {self.wait_bound_source})"
        )

    def wait(self, seconds: float, reason: str) -> None:
        """Wait ``seconds`` for GitHub, shown as it happens, counted against this run's bound."""
        policy = self.policy
        self.reporter.begin(seconds, reason, self.rate_limit_wait - self.waited)
        try:
            if self.reporter.ticking:
                end = policy.clock() + seconds
                while (left := end - policy.clock()) > 0:
                    self.reporter.tick(left)
                    policy.sleep(min(1.0, left))
            else:
                policy.sleep(seconds)
        finally:
            self.waited += seconds
            self.reporter.end()

    def before_request(self, verb: str, url: str) -> None:
        """Pace a content-creating request to GitHub's limits (see :mod:`.pacing`); reads pass.

        GraphQL queries are reads although they are POSTs (parkbot reads decisions through GraphQL; its
        one mutation, pinning the dashboard, happens once).
        """
        if verb.upper() not in WRITE_VERBS or url.split("?", 1)[0].rstrip("/").endswith("/graphql"):
            return
        policy = self.policy
        delay = self.pacer.delay(policy.clock())
        if delay > 0:
            if self.waited + delay > self.rate_limit_wait:
                limits = " and ".join(f"{n} per {w:.0f}s" for n, w in self.pacer.limits)
                raise BackendFailure(
                    f"parkbot has sent {self.pacer.sent} content-creating requests to GitHub in this run; "
                    f"GitHub allows {limits}, and waiting {delay:.0f}s more would exceed the bound on waiting "
                    f"of {self._bound_text()}. Everything done so far is kept and every step is idempotent, so "
                    "it is safe to re-run the same command."
                )
            self.wait(delay, "pacing content creation to GitHub's documented limits")
        self.pacer.record(policy.clock())

    # -- units ----------------------------------------------------------------------------------

    def run(self, what: str, unit: Callable[[int], T]) -> T:
        """Call ``unit(attempt)`` until it succeeds or a bound is reached (then BackendFailure).

        Non-transient errors propagate unchanged for the caller to interpret (a 404 or 422 often
        means something), except that nothing carrying a secret ever leaves this function.
        """
        policy = self.policy
        started = policy.clock()
        last: dict[str, Verdict] = {}
        limited_here = _LimitedSoFar()

        def is_transient(exc: BaseException) -> bool:
            verdict = classify(exc, policy.wall_clock())
            last["verdict"] = verdict
            return verdict.retry

        def wait(state: RetryCallState) -> float:
            verdict = last.get("verdict")
            if verdict is not None and verdict.wait is not None:
                return verdict.wait
            if verdict is not None and verdict.limited:
                # GitHub's docs: at least a minute, then exponentially longer.
                return policy.unnamed_limit_wait * 2.0**limited_here.count
            return min(policy.max_delay, policy.base_delay * 2.0 ** (state.attempt_number - 1))

        def stop(state: RetryCallState) -> bool:
            if state.attempt_number >= policy.max_attempts:
                return True
            upcoming = state.upcoming_sleep or 0.0
            verdict = last.get("verdict")
            if verdict is not None and verdict.limited:
                return self.waited + upcoming > self.rate_limit_wait
            elapsed = policy.clock() - started - limited_here.waited
            return elapsed + upcoming > policy.max_seconds

        def before_sleep(state: RetryCallState) -> None:
            verdict = last.get("verdict")
            if verdict is not None and verdict.limited:
                return  # shown by the wait itself
            log.warning(
                "GitHub %s: %s; retrying (attempt %d of %d) in %.1fs",
                what,
                verdict.reason if verdict else "transient failure",
                state.attempt_number + 1,
                policy.max_attempts,
                state.upcoming_sleep,
            )

        def sleep(seconds: float) -> None:
            verdict = last.get("verdict")
            if verdict is not None and verdict.limited:
                limited_here.count += 1
                limited_here.waited += seconds
                self.wait(seconds, f"{verdict.reason} while trying to {what}")
            else:
                policy.sleep(seconds)

        retrying = Retrying(
            retry=retry_if_exception(is_transient),
            wait=wait,
            stop=stop,
            sleep=sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        attempts = 0
        try:
            for attempt in retrying:
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    return unit(attempts)
        except BaseException as exc:
            verdict = classify(exc, policy.wall_clock())  # the exception that ended the unit
            if verdict.retry:
                raise BackendFailure(self.redact(self._gave_up(what, verdict, attempts, started))) from None
            if isinstance(exc, GithubException) and self._secrets:
                # Scrub anything GitHub echoed back (it should never echo a token, but be sure).
                exc.args = tuple(self.redact(str(a)) for a in exc.args)
            raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _gave_up(self, what: str, verdict: Verdict, attempts: int, started: float) -> str:
        elapsed = self.policy.clock() - started
        text = f"GitHub kept failing while trying to {what}: {verdict.reason}, {attempts} attempt(s) in {elapsed:.0f}s"
        if verdict.limited:
            text += (
                f"; parkbot waited {self.waited:.0f}s for GitHub's rate limits in this run, and the bound on "
                f"waiting is {self._bound_text()}"
            )
        return text + ". Every step parkbot takes is idempotent, so it is safe to re-run the same command."


def backend_failure(exc: GithubException, what: str, transport: Transport | None = None) -> BackendFailure:
    """A non-transient GitHub error that the tracker cannot interpret, as an exit-4 failure."""
    status = exc.status
    message = _message(exc) or "no message"
    hint = {
        401: "the token was rejected (is GITHUB_TOKEN valid and unexpired?)",
        403: "the token lacks a permission (issues: write, pull-requests: write, statuses: write)",
        404: "not found (is GITHUB_REPOSITORY right, and can the token see it?)",
    }.get(status or 0, "")
    text = f"GitHub refused to {what}: {status} {message}" + (f"; {hint}" if hint else "")
    text += ". Nothing was left half-done: it is safe to re-run once this is fixed."
    if transport is not None:
        text = transport.redact(text)
    return BackendFailure(text)


# --- the client --------------------------------------------------------------------------------


@dataclass
class GitHubClient:
    """A configured PyGithub instance, the repository it works on, and its transport."""

    github: Github
    settings: GitHubSettings
    transport: Transport

    def __repr__(self) -> str:
        return f"GitHubClient(repository={self.settings.repository!r}, api_url={self.settings.api_url!r})"

    @property
    def repository(self) -> str:
        return self.settings.repository


def build_client(
    settings: GitHubSettings,
    *,
    policy: RetryPolicy | None = None,
    timeout: int = 30,
    reporter: WaitReporter | None = None,
) -> GitHubClient:
    """PyGithub with retries and throttling off (the :class:`Transport` decides), lazy objects, 100 per page.

    Every request PyGithub sends passes :meth:`Transport.before_request` first (content creation is
    paced there).
    """
    if settings.token is not None:
        check_token(settings.token)
    auth = Auth.Token(settings.token) if settings.token else None
    github = Github(
        auth=auth,
        base_url=settings.api_url,
        timeout=timeout,
        per_page=PER_PAGE,
        retry=None,
        seconds_between_requests=0,
        seconds_between_writes=0,
        lazy=True,  # completable objects are not fetched until used: no hidden GETs
        user_agent="parkbot",
    )
    transport = Transport(policy, settings.secrets, reporter=reporter)
    install(github.requester, transport.before_request)
    return GitHubClient(github, settings, transport)


def parse_wait(text: str, source: str) -> float:
    """A duration as :data:`RATE_LIMIT_WAIT_ENV` takes it (``90s``, ``5m``, ``1h``; ``0`` never waits), in seconds."""
    from parkbot.core.durations import DurationOrZero

    return DurationOrZero.of(text, what=source, allow_zero=True).seconds


def client_from_env(env: Mapping[str, str], *, policy: RetryPolicy | None = None) -> GitHubClient:
    """The client the CLI uses: settings from ``env`` (the caller passes ``os.environ``).

    Waits are shown on stderr (:func:`.pacing.reporter_for`); :data:`RATE_LIMIT_WAIT_ENV` bounds them.
    """
    client = build_client(settings_from_env(env), policy=policy, reporter=reporter_for(env, sys.stderr))
    bound = env.get(RATE_LIMIT_WAIT_ENV)
    if bound:
        client.transport.bound_waits(parse_wait(bound, RATE_LIMIT_WAIT_ENV), RATE_LIMIT_WAIT_ENV)
    return client
