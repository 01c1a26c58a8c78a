"""Reactions on the comment a command came in: 👀 when parkbot takes it up, then 👍 done or 😕 refused.

One request per reaction, ``POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions``,
through PyGithub's ``IssueComment.create_reaction`` on lazy objects (no read first). It is idempotent:
GitHub answers ``200`` with the existing reaction when parkbot already gave that one, so a re-run adds
nothing. The scheduled reconcile reads them back (``GET`` on the same path) for the command comments
it considers, to find those parkbot never took up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from github import GithubException

from parkbot.core.tracker import ReactionContent

if TYPE_CHECKING:
    from parkbot.trackers.github.store import IssueStore

REACTIONS: tuple[str, ...] = get_args(ReactionContent)


class CommentReactions:
    """Adds reactions to issue comments of one repository."""

    def __init__(self, store: IssueStore) -> None:
        self._store = store

    def react(self, issue_number: int, comment_id: int | str, content: ReactionContent) -> None:
        """Add ``content`` to comment ``comment_id`` of issue ``issue_number`` (1 request)."""
        if content not in REACTIONS:
            raise ValueError(f"not a GitHub reaction: {content!r}")
        comment = self._store.issue(issue_number).get_comment(int(comment_id))  # lazy: no request
        self._store.unit(f"react {content} to comment {comment_id}", lambda _: comment.create_reaction(content))

    def reactions_of(self, issue_number: int, comment_id: int) -> list[tuple[str, str]]:
        """Every reaction on comment ``comment_id`` as ``(login, content)``: one request per 100 reactions.

        ``GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions`` through PyGithub's
        ``IssueComment.get_reactions`` on a lazy comment; a comment deleted since has none.
        """
        comment = self._store.issue(issue_number).get_comment(comment_id)  # lazy: no request

        def read(_: int) -> list[tuple[str, str]]:
            try:
                return [(r.user.login if r.user else "", str(r.content)) for r in comment.get_reactions()]
            except GithubException as exc:
                if exc.status in (404, 410):
                    return []
                raise

        return self._store.unit(f"read the reactions on comment {comment_id}", read)
