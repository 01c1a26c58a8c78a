"""``pull_request`` events end to end: the gate, the agent-branch inventory check, zero-request ignores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.errors import InvalidInput
from tests.support.events import park, pr_event, run, webhook, with_repository
from tests.support.git_helpers import make_repo, run_git
from tests.support.github_helpers import CONFIG, DID, gate_of, make_tracker, needs_input_data


@pytest.mark.parametrize("action", ["opened", "edited", "synchronize", "reopened"])
def test_pull_request_blocked_by_a_decision_is_pending(fake: Any, action: str) -> None:
    number = park(fake)
    pull = fake.add_pull(title="Refund flow", body=f"Blocked by #{number}", head_ref="refund-flow")
    outcome = run(fake, "pull_request", pr_event(fake, pull.number, action))
    assert outcome.gate_state == "blocked"
    assert outcome.decision_id == DID
    assert gate_of(fake, pull.pull.head_sha).state == "pending"


def test_gate_opens_once_the_decision_is_resolved(fake: Any) -> None:
    number = park(fake)
    pull = fake.add_pull(title="Refund flow", body=f"Depends on #{number}", head_ref="refund-flow")
    run(fake, "pull_request", pr_event(fake, pull.number))
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    fake.push(pull.number)
    outcome = run(fake, "pull_request", pr_event(fake, pull.number, "synchronize"))
    assert outcome.gate_state == "open"
    assert gate_of(fake, fake.issues[pull.number].pull.head_sha).state == "success"


def test_title_only_edit_makes_no_request(fake: Any) -> None:
    pull = fake.add_pull(title="Refund flow", body="", head_ref="refund-flow")
    payload = pr_event(fake, pull.number, "edited")
    payload["changes"] = {"title": {"from": "Old title"}}
    outcome = run(fake, "pull_request", payload)
    assert outcome.status == "ignored"
    assert fake.request_count == 0


@pytest.mark.parametrize("action", ["closed", "labeled", "ready_for_review"])
def test_other_actions_are_notices_without_requests(fake: Any, action: str) -> None:
    payload = webhook("pull_request.opened")
    payload["action"] = action
    outcome = run(fake, "pull_request", payload)
    assert outcome.status == "unknown"
    assert outcome.exit_code == 0
    assert f"pull_request.{action}" in outcome.notice
    assert fake.request_count == 0


def test_missing_head_is_invalid_input(fake: Any) -> None:
    payload = webhook("pull_request.opened")
    del payload["pull_request"]["head"]["sha"]
    with pytest.raises(InvalidInput, match=r"pull_request\.head\.sha is missing"):
        run(fake, "pull_request", payload)


# --- agent branches: the head commit must carry results or an inventory ------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "checkout"
    make_repo(path)
    return path


def agent_commit(repo: Path, files: dict[str, str]) -> str:
    run_git(repo, "checkout", "-q", "-B", "agent/billing-42", "main")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
        run_git(repo, "add", name)
    run_git(repo, "commit", "-q", "--allow-empty", "-m", "agent work")
    return run_git(repo, "rev-parse", "HEAD")


def test_agent_pull_request_without_inventory_fails(fake: Any, repo: Path) -> None:
    sha = agent_commit(repo, {"src/x.py": "x = 1\n"})
    pull = fake.add_pull(title="Agent work", head_ref="agent/billing-42", head_sha=sha, body="")
    outcome = run(fake, "pull_request", pr_event(fake, pull.number, "synchronize"), repo_path=repo)
    assert outcome.gate_state == "failure"
    assert outcome.exit_code == 1
    posted = gate_of(fake, sha)
    assert posted.state == "failure"
    assert "no inventory" in posted.description


def test_agent_pull_request_with_inventory_gets_the_plain_gate(fake: Any, repo: Path) -> None:
    sha = agent_commit(repo, {".parkbot/inventory.json": json.dumps({"none": True})})
    pull = fake.add_pull(title="Agent work", head_ref="agent/billing-42", head_sha=sha, body="")
    outcome = run(fake, "pull_request", pr_event(fake, pull.number), repo_path=repo)
    assert outcome.gate_state == "open"
    assert gate_of(fake, sha).state == "success"


def test_agent_pull_request_whose_head_is_not_checked_out_fails_closed(fake: Any, repo: Path) -> None:
    pull = fake.add_pull(title="Agent work", head_ref="agent/billing-42", head_sha="4" * 40, body="")
    outcome = run(fake, "pull_request", pr_event(fake, pull.number), repo_path=repo)
    assert outcome.gate_state == "failure"
    assert "check out the pull request head" in gate_of(fake, "4" * 40).description


def test_fork_branch_named_like_an_agent_branch_is_a_plain_pull_request(fake: Any, repo: Path) -> None:
    pull = fake.add_pull(title="Fork work", head_ref="agent/billing-42", head_sha="5" * 40, body="")
    payload = pr_event(fake, pull.number)
    payload["pull_request"]["head"]["repo"] = {"full_name": "someone/widgets"}
    outcome = run(fake, "pull_request", payload, repo_path=repo)
    assert outcome.gate_state == "open"


def test_pull_request_opened_after_the_push_is_blocked_by_what_the_push_parked(fake: Any, repo: Path) -> None:
    from tests.support.events import webhook as load

    result = needs_input_data()
    sha = agent_commit(repo, {".parkbot/decisions/refund.json": json.dumps(result)})
    fake.add_commit(sha, "agent work", branch="agent/billing-42")
    push = with_repository(load("push"), fake)
    push.update(ref="refs/heads/agent/billing-42", after=sha)
    parked = run(fake, "push", push, repo_path=repo)
    assert [i.decision_id for i in parked.items if i.kind == "parked"] == [DID]  # no pull request yet

    pull = fake.add_pull(title="Agent work", head_ref="agent/billing-42", head_sha=sha, body="")
    outcome = run(fake, "pull_request", pr_event(fake, pull.number), repo_path=repo)
    assert outcome.gate_state == "blocked"
    assert gate_of(fake, sha).state == "pending"
    assert f"decision:{DID}" in fake.issues[pull.number].labels  # the link is recorded for later gates
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    assert gate_of(fake, sha).state == "success"
