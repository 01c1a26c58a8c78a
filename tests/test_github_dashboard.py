"""The decision dashboard issue: one issue, pinned, edited in place, never duplicated; wired into events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bot.core import lifecycle
from bot.core.authority import Actor
from bot.core.errors import BackendFailure
from bot.dashboard import TITLE, changed_something, update_dashboard
from bot.events.base import Item
from bot.report import DASHBOARD_MARKER
from bot.trackers.github import DASHBOARD_LABEL, GitHubTracker
from bot.trackers.github.client import RetryPolicy
from tests.fakegithub import FakeGitHub
from tests.fakegithub import routes as fake_routes
from tests.github_support import CONFIG, NOW, TOKEN, fake_github, make_tracker
from tests.test_github_tracker import park


def dashboards(fake: FakeGitHub, state: str | None = "open") -> list[Any]:
    return [i for i in fake.issues.values() if DASHBOARD_LABEL in i.labels and (state is None or i.state == state)]


def writes(fake: FakeGitHub) -> list[str]:
    return fake.writes()


def park_three(tracker: GitHubTracker) -> None:
    park(tracker)
    park(tracker, key="shipping", title="Shipping", question="Ship now or later?", origin="shop-7")
    park(tracker, key="color", title="Colour", question="Blue or green?", origin="web-3")


# --- the tracker side -----------------------------------------------------------------------------


def test_created_once_pinned_then_edited_in_place(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park_three(tracker)
    first = update_dashboard(make_tracker(fake), now=NOW)
    assert first.action == "created"
    (issue,) = dashboards(fake)
    assert issue.number == first.number
    assert issue.title == TITLE
    assert DASHBOARD_MARKER in (issue.body or "")
    assert "billing-42-decision-refund" in (issue.body or "")
    assert first.open == 3
    assert first.url == f"https://github.com/acme/widgets/issues/{issue.number}"
    assert fake.pinned_issues == [issue.number]
    assert fake.count(operation="graphql/pinIssue") == 1

    fake.reset_log()
    second = update_dashboard(make_tracker(fake), now=NOW)
    assert (second.action, second.number) == ("unchanged", issue.number)
    assert writes(fake) == []  # no write when nothing changed (and no second pin)

    park(make_tracker(fake), key="late", title="Late", question="Late or early?", origin="late-1")
    fake.reset_log()
    third = update_dashboard(make_tracker(fake), now=NOW)
    assert (third.action, third.number) == ("updated", issue.number)
    assert writes(fake) == [f"PATCH /repos/acme/widgets/issues/{issue.number}"]
    assert dashboards(fake) == [issue]
    assert "late-1-decision-late" in (issue.body or "")
    assert third.open == 4


def test_a_resolved_decision_leaves_the_dashboard(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park_three(tracker)
    update_dashboard(make_tracker(fake), now=NOW)
    lifecycle.resolve(make_tracker(fake), CONFIG, "billing-42-decision-refund", "full_original", Actor("alice"))
    outcome = update_dashboard(make_tracker(fake), now=NOW)
    assert outcome.action == "updated"
    (issue,) = dashboards(fake)
    assert "billing-42-decision-refund" not in (issue.body or "")
    assert "1 resolved" in (issue.body or "")


def test_duplicates_are_closed_keeping_the_oldest(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    body = f"old text\n{DASHBOARD_MARKER}\n"
    oldest = fake.add_issue(TITLE, body, labels=[DASHBOARD_LABEL], author=fake.login)
    newer = fake.add_issue(TITLE, body, labels=[DASHBOARD_LABEL], author=fake.login)
    outcome = update_dashboard(make_tracker(fake), now=NOW)
    assert (outcome.action, outcome.number) == ("updated", oldest.number)
    assert dashboards(fake) == [oldest]
    assert newer.state == "closed"
    assert newer.state_reason == "duplicate"
    assert DASHBOARD_LABEL not in newer.labels
    assert any(
        f"Duplicate of #{oldest.number}" in c.body for c in fake.comments.values() if c.issue_number == newer.number
    )
    assert fake.pinned_issues == [oldest.number]
    assert update_dashboard(make_tracker(fake), now=NOW).action == "unchanged"


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
    outcome = update_dashboard(make_tracker(fake), now=NOW)
    assert outcome.number == raced[0]
    assert [i.number for i in dashboards(fake)] == raced
    assert len(dashboards(fake, state="closed")) == 0  # the closed duplicate lost the label
    assert [i.state_reason for i in fake.issues.values() if i.title == TITLE and i.state == "closed"] == ["duplicate"]


def test_an_issue_someone_else_labeled_is_left_alone(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    theirs = fake.add_issue("Our own dashboard", "hands off", labels=[DASHBOARD_LABEL], author="bob")
    outcome = update_dashboard(make_tracker(fake), now=NOW)
    assert outcome.action == "created"
    assert outcome.number != theirs.number
    assert theirs.body == "hands off"
    assert theirs.state == "open"


def test_no_dashboard_before_the_first_decision(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    outcome = update_dashboard(tracker, now=NOW)
    assert outcome.action == "absent"
    assert outcome.number is None
    assert dashboards(fake) == []
    assert writes(fake) == []


def test_pinning_is_best_effort(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    others = [fake.add_issue(f"pinned {n}").number for n in range(3)]
    fake.pinned_issues.extend(others)  # GitHub pins at most three issues
    outcome = update_dashboard(make_tracker(fake), now=NOW)
    assert outcome.action == "created"
    assert outcome.notice is not None
    assert "pin" in outcome.notice
    assert fake.pinned_issues == others
    assert len(dashboards(fake)) == 1


def test_pinning_survives_a_failing_graphql_endpoint(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    fake.fail_next("502", count=100, match=r"graphql/pinIssue")
    outcome = update_dashboard(make_tracker(fake, policy=RetryPolicy.instant(max_attempts=2)), now=NOW)
    assert outcome.action == "created"
    assert outcome.notice is not None
    assert TOKEN not in outcome.notice
    assert fake.pinned_issues == []


def test_github_enterprise_server_pins_through_its_own_graphql_url() -> None:
    fake = fake_github(base_url="https://ghe.example.com/api/v3")
    with fake.activate():
        tracker = make_tracker(fake)
        assert tracker._requester.graphql_url == "https://ghe.example.com/api/graphql"
        park(tracker)
        outcome = update_dashboard(make_tracker(fake), now=NOW)
        assert outcome.action == "created"
        assert outcome.url == f"https://ghe.example.com/acme/widgets/issues/{outcome.number}"
        assert fake.pinned_issues == [outcome.number]
        assert fake.count("POST", "/api/graphql", operation="graphql/pinIssue") == 1
    fake.assert_no_violations()


def test_github_com_graphql_url(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    assert tracker._requester.graphql_url == "https://api.github.com/graphql"
    park(tracker)
    update_dashboard(make_tracker(fake), now=NOW)
    assert fake.count("POST", "/graphql", operation="graphql/pinIssue") == 1


# --- the command -----------------------------------------------------------------------------------


def cli_env(fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    from bot.trackers.github import client as github_client

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    return {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": fake.base_url}


def test_the_dashboard_command(fake: FakeGitHub, tracker: GitHubTracker, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli import cli

    park_three(tracker)
    env = cli_env(fake, monkeypatch)
    first = CliRunner().invoke(cli, ["dashboard", "--backend", "github", "--json"], env=env)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["action"] == "created"
    assert data["open"] == 3
    assert data["number"] == dashboards(fake)[0].number
    again = CliRunner().invoke(cli, ["dashboard", "--backend", "github"], env=env)
    assert again.exit_code == 0, again.output
    assert f"dashboard #{data['number']} unchanged (3 open)" in again.stdout

    fake.reset_log()
    printed = CliRunner().invoke(cli, ["dashboard", "--backend", "github", "--print"], env=env)
    assert printed.exit_code == 0
    assert DASHBOARD_MARKER in printed.stdout
    assert writes(fake) == []


def test_the_dashboard_command_on_the_git_backlog(tmp_path: Path) -> None:
    from bot.cli import cli
    from tests.git_helpers import make_repo

    make_repo(tmp_path / "repo")
    refused = CliRunner().invoke(cli, ["dashboard", "--repo", str(tmp_path / "repo")])
    assert refused.exit_code == 2
    assert "--backend github" in refused.output
    printed = CliRunner().invoke(cli, ["dashboard", "--repo", str(tmp_path / "repo"), "--print", "--json"])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout)["open"] == 0


# --- handle-event -------------------------------------------------------------------------------------


def test_changed_something() -> None:
    assert changed_something([Item("parked", "x", action="created")])
    assert not changed_something([Item("parked", "x", action="unchanged")])
    assert changed_something([Item("replied", "x", action="escalated")])
    assert not changed_something([Item("gate", "x"), Item("ignored", "x"), Item("refused", "x")])


def test_an_answering_comment_refreshes_the_dashboard(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    from tests.test_events_comments import comment_event
    from tests.test_events_support import run

    park_three(tracker)
    update_dashboard(make_tracker(fake), now=NOW)
    (issue,) = dashboards(fake)
    number = next(n for n, i in fake.issues.items() if "decision:billing-42-decision-refund" in i.labels)
    outcome = run(fake, "issue_comment", comment_event(fake, number, "/decide full_original"))
    assert [i.kind for i in outcome.acted] == ["resolved"]
    assert outcome.dashboard == {
        "action": "updated",
        "number": issue.number,
        "url": f"https://github.com/acme/widgets/issues/{issue.number}",
        "open": 2,
    }
    assert outcome.as_dict()["dashboard"]["action"] == "updated"
    assert "billing-42-decision-refund" not in (issue.body or "")


def test_events_that_change_nothing_leave_it_alone(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    from tests.test_events_pulls import pr_event
    from tests.test_events_support import run

    park(tracker)
    pull = fake.add_pull(title="work", head_ref="work")
    outcome = run(fake, "pull_request", pr_event(fake, pull.number))
    assert [i.kind for i in outcome.acted] == ["gate"]
    assert outcome.dashboard is None
    assert dashboards(fake) == []


def test_the_reconcile_refreshes_it_every_time(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    from tests.test_events_support import run, webhook

    nothing = run(fake, "schedule", webhook("schedule"))
    assert nothing.status == "ignored"
    assert nothing.dashboard is not None
    assert nothing.dashboard["action"] == "absent"
    park_three(tracker)
    first = run(fake, "schedule", webhook("schedule"))
    assert first.dashboard is not None
    assert first.dashboard["action"] == "created"
    second = run(fake, "schedule", webhook("schedule"))
    assert second.dashboard is not None
    assert second.dashboard["action"] == "unchanged"
    assert len(dashboards(fake)) == 1


def test_a_failing_dashboard_does_not_fail_the_event(
    fake: FakeGitHub, tracker: GitHubTracker, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_events_support import run, webhook

    park(tracker)

    def broken(self: GitHubTracker, body: str, **kwargs: Any) -> tuple[int, str]:
        raise BackendFailure("GitHub kept failing; safe to re-run")

    monkeypatch.setattr(GitHubTracker, "upsert_dashboard", broken)
    outcome = run(fake, "schedule", webhook("schedule"))
    assert outcome.exit_code == 0
    assert outcome.dashboard is not None
    assert outcome.dashboard["action"] == "failed"


def test_the_job_summary_mentions_the_dashboard(fake: FakeGitHub, tracker: GitHubTracker, tmp_path: Path) -> None:
    from tests.test_events_support import run_cli, webhook

    park(tracker)
    result = run_cli(fake, "schedule", webhook("schedule"), tmp_path)
    assert result.exit_code == 0, result.output
    summary = (tmp_path / "summary").read_text()
    number = dashboards(fake)[0].number
    assert f"Dashboard [#{number}](https://github.com/acme/widgets/issues/{number}): created (1 open)" in summary
