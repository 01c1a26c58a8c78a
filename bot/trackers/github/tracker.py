"""The GitHub tracker, composed from its parts (see the docstring of :mod:`bot.trackers.github`)."""

from __future__ import annotations

from functools import cached_property

from github import GithubException

from bot.core.tracker import ReactionContent
from bot.trackers.github.access import AccessMixin
from bot.trackers.github.comments import CommentsMixin
from bot.trackers.github.dashboard_issue import DashboardMixin
from bot.trackers.github.dependents import DependentsMixin
from bot.trackers.github.gate import GateMixin
from bot.trackers.github.issues import IssuesMixin
from bot.trackers.github.question_log import LogMixin
from bot.trackers.github.reactions import CommentReactions


class GitHubTracker(IssuesMixin, CommentsMixin, DependentsMixin, GateMixin, LogMixin, DashboardMixin, AccessMixin):
    """Decisions stored as GitHub issues (see the docstring of :mod:`bot.trackers.github`)."""

    backend = "github"

    def __repr__(self) -> str:
        return f"GitHubTracker({self.client.repository!r})"

    # -- configuration ------------------------------------------------------------------------

    def read_config_text(self, path: str) -> str | None:
        """A file from the default branch (the config), or None when it does not exist."""

        def get(_: int) -> str | None:
            try:
                content = self._repo.get_contents(path)
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            if isinstance(content, list):
                return None
            return content.decoded_content.decode("utf-8")

        return self._unit(f"read {path}", get)

    # -- reactions on command comments (a collaborator: bot.trackers.github.reactions) ------------

    @cached_property
    def reactions(self) -> CommentReactions:
        return CommentReactions(self._repo, self._unit)

    def react(self, issue_number: int, comment_id: int | str, content: ReactionContent) -> None:
        """👀 / 👍 / 😕 on a command's comment (the ``CommentReactions`` capability)."""
        self.reactions.react(issue_number, comment_id, content)
