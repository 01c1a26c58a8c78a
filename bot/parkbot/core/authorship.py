"""Whether a command comment is its author's own words, as the backend's records show them.

Anyone with write access can edit any comment, and an event's payload says what the text was when it
was sent, not who wrote what. So a command counts only when the backend's record names the actor as its
author and nobody else changed it; a comment whose author changed it since the event is left to the event
of that change (which carries the text as it now stands). Each surface words the refusal in its own terms;
the verdict is the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from parkbot.core.tracker import CommentRecord

#: ``own_words``: the command counts; ``changed_since``: its author changed it after the event (its own event
#: follows); ``gone``: deleted; ``other_author``: written by someone else; ``edited``: changed by someone else.
AuthorshipVerdict = Literal["own_words", "changed_since", "gone", "other_author", "edited"]


@dataclass(frozen=True)
class Authorship:
    """The verdict on one command comment, and why (``message``, plain text) when it is refused."""

    verdict: AuthorshipVerdict
    message: str = ""

    @property
    def refused(self) -> bool:
        return self.verdict in ("gone", "other_author", "edited")


def same_author(record: CommentRecord, login: str) -> bool:
    """Logins compare without case, as GitHub compares them."""
    return record.author.casefold() == login.casefold()


def authorship_problem(record: CommentRecord | None, login: str) -> str | None:
    """Why a comment is not ``login``'s own words as the backend shows them, or None when it is."""
    judged = _problem(record, login)
    return judged.message if judged is not None else None


def _problem(record: CommentRecord | None, login: str) -> Authorship | None:
    if record is None:
        return Authorship("gone", "the comment is not there any more")
    if not same_author(record, login):
        return Authorship(
            "other_author",
            f"the comment was written by {record.author}, not by {login}; "
            "only a comment's author's words are a command",
        )
    if record.editor:
        return Authorship(
            "edited",
            f"the comment was changed by {record.editor} after {record.author} wrote it; only a comment's "
            "author's own words are a command",
        )
    return None


def judge_comment(record: CommentRecord | None, login: str, body: str) -> Authorship:
    """The verdict on a command comment ``login`` sent with the text ``body``, against the backend's ``record``.

    Text its own author changed since (and nobody else touched) is ``changed_since``: the event of that
    change carries the text as it stands, so this one is left to it rather than refused.
    """
    if record is not None and record.body != body and not record.editor and same_author(record, login):
        return Authorship("changed_since")
    return _problem(record, login) or Authorship("own_words")
