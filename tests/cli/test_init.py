"""``parkbot init`` as a team lead runs it: in a fresh repository, twice; against GitHub (the stateful
fake, every request checked against GitHub's OpenAPI description); with a file the user changed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import git
import jsonschema
import pytest
import yaml
from click.testing import CliRunner, Result

from parkbot.cli import cli
from parkbot.core.config import config_json_schema, parse_config
from parkbot.setup_files import GIT_WORKFLOWS, GITHUB_WORKFLOWS
from parkbot.trackers.github.setup import STANDING_LABELS
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import TOKEN, fake_github

ROOT = Path(__file__).resolve().parents[2]
SHA = "0123456789abcdef0123456789abcdef01234567"


def fresh_repo(tmp_path: Path, codeowners: str | None = None) -> Path:
    root = tmp_path / "repo"
    git.Repo.init(root, initial_branch="main")
    if codeowners is not None:
        (root / ".github").mkdir()
        (root / ".github" / "CODEOWNERS").write_text(codeowners)
    return root


def init(repo: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    base = {"GITHUB_TOKEN": "", "GITHUB_REPOSITORY": ""}
    return CliRunner().invoke(cli, ["init", "--repo", str(repo), *args], env={**base, **(env or {})})


def done(result: Result) -> dict[str, str]:
    """path -> what init said it did, read from its text output (not what parkbot doctor says after it)."""
    said = result.stdout.split("\nparkbot doctor:", 1)[0]
    return {m.group(2): m.group(1) for m in re.finditer(r"^  (\w+) +(\S+)", said, flags=re.M)}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the working tree (not .git/) and its bytes."""
    files = (p for p in sorted(root.rglob("*")) if p.is_file() and p.relative_to(root).parts[0] != ".git")
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files}


def test_init_twice_in_a_fresh_repository_the_second_run_changes_nothing(tmp_path: Path) -> None:
    repo = fresh_repo(tmp_path, codeowners="# owners\n*       @alice @bob\n/docs/ @acme/writers\n")
    first = init(repo)
    assert first.exit_code == 0, first.output
    assert done(first) == {
        ".github/parkbot.yml": "created",
        ".github/parkbot.schema.json": "created",
        ".github/workflows/gate-git-backlog.yml": "created",
    }
    assert "parkbot gate --ref BRANCH" in first.stdout  # what to do next on the git backlog
    written = snapshot(repo)
    assert set(written) == {
        ".github/CODEOWNERS",
        ".github/parkbot.yml",
        ".github/parkbot.schema.json",
        ".github/workflows/gate-git-backlog.yml",
    }

    config_text = (repo / ".github" / "parkbot.yml").read_text()
    assert config_text.startswith("# yaml-language-server: $schema=parkbot.schema.json\n")
    config = parse_config(config_text)
    assert config.owners.default == "alice"  # the owner of * in CODEOWNERS
    assert "also named in .github/CODEOWNERS: bob, @acme/writers" in config_text
    schema = json.loads((repo / ".github" / "parkbot.schema.json").read_text())
    assert {k: v for k, v in schema.items() if k != "$comment"} == config_json_schema()
    jsonschema.validate(yaml.safe_load(config_text), schema)  # what the editor checks, it passes

    second = init(repo)
    assert second.exit_code == 0, second.output
    assert second.stdout.startswith("parkbot init changed nothing")
    assert "created" not in second.stdout
    assert snapshot(repo) == written
    check = CliRunner().invoke(cli, ["config", "check", "--repo", str(repo)])
    assert (check.exit_code, "alice" in check.stdout) == (0, True)


@pytest.mark.parametrize("owner", ["no", "1234", "@acme/leads", "dana@example.com", "o'neil"])
def test_an_owner_from_codeowners_reads_back_as_written(tmp_path: Path, owner: str) -> None:
    repo = fresh_repo(tmp_path, codeowners=f"* {owner if '@' in owner else '@' + owner}\n")
    assert init(repo).exit_code == 0
    text = (repo / ".github" / "parkbot.yml").read_text()
    assert parse_config(text).owners.default == owner
    assert yaml.safe_load(text)["owners"]["default"] == owner  # YAML 1.1 tools read the same


def test_without_codeowners_the_default_owner_is_left_to_parkbot_and_said(tmp_path: Path) -> None:
    repo = fresh_repo(tmp_path)
    assert init(repo).exit_code == 0
    text = (repo / ".github" / "parkbot.yml").read_text()
    assert parse_config(text).owners.default is None
    assert "no CODEOWNERS file; without it: your git user.email" in text


def test_a_file_the_user_changed_is_kept_without_force_and_replaced_with_it(tmp_path: Path) -> None:
    repo = fresh_repo(tmp_path)
    assert init(repo).exit_code == 0
    config = repo / ".github" / "parkbot.yml"
    edited = config.read_text().replace("open_per_origin: 3", "open_per_origin: 5")
    config.write_text(edited)

    kept = init(repo)
    assert kept.exit_code == 0
    assert done(kept)[".github/parkbot.yml"] == "kept"
    assert "--force replaces it" in kept.stdout
    assert config.read_text() == edited

    forced = init(repo, "--force")
    assert forced.exit_code == 0
    assert done(forced)[".github/parkbot.yml"] == "replaced"
    assert "open_per_origin: 3" in config.read_text()


def test_a_configuration_written_by_hand_is_never_overwritten_without_force(tmp_path: Path) -> None:
    repo = fresh_repo(tmp_path)
    (repo / ".github").mkdir()
    (repo / ".github" / "parkbot.yml").write_text("owners:\n  default: dana\n")
    result = init(repo, "--json")
    assert result.exit_code == 0
    actions = {f["path"]: f["action"] for f in json.loads(result.stdout)["files"]}
    assert actions == {
        ".github/parkbot.yml": "kept",
        ".github/parkbot.schema.json": "created",
        ".github/workflows/gate-git-backlog.yml": "created",
    }
    assert (repo / ".github" / "parkbot.yml").read_text() == "owners:\n  default: dana\n"


def test_a_file_init_wrote_and_nobody_changed_is_brought_up_to_date(tmp_path: Path) -> None:
    """Adding a CODEOWNERS later: the untouched configuration follows it; an --action pins the workflows."""
    repo = fresh_repo(tmp_path)
    assert init(repo, "--github").exit_code == 0
    (repo / ".github" / "CODEOWNERS").write_text("* @erin\n")
    later = init(repo, "--github", "--action", f"acme/parkbot/actions/parkbot@{SHA}", "--action-version", "v0.1.0")
    assert later.exit_code == 0, later.output
    assert done(later)[".github/parkbot.yml"] == "updated"
    assert parse_config((repo / ".github" / "parkbot.yml").read_text()).owners.default == "erin"
    for name in GITHUB_WORKFLOWS:
        workflow = (repo / ".github" / "workflows" / name).read_text()
        assert f"uses: acme/parkbot/actions/parkbot@{SHA} # v0.1.0\n" in workflow, name  # what Dependabot reads
        assert "OWNER/REPO" not in workflow, name
    assert "warning" not in later.stdout


def test_github_mode_without_a_pinned_action_says_what_to_replace(tmp_path: Path) -> None:
    repo = fresh_repo(tmp_path)
    result = init(repo, "--github")
    assert result.exit_code == 0
    assert set((repo / ".github" / "workflows").iterdir()) == {
        repo / ".github" / "workflows" / n for n in GITHUB_WORKFLOWS
    }
    assert "warning: the workflows use OWNER/REPO/actions/parkbot@v0" in result.stdout
    assert "GITHUB_TOKEN" in result.stdout  # why no label was created
    tag = init(repo, "--github", "--action", "acme/parkbot/actions/parkbot@v0")
    assert "is not pinned to a full commit sha" in tag.stdout
    unnamed = init(repo, "--github", "--action", f"acme/parkbot/actions/parkbot@{SHA}")
    assert "give --action-version" in unnamed.stdout
    lone = init(repo, "--github", "--action-version", "v0.1.0")
    assert (lone.exit_code, "give --action as well" in lone.stderr) == (2, True)
    bad = init(repo, "--github", "--action", f"acme/parkbot/actions/parkbot@{SHA}", "--action-version", "0.1 # x")
    assert (bad.exit_code, "not a release tag" in bad.stderr) == (2, True)


@pytest.mark.parametrize("action", ["acme/parkbot@main\nrun: x", "not an action", "a/b@x y"])
def test_an_action_that_is_not_a_reference_is_refused(tmp_path: Path, action: str) -> None:
    repo = fresh_repo(tmp_path)
    result = init(repo, "--github", "--action", action)
    assert result.exit_code == 2
    assert "--action" in result.stderr
    assert not (repo / ".github").exists()


def test_outside_a_repository_init_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    (tmp_path / "plain").mkdir()
    result = init(tmp_path / "plain")
    assert result.exit_code == 2
    assert "not inside a git repository" in result.stderr
    assert "Traceback" not in result.output


def test_the_shipped_workflows_are_the_documented_ones() -> None:
    for name in (*GITHUB_WORKFLOWS, *GIT_WORKFLOWS):
        shipped = (ROOT / "bot" / "parkbot" / "workflows" / name).read_text()
        assert shipped == (ROOT / "docs" / "workflows" / name).read_text(), (
            f"copy docs/workflows/{name} to bot/parkbot/workflows/"
        )
    assert {p.name for p in (ROOT / "docs" / "workflows").glob("*.yml")} == {*GITHUB_WORKFLOWS, *GIT_WORKFLOWS}


# --- against GitHub --------------------------------------------------------------------------------------


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    from parkbot.trackers.github import client as github_client
    from parkbot.trackers.github.client import RetryPolicy

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    fake = fake_github()
    with fake.activate():
        yield fake
    fake.assert_no_violations()


def test_init_on_github_creates_the_labels_and_says_what_branch_protection_needs(
    tmp_path: Path, github: FakeGitHub
) -> None:
    repo = fresh_repo(tmp_path)
    git.Repo(repo).create_remote("origin", "git@github.com:acme/widgets.git")  # the repository, from the remote
    github.add_label("parkbot:resolved", color="123456", description="ours")  # a label the team already has
    env: dict[str, Any] = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": github.base_url}

    result = init(repo, "--github", "--action", f"acme/parkbot/actions/parkbot@{SHA}", env=env)
    assert result.exit_code == 0, result.output
    assert set(STANDING_LABELS) <= {label.name for label in github.labels.values()}
    assert github.labels["parkbot:decision"].description == STANDING_LABELS["parkbot:decision"][1]
    assert (github.labels["parkbot:resolved"].color, github.labels["parkbot:resolved"].description) == (
        "123456",
        "ours",
    )
    assert "labels created: parkbot:decision, parkbot:blocking" in result.stdout
    assert "labels already there: parkbot:resolved" in result.stdout
    assert "require the status check parkbot/decisions" in result.stdout  # the branch-protection advice

    posted = [r for r in github.requests if r.method == "POST" and r.path.endswith("/labels")]
    assert len(posted) == len(STANDING_LABELS) - 1
    again = init(repo, "--github", "--action", f"acme/parkbot/actions/parkbot@{SHA}", "--json", env=env)
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert data["changed"] is False
    assert {label["action"] for label in data["labels"]} == {"exists"}
    assert len([r for r in github.requests if r.method == "POST" and r.path.endswith("/labels")]) == len(posted)


def test_a_github_failure_while_creating_labels_is_exit_4(tmp_path: Path, github: FakeGitHub) -> None:
    repo = fresh_repo(tmp_path)
    github.fail_next("502", count=100)
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": github.base_url}
    result = init(repo, "--github", env=env)
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output


# --- parkbot doctor, where this parkbot has it ----------------------------------------------------------


@click.command(name="doctor")
@click.option("--repo")
@click.option("--backend")
def fake_doctor(repo: str, backend: str | None) -> None:
    """Stands in for parkbot doctor: says it ran, and with what."""
    click.echo(f"DOCTOR RAN repo={Path(repo).name} backend={backend}")
    raise SystemExit(1)  # a finding: init's own outcome stands


def test_init_ends_with_parkbot_doctor_when_it_is_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot import cli as cli_module

    repo = fresh_repo(tmp_path)
    without = init(repo)
    assert "DOCTOR" not in without.stdout
    monkeypatch.setitem(cli_module.COMMANDS, "doctor", (__name__, "fake_doctor", "Check the setup."))
    monkeypatch.delitem(cli.commands, "doctor", raising=False)
    try:
        result = init(repo, "--github")
    finally:
        cli.commands.pop("doctor", None)
    assert result.exit_code == 0, result.output
    advice = result.stdout.index("require the status check parkbot/decisions")
    assert result.stdout.index("DOCTOR RAN repo=repo backend=github") > advice  # init ends with it
