"""Choosing and opening a backend: the only place that knows every adapter.

The CLI and the event router ask for a tracker by name; adapters are imported lazily so the git
backend never loads PyGithub and the GitHub backend never needs a local repository.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.core.config import CONFIG_PATH, Config, load_config, parse_config
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
        tracker: Tracker = GitTracker.open(repo_path, ref=config.backlog_ref, config=config)
        return Backend("git", tracker, config)
    if name == "github":
        from bot.trackers.github import GitHubTracker
        from bot.trackers.github.client import client_from_env

        client = client_from_env(env)
        # A bot running as an ordinary user (a personal token) names its login, so its own comments
        # are recognised as its own and re-runs edit them instead of posting again.
        bot_logins = [login.strip() for login in env.get("PARKBOT_BOT_LOGIN", "").split(",") if login.strip()]
        tracker = GitHubTracker(client, bot_logins=bot_logins)
        if config_path is not None:
            config = load_config(config_path)
        else:
            text = tracker.read_config_text(CONFIG_PATH)
            config = parse_config(text, CONFIG_PATH) if text is not None else Config()
        return Backend("github", tracker, config)
    raise InvalidInput(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")


def _local_config(config_path: str | Path | None, repo_path: str | Path) -> Config:
    """``--config`` if given, else ``.github/parkbot.yml`` in the working tree, else defaults."""
    if config_path is not None:
        return load_config(config_path)
    start = Path(repo_path).resolve()
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_PATH
        if candidate.is_file():
            return load_config(candidate)
        if (folder / ".git").exists():
            break
    return Config()
