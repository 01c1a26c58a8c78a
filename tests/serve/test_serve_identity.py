"""Moving from the action to the App keeps every open decision: ``identity: {previous, app}`` in the config.

The records the action wrote are ``github-actions[bot]``'s. Without the setting, the App reads them as
someone else's writing (no authority); with it, both identities count each other's records, so running the
action and the App at once makes neither treat the other's records as forged.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Identity, Owners
from parkbot.core.errors import InvalidInput
from parkbot.trackers.github import GitHubTracker
from parkbot.trackers.github.client import GitHubSettings, RetryPolicy, build_client
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import DID, TOKEN, needs_input

APP_TOKEN = "ghs_apptoken00000000000000000000000000"
APP = "parkbot-acme[bot]"
BASE = Config(owners=Owners(default="alice"), precedents="off")
MOVING = BASE.model_copy(update={"identity": Identity(previous="github-actions[bot]", app=APP)})


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    """A repository where the action has been running (its token acts as github-actions[bot])."""
    f = FakeGitHub(owner="acme", repo="widgets", login="github-actions[bot]", token=TOKEN)
    f.add_token(APP_TOKEN, APP, "app")
    f.add_user(APP, type="Bot")
    f.set_permission(APP, "write")
    with f.activate():
        yield f
    f.assert_no_violations()


def tracker(fake: FakeGitHub, token: str, config: Config) -> GitHubTracker:
    client = build_client(GitHubSettings(fake.full_name, fake.base_url, token), policy=RetryPolicy.instant())
    made = GitHubTracker(client, race_wait=0.0)
    made.configure(config)
    return made


def test_without_the_setting_the_app_gives_the_actions_records_no_authority(fake: FakeGitHub) -> None:
    lifecycle.park(tracker(fake, TOKEN, BASE), needs_input(), BASE)
    assert tracker(fake, TOKEN, BASE).find(DID) is not None  # the action's own decision
    assert tracker(fake, APP_TOKEN, BASE).find(DID) is None  # to the App, an issue someone else opened


def test_with_the_setting_the_app_answers_a_decision_the_action_filed(fake: FakeGitHub) -> None:
    outcome = lifecycle.park(tracker(fake, TOKEN, MOVING), needs_input(), MOVING)
    number = outcome.location.number
    app = tracker(fake, APP_TOKEN, MOVING)
    decision = app.find(DID)
    assert decision is not None
    assert decision.problems == ()
    lifecycle.resolve(app, MOVING, DID, "full_original", Actor("alice"))
    assert number is not None
    assert fake.issues[number].state == "closed"
    records = [c for c in fake.comments.values() if c.issue_number == number and "<!-- parkbot:answer " in c.body]
    assert [c.user for c in records] == [APP]  # written by the App from now on
    # the action, still running, reads the App's answer as parkbot's: no forgery reported either way
    seen_by_action = tracker(fake, TOKEN, MOVING).find(DID)
    assert seen_by_action is not None
    assert seen_by_action.state == "resolved"
    assert seen_by_action.problems == ()


def test_someone_else_is_still_not_parkbot_during_the_move(fake: FakeGitHub) -> None:
    outcome = lifecycle.park(tracker(fake, TOKEN, MOVING), needs_input(), MOVING)
    assert outcome.location.number is not None
    fake.edit_issue_body(outcome.location.number, "owner: mallory", editor="mallory")
    decision = tracker(fake, APP_TOKEN, MOVING).find(DID)
    assert decision is not None
    assert any("mallory" in p for p in decision.problems)


def test_the_setting_takes_logins_only() -> None:
    from parkbot.core.config import parse_config

    with pytest.raises(InvalidInput, match="is not a GitHub login"):
        parse_config("identity: {previous: 'github actions'}\n")
