"""Tests of the fake GitHub itself, driven through real PyGithub.

Why: every bot test trusts the fake to behave like GitHub; these pin the GitHub rules it
implements (validation errors, pagination, conditional requests, faults...) and that its
responses satisfy GitHub's OpenAPI description.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import responses
from github import Auth, Github, GithubException
from github.GithubException import RateLimitExceededException, UnknownObjectException

from tests.support.fakegithub import FakeGitHub, OpenAPIViolation
from tests.support.fakegithub import payloads as fake_payloads
from tests.support.fakegithub import routes as fake_routes
from tests.support.scripts import load_script

TESTS = Path(__file__).resolve().parents[1]
TOKEN = "t0k"


def make_client(fake: FakeGitHub, token: str | None = TOKEN) -> Github:
    """PyGithub without its default throttling and retries (both would slow tests)."""
    return Github(
        auth=Auth.Token(token) if token else None,
        base_url=fake.base_url,
        retry=None,
        seconds_between_requests=0,
        seconds_between_writes=0,
        per_page=100,
    )


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    f = FakeGitHub(owner="acme", repo="widgets")
    with f.activate():
        yield f
    f.assert_no_violations()


@pytest.fixture
def gh(fake: FakeGitHub) -> Github:
    return make_client(fake)


@pytest.fixture
def repo(gh: Github) -> Any:
    return gh.get_repo("acme/widgets")


def raw_get(fake: FakeGitHub, path: str, **headers: str) -> requests.Response:
    """A plain HTTP GET, for asserting headers exactly."""
    return requests.get(f"{fake.base_url}{path}", headers={"Authorization": f"token {TOKEN}", **headers}, timeout=5)


# --------------------------------------------------------------------------- labels


def test_create_label_and_duplicate_is_422_already_exists(repo: Any, fake: FakeGitHub) -> None:
    lab = repo.create_label("type:bug", "ff0000", "Something is broken")
    assert (lab.name, lab.color, lab.description) == ("type:bug", "ff0000", "Something is broken")
    with pytest.raises(GithubException) as exc:
        repo.create_label("TYPE:Bug", "00ff00")
    assert exc.value.status == 422
    assert exc.value.data["message"] == "Validation Failed"
    assert exc.value.data["errors"] == [{"resource": "Label", "code": "already_exists", "field": "name"}]
    assert [x.name for x in repo.get_labels()] == ["type:bug"]


def test_label_name_over_50_chars_is_422_invalid(repo: Any, fake: FakeGitHub) -> None:
    with pytest.raises(GithubException) as exc:
        repo.create_label("x" * 51, "ff0000")
    assert exc.value.status == 422
    assert exc.value.data["errors"] == [{"resource": "Label", "code": "invalid", "field": "name"}]
    assert fake.labels == {}
    assert repo.create_label("x" * 50, "ff0000").name == "x" * 50


def test_get_label_with_colon_and_slash_then_delete(repo: Any, fake: FakeGitHub) -> None:
    fake.add_label("parkbot: needs/input", "123456")
    lab = repo.get_label("parkbot: needs/input")
    assert lab.color == "123456"
    assert fake.requests[-1].path == "/repos/acme/widgets/labels/parkbot%3A%20needs%2Finput"
    lab.delete()
    with pytest.raises(UnknownObjectException):
        _ = repo.get_label("parkbot: needs/input").color


# --------------------------------------------------------------------------- issues


def test_issue_create_autocreates_labels_and_list_filters(repo: Any, fake: FakeGitHub) -> None:
    fake.add_label("bug", "ff0000")
    a = repo.create_issue("A", body="first", labels=["BUG", "parkbot:blocked"], assignees=["alice"])
    assert [x.name for x in a.labels] == ["bug", "parkbot:blocked"]  # canonical case kept
    assert fake.labels["parkbot:blocked"].color == "ededed"
    assert [u.login for u in a.assignees] == ["alice"]
    assert a.user.login == "parkbot[bot]"
    b = repo.create_issue("B", labels=["bug"])
    b.edit(state="closed", state_reason="not_planned")
    assert (b.state, b.state_reason, b.closed_by.login) == ("closed", "not_planned", "parkbot[bot]")
    pr = fake.add_pull(title="P", labels=["bug", "parkbot:blocked"])

    open_bug = [i.number for i in repo.get_issues(labels=["Bug"])]
    assert open_bug == [pr.number, a.number]  # newest first, PRs included
    both = repo.get_issues(state="all", labels=["bug", "PARKBOT:BLOCKED"])
    assert sorted(i.number for i in both) == [a.number, pr.number]  # AND, case-insensitive
    everything = {i.number: i for i in repo.get_issues(state="all")}
    assert set(everything) == {a.number, b.number, pr.number}
    assert everything[pr.number].pull_request is not None
    assert everything[a.number].pull_request is None
    assert [i.number for i in repo.get_issues(state="closed")] == [b.number]

    b.edit(state="open")
    assert (b.state, b.state_reason, b.closed_at) == ("open", "reopened", None)


def _labels(gh_issue: Any, method: str, names: list[str]) -> None:
    """Add (POST) or set (PUT) labels in the object form GitHub's description has."""
    gh_issue._requester.requestJsonAndCheck(method, f"{gh_issue.url}/labels", input={"labels": names})


def test_issue_edit_labels_and_assignees(repo: Any, fake: FakeGitHub) -> None:
    iss = repo.create_issue("T", labels=["a", "b"])
    _labels(iss, "POST", ["c"])
    iss.remove_from_labels("a")
    assert [x.name for x in iss.get_labels()] == ["b", "c"]
    _labels(iss, "PUT", ["z"])
    assert fake.issues[iss.number].labels == ["z"]
    iss.delete_labels()
    assert fake.issues[iss.number].labels == []
    _labels(iss, "PUT", [])  # documented in prose: an empty array removes every label
    _labels(iss, "POST", ["z"])
    with pytest.raises(GithubException) as exc:
        iss.remove_from_labels("nope")
    assert exc.value.status == 404
    iss.add_to_assignees("bob", "carol")
    iss.remove_from_assignees("bob")
    iss.edit(title="T2", body="new body", labels=["q"])
    got = repo.get_issue(iss.number)
    assert (got.title, got.body, [x.name for x in got.labels], [u.login for u in got.assignees]) == (
        "T2",
        "new body",
        ["q"],
        ["carol"],
    )


def test_an_issue_carries_at_most_a_hundred_labels(repo: Any, fake: FakeGitHub) -> None:
    """GitHub refuses a hundred and first label, so ``labels(first: 100)`` reads all of an issue's."""
    iss = repo.create_issue("T", labels=[f"l{n}" for n in range(99)])
    _labels(iss, "POST", ["l99"])
    with pytest.raises(GithubException) as exc:
        _labels(iss, "POST", ["one-more"])
    assert exc.value.status == 422
    with pytest.raises(GithubException):
        _labels(iss, "PUT", [f"m{n}" for n in range(101)])
    with pytest.raises(GithubException):
        repo.create_issue("T", labels=[f"m{n}" for n in range(101)])
    assert len(fake.issues[iss.number].labels) == 100


@pytest.mark.parametrize(("method", "call"), [("POST", "add_to_labels"), ("PUT", "set_labels")])
def test_bare_label_arrays_are_not_in_githubs_description(repo: Any, fake: FakeGitHub, method: str, call: str) -> None:
    """PyGithub sends ``["c"]``; GitHub's published description has only ``{"labels": ["c"]}``."""
    iss = repo.create_issue("T", labels=["a"])
    with pytest.raises(OpenAPIViolation, match="labels"):
        getattr(iss, call)("c")
    assert fake.issues[iss.number].labels == ["a"]
    assert fake.requests[-1].method == method
    fake.openapi_violations.clear()


def test_issue_title_and_body_limits_are_422_and_change_nothing(repo: Any, fake: FakeGitHub) -> None:
    with pytest.raises(GithubException) as exc:
        repo.create_issue("t" * 257)
    assert exc.value.status == 422
    assert exc.value.data["errors"][0]["field"] == "title"
    with pytest.raises(GithubException) as exc:
        repo.create_issue("ok", body="b" * 65537, labels=["fresh"])
    assert exc.value.status == 422
    assert exc.value.data["errors"][0]["field"] == "body"
    assert fake.issues == {}
    assert "fresh" not in fake.labels
    iss = repo.create_issue("t" * 256, body="b" * 65536)
    with pytest.raises(GithubException):
        iss.edit(body="b" * 65537)
    assert len(fake.issues[iss.number].body or "") == 65536


def test_pagination_walks_link_headers_over_100_items(repo: Any, fake: FakeGitHub) -> None:
    for n in range(150):
        fake.add_issue(f"issue {n}")
    fake.reset_log()
    titles = [i.title for i in repo.get_issues(state="all", direction="asc")]
    assert titles == [f"issue {n}" for n in range(150)]
    assert fake.count("GET", r"/repos/acme/widgets/issues") == 2
    assert [r.query.get("page") for r in fake.requests] == [None, "2"]
    assert repo.get_issues(state="all").totalCount == 150


def test_link_header_is_in_githubs_exact_format(fake: FakeGitHub) -> None:
    for n in range(150):
        fake.add_issue(f"issue {n}")
    base = "https://api.github.com/repos/acme/widgets/issues?state=all&per_page=30"
    first = raw_get(fake, "/repos/acme/widgets/issues?state=all&per_page=30")
    assert first.headers["Link"] == f'<{base}&page=2>; rel="next", <{base}&page=5>; rel="last"'
    middle = raw_get(fake, "/repos/acme/widgets/issues?state=all&per_page=30&page=3")
    assert middle.headers["Link"] == (
        f'<{base}&page=2>; rel="prev", <{base}&page=4>; rel="next", '
        f'<{base}&page=5>; rel="last", <{base}&page=1>; rel="first"'
    )
    last = raw_get(fake, "/repos/acme/widgets/issues?state=all&per_page=30&page=5")
    assert last.headers["Link"] == f'<{base}&page=4>; rel="prev", <{base}&page=1>; rel="first"'
    assert len(last.json()) == 30
    capped = raw_get(fake, "/repos/acme/widgets/issues?state=all&per_page=500")
    assert len(capped.json()) == 100  # per_page max is 100
    assert len(raw_get(fake, "/repos/acme/widgets/issues?state=all").json()) == 30  # default
    assert "Link" not in raw_get(fake, "/repos/acme/widgets/labels").headers


# --------------------------------------------------------------------------- comments


def test_comments_crud_and_since(repo: Any, fake: FakeGitHub) -> None:
    iss = repo.create_issue("T")
    c1 = iss.create_comment("one")
    fake.advance_clock(3600)
    c2 = iss.create_comment("two")
    assert c1.user.login == "parkbot[bot]"
    assert c1.user.type == "Bot"
    assert c1.html_url.endswith(f"/acme/widgets/issues/{iss.number}#issuecomment-{c1.id}")
    assert [c.body for c in iss.get_comments()] == ["one", "two"]
    assert [c.id for c in iss.get_comments(since=c2.created_at)] == [c2.id]
    c1.edit("one, edited")
    assert repo.get_issue(iss.number).get_comment(c1.id).body == "one, edited"
    assert repo.get_issue(iss.number).comments == 2
    c2.delete()
    assert [c.body for c in iss.get_comments()] == ["one, edited"]
    with pytest.raises(GithubException) as exc:
        iss.create_comment("x" * 65537)
    assert exc.value.status == 422
    with pytest.raises(UnknownObjectException):
        iss.get_comment(c2.id)


# --------------------------------------------------------------------------- statuses


def test_statuses_combined_and_140_char_rule(repo: Any, fake: FakeGitHub) -> None:
    sha = fake.add_pull(head_sha="a" * 40).pull.head_sha  # type: ignore[union-attr]
    commit = repo.get_commit(sha)
    commit.create_status("pending", description="queued", context="parkbot")
    commit.create_status("success", target_url="https://ci.example/1", description="ok", context="ci")
    commit.create_status("failure", description="d" * 140, context="ParkBot")  # same context, other case
    with pytest.raises(GithubException) as exc:
        commit.create_status("success", description="d" * 141, context="parkbot")
    assert exc.value.status == 422
    assert exc.value.data["errors"][0]["field"] == "description"
    combined = commit.get_combined_status()
    assert combined.state == "failure"
    assert sorted(s.context for s in combined.statuses) == ["ParkBot", "ci"]
    assert [s.state for s in commit.get_statuses()] == ["failure", "success", "pending"]
    status = fake.status_of(sha, "parkbot")
    assert status is not None
    assert status.state == "failure"
    with pytest.raises(GithubException) as exc:
        repo.get_commit("b" * 40).create_status("success")
    assert exc.value.status == 422  # GitHub: No commit found for SHA


def test_status_state_enum(fake: FakeGitHub) -> None:
    sha = fake.add_commit(message="x").sha
    url = f"{fake.base_url}/repos/acme/widgets/statuses/{sha}"
    auth = {"Authorization": f"token {TOKEN}"}
    with pytest.raises(OpenAPIViolation, match="repos/create-commit-status"):
        requests.post(url, json={"state": "bogus"}, headers=auth, timeout=5)
    fake.openapi_violations.clear()
    fake.strict = False  # with the schema check off, GitHub's own 422 is what comes back
    resp = requests.post(url, json={"state": "bogus"}, headers=auth, timeout=5)
    assert resp.status_code == 422
    assert resp.json()["errors"][0]["field"] == "state"
    assert fake.statuses == []


# --------------------------------------------------------------------------- pull requests


def test_pull_request_commits_and_push(repo: Any, fake: FakeGitHub) -> None:
    pr = fake.add_pull(
        title="Add widget",
        body="Fixes #1",
        head_ref="feat/widget",
        commits=[{"sha": "1" * 40, "message": "first"}, {"sha": "2" * 40, "message": "second"}],
        author="dev",
    )
    p = repo.get_pull(pr.number)
    assert (p.head.sha, p.head.ref, p.base.ref, p.body, p.user.login) == (
        "2" * 40,
        "feat/widget",
        "main",
        "Fixes #1",
        "dev",
    )
    assert (p.state, p.merged, p.html_url) == ("open", False, f"https://github.com/acme/widgets/pull/{pr.number}")
    assert [c.commit.message for c in p.get_commits()] == ["first", "second"]
    new = fake.push(pr.number, "3" * 40, "third")
    p = repo.get_pull(pr.number)
    assert p.head.sha == new.sha == "3" * 40
    assert [c.sha for c in p.get_commits()] == ["1" * 40, "2" * 40, "3" * 40]
    assert [x.number for x in repo.get_pulls(head="acme:feat/widget")] == [pr.number]
    assert list(repo.get_pulls(base="other")) == []
    issue_view = repo.get_issue(pr.number)
    assert issue_view.pull_request is not None
    assert issue_view.pull_request.html_url == p.html_url
    fake.merge_pull(pr.number)
    merged = repo.get_pull(pr.number)
    assert (merged.merged, merged.state) == (True, "closed")
    assert list(repo.get_pulls()) == []
    assert len(list(repo.get_pulls(state="closed"))) == 1
    with pytest.raises(UnknownObjectException):
        repo.get_pull(fake.add_issue("plain issue").number)


# --------------------------------------------------------------------------- dependencies


def test_native_issue_dependencies_via_pygithub(repo: Any, fake: FakeGitHub) -> None:
    blocked = repo.create_issue("blocked")
    blocker = repo.create_issue("blocker")
    blocked.add_blocked_by(blocker)
    assert fake.issues[blocked.number].blocked_by == [blocker.id]
    assert [i.number for i in blocked.get_blocked_by()] == [blocker.number]
    assert [i.number for i in blocker.get_blocking()] == [blocked.number]
    summary = repo.get_issue(blocked.number).issue_dependencies_summary
    assert (summary.blocked_by, summary.total_blocked_by) == (1, 1)
    with pytest.raises(GithubException) as exc:
        blocked.add_blocked_by(blocker)
    assert exc.value.status == 422
    blocked.remove_blocked_by(blocker)
    assert list(blocked.get_blocked_by()) == []
    with pytest.raises(GithubException) as exc:
        blocked.remove_blocked_by(blocker)
    assert exc.value.status == 404


# --------------------------------------------------------------------------- repo, users, teams, contents


def test_repository_permissions_and_users(gh: Github, repo: Any, fake: FakeGitHub) -> None:
    assert (repo.full_name, repo.owner.login, repo.owner.type, repo.default_branch) == (
        "acme/widgets",
        "acme",
        "Organization",
        "main",
    )
    assert repo.permissions.push is True
    assert repo.permissions.admin is False
    fake.set_permission("alice", "admin")
    fake.set_permission("tri", "triage")
    assert repo.get_collaborator_permission("alice") == "admin"
    assert repo.get_collaborator_permission("tri") == "read"
    assert repo.get_collaborator_role_name("tri") == "triage"
    with pytest.raises(GithubException) as denied:
        gh.get_user().login  # noqa: B018 - an App installation token is no user (GraphQL's viewer answers)
    assert denied.value.status == 403
    fake.add_token("ghp_alice", "alice")
    me = make_client(fake, "ghp_alice").get_user()
    assert (me.login, me.type) == ("alice", "User")
    assert gh.get_user("alice").login == "alice"
    with pytest.raises(UnknownObjectException):
        gh.get_user("nobody-ever-seen").login  # noqa: B018
    with pytest.raises(UnknownObjectException):
        gh.get_repo("acme/other")


def test_team_membership_includes_child_teams(gh: Github, fake: FakeGitHub) -> None:
    fake.add_team("acme", "maintainers", ["alice"], maintainers=["mona"])
    fake.add_team("acme", "core", ["bob"], parent="maintainers")
    fake.add_team("acme", "core-infra", ["carol"], parent="core")
    team = gh.get_organization("acme").get_team_by_slug("maintainers")
    assert team.get_team_membership("alice").state == "active"
    assert team.get_team_membership("mona").role == "maintainer"
    assert team.get_team_membership("carol").role == "member"  # grandchild team member
    with pytest.raises(UnknownObjectException):
        team.get_team_membership("dave")
    assert [m.login for m in team.get_members()] == ["alice", "mona", "bob", "carol"]
    assert [m.login for m in team.get_members(role="maintainer")] == ["mona"]
    children = list(team.get_teams())
    assert [t.slug for t in children] == ["core"]
    assert [m.login for m in children[0].get_members()] == ["bob", "carol"]
    assert team.name == "maintainers"
    with pytest.raises(UnknownObjectException):
        gh.get_organization("acme").get_team_by_slug("ghosts").get_team_membership("alice")


def test_contents_file_ref_directory_and_404(repo: Any, fake: FakeGitHub) -> None:
    fake.put_file(".github/parkbot.yml", "backend: github\n")
    fake.put_file(".github/parkbot.yml", "backend: repo\n", ref="feature")
    fake.put_file(".github/workflows/ci.yml", "on: push\n")
    got = repo.get_contents(".github/parkbot.yml")
    assert got.decoded_content == b"backend: github\n"
    assert got.encoding == "base64"
    assert got.path == ".github/parkbot.yml"
    assert repo.get_contents(".github/parkbot.yml", ref="feature").decoded_content == b"backend: repo\n"
    listing = repo.get_contents(".github")
    assert sorted((c.name, c.type) for c in listing) == [("parkbot.yml", "file"), ("workflows", "dir")]
    with pytest.raises(UnknownObjectException):
        repo.get_contents("missing.yml")
    long_text = "x" * 200
    fake.put_file("big.txt", long_text)
    content = raw_get(fake, "/repos/acme/widgets/contents/big.txt").json()["content"]
    assert all(len(line) <= 60 for line in content.splitlines())  # GitHub wraps base64 at 60
    assert base64.b64decode(content) == long_text.encode()


# --------------------------------------------------------------------------- HTTP behaviour


def test_conditional_request_304_keeps_rate_limit(repo: Any, fake: FakeGitHub) -> None:
    before = fake.rate_remaining
    assert repo.update() is False  # PyGithub sent If-None-Match with the stored ETag
    assert fake.requests[-1].status == 304
    assert fake.rate_remaining == before
    fake.add_issue("changes open_issues_count")
    assert repo.update() is True
    assert fake.rate_remaining == before - 1
    first = raw_get(fake, "/repos/acme/widgets")
    again = raw_get(fake, "/repos/acme/widgets", **{"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["x-ratelimit-remaining"] == first.headers["x-ratelimit-remaining"]


def test_rate_limit_headers_and_exhaustion(gh: Github, fake: FakeGitHub) -> None:
    r1 = raw_get(fake, "/repos/acme/widgets")
    r2 = raw_get(fake, "/repos/acme/widgets/labels")
    assert r1.headers["x-ratelimit-limit"] == "5000"
    assert r1.headers["x-ratelimit-resource"] == "core"
    assert int(r1.headers["x-ratelimit-remaining"]) - 1 == int(r2.headers["x-ratelimit-remaining"])
    assert int(r2.headers["x-ratelimit-used"]) == 5000 - int(r2.headers["x-ratelimit-remaining"])
    remaining = gh.get_rate_limit().resources.core.remaining
    assert remaining == gh.get_rate_limit().resources.core.remaining  # /rate_limit is free
    fake.set_rate_limit(0)
    with pytest.raises(RateLimitExceededException):
        gh.get_repo("acme/widgets")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("500", GithubException),
        ("502", GithubException),
        ("secondary_rate_limit", RateLimitExceededException),
        ("primary_rate_limit", RateLimitExceededException),
        ("connection_reset", requests.exceptions.ConnectionError),
    ],
)
def test_fault_kinds_fail_without_changing_state(
    repo: Any, fake: FakeGitHub, kind: str, expected: type[Exception]
) -> None:
    fake.fail_next(kind)
    with pytest.raises(expected) as exc:
        repo.create_issue("should not exist", labels=["new-label"])
    assert fake.issues == {}
    assert fake.labels == {}
    assert fake.requests[-1].status == (0 if kind == "connection_reset" else int(exc.value.status))  # type: ignore[attr-defined]
    if kind == "secondary_rate_limit":
        assert exc.value.headers["retry-after"] == "1"  # type: ignore[attr-defined]
        assert "secondary rate limit" in exc.value.data["message"]  # type: ignore[attr-defined]
    if kind == "primary_rate_limit":
        assert exc.value.headers["x-ratelimit-remaining"] == "0"  # type: ignore[attr-defined]
    assert repo.create_issue("now it works").number == 1


def test_fail_request_nth_and_match(repo: Any, fake: FakeGitHub) -> None:
    fake.fail_request(2, "500")
    repo.create_issue("one")
    with pytest.raises(GithubException):
        repo.create_issue("two")
    repo.create_issue("three")
    assert [i.title for i in fake.issues.values()] == ["one", "three"]
    fake.fail_next("502", count=2, match=r"^POST .*/comments$")
    iss = repo.get_issue(1)  # GETs are not matched
    for _ in range(2):
        with pytest.raises(GithubException) as exc:
            iss.create_comment("hi")
        assert exc.value.status == 502
    iss.create_comment("finally")
    assert [c.body for c in fake.comments.values()] == ["finally"]
    with pytest.raises(ValueError, match="fault kind"):
        fake.fail_next("teapot")


def test_auth_required_for_writes_and_token_recorded(fake: FakeGitHub) -> None:
    anon = make_client(fake, token=None)
    repo = anon.get_repo("acme/widgets")  # reads work anonymously on a public repo
    with pytest.raises(GithubException) as exc:
        repo.create_issue("nope")
    assert exc.value.status == 401
    assert fake.issues == {}
    make_client(fake).get_repo("acme/widgets").create_issue("yes")
    assert TOKEN in fake.tokens_seen
    strict = FakeGitHub(base_url="https://api.github.com", token="right")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        strict.install(rsps)
        with pytest.raises(GithubException) as bad:
            make_client(strict, token="wrong").get_repo("acme/widgets")
        assert bad.value.status == 401


def test_unknown_routes_and_request_log(fake: FakeGitHub) -> None:
    resp = raw_get(fake, "/repos/acme/widgets/no-such-thing")
    assert resp.status_code == 404
    assert resp.json()["message"] == "Not Found"
    assert "documentation_url" in resp.json()
    assert raw_get(fake, "/repos/someone/else/issues").status_code == 404
    assert raw_get(fake, "/repos/acme/widgets/issues/abc").status_code == 404
    method, path, query, body, status = fake.requests[0]
    assert (method, path, query, body, status) == ("GET", "/repos/acme/widgets/no-such-thing", {}, None, 404)
    assert fake.request_count == 3
    fake.reset_log()
    assert fake.request_count == 0


def test_start_stop_for_harnesses() -> None:
    f = FakeGitHub().start()
    try:
        assert make_client(f).get_repo("acme/widgets").name == "widgets"
        with pytest.raises(RuntimeError):
            f.start()
    finally:
        f.stop()
    f.stop()  # idempotent
    assert f.request_count == 1


def test_ghes_base_url(fake: FakeGitHub) -> None:
    ghe = FakeGitHub(owner="acme", repo="widgets", base_url="https://ghe.example.com/api/v3")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        ghe.install(rsps)
        fake.install(rsps)  # both hosts on one mock
        repo = make_client(ghe).get_repo("acme/widgets")
        iss = repo.create_issue("on ghe", labels=["x"])
        assert iss.html_url == f"https://ghe.example.com/acme/widgets/issues/{iss.number}"
        assert iss.url == f"https://ghe.example.com/api/v3/repos/acme/widgets/issues/{iss.number}"
        for n in range(120):
            ghe.add_issue(f"bulk {n}")
        assert len(list(repo.get_issues(state="all"))) == 121
        link = requests.get("https://ghe.example.com/api/v3/repos/acme/widgets/issues?state=all", timeout=5).headers[
            "Link"
        ]
        assert link.startswith("<https://ghe.example.com/api/v3/repos/acme/widgets/issues?state=all&page=2>")
        assert all(r.path.startswith("/repos/acme/widgets") for r in ghe.requests)
        assert fake.issues == {}
        ghe.assert_no_violations()


# --------------------------------------------------------------------------- OpenAPI checking


def test_openapi_catches_wrong_request_body(repo: Any, fake: FakeGitHub) -> None:
    blocked = repo.create_issue("blocked")
    blocker = repo.create_issue("blocker")
    url = f"{blocked.url}/dependencies/blocked_by"
    with pytest.raises(OpenAPIViolation, match=r"issues/add-blocked-by-dependency.*issue_id"):
        blocked._requester.requestJsonAndCheck("POST", url, input={"issue_id": str(blocker.id)})
    with pytest.raises(AssertionError, match="issues/create"):
        blocked._requester.requestJsonAndCheck("POST", f"{repo.url}/issues", input={"title": ["not", "a", "str"]})
    assert fake.issues[blocked.number].blocked_by == []
    assert len(fake.issues) == 2
    assert len(fake.openapi_violations) == 2
    assert fake.requests[-1].status == 422
    assert fake.count(operation="issues/add-blocked-by-dependency") == 1
    fake.openapi_violations.clear()


def test_openapi_catches_wrong_response(repo: Any, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    fake.add_label("bug")
    real = fake_payloads.label

    def broken(f: FakeGitHub, lab: Any) -> dict[str, Any]:
        out = real(f, lab)
        del out["color"]
        out["id"] = str(out["id"])
        return out

    monkeypatch.setattr(fake_payloads, "label", broken)
    with pytest.raises(OpenAPIViolation, match=r"issues/get-label: 200 response.*'color' is a required"):
        _ = repo.get_label("bug").name
    fake.openapi_violations.clear()


def test_every_operation_of_the_trimmed_spec_has_a_handler(fake: FakeGitHub) -> None:
    assert set(fake_routes.ROUTES) == set(fake.spec.operations)


def test_trimmed_openapi_is_self_contained() -> None:
    spec = json.loads((TESTS / "openapi" / "github-trimmed.json").read_text())
    refs = set(re.findall(r'"\$ref": "#/components/([^/]+)/([^"]+)"', json.dumps(spec)))
    assert refs
    assert all(name in spec["components"][section] for section, name in refs)
    module = load_script(TESTS / "openapi" / "regenerate.py", "oa_regen")
    ops = {op["operationId"] for item in spec["paths"].values() for k, op in item.items() if k != "parameters"}
    assert ops == set(module.OPERATIONS)


# --------------------------------------------------------------------------- webhook fixtures


WEBHOOK_KEYS = {
    "issue_comment.created": ["action", "issue.number", "issue.labels", "comment.id", "comment.body",
                              "comment.user.login", "comment.user.type", "repository.full_name", "sender.login"],
    "issue_comment.created.pull_request": ["issue.pull_request.url", "comment.body"],
    "issue_comment.edited": ["changes", "comment.body"],
    "pull_request.opened": ["number", "pull_request.head.sha", "pull_request.head.ref", "pull_request.base.ref",
                            "pull_request.body", "pull_request.user.login"],
    "pull_request.edited": ["changes.body.from", "pull_request.number"],
    "pull_request.synchronize": ["pull_request.head.sha"],
    "pull_request.reopened": ["pull_request.state"],
    "push": ["ref", "before", "after", "commits", "head_commit.id", "repository.default_branch"],
    "issues.closed": ["issue.state", "issue.number"],
    "issues.reopened": ["issue.state"],
    "merge_group.checks_requested": ["merge_group.head_sha", "merge_group.head_ref", "merge_group.base_ref"],
    "check_run.rerequested": ["check_run.head_sha", "check_run.pull_requests"],
    "check_run.rerequested.pull_request": ["check_run.pull_requests"],
    "status": ["sha", "state", "context"],
    "workflow_dispatch": ["ref", "inputs", "workflow"],
    "schedule": ["schedule"],
}  # fmt: skip


def _dig(payload: dict[str, Any], dotted: str) -> Any:
    cur: Any = payload
    for part in dotted.split("."):
        assert isinstance(cur, dict), dotted
        assert part in cur, dotted
        cur = cur[part]
    return cur


@pytest.mark.parametrize("stem", sorted(WEBHOOK_KEYS))
def test_webhook_fixtures_have_the_keys_bots_read(stem: str) -> None:
    payload = json.loads((TESTS / "webhooks" / f"{stem}.json").read_text())
    for key in WEBHOOK_KEYS[stem]:
        _dig(payload, key)
    if "action" in payload:
        assert stem.split(".")[1] == payload["action"]
    assert _dig(json.loads((TESTS / "webhooks" / "issues.closed.json").read_text()), "issue.state") == "closed"
    prs = _dig(json.loads((TESTS / "webhooks" / "check_run.rerequested.pull_request.json").read_text()),
               "check_run.pull_requests")  # fmt: skip
    assert prs
    assert prs[0]["head"]["sha"]


# --------------------------------------------------------------------------- check runs


def _check(gh: Github, **body: Any) -> Any:
    _, data = gh.requester.requestJsonAndCheck("POST", "/repos/acme/widgets/check-runs", input=body)
    return data


def test_only_github_apps_create_check_runs(fake: FakeGitHub, gh: Github) -> None:
    sha = fake.add_commit(message="work").sha
    run = _check(
        gh, name="parkbot/decisions", head_sha=sha, status="in_progress", output={"title": "t", "summary": "s"}
    )
    assert (run["status"], run["conclusion"], run["app"]["slug"]) == ("in_progress", None, "parkbot")
    fake.add_token("ghp_mallory", "mallory", kind="personal")
    with pytest.raises(GithubException) as denied:
        _check(make_client(fake, "ghp_mallory"), name="parkbot/decisions", head_sha=sha, conclusion="success")
    assert denied.value.status == 403
    assert "GitHub App" in str(denied.value)
    assert [r.conclusion for r in fake.check_runs] == [None]


def test_check_run_rules(fake: FakeGitHub, gh: Github) -> None:
    sha = fake.add_commit(message="work").sha
    with pytest.raises(GithubException) as unknown:
        _check(gh, name="c", head_sha="f" * 40)
    assert unknown.value.status == 422
    with pytest.raises(GithubException) as incomplete:
        _check(gh, name="c", head_sha=sha, status="completed")
    assert incomplete.value.status == 422
    done = _check(gh, name="c", head_sha=sha, conclusion="success")  # a conclusion completes it
    assert (done["status"], done["completed_at"] is not None) == ("completed", True)
    run = _check(gh, name="c", head_sha=sha, status="in_progress")
    _, updated = gh.requester.requestJsonAndCheck(
        "PATCH", f"/repos/acme/widgets/check-runs/{run['id']}", input={"conclusion": "failure"}
    )
    assert (updated["status"], updated["conclusion"]) == ("completed", "failure")
    fake.add_token("ghs_other_app", "other-app[bot]")
    with pytest.raises(GithubException) as foreign:
        make_client(fake, "ghs_other_app").requester.requestJsonAndCheck(
            "PATCH", f"/repos/acme/widgets/check-runs/{run['id']}", input={"conclusion": "success"}
        )
    assert foreign.value.status == 403  # only the App that created a check run changes it
    assert fake.check_of(sha, "c").conclusion == "failure"


def test_check_runs_for_a_ref_latest_per_name_and_app(fake: FakeGitHub, gh: Github) -> None:
    pr = fake.add_pull(title="work")
    sha = pr.pull.head_sha
    _check(gh, name="parkbot/decisions", head_sha=sha, status="in_progress")
    _check(gh, name="parkbot/decisions", head_sha=sha, conclusion="success")
    fake.add_token("ghs_impostor", "impostor[bot]")
    _check(make_client(fake, "ghs_impostor"), name="parkbot/decisions", head_sha=sha, conclusion="success")
    _, latest = gh.requester.requestJsonAndCheck(
        "GET", f"/repos/acme/widgets/commits/{sha}/check-runs", parameters={"check_name": "parkbot/decisions"}
    )
    assert latest["total_count"] == 2  # the newest run of each App
    assert [(r["app"]["slug"], r["conclusion"]) for r in latest["check_runs"]] == [
        ("impostor", "success"),
        ("parkbot", "success"),
    ]
    assert latest["check_runs"][1]["pull_requests"][0]["number"] == pr.number
    _, everything = gh.requester.requestJsonAndCheck(
        "GET", f"/repos/acme/widgets/commits/{sha}/check-runs", parameters={"filter": "all"}
    )
    assert everything["total_count"] == 3
    assert fake.check_of(sha, "parkbot/decisions", app="parkbot[bot]").conclusion == "success"
