"""``--json`` is a contract: exactly one JSON object on stdout for every command and every outcome.

Table-driven over commands x outcomes (done, blocked, invalid input, click usage errors, refusals,
backend failures): stdout parses as one object, the exit code is the documented one, and a failure is
the error object docs/cli.md documents, carrying that same exit code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import cli_repo
from tests.support.github_helpers import TOKEN, fake_github
from tests.support.results import ASSUMPTIONS, DONE, example, result_data, result_text

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "needs_input.json"
DID = "billing-42-decision-refund"
REVIEW = "billing-43-decision-assumptions"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one open decision that blocks agent/billing-42, and one review item."""
    root = tmp_path / "repo"
    cli_repo(root, monkeypatch, branches=["agent/billing-42"])
    assert invoke("park", str(EXAMPLE)).exit_code == 0
    review = result_data(ASSUMPTIONS, origin="billing-43", assumptions=["EUR"])
    assert invoke("park", "-", stdin=json.dumps(review)).exit_code == 0
    return root


def invoke(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), input=stdin, env=env, catch_exceptions=False)


def needs(**changes: Any) -> str:
    """The documented example as text, with ``changes`` applied."""
    return result_text(example(), **changes)


#: (case, arguments, stdin, exit code, the error's reason or None for a success)
CASES: list[tuple[str, list[str], str | None, int, str | None]] = [
    # park
    ("park ok", ["park", "-"], needs(key="other", title="Another"), 0, None),
    ("park unchanged", ["park", str(EXAMPLE)], None, 0, None),
    ("park not json", ["park", "-"], "{nope", 2, "invalid"),
    ("park strict boolean", ["park", "-"], needs(blocking="no"), 2, "invalid"),
    ("park collision", ["park", "-"], needs(title="A different title"), 3, "collision"),
    (
        "park unfiled inventory",
        ["park", "-"],
        result_text(DONE, decisions=["x"]),
        2,
        "not_found",
    ),
    ("park inventory", ["park", "-"], result_text(DONE, decisions=["refund"]), 0, None),
    ("park unreadable file", ["park", "missing.json"], None, 2, "invalid"),
    ("park missing argument", ["park"], None, 2, "usage"),
    ("park unknown option", ["park", "-", "--bogus"], "{}", 2, "usage"),
    # resolve, escalate, return, accept, override
    (
        "resolve not an owner",
        ["resolve", DID, "--answer", "full_original", "--by", "mallory"],
        None,
        3,
        "not_authorized",
    ),
    ("resolve not an option", ["resolve", DID, "--answer", "half"], None, 2, "invalid"),
    ("resolve missing answer", ["resolve", DID], None, 2, "usage"),
    ("resolve not found", ["resolve", "nope-decision-x", "--answer", "a"], None, 2, "not_found"),
    ("resolve ok", ["resolve", DID, "--answer", "full_original"], None, 0, None),
    ("escalate without a hierarchy", ["escalate", DID], None, 3, "no_hierarchy"),
    ("return not interactive", ["return", DID], None, 3, "not_interactive"),
    ("accept a decision", ["accept", DID], None, 2, "invalid"),
    ("override out of range", ["override", REVIEW, "9", "USD"], None, 2, "invalid"),
    ("override not a number", ["override", REVIEW, "one", "USD"], None, 2, "usage"),
    ("accept ok", ["accept", REVIEW], None, 0, None),
    # gate
    ("gate blocked", ["gate", "--ref", "agent/billing-42"], None, 1, None),
    ("gate open", ["gate", "--ref", "main"], None, 0, None),
    ("gate nothing named", ["gate"], None, 2, "invalid"),
    ("gate pull request on git", ["gate", "17"], None, 2, "invalid"),
    ("gate unknown branch", ["gate", "--ref", "no-such-branch"], None, 2, "invalid"),
    # show, list
    ("show ok", ["show", DID], None, 0, None),
    ("show not found", ["show", "nope-decision-x"], None, 2, "not_found"),
    ("show not an id", ["show", "not an id"], None, 2, "invalid"),
    ("list ok", ["list", "--state", "all"], None, 0, None),
    ("list answered since", ["list", "--answered-since", "1h"], None, 0, None),
    ("list bad state", ["list", "--state", "maybe"], None, 2, "usage"),
    ("list bad duration", ["list", "--answered-since", "soon"], None, 2, "usage"),
    # wait, resume
    ("wait times out", ["wait", DID, "--timeout", "0s"], None, 1, None),
    ("wait nan", ["wait", DID, "--timeout", "nan"], None, 2, "usage"),
    ("wait negative", ["wait", DID, "--timeout", "-5s"], None, 2, "usage"),
    ("wait not found", ["wait", "nope-decision-x", "--timeout", "0s"], None, 2, "not_found"),
    ("resume open", ["resume", DID], None, 1, None),
    ("resume not found", ["resume", "nope-decision-x"], None, 2, "not_found"),
    # the rest
    ("schema", ["schema"], None, 0, None),
    ("guide", ["guide"], None, 0, None),
    ("sync with no such remote", ["sync", "--remote", "nowhere"], None, 2, "invalid"),
    ("report json", ["report"], None, 0, None),
    ("report bad since", ["report", "--since", "0d"], None, 2, "usage"),
    ("report conflicting format", ["report", "--format", "html"], None, 2, "invalid"),
    ("dashboard on git", ["dashboard"], None, 2, "invalid"),
    ("dashboard print", ["dashboard", "--print"], None, 0, None),
    ("handle-event without payload", ["handle-event"], None, 2, "invalid"),
    ("config check of a missing file", ["config", "check", "nothere.yml"], None, 2, "invalid"),
    ("unknown command", ["bogus"], None, 2, "usage"),
    ("help", ["park", "--help"], None, 0, None),
    ("group help", ["--help"], None, 0, None),
    ("version", ["--version"], None, 0, None),
    ("unknown backend", ["list", "--backend", "svn"], None, 2, "usage"),
]


@pytest.mark.parametrize(("case", "args", "stdin", "code", "reason"), CASES, ids=[c[0] for c in CASES])
def test_exactly_one_json_object_for_every_outcome(
    repo: Path, case: str, args: list[str], stdin: str | None, code: int, reason: str | None
) -> None:
    result = invoke(*args, "--json", stdin=stdin)
    assert result.exit_code == code, result.output
    data = json.loads(result.stdout)  # the whole of stdout is one JSON document ...
    assert isinstance(data, dict)  # ... and it is an object
    if reason is None:
        assert "error" not in data or case == "report json", data
        return
    assert data == {"error": reason, "message": data["message"], "exit_code": code}
    assert data["message"]
    assert data["message"].splitlines()[0] in result.stderr  # the same message for people, on stderr


def test_outside_a_repository_the_error_is_one_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = invoke("show", DID, "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"] == "invalid"


def test_github_without_settings_names_both_in_one_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    result = invoke("show", DID, "--backend", "github", "--json")
    assert result.exit_code == 2
    message = json.loads(result.stdout)["message"]
    assert "GITHUB_TOKEN" in message
    assert "GITHUB_REPOSITORY" in message


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    from parkbot.trackers.github import client as github_client
    from parkbot.trackers.github.client import RetryPolicy

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    monkeypatch.chdir(tmp_path)
    fake = fake_github()
    with fake.activate():
        yield fake


def test_a_backend_failure_after_retries_is_exit_4_and_one_object(github: FakeGitHub) -> None:
    env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": github.base_url}
    github.fail_next("502", count=100)
    result = invoke("show", DID, "--backend", "github", "--json", env=env)
    assert result.exit_code == 4, result.output
    data = json.loads(result.stdout)
    assert (data["error"], data["exit_code"]) == ("backend_failure", 4)
    assert "safe to" in data["message"]
