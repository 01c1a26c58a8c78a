"""An answer binds to what the owner saw. The attack: the agent re-files its question with the same option
ids and swapped meanings between the owner's answer and its processing. On GitHub the owner's comment is
older than the re-filing; on git the re-filing lands between reading the decision and recording the answer.
Either way the answer is refused visibly, never recorded against text the owner did not read."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import git
import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import Refused
from parkbot.core.models import Answer, Decision
from parkbot.trackers.git import GitTracker
from tests.support.events import handle, replies
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import make_repo, needs_input
from tests.support.github_helpers import CONFIG, DID, NOW, make_tracker
from tests.support.github_helpers import needs_input as github_result

SWAPPED = ["remaining_three: 690.00, the full total", "full_original: 412.00, the remaining three"]


def test_a_comment_written_before_the_options_changed_is_refused_with_a_reply(fake: FakeGitHub) -> None:
    tracker = make_tracker(fake)
    number = lifecycle.park(tracker, github_result(), CONFIG, now=NOW).location.number
    assert number is not None
    fake.advance_clock((NOW - fake.tick()).total_seconds() + 60)  # GitHub's clock, a minute after filing
    posted = fake.add_comment(number, "/decide full_original", author="alice")
    refiled = NOW + dt.timedelta(minutes=2)  # the agent swaps the meanings after the owner wrote
    lifecycle.park(make_tracker(fake), github_result(options=SWAPPED), CONFIG, now=refiled)
    outcome = handle(fake, number, posted.id, posted.body, "alice")
    assert (outcome.action, outcome.reason) == ("refused", "options_changed")
    (reply,) = replies(fake, number)
    assert "the options changed after your comment; answer again" in reply
    stored = make_tracker(fake).find(DID)
    assert stored is not None
    assert (stored.state, stored.answer) == ("open", None)
    # a command written after the change is applied, and records what it was given against
    fake.advance_clock(600)
    again = fake.add_comment(number, "/decide full_original", author="alice")
    assert handle(fake, number, again.id, again.body, "alice").action == "resolved"
    answer = make_tracker(fake).find(DID).answer  # type: ignore[union-attr]
    assert answer is not None
    assert answer.digest == stored.content_digest()


class RefilesFirst:
    """The git tracker, with the agent's re-filing landing between the owner's read and the answer's write."""

    def __init__(self, tracker: GitTracker, refile: Any) -> None:
        self._tracker = tracker
        self._refile = refile

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tracker, name)

    def record_answer(self, decision: Decision, answer: Answer) -> None:
        self._refile()
        self._tracker.record_answer(decision, answer)


def test_on_git_a_refiling_between_reading_and_recording_refuses_the_answer(tmp_path: Path) -> None:
    make_repo(tmp_path / "repo")
    config = Config(owners=Owners(default="alice"))
    tracker = GitTracker(git.Repo(tmp_path / "repo"), config=config)
    agent = GitTracker(git.Repo(tmp_path / "repo"), config=config)
    lifecycle.park(tracker, needs_input(), config)
    racing = RefilesFirst(tracker, lambda: lifecycle.park(agent, needs_input(options=SWAPPED), config))
    with pytest.raises(Refused) as info:
        lifecycle.resolve(racing, config, "billing-42-decision-refund", "full_original", Actor("alice"))  # type: ignore[arg-type]
    assert info.value.reason == "options_changed"
    assert "answer again" in info.value.message
    stored = tracker.find("billing-42-decision-refund")
    assert stored is not None
    assert (stored.state, stored.answer) == ("open", None)
    assert tracker.recorded_answer(stored) is None
    assert [o.label for o in stored.options] == ["690.00, the full total", "412.00, the remaining three"]
    tracker.release()
    agent.release()
