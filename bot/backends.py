"""Choosing and opening a backend: the only place that knows every adapter.

The CLI and the event router ask for a tracker by name; adapters are imported lazily so the git
backend never loads PyGithub and the GitHub backend never needs a local repository.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.core.config import CONFIG_PATH, Config, find_config, load_config, parse_config
from bot.core.errors import InvalidInput
from bot.core.tracker import Tracker

BackendName = Literal["git", "github"]
BACKENDS: tuple[BackendName, ...] = ("git", "github")


@dataclass
class Backend:
    """An opened tracker and the configuration that governs it."""

    name: BackendName
    tracker: Tracker
    config: Config


def open_backend(
    name: str,
    *,
    repo_path: str | Path = ".",
    config_path: str | Path | None = None,
    env: Mapping[str, str],
) -> Backend:
    """Open ``git`` (the repository containing ``repo_path``) or ``github`` (from the Actions variables)."""
    if name == "git":
        from bot.trackers.git import GitTracker

        config = _local_config(config_path, repo_path)
        tracker: Tracker = GitTracker.open(repo_path, ref=config.backlog_ref)
        return Backend("git", tracker, config)
    if name == "github":
        from bot.trackers.github import GitHubTracker
        from bot.trackers.github.client import client_from_env

        client = client_from_env(env)
        # parkbot trusts only records its own login wrote: the token's, unless named here or in the config.
        tracker = GitHubTracker(client, bot_login=env.get("PARKBOT_BOT_LOGIN") or None)
        if config_path is not None:
            config = load_config(config_path)
        else:
            text = tracker.read_config_text(CONFIG_PATH)
            config = parse_config(text, CONFIG_PATH) if text is not None else Config()
        tracker.configure(config)
        # The rest of the run may wait out rate limits as long as the config says (the environment wins).
        client.transport.bound_waits(config.github.rate_limit_wait, str(config_path or CONFIG_PATH))
        return Backend("github", tracker, config)
    raise InvalidInput(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")


def _local_config(config_path: str | Path | None, repo_path: str | Path) -> Config:
    """``--config`` if given, else ``.github/parkbot.yml`` (or ``.yaml``) in the working tree, else defaults."""
    if config_path is not None:
        return load_config(config_path)
    found = find_config(repo_path)
    return load_config(found) if found is not None else Config()
