"""``push`` events on real temporary repositories: what the pushed commit holds is what gets parked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners, Paths
from parkbot.core.errors import InvalidInput
from parkbot.core.filing import branch_origin, parse_inventory
from tests.support.events import AGENT, HOSTILE, commit, push_event, result_json, run
from tests.support.git_helpers import make_repo
from tests.support.github_helpers import CONFIG, DID, gate_of, make_tracker


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "checkout"
    make_repo(path)
    return path


def status(fake: Any, sha: str) -> Any:
    return gate_of(fake, sha)


def test_parks_what_the_pushed_commit_holds_not_the_working_tree(fake: Any, repo: Path) -> None:
    sha = commit(repo, AGENT, {".parkbot/decisions/refund.json": result_json()})
    # The working tree no longer has the file, and holds a different, uncommitted one instead.
    shutil.rmtree(repo / ".parkbot")
    (repo / ".parkbot/decisions").mkdir(parents=True)
    (repo / ".parkbot/decisions/other.json").write_text(result_json(key="other", title="Other"), encoding="utf-8")
    pull = fake.add_pull(title="Agent work", head_ref=AGENT, head_sha=sha, body="")

    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)

    parked = [i for i in outcome.items if i.kind == "parked"]
    assert [(i.decision_id, i.action) for i in parked] == [(DID, "created")]
    assert outcome.exit_code == 0
    tracker = make_tracker(fake)
    decision = tracker.find(DID)
    assert decision is not None
    assert decision.work_so_far == {"verified": ["A-4471"]}
    assert f"branch:{AGENT}" in decision.dependents  # a blocking result blocks its own branch
    assert tracker.find("billing-42-decision-other") is None  # the uncommitted file was not read
    assert status(fake, sha).state == "pending"  # the branch's pull request is blocked
    assert f"decision:{DID}" in fake.issues[pull.number].labels


def test_same_push_again_is_unchanged(fake: Any, repo: Path) -> None:
    sha = commit(repo, AGENT, {".parkbot/decisions/refund.json": result_json()})
    run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    again = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert [i.action for i in again.items if i.kind == "parked"] == ["unchanged"]
    assert len([i for i in fake.issues.values() if i.pull is None and "parkbot:dashboard" not in i.labels]) == 1


def test_missing_inventory_on_an_agent_branch_fails_the_gate(fake: Any, repo: Path) -> None:
    sha = commit(repo, AGENT, {"src/work.py": "print('done')\n"})
    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert outcome.gate_state == "failure"
    assert outcome.exit_code == 1
    posted = status(fake, sha)
    assert posted.state == "failure"
    assert "no inventory" in posted.description
    assert not [i for i in fake.issues.values() if i.pull is None]  # nothing was taken as "no questions"


def test_explicit_none_is_accepted(fake: Any, repo: Path) -> None:
    sha = commit(repo, AGENT, {".parkbot/inventory.json": json.dumps({"none": True})})
    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert outcome.exit_code == 0
    assert outcome.status == "ignored"
    assert "stated explicitly" in outcome.notice
    assert status(fake, sha) is None


def test_inventory_listing_decisions_must_match_what_was_filed(fake: Any, repo: Path) -> None:
    inventory = {"origin": "billing-42", "decisions": ["refund", "shipping"]}
    sha = commit(
        repo,
        AGENT,
        {".parkbot/decisions/refund.json": result_json(), ".parkbot/inventory.json": json.dumps(inventory)},
    )
    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert [i.decision_id for i in outcome.items if i.kind == "parked"] == [DID]
    assert outcome.exit_code == 2
    assert "billing-42-decision-shipping" in status(fake, sha).description


def test_none_with_result_files_is_a_contradiction(fake: Any, repo: Path) -> None:
    sha = commit(
        repo,
        AGENT,
        {".parkbot/decisions/refund.json": result_json(), ".parkbot/inventory.json": json.dumps({"none": True})},
    )
    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert [i.decision_id for i in outcome.items if i.kind == "parked"] == [DID]  # the question is not lost
    assert status(fake, sha).state == "failure"
    assert outcome.exit_code == 2


def test_broken_file_fails_but_the_good_one_is_parked(fake: Any, repo: Path) -> None:
    sha = commit(
        repo,
        AGENT,
        {
            ".parkbot/decisions/a-broken.json": "{not json",
            ".parkbot/decisions/b-no-question.json": result_json(question=" ", key="blank"),
            ".parkbot/decisions/refund.json": result_json(),
        },
    )
    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert [i.decision_id for i in outcome.items if i.kind == "parked"] == [DID]
    errors = [i.message for i in outcome.items if i.kind == "error"]
    assert any("a-broken.json" in m and "not valid JSON" in m for m in errors)
    assert any("b-no-question.json" in m and "question" in m for m in errors)
    assert outcome.exit_code == 2
    assert status(fake, sha).state == "failure"


def test_a_branch_may_only_file_for_its_own_origin(fake: Any, repo: Path) -> None:
    sha = commit(repo, AGENT, {".parkbot/decisions/x.json": result_json(origin="payments-7")})
    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert not [i for i in outcome.items if i.kind == "parked"]
    assert [i.kind for i in outcome.items if i.kind == "refused"] == ["refused"]
    assert outcome.exit_code == 3
    assert "payments-7" in status(fake, sha).description
    assert make_tracker(fake).find("payments-7-decision-refund") is None


def test_nested_agent_branch_speaks_for_its_first_component(fake: Any, repo: Path) -> None:
    branch = "agent/billing-42/retry-2"
    sha = commit(repo, branch, {".parkbot/decisions/refund.json": result_json()})
    outcome = run(fake, "push", push_event(fake, branch, sha), repo_path=repo)
    assert [i.decision_id for i in outcome.items if i.kind == "parked"] == [DID]


def test_people_s_branches_keep_the_result_s_origin_and_silence_is_fine(fake: Any, repo: Path) -> None:
    sha = commit(repo, "feature/x", {".parkbot/decisions/x.json": result_json(origin="payments-7")})
    outcome = run(fake, "push", push_event(fake, "feature/x", sha), repo_path=repo)
    assert [i.decision_id for i in outcome.items if i.kind == "parked"] == ["payments-7-decision-refund"]
    decision = make_tracker(fake).find("payments-7-decision-refund")
    assert decision is not None
    assert decision.dependents == []
    quiet = commit(repo, "feature/y", {"README.md": "more\n"})
    outcome = run(fake, "push", push_event(fake, "feature/y", quiet), repo_path=repo)
    assert outcome.status == "ignored"
    assert status(fake, quiet) is None


def test_a_resolved_decision_still_on_the_branch_is_not_a_problem(fake: Any, repo: Path) -> None:
    from parkbot.core import lifecycle

    sha = commit(repo, AGENT, {".parkbot/decisions/refund.json": result_json()})
    run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    later = commit(repo, AGENT, {"src/resumed.py": "print('resumed')\n"})
    outcome = run(fake, "push", push_event(fake, AGENT, later), repo_path=repo)
    assert outcome.exit_code == 0
    assert [i.action for i in outcome.items if i.kind == "parked"] == ["already_resolved"]
    assert status(fake, later) is None


def test_configured_paths_are_honoured(fake: Any, repo: Path) -> None:
    config = Config(
        owners=Owners(default="alice"),
        precedents="off",
        agent_branches=["bots/**"],
        paths=Paths(decisions="out/questions", inventory="out/inventory.json"),
    )
    sha = commit(repo, "bots/billing-42", {"out/questions/q.json": result_json()})
    outcome = run(fake, "push", push_event(fake, "bots/billing-42", sha), repo_path=repo, config=config)
    assert [i.decision_id for i in outcome.items if i.kind == "parked"] == [DID]
    empty = commit(repo, "bots/billing-42", {"out/questions/q.json": None})
    outcome = run(fake, "push", push_event(fake, "bots/billing-42", empty), repo_path=repo, config=config)
    assert status(fake, empty).state == "failure"
    assert "out/inventory.json" in status(fake, empty).description


@pytest.mark.parametrize(
    "changes",
    [
        {"deleted": True, "after": "0" * 40},
        {"ref": "refs/tags/v1.0.0"},
    ],
)
def test_deletions_and_tags_make_no_request(fake: Any, repo: Path, changes: dict[str, Any]) -> None:
    payload = push_event(fake, AGENT, "0" * 40 if changes.get("deleted") else commit(repo, AGENT, {}), **changes)
    outcome = run(fake, "push", payload, repo_path=repo)
    assert outcome.status == "ignored"
    assert fake.request_count == 0
    assert not outcome.api_used


def test_commit_missing_from_the_checkout_is_invalid_input(fake: Any, repo: Path) -> None:
    payload = push_event(fake, AGENT, "1" * 40)
    with pytest.raises(InvalidInput, match="is not in the checkout"):
        run(fake, "push", payload, repo_path=repo)


def test_not_a_repository_is_invalid_input(fake: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InvalidInput, match="not inside a git repository"):
        run(fake, "push", push_event(fake, AGENT, "2" * 40), repo_path=empty)


def test_malformed_push_payloads(fake: Any, repo: Path) -> None:
    payload = push_event(fake, AGENT, "3" * 40)
    del payload["after"]
    with pytest.raises(InvalidInput, match="after is missing"):
        run(fake, "push", payload, repo_path=repo)
    payload = push_event(fake, AGENT, "3" * 40, after="not-a-sha")
    with pytest.raises(InvalidInput, match="commit sha"):
        run(fake, "push", payload, repo_path=repo)


def test_hostile_branch_name_and_text_change_nothing_outside_their_own_text(fake: Any, repo: Path) -> None:
    branch = "agent/billing-42/$(touch${IFS}pwned)-`id`-${{github.token}};&|'\"<>!#%"
    question = HOSTILE.replace("\r", "")
    sha = commit(repo, branch, {".parkbot/decisions/q.json": result_json(question=question, title="Hostile")})
    outcome = run(fake, "push", push_event(fake, branch, sha), repo_path=repo)
    assert outcome.exit_code == 0, [i.message for i in outcome.items]
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    assert decision.question == question  # stored verbatim
    assert f"branch:{branch}" in decision.dependents
    assert not (repo / "pwned").exists()
    assert not Path("pwned").exists()
    assert not fake.statuses  # no pull request for that branch: nothing else was touched


def test_branch_origin_rule() -> None:
    config = Config(agent_branches=["agent/**", "bots/*"])
    assert branch_origin("agent/billing-42", config) == "billing-42"
    assert branch_origin("agent/Billing-42/retry", config) == "billing-42"
    assert branch_origin("bots/task-1", config) == "task-1"
    assert branch_origin("bots/task-1/a", config) is None  # "*" does not cross a slash: not an agent branch
    assert branch_origin("agent/bad~name", config) is None
    assert branch_origin("feature/x", config) is None


def test_inventory_shapes() -> None:
    # by hand: the raw shapes an inventory file may take are the point here
    assert parse_inventory({"none": True}, default_origin="billing-42").none
    assert parse_inventory({"status": "done", "origin": "o", "decisions": ["k"]}).decision_ids() == ["o-decision-k"]
    with pytest.raises(InvalidInput, match="empty inventory"):
        parse_inventory({"origin": "o", "decisions": []})
    with pytest.raises(InvalidInput, match="JSON object"):
        parse_inventory(["none"])
    with pytest.raises(InvalidInput, match="not a needs_input"):
        parse_inventory(json.loads(result_json()))
