"""Decisions that name a branch (``branch:<name>``) reach the pull request from that branch on GitHub."""

from __future__ import annotations

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config
from parkbot.core.models import Answer
from parkbot.trackers.github import BRANCH_PREFIX, TRACKED_LABEL, GitHubTracker, branch_label
from parkbot.trackers.github.labels import decision_label
from parkbot.trackers.github.render import render_decision
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import (
    CONFIG,
    DID,
    NOW,
    decision_issue,
    gate_of,
    labels_listed,
    make_tracker,
    park,
    result,
)

BRANCH = "agent/refund"


def status(fake: FakeGitHub, number: int) -> str | None:
    pull = fake.issues[number].pull
    assert pull is not None
    found = gate_of(fake, pull.head_sha)
    return found.state if found else None


def index_requests(fake: FakeGitHub) -> int:
    return sum(1 for label in labels_listed(fake) if BRANCH_PREFIX in label)


def label_writes(fake: FakeGitHub, number: int) -> int:
    return fake.count("POST", rf"/repos/acme/widgets/issues/{number}/labels")


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
    result = lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
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

    resolved = lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    assert [g.state for g in resolved.gates] == ["open"]
    assert status(fake, pr.number) == "success"
    assert branch_label(BRANCH) not in decision_issue(fake).labels  # a resolved decision leaves the index
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"


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
        labels = tracker.writes.labels_for(decision)
        fake.add_issue(rendered.title, rendered.body, labels=labels, author=fake.login, state=state)
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    fake.reset_log()
    result_ = lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
    assert len(result_.blocking) == 37  # odd i (75) except the resolved ones, i = 1 mod 4 (38)
    assert index_requests(fake) == 1


def test_other_branches_are_not_blocked(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    pr = fake.add_pull(title="Other work", head_ref="agent/other")
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"
    assert status(fake, pr.number) == "success"


def test_a_branch_of_a_fork_is_not_this_repository_s_branch(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    fake.reset_log()
    fork = {"number": 9, "head": {"ref": BRANCH, "repo": {"full_name": "mallory/widgets"}}}
    assert tracker.dependents.branch_dependents_of(fork) == []
    gone = {"number": 9, "head": {"ref": BRANCH, "repo": None}}  # a deleted fork
    assert tracker.dependents.branch_dependents_of(gone) == []
    assert fake.request_count == 0


def test_an_abandoned_decision_keeps_blocking_the_branch(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    decision = tracker.find(DID)
    assert decision is not None
    tracker.mark_abandoned(decision, "nobody can answer", lifecycle.log_entry("abandoned", decision, NOW))
    assert branch_label(BRANCH) in decision_issue(fake).labels
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"


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
    result = lifecycle.gate(make_tracker(fake), Config(), f"branch:{BRANCH}")
    assert result.state == "blocked"
    assert status(fake, pr.number) == "pending"


def test_reconcile_reaches_a_pull_request_the_park_missed(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    """A PR opened while the decision was being filed: the nightly re-gate of ``branch:`` targets finds it."""
    from tests.support.events import run, webhook

    park(tracker, dependents=[f"branch:{BRANCH}"])
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    assert status(fake, pr.number) is None
    outcome = run(fake, "schedule", webhook("schedule"))
    assert outcome.exit_code == 0
    assert status(fake, pr.number) == "pending"


# --- the branch index is read on a PR's first gate only (parkbot:tracked) --------------------------


def test_only_the_first_gate_of_a_pull_request_lists_the_branch_index(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    fake.reset_log()
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"
    assert index_requests(fake) == 1
    assert TRACKED_LABEL in fake.issues[pr.number].labels
    assert label_writes(fake, pr.number) == 1

    fake.reset_log()
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"
    assert index_requests(fake) == 0
    assert label_writes(fake, pr.number) == 0
    # the pull, its commits, its native dependencies, the pull requests and the branches at its head, the check
    assert fake.request_count == 6


def test_the_first_gate_writes_the_mark_with_the_edges_it_found(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    fake.reset_log()
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"
    assert index_requests(fake) == 1
    assert label_writes(fake, pr.number) == 1  # decision:<id> and parkbot:tracked in one write
    assert {decision_label(DID), TRACKED_LABEL} <= set(fake.issues[pr.number].labels)

    fake.reset_log()
    result_ = lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")  # found by its label now
    assert [d.id for d in result_.blocking] == [DID]
    assert index_requests(fake) == 0
    assert status(fake, pr.number) == "pending"


def test_a_decision_parked_after_the_first_gate_still_blocks(fake: FakeGitHub) -> None:
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"
    assert TRACKED_LABEL in fake.issues[pr.number].labels

    outcome = park(make_tracker(fake), dependents=[f"branch:{BRANCH}"])  # park lists the branch's open PRs
    assert [(g.target, g.state) for g in outcome.gates] == [(f"#{pr.number}", "blocked")]
    assert decision_label(DID) in fake.issues[pr.number].labels

    fake.reset_log()
    result_ = lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
    assert [d.id for d in result_.blocking] == [DID]
    assert status(fake, pr.number) == "pending"
    assert index_requests(fake) == 0


def test_an_abandoned_decision_found_by_the_index_keeps_blocking_a_tracked_pr(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    park(tracker, dependents=[f"branch:{BRANCH}"])
    decision = tracker.find(DID)
    assert decision is not None
    tracker.mark_abandoned(decision, "nobody can answer", lifecycle.log_entry("abandoned", decision, NOW))
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"
    assert decision_label(DID) in fake.issues[pr.number].labels  # recorded, though the decision is closed
    fake.reset_log()
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"
    assert index_requests(fake) == 0


def test_gating_the_branch_always_reads_the_index(fake: FakeGitHub) -> None:
    """What the nightly reconcile and a revived decision rely on, even for a tracked pull request."""
    pr = fake.add_pull(title="Refund flow", head_ref=BRANCH)
    lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
    assert TRACKED_LABEL in fake.issues[pr.number].labels
    fake.issues[pr.number].state = "closed"  # closed while the decision is parked: park cannot find it
    park(make_tracker(fake), dependents=[f"branch:{BRANCH}"])
    fake.issues[pr.number].state = "open"
    assert decision_label(DID) not in fake.issues[pr.number].labels

    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"  # tracked: the gap
    fake.reset_log()
    assert lifecycle.gate(make_tracker(fake), Config(), f"branch:{BRANCH}").state == "blocked"
    assert index_requests(fake) == 1
    assert decision_label(DID) in fake.issues[pr.number].labels
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"


def test_a_reopened_pull_request_reads_the_index_again(fake: FakeGitHub) -> None:
    """A decision parked for the branch while its PR was closed: the ``reopened`` event looks again."""
    from tests.support.events import pr_event, run

    branch = "feature/refund"  # not an agent branch: no inventory check on the head commit
    pr = fake.add_pull(title="Refund flow", head_ref=branch)
    run(fake, "pull_request", pr_event(fake, pr.number, "opened"))
    assert TRACKED_LABEL in fake.issues[pr.number].labels
    assert index_requests(fake) == 1
    fake.issues[pr.number].state = "closed"
    park(make_tracker(fake), dependents=[f"branch:{branch}"])
    fake.issues[pr.number].state = "open"

    outcome = run(fake, "pull_request", pr_event(fake, pr.number, "reopened"))
    assert outcome.exit_code == 0
    assert index_requests(fake) == 1
    assert status(fake, pr.number) == "pending"
    assert decision_label(DID) in fake.issues[pr.number].labels
    run(fake, "pull_request", pr_event(fake, pr.number, "synchronize"))
    assert index_requests(fake) == 0
    assert status(fake, pr.number) == "pending"


def test_a_pull_request_from_a_fork_has_no_branch_here(tracker: GitHubTracker) -> None:
    assert tracker.dependents.head_branch({"head": {"ref": BRANCH, "repo": {"full_name": "acme/widgets"}}}) == BRANCH
    assert tracker.dependents.head_branch({"head": {"ref": BRANCH, "repo": {"full_name": "mallory/widgets"}}}) is None
    assert tracker.dependents.head_branch({"head": {"ref": BRANCH, "repo": None}}) is None
