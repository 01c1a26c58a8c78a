"""Which command comments parkbot never took up: the scheduled reconcile answers them late.

An ``issue_comment`` event that never ran (the workflow lacked the event type, Actions was down, a
webhook delivery was lost) leaves an owner's command unanswered. parkbot marks every command it takes
up with a reaction from its own identity (👀 taken up, then 👍 done or 😕 refused), so a command comment
with none of them from parkbot was never taken up. The backend gives the facts; the rule is here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from parkbot.core.commands import parse

#: The reactions parkbot gives a command it took up: 👀 taken up, 👍 done, 😕 refused.
TAKEN_UP_REACTIONS: frozenset[str] = frozenset({"eyes", "+1", "confused"})


@dataclass(frozen=True)
class CommentFacts:
    """One comment on a decision issue as the backend shows it; ``parkbot_reacted`` is read only for candidates."""

    comment_id: int
    author: str
    author_bot: bool
    body: str
    #: Whether parkbot's own identity gave the comment 👀, 👍 or 😕 (False when the backend did not look).
    parkbot_reacted: bool = False


def may_be_command(author_bot: bool, body: str) -> bool:
    """Whether a comment could be an untaken command, judged from its text and author alone (no request).

    A bot's comment is never taken up late: the planner's ``/cite`` and ``/pass`` count only as sent,
    through their event (parkbot's own comments are a bot's too).
    """
    return not author_bot and parse(body or "") is not None


def untaken_commands(comments: Iterable[CommentFacts]) -> list[CommentFacts]:
    """The command comments parkbot never took up (no 👀/👍/😕 of its own), oldest first, each once."""
    seen: set[int] = set()
    out: list[CommentFacts] = []
    for comment in sorted(comments, key=lambda c: c.comment_id):
        if comment.comment_id in seen or comment.parkbot_reacted:
            continue
        if may_be_command(comment.author_bot, comment.body):
            seen.add(comment.comment_id)
            out.append(comment)
    return out


def reacted_by(reactions: Iterable[tuple[str, str]], logins: Iterable[str]) -> bool:
    """Whether any ``(login, content)`` reaction is one of parkbot's taken-up reactions from one of ``logins``."""
    own = {login.casefold() for login in logins}
    return any(login.casefold() in own and content in TAKEN_UP_REACTIONS for login, content in reactions)
