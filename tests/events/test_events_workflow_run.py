"""``workflow_run`` end to end: a pull request from a fork is gated from the base repository."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.errors import InvalidInput
from tests.support.events import park, parse_github_output, run, run_cli, webhook, with_repository
from tests.support.github_helpers import CONFIG, DID, gate_of, make_tracker

FORK = "Codertocat/widgets"
COMMIT_PULLS = "repos/list-pull-requests-associated-with-commit"


def fork_pull(fake: Any, body: str = "", branch: str = "fix-typo") -> Any:
    return fake.add_pull(title="Fix the refund typo", body=body, head_ref=branch, author="Codertocat", head_repo=FORK)


def fork_run(fake: Any, pull: Any) -> dict[str, Any]:
    """The documented completed run, as GitHub sends it for the pull_request workflow of a fork's PR."""
    payload = with_repository(webhook("workflow_run.completed.fork"), fake)
    run_ = payload["workflow_run"]
    run_.update(head_sha=pull.pull.head_sha, head_branch=pull.pull.head_ref)
    run_["head_repository"].update(full_name=FORK, name=FORK.split("/")[1])
    run_["repository"].update(full_name=fake.full_name, name=fake.repo)
    assert run_["pull_requests"] == []  # what GitHub sends for a fork: the pull request must be found
    return payload


def test_a_fork_pull_request_blocked_by_a_decision_gets_a_pending_gate(fake: Any) -> None:
    number = park(fake)
    pull = fork_pull(fake, body=f"Blocked by #{number}")
    outcome = run(fake, "workflow_run", fork_run(fake, pull))
    assert outcome.status == "handled"
    assert outcome.gate_state == "blocked"
    assert outcome.decision_id == DID
    assert outcome.issue_number == pull.number
    posted = gate_of(fake, pull.pull.head_sha)
    assert posted.state == "pending"
    assert DID in posted.description
    # The fork's commit is unknown to GET /commits/{sha}/pulls while the PR is open: found by its branch.
    assert fake.count(operation=COMMIT_PULLS) == 1
    assert fake.count("GET", r".*/pulls", operation="pulls/list") == 1


def test_a_fork_pull_request_opens_once_the_decision_is_resolved(fake: Any) -> None:
    number = park(fake)
    pull = fork_pull(fake, body=f"Depends on #{number}")
    run(fake, "workflow_run", fork_run(fake, pull))
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    fake.push(pull.number)
    outcome = run(fake, "workflow_run", fork_run(fake, pull))
    assert outcome.gate_state == "open"
    assert gate_of(fake, pull.pull.head_sha).state == "success"


def test_a_fork_pull_request_whose_head_moved_on_is_left_to_its_newer_run(fake: Any) -> None:
    number = park(fake)
    pull = fork_pull(fake, body=f"Blocked by #{number}")
    payload = fork_run(fake, pull)
    old = pull.pull.head_sha
    fake.push(pull.number)
    outcome = run(fake, "workflow_run", payload)
    assert outcome.status == "ignored"
    assert old[:12] in outcome.notice
    assert gate_of(fake, old) is None
    assert gate_of(fake, pull.pull.head_sha) is None


def test_only_the_fork_branch_that_ran_is_gated(fake: Any) -> None:
    number = park(fake)
    other = fork_pull(fake, body=f"Blocked by #{number}", branch="other")
    pull = fork_pull(fake, body=f"Blocked by #{number}")
    outcome = run(fake, "workflow_run", fork_run(fake, pull))
    assert [item.number for item in outcome.items] == [pull.number]
    assert gate_of(fake, other.pull.head_sha) is None


def test_the_documented_run_of_another_event_is_ignored_without_a_request(fake: Any) -> None:
    payload = webhook("workflow_run.completed")
    assert payload["workflow_run"]["event"] == "repository_dispatch"
    outcome = run(fake, "workflow_run", payload)
    assert outcome.status == "ignored"
    assert "repository_dispatch" in outcome.notice
    assert outcome.api_used is False
    assert fake.request_count == 0


def test_a_run_for_a_branch_of_this_repository_is_left_to_its_pull_request_event(fake: Any) -> None:
    number = park(fake)
    pull = fake.add_pull(title="Refund flow", body=f"Blocked by #{number}", head_ref="refund-flow")
    payload = fork_run(fake, pull)
    payload["workflow_run"]["head_repository"]["full_name"] = fake.full_name
    outcome = run(fake, "workflow_run", payload)
    assert outcome.status == "ignored"
    assert fake.request_count == 0
    payload["action"] = "requested"
    assert run(fake, "workflow_run", payload).status == "unknown"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.pop("workflow_run"), "workflow_run is missing"),
        (lambda p: p["workflow_run"].pop("head_sha"), "workflow_run.head_sha is missing"),
        (lambda p: p["workflow_run"].update(head_sha="main"), "is not a commit sha"),
        (lambda p: p["workflow_run"].update(head_branch=7), "head_branch should be str, not int"),
        (lambda p: p["workflow_run"].pop("head_repository"), "workflow_run.head_repository is missing"),
        (lambda p: p["workflow_run"]["head_repository"].update(full_name="x"), "is not owner/name"),
    ],
)
def test_a_malformed_run_is_invalid_input(fake: Any, change: Any, message: str) -> None:
    pull = fork_pull(fake)
    payload = fork_run(fake, pull)
    change(payload)
    with pytest.raises(InvalidInput, match=message):
        run(fake, "workflow_run", payload)
    assert fake.request_count == 0


def test_handle_event_gates_the_fork_pull_request_and_exits_2_on_a_malformed_run(fake: Any, tmp_path: Path) -> None:
    number = park(fake)
    pull = fork_pull(fake, body=f"Blocked by #{number}")
    done = run_cli(fake, "workflow_run", fork_run(fake, pull), tmp_path)
    assert done.exit_code == 0, done.output
    outputs = parse_github_output((tmp_path / "output").read_text(encoding="utf-8"))
    assert outputs["event-status"] == "handled"
    assert outputs["gate-state"] == "blocked"
    assert json.loads(outputs["result"])["decision_id"] == DID
    assert outputs["issue-number"] == str(pull.number)

    broken = fork_run(fake, pull)
    del broken["workflow_run"]["head_sha"]
    done = run_cli(fake, "workflow_run", broken, tmp_path)
    assert done.exit_code == 2
    assert "workflow_run.head_sha is missing" in done.output
    assert "Traceback" not in done.output


# --- the tracker's lookup -------------------------------------------------------------------------------


def test_a_pull_request_of_this_repository_is_found_by_its_commit_in_one_request(fake: Any) -> None:
    pull = fake.add_pull(title="Refund flow", head_ref="refund-flow")
    fake.reset_log()
    found = make_tracker(fake).open_pulls_at(pull.pull.head_sha, head=f"{fake.owner}:refund-flow")
    assert found == [pull.number]
    assert fake.request_count == 1


def test_closed_or_other_pull_requests_are_not_found(fake: Any) -> None:
    pull = fork_pull(fake)
    tracker = make_tracker(fake)
    assert tracker.open_pulls_at(pull.pull.head_sha, head="someone-else:fix-typo") == []
    fake.issues[pull.number].state = "closed"
    assert tracker.open_pulls_at(pull.pull.head_sha, head=f"{FORK.split('/')[0]}:fix-typo") == []
    with pytest.raises(InvalidInput, match="not a full commit sha"):
        tracker.open_pulls_at("abc123", head="a:b")
