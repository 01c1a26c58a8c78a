"""Contract harness for parkbot as a GitHub App (``parkbot serve``): the GitHub backend opened the way the
server opens it, with an installation token minted from the App's JWT and ``<app-slug>[bot]`` as its identity."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from parkbot.backends import Backend
from parkbot.core.config import Config
from parkbot.events import handle_event
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.app import AppCredentials, GitHubApp
from parkbot.trackers.github.client import RetryPolicy
from tests.contract.harness_github import GitHubHarness
from tests.support.fakegithub.app import generate_key


@functools.cache
def _key() -> tuple[str, Any]:
    return generate_key()


class GitHubAppHarness(GitHubHarness):
    def __init__(self) -> None:
        super().__init__()
        pem = self.fake.install_app(slug="parkbot", app_id=4242, key=_key())
        self.app = GitHubApp(AppCredentials(4242, pem, self.fake.base_url), policy=RetryPolicy.instant())
        self.tracker = self.app_tracker()

    def app_tracker(self) -> GitHubTracker:
        client = self.app.client(self.fake.full_name)
        return GitHubTracker(client, race_wait=0.0, bot_login=self.app.identity().login)

    def deliver(self, config: Config | None = None) -> None:
        for comment in sorted(self.fake.comments.values(), key=lambda c: c.id):
            if comment.id in self._delivered or not comment.body.startswith("/"):
                continue
            self._delivered.add(comment.id)
            handle_event(
                "issue_comment",
                self._payload(comment),
                tracker_factory=lambda: Backend("github", self.app_tracker(), config or self.config),
            )


def make_github_app_harness(tmp_path: Path) -> GitHubAppHarness:
    return GitHubAppHarness()
