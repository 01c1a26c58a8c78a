"""Whose words a comment carries, read from GitHub's own records (parkbot.trackers.github.comments).

A command counts only as its author's words, and a record only as parkbot's: these tests hold the
comment records the handlers and the lifecycle read, through the real PyGithub path on the fake.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pytest

from parkbot.core.errors import BackendFailure
from parkbot.core.models import Answer
from parkbot.core.tracker import CommentRecord
from parkbot.core.untaken import CommentFacts
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.render import (
    marker,
    read_marker,
    render_answer_comment,
    render_decision,
    render_reply,
    work_chunk_key,
)
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import DID, NOW, decision_issue, make_tracker, park


def issue_number(fake: FakeGitHub, tracker: GitHubTracker) -> int:
    park(tracker)
    return int(decision_issue(fake).number)


def untimed(record: CommentRecord | None) -> CommentRecord | None:
    """``record`` without its time, which GitHub always records (checked here), so records compare by who and what."""
    assert record is None or record.created_at is not None
    return None if record is None else dataclasses.replace(record, created_at=None)


# --- who wrote a comment, and who changed it --------------------------------------------------


def test_a_comment_record_names_its_author_and_no_editor_while_only_the_author_wrote_it(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    fake.edit_comment(posted.id, "/decide remaining_three", editor="Alice")  # logins ignore case
    assert untimed(tracker.comment_record(number, posted.id)) == CommentRecord("alice", "/decide remaining_three", None)
    assert untimed(tracker.comment_record(number, str(posted.id))) == CommentRecord(
        "alice", "/decide remaining_three", None
    )


def test_a_comment_someone_else_changed_names_that_editor_and_the_text_now(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    posted = fake.add_comment(number, "/decide remaining_three", author="alice")
    fake.edit_comment(posted.id, "/decide full_original", editor="mallory")
    assert untimed(tracker.comment_record(number, posted.id)) == CommentRecord(
        "alice", "/decide full_original", "mallory"
    )


def test_a_bot_s_comment_says_its_author_is_a_bot(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    posted = fake.add_comment(number, "/decide full_original", author="helper[bot]")
    assert untimed(tracker.comment_record(number, posted.id)) == CommentRecord(
        "helper[bot]", "/decide full_original", None, author_bot=True
    )


def test_a_comment_posted_after_the_issue_was_read_is_found_by_reading_again(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    first = fake.add_comment(number, "first", author="alice")
    assert tracker.comment_record(number, first.id) is not None  # the comments are read and kept
    later = fake.add_comment(number, "/decide full_original", author="bob")
    assert untimed(tracker.comment_record(number, later.id)) == CommentRecord("bob", "/decide full_original", None)


def test_no_record_for_a_deleted_comment_or_an_id_that_is_not_a_number(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    assert tracker.comment_record(number, 999_999) is None
    assert tracker.comment_record(number, "issuecomment-1") is None


def test_a_comment_s_url_is_on_its_issue(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    posted = fake.add_comment(number, "hello", author="alice")
    assert tracker.comment_url(number, posted.id) == f"{fake.repo_web}/issues/{number}#issuecomment-{posted.id}"
    other = fake.add_issue(title="Not a decision", body="")
    assert tracker.comment_url(other.number, 5) == f"{fake.repo_web}/issues/{other.number}#issuecomment-5"


# --- parkbot's own comments -------------------------------------------------------------------


def replies_on(fake: FakeGitHub, number: int) -> list[tuple[str, str]]:
    return [
        (c.user, c.body)
        for c in fake.comments.values()
        if c.issue_number == number and (m := read_marker(c.body)) is not None and m.kind == "reply"
    ]


def test_a_reply_is_posted_once_and_left_alone_while_unchanged(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    tracker.comments.reply(number, "77", "Recorded.")
    fake.reset_log()
    tracker.comments.reply(number, "77", "Recorded.")
    assert fake.writes() == []
    assert replies_on(fake, number) == [(tracker.own_login, render_reply("77", "Recorded."))]


def test_a_reply_someone_else_changed_is_written_back_and_a_forged_one_is_ignored(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    forged = fake.add_comment(number, render_reply("77", "Forged."), author="mallory")
    raw = tracker.comments.reply(number, "77", "Recorded.")
    assert raw["id"] != forged.id  # a reply marker anyone else posted is not parkbot's reply
    fake.edit_comment(int(raw["id"]), render_reply("77", "Recorded."), editor="mallory")  # same text, not its own
    fake.reset_log()
    tracker.comments.reply(number, "77", "Recorded.")
    (write,) = fake.writes()
    assert write.startswith("PATCH ")
    assert write.endswith(f"/issues/comments/{raw['id']}")
    assert replies_on(fake, number) == [
        ("mallory", render_reply("77", "Forged.")),
        (tracker.own_login, render_reply("77", "Recorded.")),
    ]


def test_only_parkbot_s_unchanged_comment_is_its_trusted_record(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    own = tracker.comments.post(number, "parkbot's text")
    theirs = fake.add_comment(number, "someone's text", author="alice")
    comments = {int(c["id"]): c for c in tracker.store.comments.of(number, refresh=True)}
    mine, other = comments[int(own["id"])], comments[theirs.id]
    assert (tracker.comments.by_parkbot(mine), tracker.comments.trusted(mine)) == (True, True)
    assert tracker.comments.own_text(mine) == "parkbot's text"
    assert (tracker.comments.by_parkbot(other), tracker.comments.trusted(other)) == (False, False)
    assert tracker.comments.own_text(other) is None

    fake.edit_comment(int(own["id"]), "mallory's text", editor="mallory")
    changed = next(c for c in tracker.store.comments.of(number, refresh=True) if int(c["id"]) == int(own["id"]))
    assert (tracker.comments.by_parkbot(changed), tracker.comments.trusted(changed)) == (True, False)
    assert tracker.comments.own_text(changed) == "parkbot's text"  # from the edit history


# --- overflow comments ------------------------------------------------------------------------


def work(key: str) -> str:
    return f"{marker('work', key)}\npart {key}"


def overflow_on(fake: FakeGitHub, number: int) -> list[tuple[str, str]]:
    return [
        (c.user, c.body)
        for c in sorted(fake.comments.values(), key=lambda c: c.id)
        if c.issue_number == number and work_chunk_key(c.body) is not None
    ]


def test_the_overflow_comments_become_exactly_the_wanted_ones_and_others_are_left_alone(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    tracker.comments.sync_overflow(number, (work("abc.1.2"), work("abc.2.2")))
    forged = fake.add_comment(number, work("old.1.1"), author="mallory")  # not parkbot's: never deleted
    tracker.comments.sync_overflow(number, (work("def.1.1"),))
    me = tracker.own_login
    assert overflow_on(fake, number) == [("mallory", forged.body), (me, work("def.1.1"))]
    fake.reset_log()
    tracker.comments.sync_overflow(number, (work("def.1.1"),))
    assert fake.writes() == []  # already as wanted


def test_an_overflow_comment_already_deleted_is_not_an_error(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    tracker.comments.sync_overflow(number, (work("abc.1.1"),))
    comments = tracker.store.comments.of(number, refresh=True)  # read, then someone deletes it
    (stale,) = [c for c in comments if work_chunk_key(c.get("body")) == "abc.1.1"]
    del fake.comments[int(stale["id"])]
    tracker.comments._delete(number, int(stale["id"]))  # a retried delete finds it gone (404)
    assert overflow_on(fake, number) == []


# --- answer records ---------------------------------------------------------------------------


def test_only_parkbot_s_own_answer_record_counts_and_an_edited_one_is_written_back(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    decision = tracker.find(DID)
    assert decision is not None
    answer = Answer(value="full_original", kind="option", by="alice", at=NOW)
    text = render_answer_comment(decision, answer)
    fake.add_comment(number, text, author="mallory")  # a forged record carries nothing
    assert tracker.comments.answer_record(number, DID) is None
    assert tracker.comments.restore_answer_record(number, DID) is False

    own = tracker.comments.post(number, text)
    hit = tracker.comments.answer_record(number, DID)
    assert hit is not None
    assert (hit[0]["id"], hit[0]["own_body"], hit[1].value) == (own["id"], text, "full_original")
    fake.reset_log()
    assert tracker.comments.restore_answer_record(number, DID) is True
    assert fake.writes() == []  # unchanged: nothing to write back

    fake.edit_comment(int(own["id"]), text.replace("full_original", "remaining_three"), editor="mallory")
    tracker.store.comments.of(number, refresh=True)
    hit = tracker.comments.answer_record(number, DID)
    assert hit is not None
    assert hit[1].value == "full_original"  # read as parkbot wrote it
    assert tracker.comments.restore_answer_record(number, DID) is True
    assert fake.comments[int(own["id"])].body == text
    cached = [c for c in tracker.store.comments.cached(number) if int(c["id"]) == int(own["id"])]
    assert [(c["body"], c["editor"]) for c in cached] == [(text, {"login": tracker.store.token_login()})]


# --- requests: how many, and what a failure says ----------------------------------------------


def test_a_comment_already_read_with_its_issue_costs_no_request(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    tracker.store.comments.of(number, refresh=True)
    fake.reset_log()
    assert untimed(tracker.comment_record(number, posted.id)) == CommentRecord("alice", "/decide full_original", None)
    assert fake.request_count == 0


def test_an_upsert_that_may_use_what_was_read_reads_nothing_again(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    tracker.comments.upsert(number, "reply", "77", render_reply("77", "Recorded."))
    fake.reset_log()
    tracker.comments.upsert(number, "reply", "77", render_reply("77", "Recorded."), refresh=False)
    assert fake.request_count == 0


def test_what_parkbot_writes_is_what_it_remembers_of_the_issue_s_comments(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    raw = tracker.comments.upsert(number, "reply", "77", render_reply("77", "A."))
    fake.edit_comment(int(raw["id"]), render_reply("77", "B."), editor="mallory")
    tracker.comments.upsert(number, "reply", "77", render_reply("77", "A."))
    cached = [(c["body"], c.get("editor")) for c in tracker.store.comments.cached(number) if c["id"] == raw["id"]]
    assert cached == [(render_reply("77", "A."), {"login": tracker.store.token_login()})]
    added = tracker.comments.upsert(number, "reply", "78", render_reply("78", "C."))
    assert [c["id"] for c in tracker.store.comments.cached(number)][-1] == added["id"]


@pytest.mark.parametrize(
    ("act", "match", "said"),
    [
        (lambda t, n: t.comments.post(n, "hello"), r"^POST .*/comments$", "comment on #{n}"),
        (
            lambda t, n: t.comments.upsert(n, "reply", "77", render_reply("77", "A.")),
            r"^POST .*/comments$",
            "write the reply comment on #{n}",
        ),
        (lambda t, n: t.comments._delete(n, 123), r"^DELETE ", "delete an outdated comment on #{n}"),
    ],
)
def test_a_write_that_keeps_failing_says_which_write_it_was(
    fake: FakeGitHub, tracker: GitHubTracker, act: Any, match: str, said: str
) -> None:
    number = issue_number(fake, tracker)
    fake.fail_next("502", count=50, match=match)
    with pytest.raises(BackendFailure) as failed:
        act(tracker, number)
    assert said.format(n=number) in failed.value.message


def answer_record_mallory_edited(fake: FakeGitHub, tracker: GitHubTracker) -> tuple[int, dict[str, Any]]:
    """The issue's number and parkbot's answer record on it, whose answer mallory then changed."""
    number = issue_number(fake, tracker)
    decision = tracker.find(DID)
    assert decision is not None
    text = render_answer_comment(decision, Answer(value="full_original", kind="option", by="alice", at=NOW))
    own = tracker.comments.post(number, text)
    fake.edit_comment(int(own["id"]), text.replace("full_original", "remaining_three"), editor="mallory")
    return number, own


def test_restoring_an_answer_record_that_keeps_failing_names_the_comment(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number, own = answer_record_mallory_edited(fake, tracker)
    tracker.store.comments.of(number, refresh=True)
    fake.fail_next("502", count=50, match=r"^PATCH ")
    with pytest.raises(BackendFailure) as failed:
        tracker.comments.restore_answer_record(number, DID)
    assert f"restore parkbot's comment {own['id']} on #{number}" in failed.value.message


def test_a_comment_whose_author_deleted_their_account_is_nobody_s(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    fake.comments[posted.id].user = None  # GraphQL's author of a deleted account is null
    record = tracker.comment_record(number, posted.id)
    assert untimed(record) == CommentRecord("a deleted account", "/decide full_original", "a deleted account")


def test_a_write_retried_after_a_failure_reads_the_comments_again_first(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """The failed attempt may have landed after all: the retry looks before it writes (never posts twice)."""
    number = issue_number(fake, tracker)
    tracker.store.comments.of(number, refresh=True)
    fake.reset_log()
    fake.fail_next("502", count=1, match=r"^POST .*/comments$")
    tracker.comments.upsert(number, "reply", "77", render_reply("77", "A."), refresh=False)
    comments = f"/repos/acme/widgets/issues/{number}/comments"
    assert [(r.method, r.path, r.status) for r in fake.requests] == [
        ("POST", comments, 502),
        ("POST", "/graphql", 200),  # the issue's comments, read again
        ("POST", comments, 201),
    ]


def test_a_record_whose_every_version_by_parkbot_was_deleted_from_the_history_carries_nothing(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """Someone with write access changed parkbot's answer record and deleted parkbot's version from its history."""
    number, own = answer_record_mallory_edited(fake, tracker)
    fake.delete_revision(fake.comments[int(own["id"])], 0, by="mallory")
    changed = next(c for c in tracker.store.comments.of(number, refresh=True) if int(c["id"]) == int(own["id"]))
    assert (tracker.comments.by_parkbot(changed), tracker.comments.trusted(changed)) == (True, False)
    assert tracker.comments.own_text(changed) is None
    assert tracker.comments.answer_record(number, DID) is None  # mallory's text is not read as parkbot's
    assert tracker.comments.restore_answer_record(number, DID) is False


# --- which commands were taken up -------------------------------------------------------------


def taken_up(fake: FakeGitHub, tracker: GitHubTracker, number: int, comment_id: int) -> bool:
    tracker.store.comments.of(number, refresh=True)
    record = tracker.comment_record(number, comment_id)
    assert record is not None
    return record.taken_up


def test_a_command_is_taken_up_once_parkbot_replied_after_its_last_edit(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    number = issue_number(fake, tracker)
    command = fake.add_comment(number, "/decide full_original", author="alice")
    assert taken_up(fake, tracker, number, command.id) is False
    tracker.comments.reply(number, str(command.id), "Recorded.")
    assert taken_up(fake, tracker, number, command.id) is True
    fake.edit_comment(command.id, "/decide remaining_three", editor="alice")  # edited after the reply
    assert taken_up(fake, tracker, number, command.id) is False
    tracker.comments.reply(number, str(command.id), "Recorded again.")  # the reply edited after the command
    assert taken_up(fake, tracker, number, command.id) is True


def test_only_parkbot_s_own_reply_to_that_very_command_takes_it_up(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = issue_number(fake, tracker)
    command = fake.add_comment(number, "/decide full_original", author="alice")
    fake.add_comment(number, render_reply(str(command.id), "Recorded."), author="mallory")  # a forged reply
    tracker.comments.reply(number, str(command.id + 1000), "Recorded.")  # parkbot's reply to another command
    assert taken_up(fake, tracker, number, command.id) is False


def test_a_reply_in_the_same_second_as_the_command_does_not_take_it_up(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """GitHub's clock counts seconds: a command edited in the reply's second may be newer, so it is taken up again."""
    number = issue_number(fake, tracker)
    command = fake.add_comment(number, "/decide full_original", author="alice")
    raw = tracker.comments.reply(number, str(command.id), "Recorded.")
    reply = fake.comments[int(raw["id"])]
    reply.created_at = reply.updated_at = fake.comments[command.id].created_at
    assert taken_up(fake, tracker, number, command.id) is False


def test_the_command_facts_say_who_wrote_what_and_ask_for_reactions_only_on_humans_commands(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """A bot's comment and a deleted account's are never taken up late (the Bot ``renovate`` is ``renovate[bot]``)."""

    number = issue_number(fake, tracker)
    fake.add_user("renovate", type="Bot")
    alice = fake.add_comment(number, "/decide full_original", author="alice")
    bob = fake.add_comment(number, "/decide remaining_three", author="bob")
    carol = fake.add_comment(number, "Thanks!", author="carol")
    helper = fake.add_comment(number, "/decide full_original", author="helper[bot]")
    renovate = fake.add_comment(number, "/decide full_original", author="renovate")
    gone = fake.add_comment(number, "/decide full_original", author="dave")
    fake.comments[gone.id].user = None  # GraphQL's author of a deleted account is null
    asked: list[int] = []

    def reacted(comment_id: int) -> bool:
        asked.append(comment_id)
        return comment_id != bob.id

    tracker.store.comments.of(number, refresh=True)
    facts = [f for f in tracker.comments.command_facts(number, reacted) if f.comment_id >= alice.id]
    assert facts == [
        CommentFacts(alice.id, "alice", False, "/decide full_original", parkbot_reacted=True),
        CommentFacts(bob.id, "bob", False, "/decide remaining_three", parkbot_reacted=False),
        CommentFacts(carol.id, "carol", False, "Thanks!", parkbot_reacted=False),
        CommentFacts(helper.id, "helper[bot]", True, "/decide full_original", parkbot_reacted=False),
        CommentFacts(renovate.id, "renovate[bot]", True, "/decide full_original", parkbot_reacted=False),
        CommentFacts(gone.id, "", True, "/decide full_original", parkbot_reacted=False),
    ]
    assert [type(f.author_bot) for f in facts] == [bool] * 6
    assert asked == [alice.id, bob.id]


def test_an_overflow_comment_someone_else_changed_is_read_as_parkbot_wrote_it_and_written_back(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """Anyone with write access can edit any comment: an edited chunk of the work must not damage the decision."""
    work = {"blob": os.urandom(60_000).hex() + os.urandom(60_000).hex()}
    number = issue_number(fake, tracker)
    park(tracker, work_so_far=work)
    (first, *_) = [c for c in fake.comments.values() if c.issue_number == number and work_chunk_key(c.body)]
    own = first.body
    fake.edit_comment(first.id, own.replace("A", "B", 1).replace("a", "b", 1), editor="mallory")
    stored = make_tracker(fake).find(DID)
    assert stored is not None
    assert (stored.work_so_far, stored.problems) == (work, ())
    assert park(make_tracker(fake), work_so_far=work).action == "unchanged"
    fake.reset_log()
    make_tracker(fake).comments.sync_overflow(number, render_decision(stored).overflow)  # the next update's write
    assert [w.split(" ")[0] for w in fake.writes()] == ["PATCH"]
    assert (fake.comments[first.id].body, fake.comments[first.id].edits[-1].editor) == (own, tracker.own_login)


def test_an_overflow_comment_someone_else_saved_unchanged_costs_no_write(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """Writing the same text back would change nothing on GitHub (it records no edit of an unchanged text)."""
    number = issue_number(fake, tracker)
    tracker.comments.sync_overflow(number, (work("abc.1.1"),))
    (chunk,) = [c for c in fake.comments.values() if c.issue_number == number and work_chunk_key(c.body)]
    fake.edit_comment(chunk.id, work("abc.1.1"), editor="mallory")
    fake.reset_log()
    tracker.comments.sync_overflow(number, (work("abc.1.1"),))
    assert fake.writes() == []
    assert tracker.comments.overflow(number) == [work("abc.1.1")]
