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
:class:`Transport` retries a unit of work on 5xx, connection errors and rate limits (403/429 with a
secondary-rate-limit message or a ``Retry-After``; a primary limit whose ``x-ratelimit-reset`` falls
inside the time bound), waiting as GitHub asks, bounded in attempts and in total time. After the
bound it raises :class:`~bot.core.errors.BackendFailure` (exit 4) saying the command is safe to re-run,
which holds because every tracker operation is idempotent.

A *unit* is one logical step (a read with all its pages, or a check-then-write such as "find my
comment, then edit or create it"), so a retried unit re-checks before it writes again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import requests
import urllib3
from github import Auth, Github, GithubException
from tenacity import RetryCallState, Retrying, retry_if_exception

from bot.core.errors import BackendFailure, InvalidInput

DEFAULT_API_URL = "https://api.github.com"
PER_PAGE = 100
log = logging.getLogger("parkbot.github")
T = TypeVar("T")


@dataclass(frozen=True)
class GitHubSettings:
    """Where to talk to and as whom. The token is excluded from ``repr``."""

    repository: str
    api_url: str = DEFAULT_API_URL
    token: str | None = field(default=None, repr=False)

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]

    @property
    def secrets(self) -> tuple[str, ...]:
        return (self.token,) if self.token else ()


def settings_from_env(env: Mapping[str, str]) -> GitHubSettings:
    """Read ``GITHUB_REPOSITORY``, ``GITHUB_TOKEN`` and ``GITHUB_API_URL`` from ``env``."""
    repository = (env.get("GITHUB_REPOSITORY") or "").strip()
    parts = repository.split("/")
    if len(parts) != 2 or not all(parts):
        shown = repository or "(unset)"
        raise InvalidInput(f"GITHUB_REPOSITORY must be 'owner/name', got {shown!r}")
    token = env.get("GITHUB_TOKEN") or None
    if token is None:
        raise InvalidInput("GITHUB_TOKEN is not set: the GitHub backend needs a token (Actions: ${{ github.token }})")
    check_token(token)
    api_url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).strip().rstrip("/")
    if not api_url.startswith(("https://", "http://")):
        raise InvalidInput(f"GITHUB_API_URL must be an http(s) URL, got {api_url!r}")
    return GitHubSettings(repository=repository, api_url=api_url, token=token.strip(" \t"))


def check_token(token: str) -> None:
    """Refuse a token that is not one line of printable characters, without ever showing it.

    A CR or LF would end the ``Authorization`` header inside the token (and requests refuses such a
    header with an error that quotes it); surrounding spaces are stripped as before.
    """
    inner = token.strip(" \t")
    if "\r" in inner or "\n" in inner:
        raise InvalidInput(
            "GITHUB_TOKEN contains a line break (CR or LF): a token is one line. Remove the line break from "
            "the secret or the variable (the token is not shown here)."
        )
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in inner) or not inner:
        raise InvalidInput(
            "GITHUB_TOKEN contains a control character or nothing at all: a token is one line of printable "
            "characters (the token is not shown here)."
        )


# --- retry policy ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds and clocks; tests inject ``sleep``/``clock`` so retries cost no time."""

    max_attempts: int = 5
    max_seconds: float = 60.0
    base_delay: float = 1.0
    max_delay: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time

    @classmethod
    def instant(
        cls, max_attempts: int = 5, max_seconds: float = 60.0, clock: VirtualClock | None = None
    ) -> RetryPolicy:
        """Same decisions, no real sleeping: a virtual clock advanced by each 'sleep'.

        ``wall_clock`` stays real so ``x-ratelimit-reset`` (an epoch time) is read correctly.
        """
        clock = clock or VirtualClock()
        return cls(max_attempts=max_attempts, max_seconds=max_seconds, sleep=clock.sleep, clock=clock.now)


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
    retry: bool
    wait: float | None
    reason: str


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
        retry_after = _retry_after(_header(exc.headers, "retry-after"), wall_now)
        if retry_after is not None:
            return Verdict(True, retry_after, f"rate limited ({status}, Retry-After {retry_after:.0f}s)")
        if "secondary rate limit" in message or "abuse" in message:
            return Verdict(True, None, f"secondary rate limit ({status})")
        if _header(exc.headers, "x-ratelimit-remaining") == "0":
            reset = _header(exc.headers, "x-ratelimit-reset")
            try:
                wait = max(0.0, float(reset) - wall_now) + 1.0 if reset is not None else None
            except ValueError:
                wait = None
            if wait is None:
                return Verdict(False, None, "primary rate limit exhausted")
            return Verdict(True, wait, f"primary rate limit exhausted (resets in {wait:.0f}s)")
        if status == 429:
            return Verdict(True, None, "rate limited (429)")
    return Verdict(False, None, f"GitHub answered {status}")


class Transport:
    """Runs units of GitHub work under the retry policy."""

    def __init__(self, policy: RetryPolicy | None = None, secrets: tuple[str, ...] = ()) -> None:
        self.policy = policy or RetryPolicy()
        self._secrets = tuple(s for s in secrets if s)

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def run(self, what: str, unit: Callable[[int], T]) -> T:
        """Call ``unit(attempt)`` until it succeeds or the bound is reached (then BackendFailure).

        Non-transient errors propagate unchanged for the caller to interpret (a 404 or 422 often
        means something), except that nothing carrying a secret ever leaves this function.
        """
        policy = self.policy
        started = policy.clock()
        last: dict[str, Verdict] = {}

        def is_transient(exc: BaseException) -> bool:
            verdict = classify(exc, policy.wall_clock())
            last["verdict"] = verdict
            return verdict.retry

        def wait(state: RetryCallState) -> float:
            verdict = last.get("verdict")
            if verdict is not None and verdict.wait is not None:
                return verdict.wait
            return float(min(policy.max_delay, policy.base_delay * 2.0 ** (state.attempt_number - 1)))

        def stop(state: RetryCallState) -> bool:
            if state.attempt_number >= policy.max_attempts:
                return True
            elapsed = policy.clock() - started
            return elapsed + (state.upcoming_sleep or 0.0) > policy.max_seconds

        def before_sleep(state: RetryCallState) -> None:
            verdict = last.get("verdict")
            log.warning(
                "GitHub %s: %s; retrying (attempt %d of %d) in %.1fs",
                what,
                verdict.reason if verdict else "transient failure",
                state.attempt_number + 1,
                policy.max_attempts,
                state.upcoming_sleep,
            )

        retrying = Retrying(
            retry=retry_if_exception(is_transient),
            wait=wait,
            stop=stop,
            sleep=policy.sleep,
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
            verdict = last.get("verdict") or classify(exc, policy.wall_clock())
            if verdict.retry:
                elapsed = policy.clock() - started
                raise BackendFailure(
                    self.redact(
                        f"GitHub kept failing while trying to {what}: {verdict.reason}, "
                        f"{attempts} attempt(s) in {elapsed:.0f}s. Every step parkbot takes is idempotent, "
                        "so it is safe to re-run the same command."
                    )
                ) from None
            if isinstance(exc, GithubException) and self._secrets:
                # Scrub anything GitHub echoed back (it should never echo a token, but be sure).
                exc.args = tuple(self.redact(str(a)) for a in exc.args)
            raise
        raise AssertionError("unreachable")  # pragma: no cover


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


def build_client(settings: GitHubSettings, *, policy: RetryPolicy | None = None, timeout: int = 30) -> GitHubClient:
    """PyGithub with retries and throttling off (the :class:`Transport` decides), lazy objects, 100 per page."""
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
    return GitHubClient(github, settings, Transport(policy, settings.secrets))


def client_from_env(env: Mapping[str, str], *, policy: RetryPolicy | None = None) -> GitHubClient:
    """The client the CLI uses: settings from ``env`` (the caller passes ``os.environ``)."""
    return build_client(settings_from_env(env), policy=policy)
