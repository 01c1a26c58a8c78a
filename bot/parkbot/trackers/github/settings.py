"""Where the GitHub backend talks to and as whom: the repository, the API root and the token, from the
environment, checked before any request (the token is never shown)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from parkbot.core.errors import InvalidInput

DEFAULT_API_URL = "https://api.github.com"


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
