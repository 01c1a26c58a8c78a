"""The fake's GraphQL endpoint (``tests/fakegithub/graphql.py``), driven through PyGithub's requester."""

from __future__ import annotations

import pytest
import requests
from github import Auth, Github, GithubException
from github.GithubException import UnknownObjectException

from tests.fakegithub import FakeGitHub
from tests.fakegithub import payloads as fake_payloads
from tests.github_support import TOKEN, fake_github


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
    other = requests.post(
        f"{fake.base_url}/graphql",
        json={"query": "{ viewer { login } }"},
        headers={"Authorization": f"bearer {TOKEN}"},
        timeout=5,
    )
    assert other.status_code == 200
    assert "errors" in other.json()
    assert fake.pinned_issues == []


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
