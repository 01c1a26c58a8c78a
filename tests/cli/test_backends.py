"""Opening a backend: missing GitHub settings named together, the repository taken from ``origin`` as ``gh`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.backends import BACKENDS, github_env, repository_from_remote, web_host
from parkbot.cli import cli
from parkbot.cli.common import BACKEND_NAMES
from parkbot.core.errors import InvalidInput
from tests.support.git_helpers import make_repo, run_git
from tests.support.github_helpers import TOKEN, fake_github


def test_the_cli_offers_exactly_the_backends_there_are() -> None:
    assert BACKEND_NAMES == BACKENDS


@pytest.mark.parametrize(
    ("url", "host", "expected"),
    [
        ("https://github.com/acme/widgets.git", "github.com", "acme/widgets"),
        ("https://github.com/acme/widgets", "github.com", "acme/widgets"),
        ("https://x-access-token:secret@github.com/acme/widgets.git", "github.com", "acme/widgets"),
        ("git@github.com:acme/widgets.git", "github.com", "acme/widgets"),
        ("github.com:acme/widgets", "github.com", "acme/widgets"),
        ("ssh://git@github.com/acme/widgets.git", "github.com", "acme/widgets"),
        ("ssh://git@ghe.example.com:2222/acme/widgets.git", "ghe.example.com", "acme/widgets"),
        ("https://GHE.example.com/acme/widgets/", "ghe.example.com", "acme/widgets"),
        ("https://gitlab.com/acme/widgets.git", "github.com", None),
        ("git@ghe.example.com:acme/widgets.git", "github.com", None),
        ("https://github.com/acme", "github.com", None),
        ("https://github.com/acme/widgets/extra", "github.com", None),
        ("/srv/git/widgets.git", "github.com", None),
        ("file:///srv/git/acme/widgets.git", "github.com", None),
    ],
)
def test_repository_from_a_remote_url(url: str, host: str, expected: str | None) -> None:
    assert repository_from_remote(url, host) == expected


@pytest.mark.parametrize(
    ("api_url", "host"),
    [
        ("https://api.github.com", "github.com"),
        ("https://ghe.example.com/api/v3", "ghe.example.com"),
        ("https://api.acme.ghe.com", "acme.ghe.com"),
    ],
)
def test_the_clone_host_of_an_api_url(api_url: str, host: str) -> None:
    assert web_host(api_url) == host


def test_neither_token_nor_repository_names_both(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as info:
        github_env({}, tmp_path)
    assert "GITHUB_TOKEN is not set" in info.value.message
    assert "GITHUB_REPOSITORY is not set" in info.value.message
    assert "no origin remote" in info.value.message


def test_the_repository_is_inferred_from_origin(tmp_path: Path) -> None:
    repo = tmp_path / "clone"
    make_repo(repo)
    run_git(repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    assert github_env({"GITHUB_TOKEN": TOKEN}, repo)["GITHUB_REPOSITORY"] == "acme/widgets"
    assert github_env({"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "o/n"}, repo)["GITHUB_REPOSITORY"] == "o/n"


def test_an_origin_on_another_host_is_not_used_and_the_message_says_why(tmp_path: Path) -> None:
    repo = tmp_path / "clone"
    make_repo(repo)
    run_git(repo, "remote", "add", "origin", "https://user:hunter2@github.com/acme/widgets.git")
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": "https://ghe.example.com/api/v3"}
    with pytest.raises(InvalidInput) as info:
        github_env(env, repo)
    assert "not a repository on ghe.example.com" in info.value.message
    assert "GITHUB_TOKEN" not in info.value.message
    assert "hunter2" not in info.value.message  # credentials in a remote URL are never shown


def test_the_cli_works_with_only_a_token_in_a_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole path: GITHUB_REPOSITORY unset, inferred from origin, requests go to that repository."""
    from parkbot.trackers.github import client as github_client
    from parkbot.trackers.github.client import RetryPolicy

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    repo = tmp_path / "clone"
    make_repo(repo)
    run_git(repo, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    fake = fake_github()
    with fake.activate():
        env = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url}
        result = CliRunner().invoke(
            cli, ["list", "--backend", "github", "--repo", str(repo), "--json"], env=env, catch_exceptions=False
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == {"decisions": [], "count": 0}
        assert any("/repos/acme/widgets/" in r.path for r in fake.requests)
    fake.assert_no_violations()
