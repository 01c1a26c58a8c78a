"""The ``--json`` fields of the lifecycle's commands (a contract, docs/cli.md), through the command line on the
embedded git backlog: ``park``, ``resolve``, ``gate`` and ``resume``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from tests.support.git_helpers import cli_repo
from tests.support.lifecycle import REVIEW
from tests.support.results import ASSUMPTIONS, DID, result, result_data

# --- the --json contract (docs/cli.md), through the command line on the git backlog -------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> git.Repo:
    return cli_repo(tmp_path / "repo", monkeypatch, config="owners:\n  default: alice\nprecedents: apply\n")


def run_json(*args: str, stdin: str | None = None) -> tuple[int, Any]:
    outcome = CliRunner().invoke(cli, [*args, "--json"], input=stdin, catch_exceptions=False)
    return outcome.exit_code, json.loads(outcome.stdout)


def needs_input(**changes: Any) -> str:
    return result(**changes).model_dump_json(exclude_none=True)


def where(data: dict[str, Any]) -> dict[str, Any]:
    """The location fields of a --json output on the git backlog."""
    assert data["path"].endswith(f"{data['id']}.json")
    return {"backend": "git", "ref": "refs/parkbot/backlog", "path": data["path"], "number": None, "url": None}


def test_park_json_names_the_decision_its_state_owner_location_and_gates(repo: git.Repo) -> None:
    code, data = run_json("park", "-", stdin=needs_input(dependents=["branch:agent/billing-42"]))
    gate = {"target": "branch:agent/billing-42", "state": "blocked", "blocking": [DID], "resolved": [], "note": None}
    assert (code, data) == (
        0,
        {
            "id": DID,
            "kind": "decision",
            "action": "created",
            "state": "open",
            "owner": "alice",
            "chain": ["alice"],
            **where(data),
            "gates": [gate],
            "precedent": None,
            "answer": None,
        },
    )


def test_park_json_shows_the_precedent_and_the_answer_it_applied(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input(origin="billing-41"))
    run_json("resolve", "billing-41-decision-refund", "--answer", "remaining_three", "--by", "alice")
    code, data = run_json("park", "-", stdin=needs_input())
    assert code == 0
    assert (data["action"], data["state"]) == ("created", "resolved")
    precedent = data["precedent"]
    assert set(precedent) == {"decision", "answer", "answered_by", "answered_at", "location"}
    assert (precedent["decision"], precedent["answer"], precedent["answered_by"]) == (
        "billing-41-decision-refund",
        "remaining_three",
        "alice",
    )
    assert precedent["location"].startswith("refs/parkbot/backlog:")
    answer = data["answer"]
    assert (answer["value"], answer["kind"], answer["by"], answer["citation"]) == (
        "remaining_three",
        "precedent",
        "precedent",
        precedent,
    )


def test_resolve_json_reports_the_answer_whether_it_is_an_assumption_and_the_gates(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input(dependents=["branch:agent/billing-42"]))
    code, data = run_json("resolve", DID, "--answer", "remaining_three", "--default", "--by", "alice")
    assert code == 0
    answered_at = data["answer"].pop("at")
    assert answered_at.endswith("Z")
    assert len(data["answer"].pop("digest")) == 16  # the question and options it was given against
    gate = {"target": "branch:agent/billing-42", "state": "open", "blocking": [], "resolved": [DID], "note": None}
    assert data == {
        "id": DID,
        "action": "resolved",
        "state": "resolved",
        "answer": {
            "value": "remaining_three",
            "kind": "default",
            "by": "alice",
            "source": "cli",
            "citation": None,
            "sources": [],
        },
        "assumption": True,
        **where(data),
        "gates": [gate],
    }


def test_gate_json_lists_what_blocks_and_what_is_answered(repo: git.Repo) -> None:
    head = repo.create_head("agent/billing-42", "main")
    head.commit = git.Commit.create_from_tree(
        repo, head.commit.tree, f"wip\n\nBlocked-by: {DID}\n", parent_commits=[head.commit]
    )
    run_json("park", "-", stdin=needs_input())
    run_json("park", "-", stdin=needs_input(key="currency", title="Currency", dependents=["branch:agent/billing-42"]))
    run_json("resolve", DID, "--answer", "full_original", "--by", "alice")
    code, data = run_json("gate", "--ref", "agent/billing-42")
    assert (code, data) == (
        1,
        {
            "target": "branch:agent/billing-42",
            "state": "blocked",
            "blocking": ["billing-42-decision-currency"],
            "resolved": [DID],
            "note": None,
        },
    )


def test_resume_json_gives_a_fresh_session_everything_to_continue(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input())
    code, context = run_json("resume", DID)
    assert code == 1
    assert context == {
        "id": DID,
        "state": "open",
        "question": result().question,
        "options": [
            {"id": "remaining_three", "label": "412.00"},
            {"id": "full_original", "label": "690.00"},
        ],
        "answer": None,
        "answered_by": None,
        "answered_at": None,
        "assumption": False,
        "precedent": None,
        "guess": "remaining_three",
        "overrides": [],
        "work_so_far": {"verified": ["A-4471"], "pending": ["refund"]},
    }
    run_json("resolve", DID, "--answer", "full_original", "--by", "alice")
    code, context = run_json("resume", DID)
    assert code == 0
    assert (context["state"], context["answer"], context["assumption"], context["precedent"]) == (
        "resolved",
        "full_original",
        False,
        None,
    )
    assert context["answered_by"] == "alice"
    assert context["answered_at"].endswith("Z")


def test_resume_json_cites_the_precedent_an_answer_came_from(repo: git.Repo) -> None:
    run_json("park", "-", stdin=needs_input(origin="billing-41"))
    run_json("resolve", "billing-41-decision-refund", "--answer", "remaining_three", "--by", "alice")
    _, parked = run_json("park", "-", stdin=needs_input())
    code, context = run_json("resume", DID)
    assert code == 0
    assert (context["answer"], context["answered_by"]) == ("remaining_three", "precedent")
    assert context["answered_at"] == parked["answer"]["at"]
    assert context["precedent"] == parked["precedent"]


def test_resume_json_lists_the_overrides_of_a_review(repo: git.Repo) -> None:
    review = result_data(ASSUMPTIONS, assumptions=["EUR"])
    run_json("park", "-", stdin=json.dumps(review))
    run_json("override", REVIEW, "1", "USD", "--by", "alice")
    _, context = run_json("resume", REVIEW)
    (override,) = context["overrides"]
    assert (override["assumption"], override["text"], override["by"]) == (1, "USD", "alice")
    assert override["at"].endswith("Z")
