"""Owner commands in comments: who may answer, and visible, idempotent refusals that change nothing."""

from __future__ import annotations

import pytest

from parkbot.core import lifecycle
from parkbot.core.config import Config, Owners
from parkbot.trackers.github import DECISION_LABEL
from tests.support.events import comment, handle, replies
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import CONFIG, DID, NOW, make_tracker, needs_input
from tests.support.results import review_result


@pytest.fixture
def number(fake: FakeGitHub) -> int:
    outcome = lifecycle.park(make_tracker(fake), needs_input(), CONFIG, now=NOW)
    assert outcome.location.number is not None
    return outcome.location.number


def state(fake: FakeGitHub, number: int) -> tuple[str, list[str]]:
    issue = fake.issues[number]
    return issue.state, sorted(issue.labels)


def test_owner_decides_and_the_answer_cites_the_comment(fake: FakeGitHub, number: int) -> None:
    outcome = comment(fake, number, "Looked at it.\n\n/decide full_original")
    assert outcome.action == "resolved"
    assert fake.issues[number].state == "closed"
    stored = make_tracker(fake).find(DID)
    assert stored is not None
    assert stored.answer.value == "full_original"  # type: ignore[union-attr]
    assert stored.answer.source.startswith(f"https://github.com/acme/widgets/issues/{number}#issuecomment-")  # type: ignore[union-attr]
    assert replies(fake, number) == []  # the resolution comment is the confirmation


def test_answers_defaults_and_free_text(fake: FakeGitHub) -> None:
    tracker = make_tracker(fake)
    n1 = lifecycle.park(tracker, needs_input(key="a"), CONFIG, now=NOW).location.number
    assert comment(fake, n1, "/default remaining_three").outcome.answer.kind == "default"  # type: ignore[arg-type]
    n2 = lifecycle.park(tracker, needs_input(key="b", options=[]), CONFIG, now=NOW).location.number
    outcome = comment(fake, n2, "/answer refund 500\nand call the customer")  # type: ignore[arg-type]
    assert outcome.outcome.answer.value == "refund 500\nand call the customer"


@pytest.mark.parametrize(
    ("body", "author", "reason", "says"),
    [
        ("/decide full_original", "mallory", "not_authorized", "may not answer"),
        ("/decide half", "alice", "invalid", "is not an option"),
        ("/answer whatever you like", "alice", "invalid", "takes no free-text answer"),
        ("/decide", "alice", "invalid_command", "needs an option id"),
        ("/decide full_original", "helper[bot]", "not_authorized", "bot"),
    ],
)
def test_refusals_reply_once_and_change_nothing(
    fake: FakeGitHub, number: int, body: str, author: str, reason: str, says: str
) -> None:
    before = state(fake, number)
    posted = fake.add_comment(number, body, author=author)
    first = handle(fake, number, posted.id, body, author)
    again = handle(fake, number, posted.id, body, author)  # the same event delivered twice
    assert (first.action, first.reason) == ("refused", reason)
    assert (again.action, again.reason) == ("ignored", "already_taken_up")  # silent: replied once already
    found = replies(fake, number)
    assert len(found) == 1
    assert says in found[0]
    assert "Nothing was changed" in found[0]
    assert state(fake, number) == before
    assert make_tracker(fake).recorded_answer(make_tracker(fake).find(DID)) is None  # type: ignore[arg-type]


def test_each_command_comment_gets_its_own_reply(fake: FakeGitHub, number: int) -> None:
    comment(fake, number, "/decide half")
    comment(fake, number, "/decide nope")
    assert len(replies(fake, number)) == 2


def test_a_different_answer_after_resolution_is_refused_quoting_it(fake: FakeGitHub, number: int) -> None:
    comment(fake, number, "/decide full_original")
    outcome = comment(fake, number, "/decide remaining_three", author="carol")
    assert (outcome.action, outcome.reason) == ("refused", "conflicting_answer")
    assert "'full_original'" in replies(fake, number)[0]
    same = comment(fake, number, "/decide full_original", author="carol")
    assert same.action == "unchanged"


def test_not_a_decision_issue(fake: FakeGitHub) -> None:
    plain = fake.add_issue("A bug")
    outcome = comment(fake, plain.number, "/decide x")
    assert (outcome.action, outcome.reason) == ("refused", "not_a_decision")
    assert "not a parkbot decision issue" in replies(fake, plain.number)[0]


def test_own_comments_and_chatter_are_ignored_without_requests(fake: FakeGitHub, number: int) -> None:
    fake.reset_log()
    bot_reply = "<!-- parkbot:reply 1 -->\n`/decide x` from `mallory` was not applied"
    assert handle(fake, number, 1, bot_reply, fake.login).reason == "own_comment"
    assert handle(fake, number, 2, "Thanks, looking into it", "alice").reason == "no_command"
    assert handle(fake, number, 3, "> /decide full_original\nquoting", "alice").reason == "no_command"
    assert fake.request_count == 0


def test_first_command_wins(fake: FakeGitHub, number: int) -> None:
    outcome = comment(fake, number, "/decide remaining_three\n/decide full_original")
    assert outcome.outcome.answer.value == "remaining_three"


def test_escalate_moves_up_one_level_and_replies(fake: FakeGitHub, number: int) -> None:
    outcome = comment(fake, number, "/escalate")
    assert outcome.action == "escalated"
    assert fake.issues[number].assignees == ["carol"]
    assert "`alice` → `carol`" in replies(fake, number)[0]
    sideways = comment(fake, number, "/escalate bob", author="carol")
    assert (sideways.action, sideways.reason) == ("refused", "top_of_hierarchy")
    assert comment(fake, number, "/decide full_original", author="alice").reason == "not_authorized"


def test_escalate_refuses_sideways(fake: FakeGitHub, number: int) -> None:
    config = CONFIG.model_copy(update={"hierarchy": {"alice": "carol", "carol": "dana"}})
    outcome = comment(fake, number, "/escalate bob", config=config)
    assert (outcome.action, outcome.reason) == ("refused", "not_upward")
    assert fake.issues[number].assignees == ["alice"]


def test_escalate_without_a_hierarchy_is_not_available(fake: FakeGitHub, number: int) -> None:
    config = CONFIG.model_copy(update={"hierarchy": {}})
    outcome = comment(fake, number, "/escalate", config=config)
    assert outcome.reason == "no_hierarchy"
    assert "not available" in replies(fake, number)[0]


def test_team_members_answer_for_their_team(fake: FakeGitHub) -> None:
    fake.add_team("acme", "leads", members=["lena"])
    fake.add_team("acme", "refunds", members=["nils"], parent="leads")
    config = Config(owners=Owners(default="@acme/leads"), precedents="off")
    number = lifecycle.park(make_tracker(fake), needs_input(), config, now=NOW).location.number
    assert number is not None
    assert comment(fake, number, "/decide full_original", author="mallory", config=config).refused
    assert comment(fake, number, "/decide full_original", author="nils", config=config).action == "resolved"


def test_review_items_accept_and_override(fake: FakeGitHub) -> None:
    review = review_result(assumptions=["EUR", "net"])
    number = lifecycle.park_review(make_tracker(fake), review, CONFIG, now=NOW).location.number
    assert number is not None
    assert comment(fake, number, "/override 1 USD").action == "overridden"
    assert comment(fake, number, "/accept").action == "accepted"
    assert fake.issues[number].state == "closed"
    assert comment(fake, number, "/return").reason == "resolved"


def test_mentions_in_replies_do_not_ping(fake: FakeGitHub, number: int) -> None:
    comment(fake, number, "/answer ask @bob <b>now</b>")
    reply = replies(fake, number)[0].split("-->", 1)[1]
    assert "`/answer ask @bob <b>now</b>`" in reply  # code spans neither ping nor render HTML
    outside = reply.replace("`/answer ask @bob <b>now</b>`", "")
    assert "@bob" not in outside
    assert "<b>" not in outside


def test_only_decision_issues_count(fake: FakeGitHub, number: int) -> None:
    """parkbot's own issue is the decision, labels or not; an issue someone else opened never is."""
    fake.issues[number].labels.remove(DECISION_LABEL)
    fake.issues[number].user = "mallory"
    assert comment(fake, number, "/decide full_original").reason == "not_a_decision"


# --- comments that help ---------------------------------------------------------------------------


def test_help_lists_the_options_with_the_exact_command_to_type(fake: FakeGitHub, number: int) -> None:
    outcome = comment(fake, number, "/help", author="mallory")  # anyone may ask; it changes nothing
    assert outcome.action == "help"
    (reply,) = replies(fake, number)
    assert "`/decide remaining_three`" in reply
    assert "`/decide full_original`" in reply
    assert "`/escalate`" in reply
    assert fake.issues[number].state == "open"


def test_a_misspelt_command_gets_one_reply_with_the_closest_match(fake: FakeGitHub, number: int) -> None:
    outcome = comment(fake, number, "/decid full_original")
    assert outcome.refused
    assert outcome.reason == "unknown_command"
    (reply,) = replies(fake, number)
    assert "did you mean /decide?" in reply
    assert "/help" in reply
    assert fake.issues[number].state == "open"


def test_a_misspelt_option_is_refused_naming_the_closest_option(fake: FakeGitHub, number: int) -> None:
    outcome = comment(fake, number, "/decide full_orignal")
    assert outcome.refused
    assert "did you mean 'full_original'?" in outcome.message
