"""parkbot.core.authorship: a command counts only as its author's own words, as the backend records them."""

from __future__ import annotations

from parkbot.core.authorship import authorship_problem, judge_comment, same_author
from parkbot.core.tracker import CommentRecord

SENT = "/decide remaining_three"


def test_the_authors_unchanged_words_count() -> None:
    verdict = judge_comment(CommentRecord(author="alice", body=SENT), "alice", SENT)
    assert verdict.verdict == "own_words"
    assert not verdict.refused
    assert verdict.message == ""


def test_logins_compare_without_case() -> None:
    assert same_author(CommentRecord(author="Alice", body=SENT), "aLICE")
    assert judge_comment(CommentRecord(author="Alice", body=SENT), "alice", SENT).verdict == "own_words"
    assert not same_author(CommentRecord(author="alice", body=SENT), "alicia")


def test_a_deleted_comment_is_refused() -> None:
    verdict = judge_comment(None, "alice", SENT)
    assert verdict.verdict == "gone"
    assert verdict.refused
    assert verdict.message == "the comment is not there any more"


def test_someone_elses_comment_is_not_the_actors_command() -> None:
    """An event claiming alice sent mallory's comment: the record names the real author, and it is refused."""
    verdict = judge_comment(CommentRecord(author="mallory", body=SENT), "alice", SENT)
    assert verdict.verdict == "other_author"
    assert verdict.refused
    assert verdict.message == (
        "the comment was written by mallory, not by alice; only a comment's author's words are a command"
    )


def test_words_changed_by_another_person_are_refused_even_when_the_text_matches() -> None:
    """A maintainer with write access edits the owner's comment into a command: not the owner's words."""
    record = CommentRecord(author="alice", body=SENT, editor="mallory")
    verdict = judge_comment(record, "alice", SENT)
    assert verdict.verdict == "edited"
    assert verdict.refused
    assert verdict.message == (
        "the comment was changed by mallory after alice wrote it; only a comment's author's own words are a command"
    )
    # Changed by someone else *and* changed since: still refused, never left to a later event.
    assert judge_comment(record, "alice", "/decide full_original").verdict == "edited"


def test_text_the_author_changed_since_is_left_to_the_event_of_that_change() -> None:
    verdict = judge_comment(CommentRecord(author="alice", body="/decide full_original"), "alice", SENT)
    assert verdict.verdict == "changed_since"
    assert not verdict.refused


def test_changed_text_under_another_author_is_refused_not_left() -> None:
    verdict = judge_comment(CommentRecord(author="mallory", body="/decide full_original"), "alice", SENT)
    assert verdict.verdict == "other_author"


def test_authorship_problem_gives_the_message_or_none() -> None:
    assert authorship_problem(CommentRecord(author="alice", body=SENT), "alice") is None
    assert authorship_problem(None, "alice") == "the comment is not there any more"
    assert "written by bob" in (authorship_problem(CommentRecord(author="bob", body=SENT), "alice") or "")
