"""Every rule of filing from a branch (parkbot.core.filing), on the in-memory tracker: what a pushed commit's
files become (the steps the push reports, in order), what fails the commit's gate and the one line it
says, the origin rule, the inventory rules, and the gate of an agent branch's pull request.

The push and pull-request events only translate these reports (tests/events/test_events_push.py and
tests/events/test_events_pulls.py run them end to end on a real repository and the GitHub fake).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from parkbot.core import filing, lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Paths
from parkbot.core.errors import InvalidInput, NotFound
from parkbot.core.filing import BranchFiles, FiledFiles, Problem
from parkbot.core.models import MAX_DEPENDENTS, Decision, LogEntry
from parkbot.core.tracker import Location
from tests.support.filing import (
    BRANCH,
    CONFIG,
    DID,
    FILE,
    INVENTORY,
    SHA,
    GatedTracker,
    files,
    needs_input,
    problems,
    push,
    steps,
)
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import ASSUMPTIONS, DONE, NOW, inventory, result, result_data, review_result

# --- reading what the commit holds ------------------------------------------------------------------


def test_each_unreadable_file_is_a_problem_of_that_file_and_the_rest_is_still_parked() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    tracker = GatedTracker()
    report = push(
        tracker,
        files(
            {FILE: needs_input(), "bad.json": b"{not json", "deep.json": deep},
            {"decisions": ["refund"]},
            errors=(("huge.json", "is larger than 2097152 bytes"),),
        ),
    )
    found = problems(report)
    assert found[0] == ("huge.json: is larger than 2097152 bytes", 2, "invalid", "huge.json")
    assert found[1][0].startswith("bad.json: is not valid JSON: ")
    assert found[2] == ("deep.json: is nested too deeply to read", 2, "invalid", "deep.json")
    assert [s.kind for s in report.steps] == ["problem", "problem", "problem", "parked"]
    assert tracker.find(DID) is not None


@pytest.mark.parametrize(
    ("inventory", "problem"),
    [
        ([1, 2], 'must be a JSON object such as {"origin": "...", "none": true}'),
        (needs_input(), "must be a done/failed result or an inventory, not a needs_input result"),
        ("the inventory is larger than 2097152 bytes", "the inventory is larger than 2097152 bytes"),
    ],
    ids=["not-an-object", "a-question", "unread-by-the-adapter"],
)
def test_an_inventory_that_cannot_be_read_fails_the_commit_naming_its_path(inventory: Any, problem: str) -> None:
    report = push(GatedTracker(), files(inventory=inventory))
    assert problems(report) == [(f"{INVENTORY}: {problem}", 2, "invalid", INVENTORY)]


def test_an_inventory_without_an_origin_speaks_for_the_branchs_origin() -> None:
    report = push(GatedTracker(), files(inventory={"none": True}))
    assert steps(report) == [("none_surfaced", "billing-42: no decisions surfaced (stated explicitly)", None, None)]
    assert report.failure is None
    assert filing.parse_filed(FiledFiles(SHA, inventory=(INVENTORY, b'{"none": true}'))).inventory_error is not None


# --- silence, and the inventory's claims -----------------------------------------------------------------


def test_an_agent_commit_that_files_nothing_fails_saying_what_to_file() -> None:
    tracker = GatedTracker()
    config = CONFIG.model_copy(update={"paths": Paths(decisions="out/questions", inventory="out/inventory.json")})
    report = push(tracker, files(), config=config)
    message = (
        "agent filed no inventory: neither result files under out/questions nor out/inventory.json in "
        f'{SHA[:12]}; an agent that found nothing must say so with {{"none": true}}'
    )
    assert (report.steps, report.failure) == ([], filing.CommitFailure(message, 1, ("no_inventory",), True))
    assert tracker.commit_failures == {SHA: message}


def test_silence_on_a_persons_branch_is_fine_and_reports_nothing() -> None:
    tracker = GatedTracker()
    report = push(tracker, files(origin=None), branch="feature/x")
    assert (report.empty, tracker.commit_failures) == (True, {})


def test_none_with_result_files_counts_every_file_filed_with_it() -> None:
    report = push(GatedTracker(), files({FILE: needs_input()}, {"none": True}, errors=(("x.json", "unreadable"),)))
    assert (
        f"{INVENTORY} says none: true, but 2 result file(s) were filed with it",
        2,
        "invalid",
        INVENTORY,
    ) in problems(report)
    assert "none_surfaced" not in [s.kind for s in report.steps]


def test_an_inventory_must_list_only_decisions_that_are_filed_or_in_the_backlog() -> None:
    tracker = GatedTracker()
    lifecycle.park(tracker, result(key="earlier", title="Earlier"), CONFIG, now=NOW)
    report = push(tracker, files({FILE: needs_input()}, {"decisions": ["refund", "earlier", "later", "gone"]}))
    assert problems(report) == [
        (
            f"{INVENTORY} lists decisions that were not filed: billing-42-decision-later, billing-42-decision-gone",
            2,
            "missing",
            None,
        )
    ]
    assert steps(report)[-1] == ("problem", problems(report)[0][0], None, None)
    assert report.failure.reasons == ("missing",)


def test_a_hand_built_inventory_without_a_path_is_named_by_the_configured_path() -> None:
    built = BranchFiles(sha=SHA, inventory=inventory(origin="billing-7", decisions=["x"]))
    found = filing.static_problems(built, CONFIG, agent=True, origin="billing-42")
    assert [(p.message, p.path) for p in found] == [
        (
            f"{INVENTORY}: speaks for origin 'billing-7', but the branch belongs to 'billing-42'; a branch may only "
            "file questions of its own task",
            INVENTORY,
        )
    ]
    assert [p.message for p in filing.missing_problems(MemoryTracker(), built)] == [
        "the inventory lists decisions that were not filed: billing-7-decision-x"
    ]


# --- the origin rule ----------------------------------------------------------------------------------


def test_a_file_for_another_origin_is_refused_and_not_parked() -> None:
    tracker = GatedTracker()
    report = push(tracker, files({FILE: needs_input(origin="billing-7")}, {"origin": "billing-7", "none": True}))
    assert problems(report) == [
        (
            f"{FILE}: speaks for origin 'billing-7', but the branch belongs to 'billing-42'; a branch may only file "
            "questions of its own task",
            3,
            "origin_mismatch",
            FILE,
        ),
        (
            f"{INVENTORY}: speaks for origin 'billing-7', but the branch belongs to 'billing-42'; a branch may only "
            "file questions of its own task",
            3,
            "origin_mismatch",
            INVENTORY,
        ),
        (f"{INVENTORY} says none: true, but 1 result file(s) were filed with it", 2, "invalid", INVENTORY),
    ]
    assert steps(report) == [("problem", message, path, None) for message, _, _, path in problems(report)]
    assert tracker.find("billing-7-decision-refund") is None
    assert report.failure.exit_code == 3
    assert report.failure.summary.startswith(f"3 problems; first: {FILE}: speaks for origin 'billing-7'")


def test_an_agent_branch_without_a_valid_origin_files_for_nobody() -> None:
    tracker = GatedTracker()
    config = CONFIG.model_copy(update={"agent_branches": ["agent/**", "bots/*"]})
    report = push(tracker, files({FILE: needs_input()}, {"none": True}), branch="bots/-x", config=config)
    expected = "the agent branch names no valid origin (expected agent/<origin>[/...]), so it may not file for"
    assert problems(report)[:2] == [
        (f"{FILE}: {expected} 'billing-42'", 3, "origin_mismatch", FILE),
        (f"{INVENTORY}: {expected} 'billing-42'", 3, "origin_mismatch", INVENTORY),
    ]
    assert tracker.items == {}


def test_a_persons_branch_files_for_the_origin_each_result_names() -> None:
    tracker = GatedTracker()
    report = push(tracker, files({FILE: needs_input(origin="billing-7")}, origin=None), branch="feature/x")
    assert steps(report) == [("parked", "", FILE, "billing-7-decision-refund")]
    assert tracker.find("billing-7-decision-refund").dependents == []  # a person's branch is not added
    assert report.failure is None


@pytest.mark.parametrize(
    ("patterns", "branch", "origin"),
    [
        (["agent/**"], "agent/billing-42", "billing-42"),
        (["agent/**"], "agent/billing-42/retry/2", "billing-42"),
        (["agent/**"], "agent/Billing-42", "billing-42"),
        (["bots/*/work"], "bots/billing-1/work", "billing-1"),
        (["bots/team/*"], "bots/team/billing-1", "billing-1"),
        (["bots/team-*"], "bots/team-a", "team-a"),
        (["agent-*"], "agent-7", "agent-7"),
        (["ops/Xavier/*"], "ops/Xavier/billing-1", "billing-1"),
        (["release/v1"], "release/v1", "v1"),
        (["agent/**"], "agent/-x", None),
        (["agent/**"], "feature/x", None),
        (["feature/*", "agent/**"], "agent/billing-42", "billing-42"),
    ],
)
def test_an_agent_branch_speaks_for_the_first_component_after_its_patterns_literal_folder(
    patterns: list[str], branch: str, origin: str | None
) -> None:
    assert filing.branch_origin(branch, Config(agent_branches=patterns)) == origin


# --- parking what was filed --------------------------------------------------------------------------


def test_a_blocking_question_from_an_agent_branch_also_blocks_that_branch() -> None:
    tracker = GatedTracker()
    report = push(tracker, files({FILE: needs_input(dependents=["#7"])}, {"decisions": ["refund"]}))
    assert steps(report) == [("parked", "", FILE, DID)]
    (step,) = report.steps
    assert (step.outcome.action, step.outcome.decision.dependents) == ("created", ["#7", f"branch:{BRANCH}"])
    assert tracker.find(DID).dependents == ["#7", f"branch:{BRANCH}"]
    assert tracker.find(DID).created_at == NOW  # the event's clock
    assert [g.target for g in step.outcome.gates] == ["#7", f"branch:{BRANCH}"]


@pytest.mark.parametrize(
    ("changes", "dependents"),
    [
        ({"blocking": False, "dependents": ["#7"]}, ["#7"]),
        ({"dependents": [f"branch:{BRANCH}", "#7"]}, [f"branch:{BRANCH}", "#7"]),
        ({"dependents": [f"#{n}" for n in range(1, MAX_DEPENDENTS + 1)]}, [f"#{n}" for n in range(1, 51)]),
        (
            {"dependents": [f"#{n}" for n in range(1, MAX_DEPENDENTS)]},
            [*(f"#{n}" for n in range(1, 50)), f"branch:{BRANCH}"],
        ),
    ],
    ids=["non-blocking", "already-listed", "at-the-limit", "one-below-the-limit"],
)
def test_the_branch_is_added_only_to_a_blocking_question_that_lacks_it_within_the_limit(
    changes: dict[str, Any], dependents: list[str]
) -> None:
    tracker = GatedTracker()
    push(tracker, files({FILE: needs_input(**changes)}, {"decisions": ["refund"]}))
    assert tracker.find(DID).dependents == dependents


def test_stated_assumptions_are_parked_as_a_review_item() -> None:
    tracker = GatedTracker()
    review = result_data(ASSUMPTIONS, assumptions=["EUR"], dependents=["#7"])
    report = push(tracker, files({".parkbot/decisions/review.json": review}))
    assert steps(report)[0] == ("parked", "", ".parkbot/decisions/review.json", "billing-42-decision-assumptions")
    stored = tracker.find("billing-42-decision-assumptions")
    assert (stored.kind, stored.dependents, stored.created_at) == ("review", ["#7"], NOW)


def test_a_finished_result_among_the_questions_is_reported_and_skipped() -> None:
    report = push(GatedTracker(), files({"done.json": result_data(DONE, none=True)}))
    assert steps(report) == [
        ("not_a_question", "done.json: a done result is not a question; put it in the inventory", None, None)
    ]
    assert report.failure is None


def test_a_question_answered_since_it_was_filed_is_not_a_problem() -> None:
    tracker = GatedTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    report = push(tracker, files({FILE: needs_input()}, {"decisions": ["refund"]}))
    ((kind, message, path, did),) = steps(report)
    assert (kind, path, did) == ("already_resolved", FILE, DID)
    assert message.startswith(f"{FILE}: decision {DID} is already resolved (answer: 'full_original')")
    assert report.failure is None


def test_a_review_answered_since_names_no_decision_id_in_its_step() -> None:
    tracker = GatedTracker()
    review = review_result(assumptions=["EUR"])
    did = lifecycle.park_review(tracker, review, CONFIG, now=NOW).decision.id
    lifecycle.accept_review(tracker, CONFIG, did, Actor("alice"), now=NOW)
    report = push(tracker, files({"r.json": review.model_dump(mode="json")}))
    assert [(s.kind, s.path, s.decision_id) for s in report.steps] == [("already_resolved", "r.json", None)]


def test_a_refused_question_fails_the_commit_with_the_refusal() -> None:
    tracker = GatedTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    report = push(tracker, files({FILE: needs_input(title="Another title")}, {"decisions": ["refund"]}))
    (problem,) = problems(report)
    assert problem[1:] == (3, "collision", FILE)
    assert problem[0].startswith(f"{FILE}: identity collision: decision {DID} already exists")
    assert [(s.kind, s.message, s.path) for s in report.steps] == [("problem", problem[0], FILE)]
    assert report.failure == filing.CommitFailure(problem[0], 3, ("collision",), True)


def test_a_question_the_backend_cannot_store_is_invalid_input_of_its_file() -> None:
    class Picky(GatedTracker):
        def create(self, decision: Decision, log: LogEntry) -> Location:
            raise InvalidInput("the question is too long for this backend", reason="too_long")

    report = push(Picky(), files({FILE: needs_input()}, {"decisions": ["refund"]}))
    assert problems(report)[0] == (f"{FILE}: the question is too long for this backend", 2, "too_long", FILE)
    assert next((s.kind, s.message, s.path) for s in report.steps) == (
        "problem",
        f"{FILE}: the question is too long for this backend",
        FILE,
    )


# --- the failed gate of a commit ------------------------------------------------------------------------


def test_a_failed_commit_names_its_first_problem_and_exits_with_the_worst_code() -> None:
    tracker = GatedTracker()
    found = [Problem("first", exit_code=2, reason="invalid"), Problem("second", exit_code=3, reason="collision")]
    assert filing.fail_commit(tracker, SHA, found) == filing.CommitFailure(
        "2 problems; first: first", 3, ("invalid", "collision"), True
    )
    assert tracker.commit_failures == {SHA: "2 problems; first: first"}
    plain = MemoryTracker()
    assert filing.fail_commit(plain, SHA, found[:1]) == filing.CommitFailure("first", 2, ("invalid",), False)


# --- an inventory on its own (parkbot park with a done/failed result) ------------------------------------


def test_an_inventory_on_its_own_names_the_decisions_missing_from_the_backlog() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    done = inventory(decisions=["refund", "a", "b"])
    with pytest.raises(NotFound) as info:
        filing.check_inventory(tracker, done)
    assert info.value.message == (
        "billing-42: the inventory lists decisions that are not in the backlog: billing-42-decision-a, "
        "billing-42-decision-b; park their needs_input results first"
    )


def test_park_json_of_an_inventory_says_what_was_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repository = git.Repo.init(tmp_path / "repo", initial_branch="main")
    with repository.config_writer() as writer:
        writer.set_value("user", "email", "alice@example.com")
        writer.set_value("user", "name", "Alice")
    repository.index.commit("initial")
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.delenv("PARKBOT_BACKEND", raising=False)

    def park(data: dict[str, Any]) -> Any:
        outcome = CliRunner().invoke(cli, ["park", "-", "--json"], input=json.dumps(data), catch_exceptions=False)
        assert outcome.exit_code == 0, outcome.output
        return json.loads(outcome.stdout)

    assert park(result_data(DONE, none=True)) == {
        "origin": "billing-42",
        "status": "done",
        "none": True,
        "decisions": [],
        "missing": [],
    }
    park(needs_input())
    assert park(result_data(DONE, status="failed", error="crashed", decisions=["refund"])) == {
        "origin": "billing-42",
        "status": "failed",
        "none": False,
        "decisions": [DID],
        "missing": [],
    }


# --- the gate of an agent branch's pull request -------------------------------------------------------------


def gate(tracker: GatedTracker, branch_files: BranchFiles | None, **kw: Any) -> filing.HeadGate:
    return filing.gate_agent_head(tracker, CONFIG, "#7", branch=BRANCH, sha=SHA, files=branch_files, **kw)


def test_a_pull_request_is_blocked_by_what_its_head_commit_filed_for_its_branch() -> None:
    tracker = GatedTracker()
    push(tracker, files({FILE: needs_input()}, {"decisions": ["refund"]}))
    tracker.linked.clear()
    head = gate(tracker, files({FILE: needs_input()}, {"decisions": ["refund"]}))
    assert head.failure is None
    assert (head.result.target, head.result.state, [d.id for d in head.result.blocking]) == ("#7", "blocked", [DID])
    assert tracker.linked == [DID]  # the link is made durably, once
    assert tracker.published["#7"] == head.result
    assert tracker.commit_failures == {}


@pytest.mark.parametrize(
    "prepare",
    ["resolved", "non-blocking", "another-branch", "missing", "already-linked"],
)
def test_a_head_file_does_not_block_the_pull_request_when_its_decision_does_not_block_this_branch(
    prepare: str,
) -> None:
    tracker = GatedTracker()
    if prepare != "missing":
        changes: dict[str, Any] = {}
        if prepare == "non-blocking":
            changes = {"blocking": False, "dependents": [f"branch:{BRANCH}"]}
        if prepare == "already-linked":
            changes["dependents"] = ["#7"]
        branch = "agent/billing-42/other" if prepare == "another-branch" else BRANCH
        push(tracker, files({FILE: needs_input(**changes)}, {"decisions": ["refund"]}), branch=branch)
    if prepare == "resolved":
        lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    tracker.linked.clear()
    review = result_data(ASSUMPTIONS, assumptions=["EUR"])
    head = gate(tracker, files({"r.json": review, FILE: needs_input()}, {"decisions": ["refund"]}))
    blocking = [d.id for d in head.result.blocking]
    assert blocking == ([DID] if prepare == "already-linked" else [])
    assert tracker.linked == []


def test_every_head_file_is_looked_at_once_whatever_the_files_before_it() -> None:
    tracker = GatedTracker()
    push(tracker, files({FILE: needs_input()}, {"decisions": ["refund"]}))
    push(tracker, files({"soft.json": needs_input(key="soft", blocking=False)}, {"decisions": ["soft"]}))
    push(tracker, files({"answered.json": needs_input(key="answered")}, {"decisions": ["answered"]}))
    lifecycle.resolve(tracker, CONFIG, "billing-42-decision-answered", "full_original", Actor("alice"), now=NOW)
    push(tracker, files({"late.json": needs_input(key="late")}, {"decisions": ["late"]}))
    tracker.items["billing-42-decision-late"] = tracker.items["billing-42-decision-late"].model_copy(
        update={"dependents": ["branch:agent/billing-42/other"]}
    )
    tracker.linked.clear()
    review = result_data(ASSUMPTIONS, assumptions=["EUR"])
    head = gate(
        tracker,
        files(
            {
                "r.json": review,
                "unknown.json": needs_input(key="unknown"),
                "answered.json": needs_input(key="answered"),
                "late.json": needs_input(key="late"),
                "soft.json": needs_input(key="soft", blocking=False),
                FILE: needs_input(),
                "again.json": needs_input(),  # the same question filed twice is linked once
            },
            {"decisions": ["refund", "soft", "answered", "late", "unknown"]},
        ),
    )
    assert head.failure is None  # "unknown" is filed by this very commit, so it is not missing
    assert [d.id for d in head.result.blocking] == [DID]
    assert tracker.linked == [DID]


def test_with_signed_answers_a_head_filed_question_answered_without_proof_still_blocks() -> None:
    class Verifying(GatedTracker):
        def verifies_signatures(self) -> bool:
            return True

    tracker = Verifying()
    signed = CONFIG.model_copy(update={"answers": CONFIG.answers.model_copy(update={"require_signed": True})})
    lifecycle.park(tracker, result(dependents=[f"branch:{BRANCH}"]), signed, now=NOW)
    lifecycle.resolve(tracker, signed, DID, "full_original", Actor("alice"), now=NOW)  # stored with no proof
    head = filing.gate_agent_head(
        tracker,
        signed,
        "#7",
        branch=BRANCH,
        sha=SHA,
        files=files({"gone.json": needs_input(key="gone"), FILE: needs_input()}, {"decisions": ["refund", "gone"]}),
    )
    assert [d.id for d in head.result.blocking] == [DID]


def test_a_pull_request_whose_head_would_fail_filing_fails_with_that_problem() -> None:
    tracker = GatedTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    head = gate(tracker, files({FILE: needs_input(title="Another title")}, {"decisions": ["refund", "x"]}))
    assert head.failure is not None
    assert head.failure.reasons == ("collision", "missing")
    assert head.failure.summary == (
        f"2 problems; first: {FILE}: identity collision: {DID} already exists with the title "
        "'Refund scope for order A-4471'"
    )
    assert tracker.commit_failures == {SHA: head.failure.summary}
    assert "#7" not in tracker.published


def test_a_pull_request_whose_head_files_nothing_fails_and_one_that_cannot_be_read_fails_closed() -> None:
    tracker = GatedTracker()
    silent = gate(tracker, files())
    assert silent.failure.reasons == ("no_inventory",)
    unreadable = Problem("cannot read the head", reason="unreadable")
    closed = gate(tracker, None, unreadable=unreadable)
    assert (closed.failure.summary, closed.failure.reasons) == ("cannot read the head", ("unreadable",))
    both = gate(tracker, files(), unreadable=unreadable)
    assert both.failure.reasons == ("unreadable", "no_inventory")
    plain = gate(tracker, None)
    assert (plain.failure, plain.result.state) == (None, "open")


def test_collisions_are_checked_only_for_questions_and_only_against_another_title() -> None:
    tracker = GatedTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    review = result_data(ASSUMPTIONS, assumptions=["EUR"])
    same = files({"r.json": review, FILE: needs_input(), "new.json": needs_input(key="new")}, {"none": True})
    assert filing.collision_problems(tracker, same) == []
    other = files({"r.json": review, FILE: needs_input(title="Other")}, {"none": True})
    assert [(p.message, p.exit_code, p.reason, p.path) for p in filing.collision_problems(tracker, other)] == [
        (
            f"{FILE}: identity collision: {DID} already exists with the title 'Refund scope for order A-4471'",
            3,
            "collision",
            FILE,
        )
    ]
