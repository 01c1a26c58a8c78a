"""``parkbot wait`` on GitHub: conditional polls, free of rate limit while nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.api import poller, wait_for_answer
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.errors import NotFound
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.client import RetryPolicy
from tests.support.clock import Clock
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import CONFIG, DID, TOKEN, make_tracker, park, result
from tests.support.memory_tracker import MemoryTracker

ISSUES = r"/repos/acme/widgets/issues"


def polls(fake: FakeGitHub) -> list[int]:
    """Statuses of the poll requests seen so far."""
    return [r.status for r in fake.requests if r.method == "GET" and r.path == ISSUES]


def test_waiting_while_nothing_changes_costs_one_unit_of_rate_limit(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    waiting = make_tracker(fake)  # a fresh process, as `parkbot wait` is
    fake.reset_log()
    before = fake.rate_remaining
    clock = Clock()
    assert wait_for_answer(poller(waiting, Config(), DID), 600, sleep=clock.sleep, clock=clock).state == "open"
    seen = polls(fake)
    assert len(seen) >= 10
    assert seen == [200] + [304] * (len(seen) - 1)
    # nothing but the polls, and one read of the decision (GraphQL, with who wrote what) after the first
    assert fake.request_count == len(seen) + 1
    assert fake.count(operation="graphql/ParkbotIssuesByLabel") == 1
    assert before - fake.rate_remaining == 1  # only the first one: 304s are free, GraphQL has its own limit


def test_an_answer_is_seen_on_the_next_poll(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    waiting = make_tracker(fake)
    clock = Clock()
    used_by_others = 0

    def sleep(seconds: float) -> None:
        nonlocal used_by_others
        clock.sleep(seconds)
        if len(clock.sleeps) == 4:  # the owner answers while the agent waits
            before = fake.rate_remaining
            lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
            used_by_others = before - fake.rate_remaining

    before = fake.rate_remaining
    fake.reset_log()
    decision = wait_for_answer(poller(waiting, Config(), DID), 600, sleep=sleep, clock=clock)
    assert decision is not None
    assert decision.state == "resolved"
    assert decision.answer is not None
    assert decision.answer.value == "full_original"
    assert len(clock.sleeps) == 4  # the poll right after the answer saw it
    assert polls(fake)[-1] == 200
    assert before - fake.rate_remaining - used_by_others == 2  # the first poll and the one that saw the change


def test_a_comment_changes_the_etag_and_is_read_once(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = park(tracker).location.number
    assert number is not None
    decision, token = tracker.poll(DID)
    assert decision is not None
    assert token.validator
    fake.add_comment(number, "I am looking into it", author="alice")
    again, token2 = tracker.poll(DID, token)
    assert again is not None
    assert again.state == "open"
    assert token2.validator != token.validator
    third, token3 = tracker.poll(DID, token2)
    assert third == again
    assert token3 is token2
    assert polls(fake)[-3:] == [200, 200, 304]


def test_a_token_of_another_decision_is_not_used(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    park(tracker, key="shipping", title="Shipping", question="Ship now or later?")
    _, token = tracker.poll(DID)
    other, _ = lifecycle.poll_answer(tracker, Config(), "billing-42-decision-shipping", token)
    assert other.id == "billing-42-decision-shipping"
    assert polls(fake)[-1] == 200


def test_polling_a_decision_that_does_not_exist(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    with pytest.raises(NotFound):
        lifecycle.poll_answer(tracker, Config(), "billing-42-decision-nothing")


def test_a_failed_poll_is_retried_like_any_request(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    _, token = tracker.poll(DID)
    fake.fail_next("502", match=r"^GET .*/issues$")
    decision, again = tracker.poll(DID, token)
    assert decision is not None
    assert again is token
    assert polls(fake)[-2:] == [502, 304]


def test_backends_without_poll_simply_re_read() -> None:
    memory = MemoryTracker()
    lifecycle.park(memory, result(), CONFIG)
    decision, token = lifecycle.poll_answer(memory, Config(), DID)
    assert decision.id == DID
    assert token is None
    assert lifecycle.poll_answer(memory, Config(), DID, token)[0] == decision


def test_the_wait_command_on_github(fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot.cli import cli
    from parkbot.trackers.github import client as github_client

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    park(make_tracker(fake))
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": fake.base_url}
    config = tmp_path / "parkbot.yml"
    config.write_text("owners:\n  default: alice\n")
    args = ["wait", DID, "--backend", "github", "--config", str(config)]

    open_ = CliRunner().invoke(cli, [*args, "--timeout", "0s", "--json"], env=env)
    assert open_.exit_code == 1, open_.output
    context = json.loads(open_.stdout)
    assert (context["id"], context["state"], context["answer"]) == (DID, "open", None)
    assert context["question"]  # the whole resume context, as `resume --json` prints it

    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    answered = CliRunner().invoke(cli, [*args, "--timeout", "1s"], env=env)
    assert answered.exit_code == 0, answered.output
    assert json.loads(answered.stdout)["answer"] == "full_original"
