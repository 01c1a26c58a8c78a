"""A command comment parkbot already took up is never answered twice (docs/github.md, "Threat model").

GitHub redelivers webhooks and anyone with write access can re-run a workflow. A command that was
refused has a reply keyed by its comment, written by parkbot after the comment's last edit: a
redelivery finds it in the read it does anyway and is silent, with no write at all. An edit of the
command by its author is new words, so it is taken up again.
"""

from __future__ import annotations

from tests.fakegithub import FakeGitHub
from tests.test_events_comments import comment_event
from tests.test_events_support import run
from tests.test_github_index_attacks import park_with_pull


def _replies(fake: FakeGitHub, number: int) -> list[str]:
    return [c.body for c in fake.comments.values() if c.issue_number == number and c.user == fake.login]


def test_a_redelivered_refused_command_is_silent_and_writes_nothing(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide no_such_option", author="alice")
    first = run(fake, "issue_comment", payload)
    assert first.status == "handled"
    assert first.acted[0].kind == "refused"
    replies = _replies(fake, number)

    again = run(fake, "issue_comment", payload)  # GitHub redelivers the same event, or the run is re-run
    assert again.status == "ignored"
    assert "already" in again.notice
    assert fake.writes() == []  # no reply edited in place, not even a reaction
    assert fake.request_count <= 2  # the config and the issue with its comments
    assert _replies(fake, number) == replies


def test_a_redelivered_unknown_command_is_silent_too(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decid full_original", author="alice")
    assert run(fake, "issue_comment", payload).acted[0].kind == "refused"
    again = run(fake, "issue_comment", payload)
    assert again.status == "ignored"
    assert fake.writes() == []


def test_the_author_s_edit_of_a_refused_command_is_taken_up(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide no_such_option", author="alice")
    assert run(fake, "issue_comment", payload).acted[0].kind == "refused"

    fake.edit_comment(payload["comment"]["id"], "/decide full_original", editor="alice")
    payload["action"] = "edited"
    payload["comment"]["body"] = "/decide full_original"
    outcome = run(fake, "issue_comment", payload)
    assert outcome.status == "handled"
    assert outcome.acted[0].kind == "resolved"
    assert fake.issues[number].state == "closed"


def test_a_reply_someone_else_forged_does_not_silence_a_command(fake: FakeGitHub) -> None:
    number, _ = park_with_pull(fake)
    payload = comment_event(fake, number, "/decide full_original", author="alice")
    cid = payload["comment"]["id"]
    fake.add_comment(number, f"<!-- parkbot:reply {cid} -->\nalready done", author="mallory")
    outcome = run(fake, "issue_comment", payload)
    assert outcome.acted[0].kind == "resolved"
