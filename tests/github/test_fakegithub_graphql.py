"""The fake's GraphQL endpoint (``tests/support/fakegithub/graphql.py``), driven through PyGithub's requester."""

from __future__ import annotations

import pytest
import requests
from github import Auth, Github, GithubException
from github.GithubException import UnknownObjectException

from parkbot.trackers.github import queries
from tests.support.fakegithub import FakeGitHub, OpenAPIViolation
from tests.support.fakegithub import payloads as fake_payloads
from tests.support.github_helpers import TOKEN, fake_github


def client(fake: FakeGitHub, token: str = TOKEN) -> Github:
    return Github(
        auth=Auth.Token(token),
        base_url=fake.base_url,
        retry=None,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )


def node(fake: FakeGitHub, number: int) -> str:
    return fake_payloads.node_id("Issue", fake.issues[number].id)


def pin(gh: Github, node_id: str, name: str = "pinIssue") -> dict:
    _, data = gh.requester.graphql_named_mutation(name, {"issueId": node_id}, "issue { number isPinned }")
    return data


def test_pin_and_unpin_an_issue(fake: FakeGitHub) -> None:
    gh = client(fake)
    issue = fake.add_issue("dashboard")
    before = fake.rate_remaining
    assert pin(gh, node(fake, issue.number)) == {"issue": {"number": issue.number, "isPinned": True}}
    assert pin(gh, node(fake, issue.number)) == {"issue": {"number": issue.number, "isPinned": True}}  # no-op
    assert fake.pinned_issues == [issue.number]
    assert fake.rate_remaining == before  # GraphQL has its own rate limit
    assert fake.count("POST", "/graphql", operation="graphql/pinIssue") == 2
    assert pin(gh, node(fake, issue.number), "unpinIssue")["issue"]["isPinned"] is False
    assert fake.pinned_issues == []


def test_the_node_id_is_the_one_rest_gives(fake: FakeGitHub) -> None:
    gh = client(fake)
    issue = fake.add_issue("dashboard")
    rest = gh.get_repo("acme/widgets").get_issue(issue.number)
    pin(gh, rest.node_id)
    assert fake.pinned_issues == [issue.number]


def test_unknown_node_is_not_found(fake: FakeGitHub) -> None:
    with pytest.raises(UnknownObjectException):
        pin(client(fake), "I_nope")


def test_a_fourth_pin_is_refused(fake: FakeGitHub) -> None:
    gh = client(fake)
    numbers = [fake.add_issue(f"i{n}").number for n in range(4)]
    for number in numbers[:3]:
        pin(gh, node(fake, number))
    with pytest.raises(GithubException) as info:
        pin(gh, node(fake, numbers[3]))
    assert "already has 3 pinned issues" in str(info.value)
    assert fake.pinned_issues == numbers[:3]


def test_authentication_and_shape(fake: FakeGitHub) -> None:
    issue = fake.add_issue("dashboard")
    with pytest.raises(GithubException) as info:
        pin(client(fake, token="wrong"), node(fake, issue.number))
    assert info.value.status == 401
    anonymous = requests.post(f"{fake.base_url}/graphql", json={"query": "{ viewer { login } }"}, timeout=5)
    assert anonymous.status_code == 401
    not_json = requests.post(
        f"{fake.base_url}/graphql", data="pin it", headers={"Authorization": f"bearer {TOKEN}"}, timeout=5
    )
    assert not_json.status_code == 400
    assert fake.pinned_issues == []


def test_a_query_githubs_schema_refuses_fails_the_test(fake: FakeGitHub) -> None:
    """Like a request body the OpenAPI description refuses: a bug in the caller, raised into it."""
    with pytest.raises(OpenAPIViolation, match="Cannot query field 'emailAddress' on type 'User'"):
        requests.post(
            f"{fake.base_url}/graphql",
            json={"query": "query Wrong { viewer { login emailAddress } }"},
            headers={"Authorization": f"bearer {TOKEN}"},
            timeout=5,
        )
    assert fake.operations[-1] == "graphql/Wrong"
    assert fake.requests[-1].status == 200  # GitHub reports GraphQL failures in the body
    fake.openapi_violations.clear()
    lax = fake_github(strict=False)
    with lax.activate():
        answer = requests.post(
            f"{lax.base_url}/graphql",
            json={"query": "{ viewer { emailAddress } }"},
            headers={"Authorization": f"bearer {TOKEN}"},
            timeout=5,
        )
    assert answer.status_code == 200
    assert "emailAddress" in answer.json()["errors"][0]["message"]


def test_faults_apply_to_graphql_too(fake: FakeGitHub) -> None:
    issue = fake.add_issue("dashboard")
    fake.fail_next("502", match="graphql")
    with pytest.raises(GithubException) as info:
        pin(client(fake), node(fake, issue.number))
    assert info.value.status == 502
    assert fake.pinned_issues == []


def test_github_enterprise_server_endpoint() -> None:
    fake = fake_github(base_url="https://ghe.example.com/api/v3")
    with fake.activate():
        gh = client(fake)
        assert gh.requester.graphql_url == "https://ghe.example.com/api/graphql"
        issue = fake.add_issue("dashboard")
        pin(gh, node(fake, issue.number))
        assert fake.pinned_issues == [issue.number]
        assert fake.count("POST", "/api/graphql") == 1
        wrong = requests.post(
            "https://ghe.example.com/api/v3/graphql", json={}, headers={"Authorization": f"token {TOKEN}"}, timeout=5
        )
        assert wrong.status_code == 404  # not under the REST root


# --- queries against the fake's state ------------------------------------------------------------


def query(fake: FakeGitHub, document: str, token: str = TOKEN, **variables: object) -> dict:
    """One GraphQL request; the answer's ``data`` and ``errors`` as GitHub sends them (200 either way)."""
    answer = requests.post(
        f"{fake.base_url}/graphql",
        json={"query": document, "variables": {"owner": "acme", "name": "widgets", **variables}},
        headers={"Authorization": f"bearer {token}"},
        timeout=5,
    )
    assert answer.status_code == 200
    return answer.json()


def by_label(fake: FakeGitHub, *labels: str, **variables: object) -> dict:
    defaults = {"states": ["OPEN", "CLOSED"], "first": 100, "withComments": True, "withPulls": True}
    return query(fake, queries.ISSUES_BY_LABEL, labels=list(labels), **{**defaults, **variables})["data"]


def test_the_viewer_is_whoever_the_token_belongs_to(fake: FakeGitHub) -> None:
    assert query(fake, queries.VIEWER)["data"] == {"viewer": {"login": "parkbot[bot]"}}
    fake.add_token("ghp_mallory", "mallory")
    assert query(fake, queries.VIEWER, token="ghp_mallory")["data"] == {"viewer": {"login": "mallory"}}


def test_issues_by_label_any_of_them_oldest_first_without_pull_requests(fake: FakeGitHub) -> None:
    a = fake.add_issue("a", "body a", labels=["decision:x"], author="parkbot[bot]")
    fake.add_pull(title="pr", labels=["decision:x"])
    b = fake.add_issue("b", labels=["DECISION:Y"], state="closed")
    fake.add_issue("c", labels=["other"])
    data = by_label(fake, "decision:x", "decision:y")
    nodes = data["repository"]["issues"]["nodes"]
    assert [n["number"] for n in nodes] == [a.number, b.number]
    first = nodes[0]
    assert first["author"] == {"__typename": "Bot", "login": "parkbot"}  # GraphQL drops the [bot]
    assert (first["state"], first["body"], first["fullDatabaseId"]) == ("OPEN", "body a", str(a.id))
    assert first["url"] == f"https://github.com/acme/widgets/issues/{a.number}"
    assert (first["lastEditedAt"], first["editor"]) == (None, None)
    assert nodes[1]["state"] == "CLOSED"
    assert [p["number"] for p in data["repository"]["pullRequests"]["nodes"]] == [a.number + 1]
    assert data["viewer"] == {"login": "parkbot[bot]"}
    assert by_label(fake, "decision:x", states=["CLOSED"])["repository"]["issues"]["nodes"] == []
    light = by_label(fake, "decision:x", withComments=False, withPulls=False)["repository"]
    assert "comments" not in light["issues"]["nodes"][0]
    assert "pullRequests" not in light


def test_pages_follow_the_cursor_and_a_page_needs_a_size(fake: FakeGitHub) -> None:
    numbers = [fake.add_issue(f"i{n}", labels=["l"]).number for n in range(5)]
    seen: list[int] = []
    after = None
    while True:
        page = by_label(fake, "l", first=2, after=after)["repository"]["issues"]
        seen += [n["number"] for n in page["nodes"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == numbers
    too_many = query(
        fake, queries.ISSUES_BY_LABEL, labels=["l"], states=None, first=101, withComments=False, withPulls=False
    )
    assert too_many["errors"][0]["type"] == "EXCESSIVE_PAGINATION"
    assert too_many["data"]["repository"] is None


def test_edits_say_who_changed_a_text_and_keep_every_version(fake: FakeGitHub) -> None:
    issue = fake.add_issue("q", "original", author="parkbot[bot]")
    comment = fake.add_comment(issue.number, "LGTM", author="alice")
    fake.edit_comment(comment.id, "/decide full_original", editor="mallory")
    fake.edit_issue_body(issue.number, "forged", editor="mallory")
    data = query(fake, queries.ISSUE_BY_NUMBER, number=issue.number)["data"]["repository"]["issueOrPullRequest"]
    assert data["__typename"] == "Issue"
    assert (data["body"], data["editor"], data["lastEditedAt"] is not None) == (
        "forged",
        {"__typename": "User", "login": "mallory"},
        True,
    )
    (posted,) = data["comments"]["nodes"]
    assert (posted["body"], posted["author"]["login"], posted["editor"]["login"]) == (
        "/decide full_original",
        "alice",
        "mallory",
    )
    history = query(fake, queries.HISTORY_OF, id=posted["id"])["data"]["node"]["userContentEdits"]["nodes"]
    assert [(h["editor"]["login"], h["diff"]) for h in history] == [  # newest first, the original included
        ("mallory", "/decide full_original"),
        ("alice", "LGTM"),
    ]
    fake.delete_revision(fake.comments[comment.id], 0, by="mallory")
    history = query(fake, queries.HISTORY_OF, id=posted["id"])["data"]["node"]["userContentEdits"]["nodes"]
    assert history[1]["diff"] is None
    assert history[1]["deletedAt"] is not None


def test_rest_edits_are_recorded_as_made_by_the_tokens_account(fake: FakeGitHub) -> None:
    issue = fake.add_issue("q", "text", author="parkbot[bot]")
    comment = fake.add_comment(issue.number, "mine", author="parkbot[bot]")
    fake.add_token("ghp_mallory", "mallory")
    gh = client(fake, token="ghp_mallory")
    gh.get_repo("acme/widgets").get_issue(issue.number).get_comment(comment.id).edit("theirs")
    gh.get_repo("acme/widgets").get_issue(issue.number).edit(body="changed")
    assert [e.editor for e in fake.comments[comment.id].edits] == ["parkbot[bot]", "mallory"]
    assert [e.editor for e in fake.issues[issue.number].edits] == ["parkbot[bot]", "mallory"]
    created = gh.get_repo("acme/widgets").get_issue(issue.number).create_comment("posted")
    assert created.user.login == "mallory"


def test_pull_requests_issues_and_unknown_numbers(fake: FakeGitHub) -> None:
    pr = fake.add_pull(
        title="work",
        commits=[{"sha": "a" * 40, "message": "one"}, {"sha": "b" * 40, "message": "two\n\nBlocked-by: x"}],
    )
    answer = query(fake, queries.ISSUE_BY_NUMBER, number=pr.number)
    assert answer["data"]["repository"]["issueOrPullRequest"] == {"__typename": "PullRequest"}
    missing = query(fake, queries.ISSUE_BY_NUMBER, number=999)
    assert missing["data"]["repository"]["issueOrPullRequest"] is None
    assert missing["errors"][0]["type"] == "NOT_FOUND"
    gate = query(fake, queries.PULL_GATE, number=pr.number, ids=[])["data"]
    commits = gate["repository"]["pullRequest"]["commits"]["nodes"]
    assert [c["commit"]["message"] for c in commits] == ["one", "two\n\nBlocked-by: x"]
    assert gate["nodes"] == []
    issue = fake.add_issue("decision", "block", author="parkbot[bot]")
    both = query(fake, queries.PULL_GATE, number=pr.number, ids=[node(fake, issue.number), "I_nope"])
    found, unknown = both["data"]["nodes"]
    assert (found["number"], unknown) == (issue.number, None)  # an unknown id is null, with an error
    assert both["errors"][0]["type"] == "NOT_FOUND"


def test_every_document_parkbot_sends_is_valid_against_githubs_schema() -> None:
    from graphql import parse, validate

    from tests.support.fakegithub.graphql import schema

    for document in queries.DOCUMENTS:
        assert validate(schema(), parse(document)) == [], document.split("(")[0]
