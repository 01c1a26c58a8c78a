"""``merge_group``, ``check_run``, ``status``, ``schedule`` and ``workflow_dispatch`` end to end."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.config import Config
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Answer
from parkbot.events.merge_group import queued_pulls
from parkbot.trackers.github import RESOLVED_LABEL
from tests.support.events import park, run, webhook, with_repository
from tests.support.fakegithub.state import fake_sha
from tests.support.github_helpers import CONFIG, DID, STATUS, gate_of, make_tracker


def blocked_pull(fake: Any) -> tuple[int, Any]:
    number = park(fake)
    pull = fake.add_pull(title="Refund flow", body=f"Blocked by #{number}", head_ref="refund-flow")
    return number, pull


# --- merge_group ----------------------------------------------------------------------------------


def merge_group_event(fake: Any, pr_number: int) -> tuple[dict[str, Any], str]:
    head_sha = fake_sha(f"merge-group-{pr_number}")
    fake.add_commit(head_sha, f"Merge pull request #{pr_number}")
    payload = with_repository(webhook("merge_group.checks_requested"), fake)
    base = fake.branches[fake.default_branch]
    payload["merge_group"].update(
        head_sha=head_sha,
        head_ref=f"refs/heads/gh-readonly-queue/main/pr-{pr_number}-{base}",
        base_sha=base,
        base_ref="refs/heads/main",
    )
    return payload, head_sha


def test_blocked_pull_request_cannot_pass_the_merge_queue(fake: Any) -> None:
    _, pull = blocked_pull(fake)
    payload, head_sha = merge_group_event(fake, pull.number)
    outcome = run(fake, "merge_group", payload)
    assert outcome.gate_state == "blocked"
    posted = gate_of(fake, head_sha)
    assert posted.state == "failure"
    assert DID in posted.description
    assert gate_of(fake, pull.pull.head_sha) is None  # the queue commit, not the PR head


def test_merge_queue_commit_of_an_unblocked_pull_request_passes(fake: Any) -> None:
    pull = fake.add_pull(title="Docs", body="", head_ref="docs")
    payload, head_sha = merge_group_event(fake, pull.number)
    outcome = run(fake, "merge_group", payload)
    assert outcome.gate_state == "open"
    assert gate_of(fake, head_sha).state == "success"


def test_queue_ref_parsing() -> None:
    ref = "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64"
    assert queued_pulls(ref) == [104]
    assert queued_pulls("gh-readonly-queue/release/v2/pr-7-" + "a" * 40) == [7]
    with pytest.raises(InvalidInput, match="merge-queue branch"):
        queued_pulls("refs/heads/main")


def test_documented_merge_group_fixture_names_its_pull_request(fake: Any) -> None:
    payload = webhook("merge_group.checks_requested")
    assert queued_pulls(payload["merge_group"]["head_ref"]) == [104]
    payload["action"] = "destroyed"
    assert run(fake, "merge_group", payload).status == "unknown"
    assert fake.request_count == 0


# --- check_run and status -------------------------------------------------------------------------


def check_run_event(fake: Any, pull: Any, name: str = "parkbot gate") -> dict[str, Any]:
    payload = with_repository(webhook("check_run.rerequested.pull_request"), fake)
    payload["check_run"]["name"] = name
    payload["check_run"]["head_sha"] = pull.pull.head_sha
    payload["check_run"]["pull_requests"] = [
        {"number": pull.number, "head": {"sha": pull.pull.head_sha, "ref": pull.pull.head_ref}, "base": {}}
    ]
    return payload


def test_rerequested_parkbot_check_regates_its_pull_requests(fake: Any) -> None:
    _, pull = blocked_pull(fake)
    outcome = run(fake, "check_run", check_run_event(fake, pull))
    assert outcome.gate_state == "blocked"
    assert gate_of(fake, pull.pull.head_sha).state == "pending"


def test_other_check_runs_and_fork_check_runs_make_no_request(fake: Any) -> None:
    _, pull = blocked_pull(fake)
    assert run(fake, "check_run", check_run_event(fake, pull, name="tests")).status == "ignored"
    payload = webhook("check_run.rerequested")  # documented: no pull requests (a fork)
    payload["check_run"]["name"] = "parkbot gate"
    assert run(fake, "check_run", payload).status == "ignored"
    assert fake.request_count == 0


def status_event(fake: Any, sha: str, branch: str, *, who: str = "bob", kind: str = "User") -> dict[str, Any]:
    payload = with_repository(webhook("status"), fake)
    payload.update(sha=sha, context=STATUS, state="success", description="looks fine to me")
    payload["commit"] = {"sha": sha}
    payload["branches"] = [{"name": branch, "commit": {"sha": sha}}, {"name": "main", "commit": {"sha": "f" * 40}}]
    payload["sender"] = {"login": who, "id": 9, "type": kind}
    return payload


def test_hand_set_status_is_evaluated_again(fake: Any) -> None:
    _, pull = blocked_pull(fake)
    sha = pull.pull.head_sha
    fake.statuses.clear()
    outcome = run(fake, "status", status_event(fake, sha, "refund-flow"))
    assert outcome.gate_state == "blocked"
    assert gate_of(fake, sha).state == "pending"


def test_own_and_foreign_statuses_make_no_request(fake: Any) -> None:
    _, pull = blocked_pull(fake)
    sha = pull.pull.head_sha
    assert run(fake, "status", status_event(fake, sha, "refund-flow", who="parkbot[bot]", kind="Bot")).status == (
        "ignored"
    )
    assert run(fake, "status", webhook("status")).status == "ignored"  # context "default"
    assert fake.request_count == 0


# --- schedule and workflow_dispatch: the reconcile ------------------------------------------------------


@pytest.mark.parametrize("event", ["schedule", "workflow_dispatch"])
def test_reconcile_finishes_half_done_resolutions_and_regates(fake: Any, event: str) -> None:
    number, pull = blocked_pull(fake)
    tracker = make_tracker(fake)
    lifecycle.gate(tracker, Config(), f"#{pull.number}")  # records the edge (label on the PR, dependents)
    other = park(fake, key="shipping", title="Shipping", question="Ship now or later?")
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    make_tracker(fake).record_answer(
        decision, Answer(value="full_original", kind="option", by="alice", at=decision.created_at)
    )
    second = fake.add_pull(title="Shipping", body=f"Blocked by #{other}", head_ref="shipping")
    lifecycle.gate(make_tracker(fake), Config(), f"#{second.number}")
    fake.statuses.clear()  # a failed run lost them

    payload = webhook("schedule") if event == "schedule" else with_repository(webhook("workflow_dispatch"), fake)
    outcome = run(fake, event, payload)

    kinds = {(i.kind, i.decision_id) for i in outcome.items}
    assert ("resolved", DID) in kinds
    assert fake.issues[number].state == "closed"
    assert RESOLVED_LABEL in fake.issues[number].labels
    assert gate_of(fake, pull.pull.head_sha).state == "success"
    assert gate_of(fake, second.pull.head_sha).state == "pending"
    assert outcome.exit_code == 0


def test_reconcile_with_nothing_open(fake: Any) -> None:
    outcome = run(fake, "schedule", webhook("schedule"))
    assert outcome.status == "ignored"
    assert "nothing to reconcile" in outcome.notice


def test_reconcile_reports_an_answer_it_may_not_finish(fake: Any) -> None:
    park(fake)
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    make_tracker(fake).record_answer(
        decision, Answer(value="full_original", kind="option", by="mallory", at=decision.created_at)
    )
    outcome = run(fake, "workflow_dispatch", webhook("workflow_dispatch"))
    assert [i.kind for i in outcome.acted] == ["refused"]
    assert "mallory" in outcome.acted[0].message
    assert outcome.exit_code == 0
    assert CONFIG.owners.default == "alice"
