"""The GitHub backend against the stateful fake: storage, lookup, the gate, authorization, the log."""

from __future__ import annotations

import os
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.errors import ConcurrentChange, InvalidInput, Refused
from parkbot.trackers.github import (
    BLOCKING_LABEL,
    DECISION_LABEL,
    RESOLVED_LABEL,
    GitHubTracker,
    assignable_login,
    index_label,
)
from parkbot.trackers.github import issues as issues_module
from parkbot.trackers.github.client import GitHubSettings, build_client, client_from_env, settings_from_env
from parkbot.trackers.github.labels import decision_label
from parkbot.trackers.github.render import parse_decision, read_marker, render_decision
from tests.support.fakegithub import FakeGitHub
from tests.support.fakegithub import routes as fake_routes
from tests.support.github_helpers import (
    CONFIG,
    DID,
    NOW,
    TOKEN,
    decision_issue,
    fake_github,
    labels_listed,
    make_tracker,
    operations,
    park,
    result,
)


def _new(res: Any) -> tuple[Any, Any]:
    decision = lifecycle.build_decision(res, "alice", NOW)
    return decision, lifecycle.log_entry("parked", decision, NOW)


def paths(fake: FakeGitHub) -> list[str]:
    return [f"{r.method} {r.path}" for r in fake.requests]


# --- filing ------------------------------------------------------------------------------------


def test_park_new_files_a_labeled_assigned_issue(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    outcome = park(tracker, run="run-7")
    issue = decision_issue(fake)
    assert outcome.location.number == issue.number
    assert outcome.location.url == f"https://github.com/acme/widgets/issues/{issue.number}"
    assert issue.assignees == ["alice"]
    assert set(issue.labels) == {
        decision_label(DID),
        DECISION_LABEL,
        BLOCKING_LABEL,
        "parkbot:origin:billing-42",
        "parkbot:run:run-7",
    }
    assert issue.user == fake.login
    assert parse_decision(issue.body) == outcome.decision
    assert fake.labels[decision_label(DID).lower()].description == f"parkbot decision {DID}"
    assert not any("/search/" in p for p in paths(fake))


def test_non_blocking_decisions_carry_no_blocking_label(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, blocking=False)
    assert BLOCKING_LABEL not in decision_issue(fake).labels


def test_team_owner_is_not_assigned_and_not_mentioned(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, Config(owners=Owners(default="@acme/leads"), precedents="off"))
    issue = decision_issue(fake)
    assert issue.assignees == []
    assert "`@acme/leads`" in issue.body
    assert "@acme/leads" not in issue.body.replace("`@acme/leads`", "").split("<!--")[0]


def test_owner_defaults_to_the_repository_owner(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    assert tracker.default_owner() == "acme"
    assert park(tracker, Config(precedents="off")).decision.owner == "acme"


def test_unchanged_refiling_writes_nothing(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    fake.reset_log()
    assert park(make_tracker(fake)).action == "unchanged"
    assert operations(fake) == ["POST /repos/acme/widgets/labels", "POST /graphql graphql/ParkbotIssuesByLabel"]
    assert fake.requests[0].status == 422
    assert fake.requests[1].body["variables"]["states"] == ["OPEN", "CLOSED"]
    assert labels_listed(fake) == [decision_label(DID)]


def test_changed_refiling_is_one_patch(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    fake.reset_log()
    outcome = park(make_tracker(fake), work_so_far={"verified": ["A-4471", "A-4472"]})
    assert outcome.action == "updated"
    patches = [r for r in fake.requests if r.method == "PATCH"]
    assert len(patches) == 1
    assert set(patches[0].body) == {"body"}
    assert parse_decision(decision_issue(fake).body).work_so_far == {"verified": ["A-4471", "A-4472"]}


def test_pull_requests_with_the_label_are_not_decisions(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    fake.add_pull(title="work", labels=[decision_label(DID)])
    assert make_tracker(fake).find(DID) is not None
    assert park(make_tracker(fake)).action == "unchanged"


def test_two_ids_under_the_same_label_are_a_collision(
    fake: FakeGitHub, tracker: GitHubTracker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long id's label is cut to fit and ends in a hash of the id: were two ids ever to share a label,
    the issue's own block names the other one, and parkbot refuses rather than guess."""
    park(tracker)
    issue = decision_issue(fake)
    issue.body = issue.body.replace(f'"id":"{DID}"', '"id":"billing-42-decision-other"')
    shared = decision_label(DID)
    monkeypatch.setattr(issues_module, "decision_label", lambda did: shared)
    with pytest.raises(Refused) as info:
        make_tracker(fake).find(DID)
    assert info.value.reason == "collision"
    assert f"the label {shared} belongs to decision 'billing-42-decision-other'" in info.value.message


def test_an_issue_whose_own_block_holds_another_id_is_not_the_decisions(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """The label says one decision, parkbot's own block another: the block is the record, the label an index."""
    park(tracker)
    issue = decision_issue(fake)
    issue.body = issue.body.replace(f'"id":"{DID}"', '"id":"billing-42-decision-other"')
    assert make_tracker(fake).find(DID) is None
    found = make_tracker(fake).find("billing-42-decision-other")
    assert found is not None
    assert make_tracker(fake).location(found).number == issue.number


def test_a_damaged_block_is_refused_not_overwritten(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    issue = decision_issue(fake)
    issue.body = issue.body.replace('{"allow_free_text"', '{oops"allow_free_text"')
    with pytest.raises(Refused, match="damaged"):
        park(make_tracker(fake))
    assert len([i for i in fake.issues.values() if DECISION_LABEL in i.labels]) == 1


def test_closed_without_the_resolved_label_is_abandoned(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    decision_issue(fake).state = "closed"
    stored = make_tracker(fake).find(DID)
    assert stored is not None
    assert stored.state == "abandoned"
    with pytest.raises(Refused, match="abandoned"):
        lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))


def test_mark_abandoned_closes_as_not_planned(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    decision = park(tracker).decision
    tracker.mark_abandoned(decision, "the order was cancelled", lifecycle.log_entry("abandoned", decision, NOW))
    issue = decision_issue(fake)
    assert (issue.state, issue.state_reason) == ("closed", "not_planned")
    assert "parkbot:abandoned" in issue.labels
    assert make_tracker(fake).find(DID).state == "abandoned"  # type: ignore[union-attr]


def test_resolution_closes_and_reads_back(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=NOW, source="cli")
    issue = decision_issue(fake)
    assert (issue.state, issue.state_reason) == ("closed", "completed")
    assert RESOLVED_LABEL in issue.labels
    assert BLOCKING_LABEL not in issue.labels
    stored = make_tracker(fake).find(DID)
    assert stored is not None
    assert stored.state == "resolved"
    assert (stored.answer.value, stored.answer.by, stored.answer.at, stored.answer.source) == (  # type: ignore[union-attr]
        "full_original",
        "alice",
        NOW,
        "cli",
    )
    # reopening by hand makes it open again (and its dependents blocked again, see the gate tests)
    issue.state = "open"
    assert make_tracker(fake).find(DID).state == "open"  # type: ignore[union-attr]


# --- the filing race ---------------------------------------------------------------------------


def test_label_without_issue_waits_then_files(fake: FakeGitHub) -> None:
    fake.add_label(decision_label(DID))  # a filer that crashed after its label
    waits: list[float] = []
    tracker = make_tracker(fake, race_wait=1.5, sleep=waits.append)
    assert park(tracker).action == "created"
    assert waits == [1.5]
    assert len([i for i in fake.issues.values() if DECISION_LABEL in i.labels]) == 1


def test_the_issue_of_a_concurrent_filer_is_found_not_duplicated(fake: FakeGitHub) -> None:
    other = make_tracker(fake)
    fake.add_label(decision_label(DID))  # the other filer won the label ...

    def other_files_now(_: float) -> None:  # ... and files its issue while we wait
        other.store.issues.note_claim(DID, True)
        other.create(*_new(result()))

    tracker = make_tracker(fake, race_wait=0.5, sleep=other_files_now)
    with pytest.raises(ConcurrentChange):
        tracker.create(*_new(result()))
    tracker = make_tracker(fake, race_wait=0.5, sleep=lambda _: None)
    assert park(tracker).action == "unchanged"
    assert len([i for i in fake.issues.values() if DECISION_LABEL in i.labels]) == 1


def test_a_duplicate_from_a_lost_race_is_closed(fake: FakeGitHub) -> None:
    fake.add_label(decision_label(DID))
    first = make_tracker(fake)
    first.store.issues.note_claim(DID, True)
    first.create(*_new(result()))
    late = make_tracker(fake)  # its wait ran out before the first issue showed up
    real_pick = late.issues.pick
    calls: list[str] = []

    def blind_once(did: str, items: Any) -> Any:
        calls.append(did)
        return None if len(calls) == 1 else real_pick(did, items)

    late.issues.pick = blind_once  # type: ignore[method-assign]
    with pytest.raises(ConcurrentChange, match="filed twice"):
        late.create(*_new(result()))
    assert len([i for i in fake.issues.values() if i.state == "open"]) == 1
    duplicate = max(fake.issues)
    assert (fake.issues[duplicate].state, fake.issues[duplicate].state_reason) == ("closed", "duplicate")


# --- dependents and the gate -------------------------------------------------------------------


def status(fake: FakeGitHub, number: int) -> Any:
    """The gate on pull request ``number``'s head: parkbot's check run ``parkbot/decisions``."""
    pull = fake.issues[number].pull
    assert pull is not None
    return fake.check_of(pull.head_sha, "parkbot/decisions", app=fake.login)


def test_result_dependents_are_blocked_and_recorded_three_ways(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    pr = fake.add_pull(title="work")
    park(tracker, dependents=[f"#{pr.number}"])
    issue = decision_issue(fake)
    assert decision_label(DID) in pr.labels
    assert pr.blocked_by == [issue.id]
    assert parse_decision(issue.body).dependents == [f"#{pr.number}"]
    run = status(fake, pr.number)
    url = f"https://github.com/acme/widgets/issues/{issue.number}"
    assert (run.status, run.conclusion, run.title) == ("in_progress", None, "Waiting for 1 open decision")
    assert f"[`{DID}`]({url})" in run.summary  # the open decisions, linked to their issues
    assert run.details_url == url
    assert run.external_id == f"#{pr.number}"
    assert fake.statuses == []  # gate.publish: check (the default) sets no commit status


def test_body_link_is_recorded_so_deleting_it_does_not_unblock(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    number = decision_issue(fake).number
    pr = fake.add_pull(title="work", body=f"Implements the refund.\n\nBlocked by #{number}")
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"
    assert decision_label(DID) in pr.labels
    assert f"#{pr.number}" in parse_decision(decision_issue(fake).body).dependents
    pr.body = "Implements the refund."
    gate = lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
    assert [d.id for d in gate.blocking] == [DID]
    pr.labels.clear()
    pr.blocked_by.clear()  # even with every PR-side trace gone, the decision side still knows
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    assert status(fake, pr.number).conclusion == "success"


@pytest.mark.parametrize("phrase", ["Depends on #{n}", "blocked-by: #{n}", "Blocked by acme/widgets#{n}"])
def test_body_link_spellings(fake: FakeGitHub, tracker: GitHubTracker, phrase: str) -> None:
    park(tracker)
    pr = fake.add_pull(title="work", body=phrase.format(n=decision_issue(fake).number))
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"


def test_links_to_other_repositories_and_plain_issues_are_ignored(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    plain = fake.add_issue("just an issue")
    n = decision_issue(fake).number
    pr = fake.add_pull(title="work", body=f"Blocked by other/repo#{n} and Depends on #{plain.number}")
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"
    assert status(fake, pr.number).title == "No open decisions"


def test_native_dependency_added_by_a_person_blocks(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker)
    pr = fake.add_pull(title="work")
    pr.blocked_by.append(decision_issue(fake).id)
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"


def test_a_trailer_with_an_unknown_or_malformed_id_blocks_and_says_why(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    """As on the git backlog: a link parkbot cannot follow fails closed (it was a green gate before)."""
    park(tracker)
    pr = fake.add_pull(title="work", commits=[{"message": "x\n\nBlocked-by: nope\nBlocked-by: a-decision-b"}])
    result = lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}")
    assert result.state == "blocked"
    assert sorted(d.id for d in result.blocking) == ["a-decision-b", "nope"]
    problems = [p for d in result.blocking for p in d.problems]
    assert "decision a-decision-b: not found" in problems
    assert any(p.startswith("decision nope: not a decision id") for p in problems)
    summary = status(fake, pr.number).summary
    assert "decision a-decision-b: not found" in summary


def test_gate_stays_correct_after_a_push(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    pr = fake.add_pull(title="work")
    park(tracker, dependents=[f"#{pr.number}"])
    fake.push(pr.number, message="more work")
    assert status(fake, pr.number) is None  # the new head has no status yet
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"
    assert status(fake, pr.number).status == "in_progress"


def test_reopening_a_resolved_decision_blocks_again(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    pr = fake.add_pull(title="work")
    park(tracker, dependents=[f"#{pr.number}"])
    lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"))
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"
    decision_issue(fake).state = "open"
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"


def test_native_dependencies_unavailable_are_skipped(
    fake: FakeGitHub, tracker: GitHubTracker, monkeypatch: pytest.MonkeyPatch
) -> None:
    def gone(_fake: FakeGitHub, _ctx: Any) -> Any:
        raise fake_routes.ApiError.not_found()

    for op in ("issues/list-dependencies-blocked-by", "issues/add-blocked-by-dependency"):
        monkeypatch.setitem(fake_routes.ROUTES, op, gone)
    pr = fake.add_pull(title="work")
    park(tracker, dependents=[f"#{pr.number}"])
    assert pr.blocked_by == []
    assert decision_label(DID) in pr.labels
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "open"


def test_branch_dependents_resolve_to_their_pull_request(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    pr = fake.add_pull(title="work", head_ref="agent/refund")
    park(tracker, dependents=["agent/refund"])
    assert status(fake, pr.number).status == "in_progress"
    assert lifecycle.gate(make_tracker(fake), Config(), "branch:agent/refund").state == "blocked"
    assert park(tracker, dependents=["agent/none"]).gates[-1].details == {"note": "no open pull request"}


def test_gate_of_something_that_is_not_a_pull_request(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    issue = fake.add_issue("plain")
    with pytest.raises(InvalidInput, match="not a pull request"):
        lifecycle.gate(tracker, Config(), f"#{issue.number}")


def test_pointer_comments_are_never_duplicated(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    pr = fake.add_pull(title="work")
    decision = park(tracker, dependents=[f"#{pr.number}"]).decision
    outcome = lifecycle.resolve(tracker, CONFIG, DID, "full_original", Actor("alice"), now=NOW)
    for _ in range(2):
        make_tracker(fake).point_dependents(decision, outcome.answer)
    pointers = [c for c in fake.comments.values() if c.issue_number == pr.number]
    assert len(pointers) == 1
    assert read_marker(pointers[0].body).kind == "pointer"  # type: ignore[union-attr]


def test_forged_answer_markers_from_people_are_ignored(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    decision = park(tracker).decision
    forged = '<!-- parkbot:answer billing-42-decision-refund {"at":"2026-01-01T00:00:00Z","by":"alice",'
    forged += '"kind":"option","value":"remaining_three"} -->\nI answered'
    fake.add_comment(decision_issue(fake).number, forged, author="mallory")
    assert make_tracker(fake).recorded_answer(decision) is None


# --- who may answer ----------------------------------------------------------------------------


def test_team_membership_includes_nested_teams(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    fake.add_team("acme", "leads", members=["lena"])
    fake.add_team("acme", "billing-leads", members=["nils"], parent="leads")
    assert tracker.is_member("lena", "@acme/leads")
    assert tracker.is_member("nils", "@acme/leads")
    assert not tracker.is_member("mallory", "@acme/leads")
    assert not tracker.is_member("lena", "@acme/nobody")
    assert tracker.is_member("Alice", "alice")
    assert tracker.is_member("alice", "@alice")


def test_team_owner_members_resolve(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    fake.add_team("acme", "leads", members=["lena"])
    config = Config(owners=Owners(default="@acme/leads"), precedents="off")
    park(tracker, config)
    with pytest.raises(Refused):
        lifecycle.resolve(make_tracker(fake), config, DID, "full_original", Actor("mallory"))
    assert lifecycle.resolve(make_tracker(fake), config, DID, "full_original", Actor("lena")).action == "resolved"


def test_permission_route_only_when_configured_and_never_for_pr_authors(
    fake: FakeGitHub, tracker: GitHubTracker
) -> None:
    pr = fake.add_pull(title="work", author="paula")
    park(tracker, dependents=[f"#{pr.number}"])
    for login, role in (("wendy", "write"), ("paula", "admin"), ("rita", "read")):
        fake.set_permission(login, role)
    with pytest.raises(Refused):
        lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("wendy"))  # not configured
    config = CONFIG.model_copy(update={"repository_permission_resolves": "write"})
    with pytest.raises(Refused):
        lifecycle.resolve(make_tracker(fake), config, DID, "full_original", Actor("paula"))  # the PR's author
    with pytest.raises(Refused):
        lifecycle.resolve(make_tracker(fake), config, DID, "full_original", Actor("rita"))  # too little
    assert lifecycle.resolve(make_tracker(fake), config, DID, "full_original", Actor("wendy")).action == "resolved"


def test_permission_of_reads_the_role(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    fake.set_permission("maya", "maintain")
    fake.set_permission("tara", "triage")
    assert tracker.permission_of("maya") == "maintain"
    assert tracker.permission_of("tara") == "triage"
    assert tracker.permission_of("nobody-known") is None
    assert tracker.permission_of("parkbot[bot]") is None


# --- budgets and the question log --------------------------------------------------------------


def test_budgets_use_index_labels_not_a_scan(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    for key in ("a", "b"):
        park(tracker, key=key, title=f"Q {key}", run="run-9")
    fake.reset_log()
    found = make_tracker(fake).open_decisions(origin="billing-42", run="run-9")
    assert sorted(d.key for d in found) == ["a", "b"]
    assert labels_listed(fake) == ["parkbot:origin:billing-42", "parkbot:run:run-9"]
    assert fake.request_count == 2


def test_index_labels_fit_and_never_collide() -> None:
    long_run = "nightly run #42 of the billing fleet, started by a scheduler"
    label = index_label("parkbot:run:", long_run)
    assert len(label) <= 50
    assert "," not in label
    assert label != index_label("parkbot:run:", long_run + "!")
    assert index_label("parkbot:origin:", "billing-42") == "parkbot:origin:billing-42"


def test_log_is_read_back_from_issues_and_refusals(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol"})
    for key in ("a", "b", "c"):
        lifecycle.park(tracker, result(key=key, title=f"Q {key}"), config, now=NOW)
    with pytest.raises(Refused):
        lifecycle.park(tracker, result(key="d", title="Q d"), config, now=NOW)
    lifecycle.escalate(tracker, config, "billing-42-decision-a", Actor("alice"), now=NOW)
    lifecycle.resolve(tracker, config, "billing-42-decision-b", "full_original", Actor("alice"), now=NOW)
    events = [(e.event, e.decision) for e in make_tracker(fake).iter_log()]
    assert sorted(events) == sorted(
        [
            ("parked", "billing-42-decision-a"),
            ("parked", "billing-42-decision-b"),
            ("parked", "billing-42-decision-c"),
            ("refused", "billing-42-decision-d"),
            ("escalated", "billing-42-decision-a"),
            ("resolved", "billing-42-decision-b"),
        ]
    )
    log_issue = [i for i in fake.issues.values() if "parkbot:log" in i.labels]
    assert len(log_issue) == 1


def test_precedent_candidates_come_from_index_labels(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    park(tracker, origin="billing-41")
    lifecycle.resolve(tracker, CONFIG, "billing-41-decision-refund", "full_original", Actor("alice"), now=NOW)
    park(tracker, origin="search-1", key="currency", title="Currency", question="Which currency?")
    about = lifecycle.build_decision(result(origin="billing-42"), "alice", NOW)
    fake.reset_log()
    candidates = list(make_tracker(fake).iter_log(about=about))
    assert [(e.event, e.decision, e.answer) for e in candidates] == [
        ("resolved", "billing-41-decision-refund", "full_original")
    ]
    assert fake.request_count == 2


# --- configuration and settings ----------------------------------------------------------------


def test_read_config_text(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    assert tracker.read_config_text(".github/parkbot.yml") is None
    fake.put_file(".github/parkbot.yml", "owners:\n  default: bob\n")
    assert tracker.read_config_text(".github/parkbot.yml") == "owners:\n  default: bob\n"


def test_settings_from_the_environment() -> None:
    settings = settings_from_env({"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_TOKEN": "ghp_secret"})
    assert settings.api_url == "https://api.github.com"
    assert settings.owner == "acme"
    assert "ghp_secret" not in repr(settings)
    ghes = settings_from_env(
        {"GITHUB_REPOSITORY": "a/b", "GITHUB_TOKEN": "x", "GITHUB_API_URL": "https://ghe.example.com/api/v3/"}
    )
    assert ghes.api_url == "https://ghe.example.com/api/v3"
    for env in ({}, {"GITHUB_REPOSITORY": "nope", "GITHUB_TOKEN": "x"}, {"GITHUB_REPOSITORY": "a/b"}):
        with pytest.raises(InvalidInput):
            settings_from_env(env)
    with pytest.raises(InvalidInput, match="http"):
        settings_from_env({"GITHUB_REPOSITORY": "a/b", "GITHUB_TOKEN": "x", "GITHUB_API_URL": "ftp://x"})


def test_nothing_is_read_at_import_or_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    client = client_from_env({"GITHUB_REPOSITORY": "acme/widgets", "GITHUB_TOKEN": "ghp_abc"})
    assert client.repository == "acme/widgets"
    assert "ghp_abc" not in repr(client)
    assert "ghp_abc" not in repr(GitHubTracker(client))
    assert os.environ.get("GITHUB_TOKEN") is None


def test_github_enterprise_server_base_url() -> None:
    fake = fake_github(base_url="https://ghe.example.com/api/v3")
    with fake.activate():
        client = build_client(GitHubSettings("acme/widgets", "https://ghe.example.com/api/v3", TOKEN))
        tracker = GitHubTracker(client, race_wait=0)
        pr = fake.add_pull(title="work")
        outcome = park(tracker, dependents=[f"#{pr.number}"])
        assert outcome.location.url == f"https://ghe.example.com/acme/widgets/issues/{outcome.location.number}"
        assert lifecycle.gate(GitHubTracker(client), Config(), f"#{pr.number}").state == "blocked"
    fake.assert_no_violations()
    assert all(r.path.startswith("/repos/acme/widgets") or r.path == "/api/graphql" for r in fake.requests)
    assert fake.count("POST", "/api/graphql") > 0


def test_assignable_logins() -> None:
    assert assignable_login("alice") == "alice"
    assert assignable_login("@alice") == "alice"
    assert assignable_login("@acme/leads") is None
    assert assignable_login("alice@example.com") is None


# --- size limits -------------------------------------------------------------------------------


def test_huge_work_is_kept_in_overflow_comments(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    work = {"blob": os.urandom(60_000).hex() + os.urandom(60_000).hex()}
    park(tracker, work_so_far=work)
    issue = decision_issue(fake)
    chunks = [c for c in fake.comments.values() if c.issue_number == issue.number]
    assert len(chunks) >= 2
    stored = make_tracker(fake).find(DID)
    assert stored is not None
    assert stored.work_so_far == work
    assert park(make_tracker(fake), work_so_far=work).action == "unchanged"
    newer = {"blob": os.urandom(60_000).hex() + os.urandom(60_000).hex()}
    assert park(make_tracker(fake), work_so_far=newer).action == "updated"
    stored = make_tracker(fake).find(DID)
    assert stored is not None
    assert stored.work_so_far == newer
    left = [c for c in fake.comments.values() if c.issue_number == issue.number]
    assert len(left) == len(render_decision(stored).overflow)  # the outdated parts were deleted


def test_a_pr_known_only_by_its_label_is_still_cleared(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    """An edge whose write to the decision body was lost (concurrent edit) is found by the PR's label."""
    park(tracker)
    pr = fake.add_pull(title="work", labels=[decision_label(DID)])
    assert lifecycle.gate(make_tracker(fake), Config(), f"#{pr.number}").state == "blocked"
    issue = decision_issue(fake)
    decision = parse_decision(issue.body).model_copy(update={"dependents": []})
    issue.body = render_decision(decision).body  # the recorded edge is gone from the decision side
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    assert status(fake, pr.number).conclusion == "success"
    assert any(c.issue_number == pr.number for c in fake.comments.values())


def test_replies_are_edited_in_place(fake: FakeGitHub, tracker: GitHubTracker) -> None:
    number = park(tracker).location.number
    assert number is not None
    tracker.decision_at(number)
    tracker.reply(number, "77", "first")
    tracker.reply(number, "77", "second")
    tracker.reply(number, "77", "second")
    bodies = [c.body for c in fake.comments.values() if c.issue_number == number]
    assert len(bodies) == 1
    assert bodies[0].endswith("second\n")
    assert make_tracker(fake).comments.reply(number, "77", "third")["body"].endswith("third\n")
    assert len([c for c in fake.comments.values() if c.issue_number == number]) == 1
