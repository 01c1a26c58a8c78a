"""parkbot as a GitHub App: its identity, installation tokens, and its webhook deliveries.

Authentication is PyGithub's: :class:`github.Auth.AppAuth` signs the App's JWT (RS256, through PyJWT and
cryptography) and :class:`github.GithubIntegration` mints **one installation token per installation**, which
is cached and renewed :data:`RENEW_BEFORE` seconds before it expires (GitHub's tokens live an hour), so
deliveries never each cost a mint. parkbot's identity is ``<app-slug>[bot]``, read once from ``GET /app``.

Every byte of the App endpoints' wire format is here: ``GET /app``, ``GET /repos/{o}/{r}/installation``,
``POST /app/installations/{id}/access_tokens``, ``GET /installation/repositories``, ``GET /app/hook/deliveries``
and ``POST /app/hook/deliveries/{id}/attempts``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from github import Auth, GithubException, GithubIntegration

from parkbot.core.errors import BackendFailure
from parkbot.trackers.github.client import GitHubClient, GitHubSettings, RetryPolicy, build_client

#: Renew an installation token this many seconds before it expires.
RENEW_BEFORE = 300.0


@dataclass(frozen=True)
class AppCredentials:
    """The App's id and private key (PEM; never shown), and the REST root it lives on."""

    app_id: int
    private_key: str = field(repr=False)
    api_url: str


@dataclass(frozen=True)
class AppIdentity:
    """What ``GET /app`` says: the App's id and slug; its login is ``<slug>[bot]``."""

    app_id: int
    slug: str

    @property
    def login(self) -> str:
        return f"{self.slug}[bot]"


@dataclass(frozen=True)
class Delivery:
    """One webhook delivery as ``GET /app/hook/deliveries`` lists it."""

    id: int
    guid: str
    status_code: int
    redelivery: bool
    delivered_at: datetime
    event: str


@dataclass
class _Token:
    token: str = field(repr=False)
    expires_at: float


class GitHubApp:
    """The App's credentials, and every installation token it holds (thread-safe: workers share it)."""

    def __init__(
        self,
        credentials: AppCredentials,
        *,
        clock: Callable[[], float] = time.time,
        policy: RetryPolicy | None = None,
        timeout: int = 30,
    ) -> None:
        self.credentials = credentials
        self.clock = clock
        self.policy = policy
        self.timeout = timeout
        self.integration = GithubIntegration(
            auth=Auth.AppAuth(credentials.app_id, credentials.private_key),
            base_url=credentials.api_url,
            timeout=timeout,
            retry=None,
        )
        self._lock = threading.Lock()
        self._tokens: dict[int, _Token] = {}
        self._installations: dict[str, int] = {}
        self._identity: AppIdentity | None = None
        #: Tokens minted so far, per installation (``/metrics`` and the benchmark read it).
        self.mints: dict[int, int] = {}

    def _app_request(self, what: str, verb: str, path: str, **kwargs: Any) -> Any:
        """One request signed with the App's JWT; GitHub's refusal becomes a backend failure naming ``what``."""
        try:
            _, data = self.integration.requester.requestJsonAndCheck(
                verb, f"{self.credentials.api_url}{path}", **kwargs
            )
        except GithubException as exc:
            message = exc.data.get("message") if isinstance(exc.data, dict) else exc.data
            raise BackendFailure(f"GitHub refused to {what}: {exc.status} {message}") from None
        except OSError as exc:
            raise BackendFailure(f"could not reach GitHub to {what}: {exc}") from None
        return data

    def identity(self) -> AppIdentity:
        """The App's id and slug (``GET /app``, once)."""
        with self._lock:
            if self._identity is None:
                data = self._app_request("read the App (GET /app)", "GET", "/app")
                self._identity = AppIdentity(int(data["id"]), str(data["slug"]))
            return self._identity

    def installation_of(self, repository: str) -> int:
        """The installation id of the App on ``owner/name`` (cached)."""
        with self._lock:
            known = self._installations.get(repository.casefold())
        if known is not None:
            return known
        data = self._app_request(f"find its installation on {repository}", "GET", f"/repos/{repository}/installation")
        installation = int(data["id"])
        with self._lock:
            self._installations[repository.casefold()] = installation
        return installation

    def token(self, installation: int) -> str:
        """An installation token, minted only when none is cached or it expires within :data:`RENEW_BEFORE`."""
        with self._lock:
            cached = self._tokens.get(installation)
            if cached is not None and cached.expires_at - RENEW_BEFORE > self.clock():
                return cached.token
            data = self._app_request(
                f"mint a token for installation {installation}",
                "POST",
                f"/app/installations/{installation}/access_tokens",
            )
            expires = datetime.fromisoformat(str(data["expires_at"]).replace("Z", "+00:00"))
            self._tokens[installation] = _Token(str(data["token"]), expires.timestamp())
            self.mints[installation] = self.mints.get(installation, 0) + 1
            return str(data["token"])

    def client(self, repository: str, installation: int | None = None) -> GitHubClient:
        """A client acting as the App on ``repository``, with its installation's cached token."""
        installation = installation if installation is not None else self.installation_of(repository)
        settings = GitHubSettings(
            repository=repository, api_url=self.credentials.api_url, token=self.token(installation)
        )
        return build_client(settings, policy=self.policy, timeout=self.timeout)

    def installations(self) -> list[int]:
        """The id of every installation of the App (``GET /app/installations``)."""
        ids: list[int] = []
        page = 1
        while True:
            data = self._app_request(
                "list the App's installations", "GET", "/app/installations", parameters={"per_page": 100, "page": page}
            )
            ids += [int(i["id"]) for i in data]
            if len(data) < 100:
                return ids
            page += 1

    def repositories(self, installation: int) -> list[str]:
        """The ``owner/name`` of every repository the installation may see (``GET /installation/repositories``)."""
        client = build_client(
            GitHubSettings(repository="-/-", api_url=self.credentials.api_url, token=self.token(installation)),
            policy=self.policy,
        )
        names: list[str] = []
        page = 1
        url = f"{self.credentials.api_url}/installation/repositories"
        while True:

            def get(attempt: int, page: int = page) -> Any:
                _, data = client.github.requester.requestJsonAndCheck(
                    "GET", url, parameters={"per_page": 100, "page": page}
                )
                return data

            data = client.transport.run("list the installation's repositories", get)
            batch = [str(r["full_name"]) for r in data.get("repositories", [])]
            names += batch
            if len(batch) < 100:
                return names
            page += 1

    def deliveries(self, since: datetime) -> list[Delivery]:
        """The App's webhook deliveries since ``since``, newest first (``GET /app/hook/deliveries``, cursor pages)."""
        out: list[Delivery] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"per_page": 100}
            if cursor:
                params["cursor"] = cursor
            try:
                headers, data = self.integration.requester.requestJsonAndCheck(
                    "GET", f"{self.credentials.api_url}/app/hook/deliveries", parameters=params
                )
            except GithubException as exc:
                raise BackendFailure(f"GitHub refused to list the App's deliveries: {exc.status}") from None
            older = False
            for raw in data or []:
                delivered = datetime.fromisoformat(str(raw["delivered_at"]).replace("Z", "+00:00"))
                if delivered < since:
                    older = True
                    break
                out.append(
                    Delivery(
                        int(raw["id"]),
                        str(raw["guid"]),
                        int(raw["status_code"]),
                        bool(raw["redelivery"]),
                        delivered.astimezone(UTC),
                        str(raw["event"]),
                    )
                )
            cursor = _next_cursor(headers.get("link") or headers.get("Link") or "")
            if older or not cursor or not data:
                return out

    def redeliver(self, delivery: int) -> None:
        """Ask GitHub to send delivery ``delivery`` again (``POST /app/hook/deliveries/{id}/attempts``)."""
        self._app_request(f"redeliver delivery {delivery}", "POST", f"/app/hook/deliveries/{delivery}/attempts")


def _next_cursor(link: str) -> str | None:
    """The ``cursor`` of the ``rel="next"`` page in a ``Link`` header."""
    for part in link.split(","):
        if 'rel="next"' in part and "cursor=" in part:
            return part.split("cursor=", 1)[1].split("&", 1)[0].split(">", 1)[0]
    return None
