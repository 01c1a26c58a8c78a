"""Reactions on command comments: 👀 when taken up, then 👍 done or 😕 refused; idempotent; never fatal."""

from __future__ import annotations

import pytest

from parkbot.core import lifecycle
from parkbot.core.errors import BackendFailure
from parkbot.core.tracker import CommentReactions
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.client import RetryPolicy
from tests.support.events import comment, handle
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import CONFIG, DID, NOW, make_tracker, needs_input
from tests.support.memory_tracker import MemoryTracker


def reactions(fake: FakeGitHub, comment_id: int) -> list[str]:
    return [r.content for r in fake.reactions if r.comment_id == comment_id]


def last_comment(fake: FakeGitHub, author: str) -> int:
    return max(c.id for c in fake.comments.values() if c.user == author)


@pytest.fixture
def number(fake: FakeGitHub) -> int:
    outcome = lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW)
    assert outcome.location.number is not None
    return outcome.location.number


def test_the_github_tracker_reacts_once_per_reaction(fake: FakeGitHub, tracker: GitHubTracker, number: int) -> None:
    assert isinstance(tracker, CommentReactions)
    posted = fake.add_comment(number, "nice", author="alice")
    fake.reset_log()
    tracker.react(number, posted.id, "eyes")
    tracker.react(number, str(posted.id), "eyes")  # again: GitHub answers 200 with the same reaction
    tracker.react(number, posted.id, "+1")
    assert reactions(fake, posted.id) == ["eyes", "+1"]
    assert [r.status for r in fake.requests] == [201, 200, 201]
    assert fake.count("POST", rf"/repos/acme/widgets/issues/comments/{posted.id}/reactions") == 3
    assert {r.user for r in fake.reactions} == {fake.login}
    with pytest.raises(ValueError, match="not a GitHub reaction"):
        tracker.react(number, posted.id, "thumbs")  # type: ignore[arg-type]


def test_a_missing_comment_is_a_backend_failure(fake: FakeGitHub, tracker: GitHubTracker, number: int) -> None:
    with pytest.raises(BackendFailure, match="404"):
        tracker.react(number, 999, "eyes")


def test_an_answer_gets_eyes_then_thumbs_up(fake: FakeGitHub, number: int) -> None:
    fake.reset_log()
    result = comment(fake, number, "/decide full_original")
    assert result.action == "resolved"
    posted = last_comment(fake, "alice")
    assert reactions(fake, posted) == ["eyes", "+1"]
    eyes, done = (i for i, r in enumerate(fake.requests) if r.path.endswith("/reactions"))
    # the first write, right after the one read that says the comment was not taken up before (a redelivery
    # writes nothing): the owner sees it was taken up at once
    assert eyes == 1
    assert fake.writes()[0].endswith("/reactions")
    assert done == len(fake.requests) - 1  # and the last one, after the resolution


def test_a_refusal_gets_eyes_then_confused(fake: FakeGitHub, number: int) -> None:
    result = comment(fake, number, "/decide full_original", author="mallory")
    assert result.refused
    assert reactions(fake, last_comment(fake, "mallory")) == ["eyes", "confused"]
    malformed = comment(fake, number, "/override x")
    assert malformed.refused
    assert reactions(fake, last_comment(fake, "alice")) == ["eyes", "confused"]


def test_no_command_no_reaction(fake: FakeGitHub, number: int) -> None:
    fake.reset_log()
    assert comment(fake, number, "thanks, looking into it").action == "ignored"
    assert comment(fake, number, "<!-- parkbot:reply 1 -->\n/decide x", author=fake.login).action == "ignored"
    assert fake.reactions == []
    assert fake.request_count == 0


def test_handling_the_same_comment_again_adds_no_reaction(fake: FakeGitHub, number: int) -> None:
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    assert handle(fake, number, posted.id, posted.body, "alice").action == "resolved"
    again = handle(fake, number, posted.id, posted.body, "alice")
    assert (again.action, again.reason) == ("ignored", "already_taken_up")  # silently: no second reply
    assert reactions(fake, posted.id) == ["eyes", "+1"]


def test_a_failing_reaction_never_fails_the_command(fake: FakeGitHub, number: int) -> None:
    fake.fail_next("500", count=1000, match=r"/reactions$")
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    from parkbot.core.authority import Actor
    from parkbot.events.commands import handle_comment

    tracker = make_tracker(fake, policy=RetryPolicy.instant(max_attempts=2))
    result = handle_comment(
        tracker, CONFIG, issue_number=number, comment_id=posted.id, body=posted.body, actor=Actor("alice"), now=NOW
    )
    assert result.action == "resolved"
    assert fake.issues[number].state == "closed"
    assert fake.reactions == []
    assert make_tracker(fake).find(DID).state == "resolved"  # type: ignore[union-attr]


def test_the_reference_tracker_reacts_too() -> None:
    memory = MemoryTracker()
    assert isinstance(memory, CommentReactions)
    memory.react(3, 17, "eyes")
    memory.react(3, "17", "eyes")
    assert memory.reactions == [(3, "17", "eyes")]
