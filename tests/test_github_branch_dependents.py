"""Decisions that name a branch (``branch:<name>``) reach the pull request from that branch on GitHub."""

from __future__ import annotations

from bot import lifecycle
from bot.identity import decision_label
from bot.models import Answer
from bot.render import render_decision
from bot.trackers.github import BRANCH_PREFIX, GitHubTracker, branch_label
from tests.fakegithub import FakeGitHub
from tests.github_support import CONFIG, DID, NOW, STATUS, make_tracker
from tests.test_github_tracker import decision_issue, park, result

BRANCH = "agent/refund"


def status(fake: FakeGitHub, number: int) -> str | None:
    pull = fake.issues[number].pull
    assert pull is not None
    found = fake.status_of(pull.head_sha, STATUS)
    return found.state if found else None


def index_requests(fake: FakeGitHub) -> int:
    return sum(1 for r in fake.requests if r.path.endswith("/issues") and BRANCH_PREFIX in r.query.get("labels", ""))


def test_branch_label_is_a_short_stable_hash() -> None:
    label = branch_label("agent/" + "x" * 200)
    assert label.startswith(BRANCH_PREFIX)
    assert len(label) <= 50
    assert branch_label(BRANCH) == branch_label(BRANCH)
    assert branch_label("Agent/Refund") != branch_label(BRANCH)  # git branch names are case-sensitive


def test_a_pull_request_opened_after_the_decision_is_blocked_by_it(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    outcome = park(tracker, dependents=[f"branch:{BRANCH}"])
    assert outcome.gates[0].details == {"note": "no open pull request"}
    assert branch_label(BRANCH) in decision_issue(fake).labels

    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    fake.reset_log()
    result = lifecycle.gate(make_tracker(fake), f"#{pr.number}")
    assert result.state == "blocked"
    assert [d.id for d in result.blocking] == [DID]
    assert status(fake, pr.number) == "pending"
    assert index_requests(fake) == 1
    # The edge is recorded like any other: the PR carries the label, the decision names the PR.
    assert decision_label(DID) in fake.issues[pr.number].labels
    assert decision_issue(fake).id in fake.issues[pr.number].blocked_by
    again = make_tracker(fake).find(DID)
    assert again is not None
    assert f"#{pr.number}" in again.dependents

    resolved = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", "alice")
    assert [g.state for g in resolved.gates] == ["open"]
    assert status(fake, pr.number) == "success"
    assert branch_label(BRANCH) not in decision_issue(fake).labels  # a resolved decision leaves the index
    assert lifecycle.gate(make_tracker(fake), f"#{pr.number}").state == "open"


def test_the_branch_index_is_one_request_however_many_decisions(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    for i in range(150):  # more than a page of 100, some on other branches, half of them on this one
        branch = BRANCH if i % 2 else f"agent/other-{i % 7}"
        decision = lifecycle.build_decision(
            result(key=f"other-{i}", origin=f"task-{i}", dependents=[f"branch:{branch}"]), "bob", NOW
        )
        if i % 4 == 1:  # some of this branch's decisions were answered long ago
            answer = Answer(value="full_original", by="bob", at=NOW)
            decision = decision.model_copy(update={"state": "resolved", "answer": answer})
        rendered = render_decision(decision)
        state = "closed" if decision.state == "resolved" else "open"
        labels = tracker._labels_for(decision)
        fake.add_issue(rendered.title, rendered.body, labels=labels, author=fake.login, state=state)
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    fake.reset_log()
    result_ = lifecycle.gate(make_tracker(fake), f"#{pr.number}")
    assert len(result_.blocking) == 37  # odd i (75) except the resolved ones, i = 1 mod 4 (38)
    assert index_requests(fake) == 1


def test_other_branches_are_not_blocked(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    pr = fake.add_pull(title="Other work", head_ref="agent/other")
    assert lifecycle.gate(make_tracker(fake), f"#{pr.number}").state == "open"
    assert status(fake, pr.number) == "success"


def test_a_branch_of_a_fork_is_not_this_repository_s_branch(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    fake.reset_log()
    fork = {"number": 9, "head": {"ref": BRANCH, "repo": {"full_name": "mallory/widgets"}}}
    assert tracker._branch_dependents_of(fork) == []
    gone = {"number": 9, "head": {"ref": BRANCH, "repo": None}}  # a deleted fork
    assert tracker._branch_dependents_of(gone) == []
    assert fake.request_count == 0


def test_an_abandoned_decision_keeps_blocking_the_branch(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    decision = tracker.find(DID)
    assert decision is not None
    tracker.mark_abandoned(decision, "nobody can answer")
    assert branch_label(BRANCH) in decision_issue(fake).labels
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    assert lifecycle.gate(make_tracker(fake), f"#{pr.number}").state == "blocked"


def test_parking_blocks_an_open_pull_request_of_the_branch_at_once(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    fake.reset_log()
    outcome = park(tracker, dependents=[f"branch:{BRANCH}"])
    assert [(g.target, g.state) for g in outcome.gates] == [(f"#{pr.number}", "blocked")]
    assert status(fake, pr.number) == "pending"
    assert decision_label(DID) in fake.issues[pr.number].labels
    lookups = [r for r in fake.requests if r.method == "GET" and r.path.endswith("/pulls")]
    assert [(r.query.get("head"), r.query.get("state")) for r in lookups] == [(f"acme:{BRANCH}", "open")]
    assert fake.count("GET", rf"/repos/acme/widgets/pulls/{pr.number}") == 0  # the listing was enough


def test_gating_the_branch_itself_finds_it_too(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    result = lifecycle.gate(make_tracker(fake), f"branch:{BRANCH}")
    assert result.state == "blocked"
    assert status(fake, pr.number) == "pending"


def test_reconcile_reaches_a_pull_request_the_park_missed(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    """A PR opened while the decision was being filed: the nightly re-gate of ``branch:`` targets finds it."""
    from tests.test_events_support import run, webhook

    park(tracker, dependents=[f"branch:{BRANCH}"])
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    assert status(fake, pr.number) is None
    outcome = run(fake, "schedule", webhook("schedule"))
    assert outcome.exit_code == 0
    assert status(fake, pr.number) == "pending"
