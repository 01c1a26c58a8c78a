"""The decision dashboard issue: one issue, pinned, edited in place, never duplicated, carrying its index;
recounted by the reconcile and ``parkbot dashboard``, patched by every other event at a cost that does not
grow with the backlog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from benchmarks.github_requests import seed_others
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.errors import BackendFailure
from parkbot.dashboard_refresh import TITLE, recount_dashboard, recount_index
from parkbot.events.base import DashboardFailed
from parkbot.report import DASHBOARD_MARKER
from parkbot.report.dashboard_body import render_body
from parkbot.trackers.github import DASHBOARD_LABEL, GitHubTracker
from parkbot.trackers.github.client import RetryPolicy
from parkbot.trackers.github.dashboard_issue import INDEX_PREFIX, MAX_INDEX, read_index
from parkbot.trackers.github.text import GITHUB_BODY_LIMIT
from tests.support.fakegithub import FakeGitHub
from tests.support.fakegithub import routes as fake_routes
from tests.support.github_helpers import CONFIG, DID, NOW, TOKEN, fake_github, make_tracker, park


def dashboards(fake: FakeGitHub, state: str | None = "open") -> list[Any]:
    return [i for i in fake.issues.values() if DASHBOARD_LABEL in i.labels and (state is None or i.state == state)]


def the_dashboard(fake: FakeGitHub) -> Any:
    (issue,) = dashboards(fake)
    return issue


def writes(fake: FakeGitHub) -> list[str]:
    return fake.writes()


def park_three(tracker: GitHubTracker) -> None:
    park(tracker)
    park(tracker, key="shipping", title="Shipping", question="Ship now or later?", origin="shop-7")
    park(tracker, key="color", title="Colour", question="Blue or green?", origin="web-3")


def listed(fake: FakeGitHub) -> list[str]:
    """The ids the dashboard's hidden index lists."""
    index = read_index(the_dashboard(fake).body)
    assert index is not None
    return [e.id for e in index.entries]


# --- the tracker side -----------------------------------------------------------------------------


def test_created_once_pinned_then_edited_in_place(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park_three(tracker)
    first = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert (first.action, first.mode) == ("created", "recount")
    issue = the_dashboard(fake)
    assert issue.number == first.number
    assert issue.title == TITLE
    assert DASHBOARD_MARKER in (issue.body or "")
    assert "billing-42-decision-refund" in (issue.body or "")
    assert first.open == 3
    assert first.url == f"https://github.com/acme/widgets/issues/{issue.number}"
    assert fake.pinned_issues == [issue.number]
    assert fake.count(operation="graphql/pinIssue") == 1

    fake.reset_log()
    second = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert (second.action, second.number) == ("unchanged", issue.number)
    assert writes(fake) == []  # no write when nothing changed (and no second pin)

    park(make_tracker(fake), key="late", title="Late", question="Late or early?", origin="late-1")
    fake.reset_log()
    third = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert (third.action, third.number) == ("updated", issue.number)
    assert writes(fake) == [f"PATCH /repos/acme/widgets/issues/{issue.number}"]
    assert dashboards(fake) == [issue]
    assert "late-1-decision-late" in (issue.body or "")
    assert third.open == 4


def test_the_body_carries_the_index_it_shows(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park_three(tracker)
    recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    body = the_dashboard(fake).body
    assert body.count(INDEX_PREFIX) == 1
    hidden = body[body.index(INDEX_PREFIX) :]
    assert hidden.count("-->") == 1  # one line, nothing in it can close the comment early
    assert "\n" not in hidden.strip()
    index = read_index(body)
    assert index is not None
    assert index.complete
    assert index.recounted_at == NOW
    assert sorted(e.id for e in index.entries) == [
        "billing-42-decision-refund",
        "shop-7-decision-shipping",
        "web-3-decision-color",
    ]
    assert index.totals == {"alice": 3}
    assert index.figures is not None
    assert index.figures.asked == 3
    assert "computed at 2026-11-30 12:00 UTC by a full recount" in body


def test_a_resolved_decision_leaves_the_dashboard(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park_three(tracker)
    recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    outcome = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert outcome.action == "updated"
    body = the_dashboard(fake).body or ""
    assert DID not in body
    assert "1 resolved" in body


def test_duplicates_are_closed_keeping_the_oldest(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    body = f"old text\n{DASHBOARD_MARKER}\n"
    oldest = fake.add_issue(TITLE, body, labels=[DASHBOARD_LABEL], author=fake.login)
    newer = fake.add_issue(TITLE, body, labels=[DASHBOARD_LABEL], author=fake.login)
    outcome = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert (outcome.action, outcome.number) == ("updated", oldest.number)
    assert dashboards(fake) == [oldest]
    assert newer.state == "closed"
    assert newer.state_reason == "duplicate"
    assert DASHBOARD_LABEL not in newer.labels
    assert any(
        f"Duplicate of #{oldest.number}" in c.body for c in fake.comments.values() if c.issue_number == newer.number
    )
    assert fake.pinned_issues == [oldest.number]
    assert recount_dashboard(make_tracker(fake), CONFIG, now=NOW).action == "unchanged"


def test_two_runs_creating_at_once_keep_one(
    fake: FakeGitHub, tracker: GitHubTracker, monkeypatch: pytest.MonkeyPatch
) -> None:
    park(tracker)
    create = fake_routes.ROUTES["issues/create"]
    raced: list[int] = []

    def racing(f: FakeGitHub, ctx: Any) -> Any:
        if not raced:  # another run's dashboard lands between our lookup and our create
            raced.append(
                f.add_issue(TITLE, f"theirs\n{DASHBOARD_MARKER}\n", labels=[DASHBOARD_LABEL], author=f.login).number
            )
        return create(f, ctx)

    monkeypatch.setitem(fake_routes.ROUTES, "issues/create", racing)
    outcome = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert outcome.number == raced[0]
    assert [i.number for i in dashboards(fake)] == raced
    assert len(dashboards(fake, state="closed")) == 0  # the closed duplicate lost the label
    assert [i.state_reason for i in fake.issues.values() if i.title == TITLE and i.state == "closed"] == ["duplicate"]


def test_an_issue_someone_else_labeled_is_left_alone(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    theirs = fake.add_issue("Our own dashboard", "hands off", labels=[DASHBOARD_LABEL], author="bob")
    outcome = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert outcome.action == "created"
    assert outcome.number != theirs.number
    assert theirs.body == "hands off"
    assert theirs.state == "open"


def test_no_dashboard_before_the_first_decision(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    outcome = recount_dashboard(tracker, CONFIG, now=NOW)
    assert outcome.action == "absent"
    assert outcome.number is None
    assert dashboards(fake) == []
    assert writes(fake) == []


def test_pinning_is_best_effort(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    others = [fake.add_issue(f"pinned {n}").number for n in range(3)]
    fake.pinned_issues.extend(others)  # GitHub pins at most three issues
    outcome = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert outcome.action == "created"
    assert outcome.notice is not None
    assert "pin" in outcome.notice
    assert fake.pinned_issues == others
    assert len(dashboards(fake)) == 1


def test_pinning_survives_a_failing_graphql_endpoint(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    fake.fail_next("502", count=100, match=r"graphql/pinIssue")
    outcome = recount_dashboard(make_tracker(fake, policy=RetryPolicy.instant(max_attempts=2)), CONFIG, now=NOW)
    assert outcome.action == "created"
    assert outcome.notice is not None
    assert TOKEN not in outcome.notice
    assert fake.pinned_issues == []


def test_github_enterprise_server_pins_through_its_own_graphql_url() -> None:
    fake = fake_github(base_url="https://ghe.example.com/api/v3")
    with fake.activate():
        tracker = make_tracker(fake)
        assert tracker.store.requester.graphql_url == "https://ghe.example.com/api/graphql"
        park(tracker)
        outcome = recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
        assert outcome.action == "created"
        assert outcome.url == f"https://ghe.example.com/acme/widgets/issues/{outcome.number}"
        assert fake.pinned_issues == [outcome.number]
        assert fake.count("POST", "/api/graphql", operation="graphql/pinIssue") == 1
    fake.assert_no_violations()


def test_github_com_graphql_url(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    assert tracker.store.requester.graphql_url == "https://api.github.com/graphql"
    park(tracker)
    recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    assert fake.count("POST", "/graphql", operation="graphql/pinIssue") == 1


def test_a_large_backlog_fits_in_one_issue_body(fake: FakeGitHub) -> None:
    long_title = "A question whose title is long on purpose " * 4
    decisions = seed_others(fake, 0)
    for i in range(400):
        decisions.append(
            lifecycle.build_decision(
                _result(key=f"k{i}", origin=f"task-{i % 7}", title=f"{long_title}{i}"), f"owner-{i % 9}", NOW
            )
        )
    index = recount_index(decisions, [], NOW)
    number, action = make_tracker(fake).write_dashboard(index, lambda ix, budget: render_body(ix, NOW, budget=budget))
    assert action == "created"
    body = fake.issues[number].body or ""
    assert len(body) < GITHUB_BODY_LIMIT
    stored = read_index(body)
    assert stored is not None
    assert len(body[body.index(INDEX_PREFIX) :]) <= MAX_INDEX + 10
    assert not stored.complete  # 400 open: more than the index lists
    assert stored.open_count == 400
    assert all(e.id in body for e in stored.entries[:10])  # what the index lists is what the text shows


def _result(**changes: Any) -> Any:
    from tests.support.github_helpers import needs_input

    return needs_input(question=f"Question {changes['key']}?", **changes)


# --- the command -----------------------------------------------------------------------------------


def cli_env(fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    from parkbot.trackers.github import client as github_client

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    return {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": fake.base_url}


def test_the_dashboard_command(fake: FakeGitHub, tracker: GitHubTracker, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot.cli import cli

    park_three(tracker)
    env = cli_env(fake, monkeypatch)
    first = CliRunner().invoke(cli, ["dashboard", "--backend", "github", "--json"], env=env)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert (data["action"], data["mode"]) == ("created", "recount")
    assert data["open"] == 3
    assert data["number"] == dashboards(fake)[0].number
    fake.reset_log()
    printed = CliRunner().invoke(cli, ["dashboard", "--backend", "github", "--print"], env=env)
    assert printed.exit_code == 0
    assert DASHBOARD_MARKER in printed.stdout
    assert "3 open" in printed.stdout
    assert writes(fake) == []


def test_the_dashboard_command_on_the_git_backlog(tmp_path: Path) -> None:
    from parkbot.cli import cli
    from tests.support.git_helpers import make_repo

    make_repo(tmp_path / "repo")
    refused = CliRunner().invoke(cli, ["dashboard", "--repo", str(tmp_path / "repo")])
    assert refused.exit_code == 2
    assert "--backend github" in refused.output
    printed = CliRunner().invoke(cli, ["dashboard", "--repo", str(tmp_path / "repo"), "--print", "--json"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout)["open"] == 0


# --- handle-event: patches --------------------------------------------------------------------------


def answer_event(fake: FakeGitHub, did: str = DID, text: str = "/decide full_original") -> dict[str, Any]:
    from tests.support.events import comment_event

    number = next(n for n, i in fake.issues.items() if f"decision:{did}" in i.labels and i.pull is None)
    return comment_event(fake, number, text)


def test_an_answering_comment_patches_the_dashboard(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    from tests.support.events import run

    park_three(tracker)
    recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    issue = the_dashboard(fake)
    outcome = run(fake, "issue_comment", answer_event(fake))
    assert [i.kind for i in outcome.acted] == ["resolved"]
    assert outcome.dashboard is not None
    assert outcome.dashboard.as_dict() == {
        "action": "updated",
        "number": issue.number,
        "url": f"https://github.com/acme/widgets/issues/{issue.number}",
        "open": 2,
        "mode": "patch",
    }
    assert DID not in (issue.body or "")
    assert sorted(listed(fake)) == ["shop-7-decision-shipping", "web-3-decision-color"]
    assert fake.count("GET", r"/repos/acme/widgets/issues", operation="issues/list-for-repo") == 1
    # ... the decision's own label and the dashboard's: no listing of every decision
    listings = [r.query.get("labels") for r in fake.requests if r.method == "GET" and r.path.endswith("/issues")]
    assert "parkbot:decision" not in listings
    index = read_index(issue.body)
    assert index is not None
    assert index.recounted_at == NOW  # the figures still say when they were computed


def test_a_patched_dashboard_equals_a_recounted_one(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    """Park, escalate, answer: after each event the patched index lists what a recount would."""
    from tests.support.events import run

    park_three(tracker)
    recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    run(fake, "issue_comment", answer_event(fake, "shop-7-decision-shipping", "/escalate"))
    patched = read_index(the_dashboard(fake).body)
    run(fake, "issue_comment", answer_event(fake))
    patched_again = read_index(the_dashboard(fake).body)
    assert patched is not None
    assert patched_again is not None
    assert patched.totals == {"alice": 2, "carol": 1}
    assert patched.entry("shop-7-decision-shipping") is not None
    assert patched.entry("shop-7-decision-shipping").chain == ("alice", "carol")  # type: ignore[union-attr]
    recounted = recount_index(make_tracker(fake).iter_decisions(), [], NOW)
    assert patched_again.entries == recounted.entries
    assert patched_again.totals == recounted.totals == {"alice": 1, "carol": 1}
    assert patched_again.blocking_work == recounted.blocking_work
    assert "escalated from alice" in (the_dashboard(fake).body or "")


def test_the_first_event_makes_a_dashboard_from_what_it_changed(fake: FakeGitHub, tmp_path: Path) -> None:
    from tests.support.events import AGENT, commit, push_event, result_json, run
    from tests.support.git_helpers import make_repo

    repo = tmp_path / "checkout"
    make_repo(repo)
    sha = commit(repo, AGENT, {".parkbot/decisions/refund.json": result_json()})
    outcome = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)
    assert outcome.dashboard is not None
    assert (outcome.dashboard.action, outcome.dashboard.mode, outcome.dashboard.open) == (
        "created",
        "patch",
        1,
    )
    body = the_dashboard(fake).body or ""
    assert DID in body
    assert "the first full recount makes it exact" in body
    assert "appear with the first full recount" in body
    assert fake.pinned_issues == [the_dashboard(fake).number]
    again = run(fake, "push", push_event(fake, AGENT, sha), repo_path=repo)  # unchanged: no patch at all
    assert again.dashboard is None


def test_an_unreadable_index_is_replaced_not_trusted(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    from tests.support.events import run

    park_three(tracker)
    recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    issue = the_dashboard(fake)
    issue.body = (issue.body or "").replace(INDEX_PREFIX, INDEX_PREFIX + "AAAA")  # damaged by a hand edit
    assert read_index(issue.body) is None
    outcome = run(fake, "issue_comment", answer_event(fake))
    assert outcome.dashboard is not None
    assert outcome.dashboard.action == "updated"
    index = read_index(issue.body)
    assert index is not None
    assert not index.complete
    assert index.entries == ()  # only what the event changed (a resolution: nothing to list)
    recount_dashboard(make_tracker(fake), CONFIG, now=NOW)
    repaired = read_index(issue.body)
    assert repaired is not None
    assert repaired.complete
    assert repaired.open_count == 2


def test_events_that_change_nothing_leave_it_alone(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    from tests.support.events import pr_event, run

    park(tracker)
    pull = fake.add_pull(title="work", head_ref="work")
    outcome = run(fake, "pull_request", pr_event(fake, pull.number))
    assert [i.kind for i in outcome.acted] == ["gate"]
    assert outcome.dashboard is None
    assert dashboards(fake) == []


@pytest.mark.slow
def test_an_answer_costs_the_same_with_10_or_1000_decisions() -> None:
    """``/decide`` on a decision with one dependent pull request, through ``handle_event``: at most 12
    requests with the dashboard's patch, plus the two reactions on the command (👀, 👍)."""
    counts = {}
    for others in (10, 1000):
        fake = fake_github().start()
        try:
            decisions = seed_others(fake, others)
            pull = fake.add_pull(title="work", head_ref="agent/work")
            outcome = lifecycle.park(make_tracker(fake), _result(key="refund", dependents=[f"#{pull.number}"]), CONFIG)
            decisions.append(outcome.decision)
            index = recount_index(decisions, [], NOW)  # what the last reconcile wrote
            make_tracker(fake).write_dashboard(index, lambda ix, budget: render_body(ix, NOW, budget=budget))
            from tests.support.events import run

            done = run(fake, "issue_comment", answer_event(fake, outcome.decision.id))
            assert [i.kind for i in done.acted] == ["resolved", "gate"]
            assert done.dashboard is not None
            assert (done.dashboard.action, done.dashboard.mode) == ("updated", "patch")
            assert outcome.decision.id not in (the_dashboard(fake).body or "")
            counts[others] = fake.request_count
            assert fake.count("POST", r".*/issues/comments/\d+/reactions") == 2
            assert fake.count(operation="issues/list-for-repo") == 1  # the decision's label (the dashboard came along)
            fake.assert_no_violations()
        finally:
            fake.stop()
    assert counts[10] == counts[1000]
    assert counts[1000] <= 13  # reactions included


# --- handle-event: recounts -------------------------------------------------------------------------


def test_the_reconcile_recounts_it_every_time(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    from tests.support.events import run, webhook

    nothing = run(fake, "schedule", webhook("schedule"))
    assert nothing.status == "ignored"
    assert nothing.dashboard is not None
    assert nothing.dashboard.action == "absent"
    park_three(tracker)
    first = run(fake, "schedule", webhook("schedule"))
    assert first.dashboard is not None
    assert (first.dashboard.action, first.dashboard.mode) == ("created", "recount")
    second = run(fake, "schedule", webhook("schedule"))
    assert second.dashboard is not None
    assert second.dashboard.action == "unchanged"
    assert len(dashboards(fake)) == 1


def test_a_failing_dashboard_does_not_fail_the_event(
    fake: FakeGitHub, tracker: GitHubTracker, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.events import run, webhook

    park(tracker)

    def broken(self: GitHubTracker, *args: Any, **kwargs: Any) -> tuple[int, str]:
        raise BackendFailure("GitHub kept failing; safe to re-run")

    monkeypatch.setattr(GitHubTracker, "write_dashboard", broken)
    outcome = run(fake, "schedule", webhook("schedule"))
    assert outcome.exit_code == 0
    assert outcome.dashboard == DashboardFailed("GitHub kept failing; safe to re-run", "backend_failure")
    assert outcome.as_dict()["dashboard"] == {
        "action": "failed",
        "message": "GitHub kept failing; safe to re-run",
        "reason": "backend_failure",
    }
    patched = run(fake, "issue_comment", answer_event(fake))
    assert patched.exit_code == 0
    assert [i.kind for i in patched.acted] == ["resolved"]
    assert patched.dashboard == DashboardFailed("GitHub kept failing; safe to re-run", "backend_failure")


def test_the_job_summary_mentions_the_dashboard(fake: FakeGitHub, tracker: GitHubTracker, tmp_path: Path) -> None:
    from tests.support.events import run_cli, webhook

    park(tracker)
    result = run_cli(fake, "schedule", webhook("schedule"), tmp_path)
    assert result.exit_code == 0, result.output
    summary = (tmp_path / "summary").read_text()
    number = dashboards(fake)[0].number
    assert f"Dashboard [#{number}](https://github.com/acme/widgets/issues/{number}): created (1 open)" in summary
