"""``parkbot doctor`` in action mode reads the ``permissions:`` of parkbot's workflow files on the default
branch through the API (the contents endpoints of the stateful fake, OpenAPI-checked) and names every job
granted more than parkbot needs; the shipped workflows declare the least, and pass."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.cli.doctor import doctor
from parkbot.core.doctor import GITHUB_ACTIONS_APP_ID
from tests.support.fakegithub import FakeGitHub
from tests.support.github_helpers import TOKEN

GATE = "parkbot/decisions"


@pytest.fixture
def actions_fake() -> Iterator[FakeGitHub]:
    """The repository as a workflow's GITHUB_TOKEN sees it (github-actions[bot]); every request OpenAPI-checked."""
    fake = FakeGitHub(owner="acme", repo="widgets", login="github-actions[bot]", token=TOKEN)
    with fake.activate():
        yield fake
    fake.assert_no_violations()


def run(env: dict[str, str]) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(doctor, ["--backend", "github", "--json"], env=env)
    return result.exit_code, json.loads(result.stdout)


def action_env(fake: FakeGitHub) -> dict[str, str]:
    return {
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": fake.base_url,
        "PARKBOT_APP_ID": "",
    }


ROOT = Path(__file__).resolve().parents[2]

BROAD = """\
name: parkbot
on: [issue_comment]
permissions: write-all
jobs:
  parkbot:
    runs-on: ubuntu-latest
    steps:
      - uses: acme/parkbot/actions/parkbot@0123456789abcdef0123456789abcdef01234567 # v0.1.0
  unrelated:
    runs-on: ubuntu-latest
    permissions: write-all
    steps:
      - run: make test
"""

JOB_LEVEL = """\
name: gate
on: [pull_request]
permissions: {}
jobs:
  gate:
    runs-on: ubuntu-latest
    permissions:
      contents: write
      issues: write
      actions: read
    steps:
      - run: |
          pip install parkbot
          parkbot gate --ref "$HEAD_REF"
"""


def warnings(data: dict[str, object]) -> list[str]:
    return [
        f["message"]  # type: ignore[index]
        for f in data["findings"]  # type: ignore[attr-defined]
        if f["topic"] == "workflow permissions" and f["level"] == "warning"  # type: ignore[index]
    ]


def test_jobs_running_parkbot_with_broader_permissions_are_named(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, GITHUB_ACTIONS_APP_ID)
    actions_fake.put_file(".github/workflows/parkbot.yml", BROAD)
    actions_fake.put_file(".github/workflows/gate.yaml", JOB_LEVEL)
    actions_fake.put_file(".github/workflows/README.md", "not a workflow")
    code, data = run(env=action_env(actions_fake))
    assert code == 0  # a warning: the gate is still enforced
    found = warnings(data)
    assert len(found) == 2, found
    broad = next(m for m in found if "parkbot.yml" in m)
    assert "job parkbot" in broad
    assert "permissions: write-all" in broad
    assert "unrelated" not in " ".join(found)  # a job that does not run parkbot is not parkbot's business
    job = next(m for m in found if "gate.yaml" in m)
    assert "contents: write" in job
    assert "actions: read" in job
    assert "issues" not in job.split("(", 1)[1].split(")", 1)[0]  # issues: write is what parkbot needs


def test_the_shipped_workflows_declare_the_least_and_pass(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, GITHUB_ACTIONS_APP_ID)
    for path in sorted((ROOT / "docs" / "workflows").glob("*.yml")):
        actions_fake.put_file(f".github/workflows/{path.name}", path.read_text(encoding="utf-8"))
    code, data = run(env=action_env(actions_fake))
    assert code == 0
    assert warnings(data) == []
    ok = [f for f in data["findings"] if f["message"].startswith("parkbot's workflows declare the least")]  # type: ignore[attr-defined,index]
    assert len(ok) == 1
    assert "gate-git-backlog.yml" in ok[0]["message"]


def test_a_workflow_without_permissions_gets_the_repository_default_and_is_named(actions_fake: FakeGitHub) -> None:
    actions_fake.require_check(GATE, GITHUB_ACTIONS_APP_ID)
    actions_fake.put_file(".github/workflows/p.yml", BROAD.replace("permissions: write-all\n", "", 1))
    code, data = run(env=action_env(actions_fake))
    assert code == 0
    assert any("no permissions: block" in m for m in warnings(data))
