"""Contract harness for the GitHub backend: the real PyGithub code path against the stateful fake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.config import Config, Owners
from bot.trackers.github import GitHubTracker
from bot.trackers.github_client import GitHubSettings, RetryPolicy, build_client
from tests.fakegithub import FakeGitHub

TOKEN = "ghs_contractharnesstoken000000000000000"


def make_tracker(fake: FakeGitHub, *, policy: RetryPolicy | None = None, **kwargs: Any) -> GitHubTracker:
    """A GitHubTracker on ``fake`` with retries that never really sleep and no filing-race wait."""
    settings = GitHubSettings(repository=fake.full_name, api_url=fake.base_url, token=TOKEN)
    client = build_client(settings, policy=policy or RetryPolicy.instant())
    kwargs.setdefault("race_wait", 0.0)
    return GitHubTracker(client, **kwargs)


class GitHubHarness:
    def __init__(self) -> None:
        self.fake = FakeGitHub(owner="acme", repo="widgets", token=TOKEN).start()
        self.tracker = make_tracker(self.fake)
        self.config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"})

    def make_dependent(self, name: str) -> str:
        pull = self.fake.add_pull(title=f"Work on {name}", head_ref=name, body="", author="agent-dev")
        return f"#{pull.number}"

    def link_by_trailer(self, target: str, decision_id: str) -> None:
        self.fake.push(
            int(target.removeprefix("#")), message=f"work that needs the answer\n\nBlocked-by: {decision_id}\n"
        )

    def close(self) -> None:
        self.fake.stop()
        self.fake.assert_no_violations()


def make_github_harness(tmp_path: Path) -> GitHubHarness:
    return GitHubHarness()
