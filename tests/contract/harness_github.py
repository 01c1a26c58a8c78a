"""Contract harness for the GitHub backend: the real PyGithub code path against the stateful fake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from parkbot.api import Backlog
from parkbot.backends import Backend
from parkbot.core.config import Config, Owners
from parkbot.events import handle_event
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.client import GitHubSettings, RetryPolicy, build_client
from tests.support.events import labels_of, webhook, with_repository
from tests.support.github_helpers import fake_github, make_tracker


class GitHubHarness:
    def __init__(self) -> None:
        self.fake = fake_github().start()
        self.tracker = make_tracker(self.fake)
        self.config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol", "carol": "dana"})
        self._delivered: set[int] = set()

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

    # -- an owner acting with their own token, and parkbot's workflow recording it ------------------

    def owner_backlog(self, backlog: Backlog, login: str) -> Backlog:
        """The API as ``login`` runs it on a workstation: with their own (personal) token, and parkbot's
        login configured (``bot_login``), as a repository whose parkbot is an App sets it."""
        token = f"ghp_{login.replace('-', '')}000000000000000000000000000000"[:40]
        self.fake.add_token(token, login, "personal")
        settings = GitHubSettings(repository=self.fake.full_name, api_url=self.fake.base_url, token=token)
        client = build_client(settings, policy=RetryPolicy.instant())
        tracker = GitHubTracker(client, race_wait=0.0, bot_login=self.tracker.store.own_login)
        return Backlog(Backend("github", tracker, backlog.config))

    def deliver(self, config: Config | None = None) -> None:
        """What the workflow does when the comments people posted reach it: each is an ``issue_comment``
        event handled as parkbot (with parkbot's token), in the order they were posted."""
        for comment in sorted(self.fake.comments.values(), key=lambda c: c.id):
            if comment.id in self._delivered or not comment.body.startswith("/"):
                continue
            self._delivered.add(comment.id)
            handle_event(
                "issue_comment",
                self._payload(comment),
                tracker_factory=lambda: Backend("github", make_tracker(self.fake), config or self.config),
            )

    def _payload(self, comment: Any) -> dict[str, Any]:
        payload = with_repository(webhook("issue_comment.created"), self.fake)
        issue = self.fake.issues[comment.issue_number]
        payload["issue"].update(
            number=issue.number, title=issue.title, body=issue.body, labels=labels_of(self.fake, issue.number)
        )
        user = self.fake.users[comment.user.lower()]
        author = {"login": user.login, "id": user.id, "type": user.type}
        payload["comment"].update(id=comment.id, body=comment.body, user=author)
        payload["sender"] = author
        return payload

    def close(self) -> None:
        self.fake.stop()
        self.fake.assert_no_violations()


def make_github_harness(tmp_path: Path) -> GitHubHarness:
    return GitHubHarness()
