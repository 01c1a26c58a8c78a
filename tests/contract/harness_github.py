"""Contract harness for the GitHub backend: the real PyGithub code path against the stateful fake."""

from __future__ import annotations

from pathlib import Path

from bot.core.config import Config, Owners
from tests.github_support import fake_github, make_tracker


class GitHubHarness:
    def __init__(self) -> None:
        self.fake = fake_github().start()
        self.tracker = make_tracker(self.fake)
        self.config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"})

    def make_dependent(self, name: str) -> str:
        pull = self.fake.add_pull(title=f"Work on {name}", head_ref=name, body="", author="agent-dev")
        return f"#{pull.number}"

    def link_by_trailer(self, target: str, decision_id: str) -> None:
        self.fake.push(
            int(target.removeprefix("#")), message=f"work that needs the answer\n\nBlocked-by: {decision_id}\n"
        )

    knows_roles = True
    knows_dependent_authors = True

    def grant(self, login: str, role: str) -> None:
        self.fake.set_permission(login, role)

    def make_dependent_by(self, name: str, author: str) -> str:
        pull = self.fake.add_pull(title=f"Work on {name}", head_ref=name, body="", author=author)
        return f"#{pull.number}"

    def close(self) -> None:
        self.fake.stop()
        self.fake.assert_no_violations()


def make_github_harness(tmp_path: Path) -> GitHubHarness:
    return GitHubHarness()
