"""Choosing and opening a backend: the only place that knows every adapter.

The CLI, the API and the event router ask for a tracker by name; adapters are imported lazily so the
git backend never loads PyGithub and the GitHub backend never needs a local repository.

GitHub settings are the standard Actions variables. Outside Actions, ``GITHUB_REPOSITORY`` may be left
unset: like ``gh``, parkbot then takes the repository from the ``origin`` remote of the local clone,
when that remote is on the host ``GITHUB_API_URL`` points at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from parkbot.config_file import find_config, load_config
from parkbot.core.config import CONFIG_PATH, Config, parse_config
from parkbot.core.errors import InvalidInput
from parkbot.core.tracker import Tracker

if TYPE_CHECKING:
    from parkbot.trackers.github import GitHubClient as GitHubClientLike

BackendName = Literal["git", "github"]
BACKENDS: tuple[BackendName, ...] = ("git", "github")
DEFAULT_API_URL = "https://api.github.com"


def _nothing() -> None:
    return None


class Backend:
    """An opened tracker and the configuration that governs it.

    Written out rather than a dataclass, which compiles its methods when every command loads this module;
    it compares and shows as the dataclass did (``release`` left out of its repr).
    """

    def __init__(
        self, name: BackendName, tracker: Tracker, config: Config, release: Callable[[], None] = _nothing
    ) -> None:
        self.name = name
        self.tracker = tracker
        self.config = config
        self.release = release

    def _fields(self) -> tuple[Any, ...]:
        return (self.name, self.tracker, self.config, self.release)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Backend) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment] # mutable, as the dataclass was

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(name={self.name!r}, tracker={self.tracker!r}, config={self.config!r})"

    def close(self) -> None:
        """Release what the tracker holds open (the git backlog's helper processes)."""
        self.release()


def open_backend(
    name: str,
    *,
    repo_path: str | Path = ".",
    config_path: str | Path | None = None,
    env: Mapping[str, str],
) -> Backend:
    """Open ``git`` (the repository containing ``repo_path``) or ``github`` (from the Actions variables)."""
    if name == "git":
        from parkbot.trackers.git import GitTracker

        config = _local_config(config_path, repo_path)
        git_tracker = GitTracker.open(repo_path, ref=config.backlog_ref, config=config)
        return Backend("git", git_tracker, config, git_tracker.release)
    if name == "github":
        from parkbot.trackers.github import client as github_client

        client = github_client.client_from_env(github_env(env, repo_path))
        # parkbot trusts only records its own login wrote: the token's, unless named here or in the config.
        return github_backend(client, bot_login=env.get("PARKBOT_BOT_LOGIN") or None, config_path=config_path)
    raise InvalidInput(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")


def github_backend(
    client: GitHubClientLike, *, bot_login: str | None, config_path: str | Path | None = None, wait: bool = True
) -> Backend:
    """The GitHub backend on a ready client (the Actions token, or an App's installation token): the
    configuration from ``config_path`` or else the repository's default branch, through the API.

    ``wait``: the run may wait out rate limits as long as the config says; ``parkbot serve`` passes False,
    since a rate-limited delivery is rescheduled rather than slept on in a worker.
    """
    from parkbot.trackers.github import GitHubTracker

    tracker = GitHubTracker(client, bot_login=bot_login)
    if config_path is not None:
        config = load_config(config_path)
    else:
        text = tracker.read_config_text(CONFIG_PATH)
        config = parse_config(text, CONFIG_PATH) if text is not None else Config()
    tracker.configure(config)
    if wait:
        # The rest of the run may wait out rate limits as long as the config says (the environment wins).
        client.transport.bound_waits(config.github.rate_limit_wait, str(config_path or CONFIG_PATH))
    return Backend("github", tracker, config)


def _local_config(config_path: str | Path | None, repo_path: str | Path) -> Config:
    """``--config`` if given, else ``.github/parkbot.yml`` (or ``.yaml``) in the working tree, else defaults."""
    if config_path is not None:
        return load_config(config_path)
    found = find_config(repo_path)
    return load_config(found) if found is not None else Config()


# --- GitHub settings ---------------------------------------------------------------------------


def github_env(env: Mapping[str, str], repo_path: str | Path = ".") -> dict[str, str]:
    """``env`` with ``GITHUB_REPOSITORY`` filled in from the ``origin`` remote when unset; every
    missing setting named at once, with how to give it."""
    settings = dict(env)
    api_url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).strip()
    problems = []
    if not (env.get("GITHUB_TOKEN") or "").strip():
        problems.append(
            "GITHUB_TOKEN is not set: the GitHub backend needs a token "
            "(in Actions: ${{ github.token }}; elsewhere e.g. GITHUB_TOKEN=$(gh auth token))"
        )
    if not (env.get("GITHUB_REPOSITORY") or "").strip():
        inferred, why = repository_from_origin(repo_path, api_url)
        if inferred is not None:
            settings["GITHUB_REPOSITORY"] = inferred
        else:
            problems.append(f"GITHUB_REPOSITORY is not set ('owner/name'), and {why}")
    if problems:
        raise InvalidInput("; ".join(problems))
    return settings


def web_host(api_url: str) -> str:
    """The host clones come from for an API root: github.com for api.github.com, the server itself
    for GitHub Enterprise Server (``https://<host>/api/v3``)."""
    host = (urlsplit(api_url).hostname or "").lower()
    return "github.com" if host == "api.github.com" else host.removeprefix("api.")


@cache
def _scp_like() -> re.Pattern[str]:
    """An scp-like remote, ``git@host:owner/name(.git)`` (compiled when a remote is first read: the git
    backend never reads one)."""
    return re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>[^/\s].*)$")


def repository_from_remote(url: str, host: str) -> str | None:
    """``owner/name`` when ``url`` is a clone URL on ``host``, else None.

    ``https://host[:port]/owner/name(.git)``, ``ssh://git@host[:port]/owner/name(.git)`` and scp-like
    ``git@host:owner/name(.git)``: the remote URLs ``gh`` understands.
    """
    text = url.strip()
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme not in ("https", "http", "ssh", "git", "git+ssh") or (parts.hostname or "").lower() != host:
            return None
        path = parts.path
    else:
        match = _scp_like().match(text)
        if match is None or match.group("host").lower() != host:
            return None
        path = match.group("path")
    owner_name = path.strip("/").removesuffix(".git").split("/")
    if len(owner_name) != 2 or not all(owner_name):
        return None
    return "/".join(owner_name)


def repository_from_origin(repo_path: str | Path, api_url: str) -> tuple[str | None, str]:
    """``owner/name`` of the ``origin`` remote of the clone at ``repo_path``, or None and why not."""
    from parkbot.trackers.git import origin_url

    host = web_host(api_url)
    url, why = origin_url(repo_path)
    if url is None:
        return None, why
    found = repository_from_remote(url, host)
    if found is None:
        shown = _without_credentials(url)
        return None, f"the origin remote ({shown}) is not a repository on {host} (GITHUB_API_URL is {api_url})"
    return found, ""


def _without_credentials(url: str) -> str:
    """A remote URL fit for a message: ``https://user:token@host/...`` loses its ``user:token@``."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=netloc).geturl()
