"""The planner on the embedded git backlog, with real repositories: cite, pass, review, override, correct."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parkbot import Backlog
from parkbot.cli import cli
from parkbot.core.errors import InvalidInput, Refused
from tests.support.git_helpers import cli_repo, commit_on_branch, run_git
from tests.support.results import SHORT, result_data

PLANNER = "planner@example.com"
OWNER = "alice@example.com"
BOSS = "boss@example.com"
CONFIG = f"""\
owners:
  default: {OWNER}
hierarchy:
  {OWNER}: {BOSS}
planner:
  by: {PLANNER}
  sources: ["docs/**", "PLAN.md"]
  window: 30m
  never: ["payroll-*"]
"""
REFUNDS = "".join(f"line {n} of the refund policy\n" for n in range(1, 13))


def question(origin: str = "billing-42", key: str = "refund", dependents: list[str] | None = None) -> dict[str, Any]:
    """A question without a title (its first line is the title), blocking its agent's branch unless told."""
    return result_data(
        SHORT,
        origin=origin,
        key=key,
        title=None,
        question="Refund the full original amount, or only the remaining three months?",
        options=["full_original: the full amount", "remaining_three: three months"],
        dependents=dependents if dependents is not None else ["branch:agent/billing-42"],
    )


@pytest.fixture
def backlog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Backlog:
    repo = tmp_path / "repo"
    cli_repo(repo, monkeypatch, config=CONFIG, branches=["agent/billing-42"])
    (repo / "docs").mkdir()
    (repo / "docs" / "refunds.md").write_text(REFUNDS, encoding="utf-8")
    (repo / "secret.md").write_text("not citable\n", encoding="utf-8")
    run_git(repo, "add", "docs", "secret.md")
    run_git(repo, "commit", "-q", "-m", "docs")
    commit_on_branch(repo, "agent/billing-42", "the agent's work")  # not merged
    opened = Backlog.open(repo, "git")
    yield opened
    opened.close()


def head(backlog: Backlog) -> str:
    return run_git(Path.cwd(), "rev-parse", "main")


def test_the_planner_cites_lines_and_the_dependent_opens_with_the_lines_and_sha_recorded(backlog: Backlog) -> None:
    filed = backlog.park(question())
    assert backlog.gate(ref="agent/billing-42").state == "blocked"
    assert [d.id for d in backlog.list(awaiting="planner").decisions] == [filed.id]

    cited = backlog.cite(filed.id, "full_original", ["docs/refunds.md#L3-L5"], by=PLANNER)

    assert cited.action == "resolved"
    assert cited.answered_by == "planner"
    (source,) = cited.answer.sources
    assert source.commit == head(backlog)
    assert source.quote == "line 3 of the refund policy\nline 4 of the refund policy\nline 5 of the refund policy"
    assert backlog.gate(ref="agent/billing-42").state == "open"
    shown = backlog.show(filed.id)
    assert shown.answer is not None
    assert shown.answer.kind == "planner"
    assert shown.planner is not None
    assert shown.planner.review == "pending"
    assert [d.id for d in backlog.list(state="all", awaiting="review").decisions] == [filed.id]
    assert backlog.list(awaiting="planner").decisions == []
    text = shown.text()  # the text shows what --json shows: the citation, its commit and its lines
    assert f"cited docs/refunds.md#L3-L5 at {head(backlog)}" in text
    assert "  | line 4 of the refund policy" in text
    # a retry of the same citation changes nothing; another answer is refused
    assert backlog.cite(filed.id, "full_original", ["docs/refunds.md#L3-L5"], by=PLANNER).action == "unchanged"
    with pytest.raises(Refused):
        backlog.cite(filed.id, "remaining_three", ["docs/refunds.md#L3-L5"], by=PLANNER)


@pytest.mark.parametrize(
    ("sources", "reason", "named"),
    [
        ([], "no_source", "no source"),
        (["secret.md#L1"], "source_out_of_scope", "secret.md#L1"),
        (["docs/missing.md#L1"], "source_missing", "docs/missing.md#L1"),
        (["docs/refunds.md#L10-L14"], "source_missing", "docs/refunds.md#L10-L14"),
        (["docs/../secret.md#L1"], "source_out_of_scope", "docs/../secret.md#L1"),
    ],
)
def test_every_bad_source_is_refused_naming_it_and_nothing_changes(
    backlog: Backlog, sources: list[str], reason: str, named: str
) -> None:
    filed = backlog.park(question())
    with pytest.raises(Refused) as refused:
        backlog.cite(filed.id, "full_original", sources, by=PLANNER)
    assert refused.value.reason == reason
    assert named in refused.value.message
    assert refused.value.exit_code == 3
    assert backlog.show(filed.id).state == "open"
    assert backlog.gate(ref="agent/billing-42").state == "blocked"


def test_a_file_changed_after_the_commit_is_cited_as_the_default_branch_has_it(backlog: Backlog) -> None:
    filed = backlog.park(question())
    Path("docs/refunds.md").write_text("uncommitted\n", encoding="utf-8")  # the working tree is not a source
    cited = backlog.cite(filed.id, "full_original", ["docs/refunds.md#L1"], by=PLANNER)
    assert cited.answer.sources[0].quote == "line 1 of the refund policy"


def test_nobody_but_the_planner_cites_and_the_planner_never_answers_its_own_question(
    backlog: Backlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    filed = backlog.park(question())
    for who in (OWNER, "planner@example.com.evil", "mallory@example.com"):
        with pytest.raises(Refused) as refused:
            backlog.cite(filed.id, "full_original", ["docs/refunds.md#L1"], by=who)
        assert refused.value.reason == "not_planner"
    run_git(Path.cwd(), "config", "user.email", PLANNER)  # the planner itself files a question
    with Backlog.open(Path.cwd(), "git") as as_planner:
        own = as_planner.park(question(key="tax", dependents=[]))
        assert as_planner.show(own.id).filed_by == PLANNER
        with pytest.raises(Refused) as refused:
            as_planner.cite(own.id, "full_original", ["docs/refunds.md#L1"], by=PLANNER)
    assert refused.value.reason == "own_question"


def test_a_never_origin_goes_straight_to_its_owner_and_cannot_be_cited(backlog: Backlog) -> None:
    filed = backlog.park(question(origin="payroll-7", dependents=[]))
    assert backlog.list(awaiting="planner").decisions == []
    with pytest.raises(Refused) as refused:
        backlog.cite(filed.id, "full_original", ["docs/refunds.md#L1"], by=PLANNER)
    assert refused.value.reason == "never"


def test_decisions_answered_by_a_person_are_citable_and_by_a_default_or_the_planner_are_not(
    backlog: Backlog,
) -> None:
    person = backlog.park(question(origin="billing-1", dependents=[]))
    backlog.resolve(person.id, "full_original", by=OWNER)
    default = backlog.park(question(origin="billing-2", dependents=[]))
    backlog.resolve(default.id, "full_original", by=OWNER, default=True)
    planned = backlog.park(question(origin="billing-3", dependents=[]))
    backlog.cite(planned.id, "full_original", ["docs/refunds.md#L1"], by=PLANNER)

    filed = backlog.park(question())
    for cited, reason in ((default.id, "source_not_a_person"), (planned.id, "source_not_a_person")):
        with pytest.raises(Refused) as refused:
            backlog.cite(filed.id, "full_original", [cited], by=PLANNER)
        assert refused.value.reason == reason
        assert cited in refused.value.message
    done = backlog.cite(filed.id, "full_original", [person.id], by=PLANNER)
    assert done.answer.sources[0].answered_by == OWNER


def test_pass_and_the_end_of_the_window_hand_the_question_to_its_owner(backlog: Backlog) -> None:
    first = backlog.park(question(origin="billing-1", dependents=[]))
    second = backlog.park(question(origin="billing-2", dependents=[]))
    assert backlog.show(first.id).planner.state == "waiting"  # type: ignore[union-attr]
    passed = backlog.pass_question(first.id, by=PLANNER, reason="no policy on this")
    assert passed.action == "updated"
    step = backlog.show(first.id).planner
    assert step is not None
    assert step.state == "passed"
    assert step.reason == "no policy on this"
    with pytest.raises(Refused):
        backlog.cite(first.id, "full_original", ["docs/refunds.md#L1"], by=PLANNER)
    later = datetime.now(UTC) + timedelta(minutes=31)
    assert backlog.list(awaiting="planner", now=later).decisions == []
    handed = backlog.hand_over(now=later)
    assert [f.id for f in handed] == [second.id]
    assert backlog.show(second.id).planner.state == "expired"  # type: ignore[union-attr]


def test_accept_clears_the_review_item(backlog: Backlog) -> None:
    filed = backlog.park(question())
    backlog.cite(filed.id, "full_original", ["docs/refunds.md#L1"], by=PLANNER)
    with pytest.raises(Refused):
        backlog.accept(filed.id, by="mallory@example.com")
    backlog.accept(filed.id, by=OWNER)
    assert backlog.show(filed.id).planner.review == "accepted"  # type: ignore[union-attr]
    assert backlog.list(state="all", awaiting="review").decisions == []


def test_override_replaces_the_planner_answer_and_regates_the_unmerged_dependent(backlog: Backlog) -> None:
    filed = backlog.park(question())
    backlog.cite(filed.id, "full_original", ["docs/refunds.md#L1"], by=PLANNER)
    overridden = backlog.override_planner(filed.id, "remaining_three", reason="policy changed", by=OWNER)
    assert overridden.action == "overridden"
    assert overridden.regated == ["branch:agent/billing-42"]
    assert overridden.previous is not None
    assert overridden.previous.kind == "planner"
    context = backlog.resume(filed.id)
    assert context.answer == "remaining_three"
    assert context.answered_by == OWNER
    shown = backlog.show(filed.id)
    assert shown.planner is not None
    assert shown.planner.review == "overridden"
    assert [c.previous.value for c in shown.corrections] == ["full_original"]  # history keeps both
    assert backlog.gate(ref="agent/billing-42").state == "open"


def test_without_opens_gate_a_planner_answer_waits_for_the_owners_accept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "closed"
    cli_repo(repo, monkeypatch, config=CONFIG + "  opens_gate: false\n", branches=["agent/billing-42"])
    (repo / "PLAN.md").write_text("refund in full\n", encoding="utf-8")
    run_git(repo, "add", "PLAN.md")
    run_git(repo, "commit", "-q", "-m", "plan")
    with Backlog.open(repo, "git") as backlog:
        filed = backlog.park(question())
        cited = backlog.cite(filed.id, "full_original", ["PLAN.md#L1"], by=PLANNER)
        assert cited.action == "recorded"
        assert cited.state == "open"
        assert backlog.gate(ref="agent/billing-42").state == "blocked"
        backlog.accept(filed.id, by=OWNER)
        assert backlog.gate(ref="agent/billing-42").state == "open"
        assert backlog.resume(filed.id).answer == "full_original"


def test_correct_regates_an_unmerged_dependent_and_sends_rework_to_a_merged_one(backlog: Backlog) -> None:
    commit_on_branch(Path.cwd(), "agent/billing-7", "work")
    filed = backlog.park(question(origin="billing-7", dependents=["branch:agent/billing-7", "branch:agent/billing-42"]))
    backlog.pass_question(filed.id, by=PLANNER)
    backlog.resolve(filed.id, "full_original", by=OWNER)
    run_git(Path.cwd(), "merge", "-q", "--ff-only", "agent/billing-7")  # one dependent is merged

    with pytest.raises(Refused) as refused:  # a different answer without correct stays refused
        backlog.resolve(filed.id, "remaining_three", by=OWNER)
    assert refused.value.reason == "conflicting_answer"
    with pytest.raises(Refused):  # only whoever answered or an owner above them
        backlog.correct(filed.id, "remaining_three", reason="no", by="mallory@example.com")

    done = backlog.correct(filed.id, "remaining_three", reason="typed the wrong option", by=OWNER)
    assert done.action == "corrected"
    assert done.rework == ["branch:agent/billing-7"]
    assert done.regated == ["branch:agent/billing-42"]
    assert backlog.resume(filed.id).answer == "remaining_three"
    # retries of the first answer stay unchanged; the same correction again too
    assert backlog.resolve(filed.id, "full_original", by=OWNER).action == "unchanged"
    again = backlog.resolve(filed.id, "remaining_three", by=OWNER)  # a retry of the correction's own answer
    assert again.action == "unchanged"
    assert again.answer.value == "remaining_three"
    assert backlog.correct(filed.id, "remaining_three", reason="again", by=OWNER).action == "unchanged"
    # the owner above may correct again; the history keeps every answer
    backlog.correct(filed.id, "full_original", reason="the boss decides", by=BOSS)
    shown = backlog.show(filed.id)
    assert [(c.previous.value, c.answer.value) for c in shown.corrections] == [
        ("full_original", "remaining_three"),
        ("remaining_three", "full_original"),
    ]


def test_correct_of_an_open_question_is_refused(backlog: Backlog) -> None:
    filed = backlog.park(question())
    with pytest.raises(Refused):
        backlog.correct(filed.id, "full_original", reason="x", by=OWNER)
    with pytest.raises(InvalidInput):
        backlog.correct(filed.id, "full_original", reason=" ", by=OWNER)


def test_the_planner_guide_says_what_it_may_and_may_not_do() -> None:
    from click.testing import CliRunner

    from parkbot.cli.guide import guide

    text = CliRunner().invoke(guide, ["--planner"]).output
    assert "parkbot cite ID --answer OPTION --source" in text
    assert "parkbot list --awaiting planner --json" in text
    assert "at most 20 lines" in " ".join(text.split())
    assert "never" in text
    assert "pass" in text


def test_the_cli_refuses_a_bad_source_with_exit_3_naming_it_and_speaks_cli(backlog: Backlog) -> None:
    import json

    from click.testing import CliRunner

    from parkbot.cli import cli

    filed = backlog.park(question())
    runner = CliRunner()
    args = ["cite", filed.id, "--answer", "full_original", "--source", "secret.md#L1", "--by", PLANNER, "--json"]
    refused = runner.invoke(cli, args)
    assert refused.exit_code == 3
    data = json.loads(refused.stdout)
    assert "secret.md#L1" in data["message"]
    assert "/cite" not in data["message"]
    listed = runner.invoke(cli, ["list", "--awaiting", "planner", "--json"])
    assert [d["id"] for d in json.loads(listed.stdout)["decisions"]] == [filed.id]
    args = ["cite", filed.id, "--answer", "full_original", "--source", "docs/refunds.md#L2", "--by", PLANNER]
    cited = runner.invoke(cli, [*args, "--json"])
    assert cited.exit_code == 0
    data = json.loads(cited.stdout)
    assert data["answered_by"] == "planner"
    assert data["answer"]["sources"][0]["quote"] == "line 2 of the refund policy"
    shown = runner.invoke(cli, ["correct", filed.id, "--answer", "remaining_three", "--reason", "x", "--by", OWNER])
    assert shown.exit_code == 0, shown.output
    assert "corrected" in shown.output


def test_the_mcp_tools_list_what_waits_for_the_planner_and_cite_and_pass(
    backlog: Backlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from parkbot import mcp_server

    first = backlog.park(question(origin="billing-1", dependents=[]))
    second = backlog.park(question(origin="billing-2", dependents=[]))
    run_git(Path.cwd(), "config", "user.email", PLANNER)  # the MCP server acts as whoever runs it
    server = mcp_server._Backlog(lambda: Backlog.open(Path.cwd(), "git"))
    tools = mcp_server.TOOLS
    listed = tools["list"].call(server, {"awaiting": "planner"})
    assert [d.id for d in listed.decisions] == [first.id, second.id]
    cited = tools["cite"].call(server, {"id": first.id, "answer": "full_original", "sources": ["docs/refunds.md#L1"]})
    assert cited.answered_by == "planner"
    passed = tools["pass"].call(server, {"id": second.id, "reason": "not in the docs"})
    assert passed.action == "updated"
    assert tools["list"].call(server, {"awaiting": "planner"}).decisions == []


# --- cli hand over ----------------------------------------


def test_hand_over_gives_questions_past_the_window_to_their_owners(
    backlog: Backlog,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    filed = backlog.park(question(dependents=[]))
    runner = CliRunner()
    early = runner.invoke(cli, ["hand-over", "--json"])
    assert early.exit_code == 0, early.output
    assert json.loads(early.stdout)["handed_over"] == []  # the window has not ended: still with the planner
    assert backlog.show(filed.id).planner.state == "waiting"  # type: ignore[union-attr]

    later = datetime.now(UTC) + timedelta(minutes=31)
    monkeypatch.setattr("parkbot.core.planner.utcnow", lambda: later)
    done = runner.invoke(cli, ["hand-over", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [(d["id"], d["owner"]) for d in data["handed_over"]] == [(filed.id, OWNER)]
    assert backlog.show(filed.id).planner.state == "expired"  # type: ignore[union-attr]

    text = runner.invoke(cli, ["hand-over"])
    assert text.exit_code == 0
    assert "no question" in text.output  # nothing left: said, not silent
