"""Reactions on the comment a command came in: 👀 when parkbot takes it up, then 👍 done or 😕 refused.

A small collaborator the tracker delegates to (the ``CommentReactions`` capability of
:class:`~bot.trackers.github.GitHubTracker`): one request per reaction,
``POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions``, through PyGithub's
``IssueComment.create_reaction`` on lazy objects (no read first). It is idempotent: GitHub answers
``200`` with the existing reaction when parkbot already gave that one, so a re-run adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from github.Repository import Repository

from bot.core.tracker import ReactionContent

#: Runs one retried unit of GitHub work (the tracker's ``_unit``: failures become BackendFailure).
Unit = Callable[[str, Callable[[int], Any]], Any]
REACTIONS: tuple[str, ...] = get_args(ReactionContent)


class CommentReactions:
    """Adds reactions to issue comments of one repository."""

    def __init__(self, repo: Repository, unit: Unit) -> None:
        self._repo = repo
        self._unit = unit

    def react(self, issue_number: int, comment_id: int | str, content: ReactionContent) -> None:
        """Add ``content`` to comment ``comment_id`` of issue ``issue_number`` (1 request)."""
        if content not in REACTIONS:
            raise ValueError(f"not a GitHub reaction: {content!r}")
        comment = self._repo.get_issue(issue_number).get_comment(int(comment_id))  # lazy: no request
        self._unit(f"react {content} to comment {comment_id}", lambda _: comment.create_reaction(content))
