"""The scheduled reconcile answers command comments whose ``issue_comment`` event never ran.

A command comment with no 👀/👍/😕 from parkbot's own identity was never taken up; the reconcile hands it
to the comment handler the event uses, so it is judged (authorship, authority, redelivery) as the event
would have judged it. Through the fake GitHub, end to end.
"""

from __future__ import annotations

from typing import Any

from parkbot.core.untaken import CommentFacts, reacted_by, untaken_commands
from parkbot.trackers.github import RESOLVED_LABEL
from parkbot.trackers.github.render import read_marker
from tests.support.events import park, run, webhook
from tests.support.fakegithub import Reaction
from tests.support.github_helpers import DID

REACTIONS = "reactions/list-for-issue-comment"


def reactions_on(fake: Any, comment_id: int) -> set[tuple[str, str]]:
    return {(r.user, r.content) for r in fake.reactions if r.comment_id == comment_id}


def replies_on(fake: Any, number: int) -> list[Any]:
    return [c for c in fake.comments.values() if c.issue_number == number and read_marker(c.body)]


def test_an_owners_decide_whose_event_never_ran_is_answered_by_the_next_reconcile(fake: Any) -> None:
    number = park(fake)
    posted = fake.add_comment(number, "/decide full_original", author="alice")  # no issue_comment event ran

    outcome = run(fake, "schedule", webhook("schedule"))

    assert ("resolved", DID) in {(i.kind, i.decision_id) for i in outcome.items}
    assert fake.issues[number].state == "closed"
    assert RESOLVED_LABEL in fake.issues[number].labels
    assert {content for _, content in reactions_on(fake, posted.id)} == {"eyes", "+1"}
    assert fake.count(operation=REACTIONS) == 1  # the one command comment's reactions, read once
    assert outcome.exit_code == 0


def test_a_second_reconcile_does_nothing_more(fake: Any) -> None:
    number = park(fake)
    other = park(fake, key="shipping", title="Shipping", question="Ship now or later?")
    fake.add_comment(number, "/decide full_original", author="alice")
    fake.add_comment(other, "/decide nonsense_option", author="alice")  # refused: the decision stays open
    run(fake, "schedule", webhook("schedule"))
    replies = len(replies_on(fake, other))
    assert replies == 1
    fake.reset_log()

    outcome = run(fake, "schedule", webhook("schedule"))

    writes = [w for w in fake.writes() if "/reactions" in w or "/comments" in w]
    assert writes == []  # no reaction, no reply, no resolution again
    assert len(replies_on(fake, other)) == replies
    assert not [i for i in outcome.items if i.kind in ("resolved", "refused")]


def test_a_comment_parkbot_already_reacted_to_is_left_alone(fake: Any) -> None:
    number = park(fake)
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    fake.reactions.append(Reaction(fake.next_id("reaction"), posted.id, fake.login, "eyes", fake.tick()))

    outcome = run(fake, "schedule", webhook("schedule"))

    assert fake.issues[number].state == "open"  # taken up earlier (say, a run that died): not the reconcile's
    assert not replies_on(fake, number)
    assert not [i for i in outcome.items if i.kind in ("resolved", "refused")]
    assert fake.count("POST", r".*/reactions") == 0


def test_someone_elses_reaction_does_not_count_as_taken_up(fake: Any) -> None:
    number = park(fake)
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    fake.add_user("bob")
    fake.reactions.append(Reaction(fake.next_id("reaction"), posted.id, "bob", "eyes", fake.tick()))

    run(fake, "schedule", webhook("schedule"))

    assert fake.issues[number].state == "closed"


def test_a_strangers_command_is_refused_as_the_event_would_refuse_it(fake: Any) -> None:
    number = park(fake)
    posted = fake.add_comment(number, "/decide full_original", author="mallory")

    outcome = run(fake, "schedule", webhook("schedule"))

    assert [i.kind for i in outcome.items if i.kind == "refused"] == ["refused"]
    assert fake.issues[number].state == "open"
    assert any("mallory" in c.body for c in replies_on(fake, number))
    assert "confused" in {content for _, content in reactions_on(fake, posted.id)}
    assert outcome.exit_code == 0


def test_a_bots_command_is_never_taken_up_late(fake: Any) -> None:
    number = park(fake)
    fake.add_user("someapp[bot]", type="Bot")
    fake.add_comment(number, "/decide full_original", author="someapp[bot]")

    run(fake, "schedule", webhook("schedule"))

    assert fake.issues[number].state == "open"
    assert fake.count(operation=REACTIONS) == 0


def test_the_request_cost_is_one_per_human_command_comment_on_an_open_decision(fake: Any) -> None:
    numbers = [park(fake, key=f"q{i}", title=f"Question {i}", question=f"Which {i}?") for i in range(3)]
    run(fake, "schedule", webhook("schedule"))
    fake.reset_log()
    run(fake, "schedule", webhook("schedule"))
    before = fake.request_count

    for number in numbers:  # talk, no command: read with the comments the reconcile reads anyway
        fake.add_comment(number, "Thanks, I will think about it. See /usr/bin/env.", author="alice")
    fake.reset_log()
    run(fake, "schedule", webhook("schedule"))
    assert fake.request_count == before
    assert fake.count(operation=REACTIONS) == 0

    for number in numbers:  # commands parkbot already took up: one reactions read each, nothing else
        posted = fake.add_comment(number, "/decide nonsense", author="alice")
        fake.reactions.append(Reaction(fake.next_id("reaction"), posted.id, fake.login, "confused", fake.tick()))
    fake.reset_log()
    run(fake, "schedule", webhook("schedule"))
    assert fake.count(operation=REACTIONS) == len(numbers)
    assert fake.request_count == before + len(numbers)


def test_the_rule_is_pure() -> None:
    facts = [
        CommentFacts(3, "alice", False, "/decide a"),
        CommentFacts(1, "alice", False, "/decide a", parkbot_reacted=True),
        CommentFacts(2, "ci[bot]", True, "/decide a"),
        CommentFacts(4, "bob", False, "no command here"),
        CommentFacts(3, "alice", False, "/decide a"),
    ]
    assert [c.comment_id for c in untaken_commands(facts)] == [3]
    assert reacted_by([("PARKBOT[bot]", "+1")], ["parkbot[bot]"])
    assert not reacted_by([("parkbot[bot]", "heart"), ("bob", "eyes")], ["parkbot[bot]"])
