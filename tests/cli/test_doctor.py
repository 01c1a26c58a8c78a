"""``parkbot doctor``: is the gate enforced (exit 0) or advice (exit 1)? Read from the repository as it is.

GitHub is the stateful fake (branch protection, rulesets, the App's endpoints, OpenAPI-checked); the git
backlog is a real repository.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.cli.doctor import doctor
from parkbot.core.doctor import GITHUB_ACTIONS_APP_ID
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import make_repo
from tests.support.github_helpers import TOKEN

GATE = "parkbot/decisions"


@pytest.fixture
def actions_fake() -> Iterator[FakeGitHub]:
    """The repository as a workflow's GITHUB_TOKEN sees it (github-actions[bot])."""
    fake = FakeGitHub(owner="acme", repo="widgets", login="github-actions[bot]", token=TOKEN)
    with fake.activate():
        yield fake
    fake.assert_no_violations()


def run(*args: str, env: dict[str, str]) -> tuple[int, dict[str, object]]:
    backend = [] if "--backend" in args else ["--backend", "github"]
    result = CliRunner().invoke(doctor, [*backend, *args, "--json"], env=env)
    return result.exit_code, json.loads(result.stdout)


def action_env(fake: FakeGitHub) -> dict[str, str]:
    return {
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": fake.base_url,
        "PARKBOT_APP_ID": "",
    }


def test_without_a_required_check_the_gate_is_advisory_and_says_what_to_add(actions_fake: FakeGitHub) -> None:
    code, data = run(env=action_env(actions_fake))
    assert code == 1
    assert data["verdict"] == "advisory"
    finding = next(f for f in data["findings"] if f["topic"] == "required check")  # type: ignore[attr-defined]
    assert "nothing requires parkbot/decisions on main" in finding["message"]
    assert "ruleset" in finding["message"]


def test_a_ruleset_requiring_the_check_from_github_actions_enforces_the_gate(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, GITHUB_ACTIONS_APP_ID)
    code, data = run(env=action_env(actions_fake))
    assert code == 0, data
    assert data["verdict"] == "enforced"


def test_branch_protection_requiring_the_check_from_github_actions_enforces_it(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, GITHUB_ACTIONS_APP_ID, where="protection")
    assert run(env=action_env(actions_fake))[0] == 0


def test_a_required_check_from_any_source_is_advisory_anyone_can_set_a_status(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, None)
    code, data = run(env=action_env(actions_fake))
    assert code == 1
    assert any("from any source" in f["message"] for f in data["findings"])  # type: ignore[attr-defined]


def test_a_check_from_another_app_does_not_count(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, 99)
    assert run(env=action_env(actions_fake))[0] == 1


def test_unreadable_protection_and_no_ruleset_is_a_backend_failure(actions_fake: FakeGitHub) -> None:
    actions_fake.protection_admin = False
    code, data = run(env=action_env(actions_fake))
    assert code == 4
    assert "Administration" in str(data["message"])


def test_unreadable_protection_with_a_ruleset_is_still_enforced(actions_fake: FakeGitHub) -> None:
    actions_fake.protection_admin = False
    actions_fake.require_check(GATE, GITHUB_ACTIONS_APP_ID)
    assert run(env=action_env(actions_fake))[0] == 0


def test_write_workflow_permissions_and_a_broken_config_are_named(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, GITHUB_ACTIONS_APP_ID)
    actions_fake.workflow_permissions = "write"
    actions_fake.put_file(".github/parkbot.yml", "owners: [nope\n")
    code, data = run(env=action_env(actions_fake))
    assert code == 1
    topics = {f["topic"]: f["level"] for f in data["findings"]}  # type: ignore[attr-defined]
    assert topics["configuration"] == "advisory"
    assert topics["workflow permissions"] == "warning"


def test_a_rejected_token_is_exit_4(actions_fake: FakeGitHub) -> None:
    env = {**action_env(actions_fake), "GITHUB_TOKEN": "ghs_wrong"}
    assert run(env=env)[0] == 4


def test_missing_settings_are_exit_2_naming_them() -> None:
    result = CliRunner().invoke(
        doctor, ["--backend", "github"], env={"GITHUB_TOKEN": "", "GITHUB_REPOSITORY": "a/b", "PARKBOT_APP_ID": ""}
    )
    assert result.exit_code == 2
    assert "GITHUB_TOKEN" in result.stderr


def test_app_mode_requires_the_check_from_the_app_itself() -> None:
    fake = FakeGitHub(owner="acme", repo="widgets", token=TOKEN)
    key = fake.install_app(slug="parkbot-acme", app_id=4242)
    env = {
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_API_URL": fake.base_url,
        "PARKBOT_APP_ID": "4242",
        "PARKBOT_PRIVATE_KEY": key,
    }
    with fake.activate():
        fake.require_check(GATE, GITHUB_ACTIONS_APP_ID)  # what the action needed: not the App
        code, data = run(env=env)
        assert code == 1
        fake.require_check(GATE, 4242)
        code, data = run(env=env)
        assert code == 0, data
        assert any("parkbot-acme[bot]" in f["message"] for f in data["findings"])  # type: ignore[attr-defined]
    fake.assert_no_violations()
    assert fake.app is not None
    assert len(fake.app.minted) == 2  # one token per run (each run is a new process)


def test_app_mode_with_a_malformed_key_is_exit_2_naming_it() -> None:
    env = {"GITHUB_REPOSITORY": "acme/widgets", "PARKBOT_APP_ID": "4242", "PARKBOT_PRIVATE_KEY": "not a key"}
    result = CliRunner().invoke(doctor, ["--backend", "github", "--mode", "app"], env=env)
    assert result.exit_code == 2
    assert "PARKBOT_PRIVATE_KEY is not a PEM private key" in result.stderr
    assert "not a key" not in result.stderr


def test_git_backlog_is_enforced_only_with_signed_answers_and_the_signers_file(tmp_path: Path) -> None:
    make_repo(tmp_path / "r")
    repo = tmp_path / "r"
    assert run("--backend", "git", "--repo", str(repo), env={})[0] == 1
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / "parkbot.yml").write_text(
        "owners: {default: alice@example.com}\nanswers: {require_signed: true}\n"
    )
    code, data = run("--backend", "git", "--repo", str(repo), env={})
    assert code == 1
    assert any("does not exist" in f["message"] for f in data["findings"])  # type: ignore[attr-defined]
    (repo / ".github" / "allowed_signers").write_text("alice@example.com ssh-ed25519 AAAA\n")
    assert run("--backend", "git", "--repo", str(repo), env={})[0] == 0
