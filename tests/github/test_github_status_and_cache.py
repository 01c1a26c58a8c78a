"""GitHubTracker.publish_status (statuses on any commit) and the stale copy ``decision_at`` used to leave."""

from __future__ import annotations

import pytest

from parkbot.core.config import Config, Gate
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Decision
from parkbot.core.tracker import CommitGates
from parkbot.trackers.github import GitHubTracker
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import DID, STATUS, make_tracker, park

# --- publish_status ------------------------------------------------------------------------------


def test_publish_status_sets_the_status_on_any_commit(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    commit = fake.add_commit(message="merge queue")
    fake.reset_log()
    long = "Waiting for   \n" + "decision-x, " * 40
    tracker.publish_status(commit.sha, "pending", long, target_url="https://github.com/acme/widgets/issues/1")
    status = fake.status_of(commit.sha, STATUS)
    assert status is not None
    assert status.state == "pending"
    assert status.description is not None
    assert len(status.description) <= 140
    assert "\n" not in status.description
    assert status.target_url == "https://github.com/acme/widgets/issues/1"
    assert [(r.method, r.path) for r in fake.requests] == [("POST", f"/repos/acme/widgets/statuses/{commit.sha}")]


def test_publish_status_other_context(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    commit = fake.add_commit(message="x")
    tracker.publish_status(commit.sha, "failure", "no inventory", context="parkbot/inventory")
    status = fake.status_of(commit.sha, "parkbot/inventory")
    assert status is not None
    assert status.state == "failure"
    assert fake.status_of(commit.sha, STATUS) is None


def test_publish_status_goes_through_the_retry_transport(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    commit = fake.add_commit(message="x")
    fake.fail_next("502", match=r"^POST .*/statuses/")
    fake.reset_log()
    tracker.publish_status(commit.sha, "success", "No open decisions")
    assert fake.count("POST", r"/repos/acme/widgets/statuses/.*") == 2
    status = fake.status_of(commit.sha, STATUS)
    assert status is not None
    assert status.state == "success"


@pytest.mark.parametrize(("sha", "state"), [("0" * 40, "blocked"), ("not a sha", "success")])
def test_publish_status_refuses_what_github_would(
    fake: FakeGitHub, tracker: GitHubTracker, sha: str, state: str
) -> None:
    with pytest.raises(InvalidInput):
        tracker.publish_status(sha, state, "x")
    assert fake.request_count == 0


def test_a_commit_failure_is_a_failing_status_cut_to_githubs_limit(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    commit = fake.add_commit(message="x")
    assert isinstance(tracker, CommitGates)
    tracker.configure(Config(gate=Gate(publish="status")))
    tracker.publish_commit_failure(commit.sha, "broken result file " + "x" * 300)
    status = fake.status_of(commit.sha, STATUS)
    assert status is not None
    assert status.state == "failure"
    assert status.description is not None
    assert len(status.description) <= 140
    assert fake.check_runs == []


def test_a_commit_failure_is_a_failing_check_run_by_default(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    commit = fake.add_commit(message="x")
    tracker.publish_commit_failure(commit.sha, "broken result file <b>" + "x" * 300)
    run = fake.check_of(commit.sha, STATUS, app=fake.login)
    assert run is not None
    assert (run.status, run.conclusion) == ("completed", "failure")
    assert run.title is not None
    assert len(run.title) <= 255
    assert "&lt;b&gt;" in (run.summary or "")  # the summary is Markdown: untrusted text is escaped
    assert fake.statuses == []


# --- the copy decision_at leaves for find -----------------------------------------------------------


def read_by_number(fake: FakeGitHub) -> tuple[GitHubTracker, Decision]:
    """Park the decision, then read it with ``decision_at`` on a fresh tracker (which keeps that copy)."""
    number = park(make_tracker(fake)).location.number
    assert number is not None
    tracker = make_tracker(fake)
    decision = tracker.decision_at(number)
    assert decision is not None
    return tracker, decision


def test_find_after_an_update_does_not_return_the_copy_decision_at_left(fake: FakeGitHub) -> None:
    tracker, decision = read_by_number(fake)
    tracker.update(decision.model_copy(update={"owner": "carol"}))
    fake.reset_log()
    again = tracker.find(DID)
    assert again is not None
    assert again.owner == "carol"  # the stale copy said alice
    assert fake.request_count == 1  # read afresh


def test_find_right_after_decision_at_still_reuses_its_read(fake: FakeGitHub) -> None:
    tracker, _ = read_by_number(fake)
    fake.reset_log()
    found = tracker.find(DID)
    assert found is not None
    assert found.owner == "alice"
    assert fake.request_count == 0


def test_a_later_read_also_supersedes_the_copy(fake: FakeGitHub) -> None:
    tracker, decision = read_by_number(fake)
    make_tracker(fake).update(decision.model_copy(update={"owner": "carol"}))  # someone else's write
    assert [d.owner for d in tracker.iter_decisions() if d.id == DID] == ["carol"]  # a newer read
    again = tracker.find(DID)
    assert again is not None
    assert again.owner == "carol"
