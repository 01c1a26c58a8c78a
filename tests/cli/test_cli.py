"""The command line on the embedded git backlog: outputs, --json contracts and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import git
import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from tests.support.git_helpers import cli_repo
from tests.support.results import ASSUMPTIONS, DONE, example, result_data, result_text

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "needs_input.json"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> git.Repo:
    return cli_repo(tmp_path / "repo", monkeypatch)


def run(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def run_json(*args: str, stdin: str | None = None) -> tuple[int, dict[str, Any]]:
    result = run(*args, "--json", stdin=stdin)
    return result.exit_code, json.loads(result.stdout)


def needs(**changes: Any) -> str:
    """The documented example as text, with ``changes`` applied."""
    return result_text(example(), **changes)


def blocked_branch(repo: git.Repo, name: str, decision: str) -> None:
    head = repo.create_head(name, "main")
    commit = git.Commit.create_from_tree(
        repo, head.commit.tree, f"wip\n\nBlocked-by: {decision}\n", parent_commits=[head.commit]
    )
    head.commit = commit


def test_park_from_stdin_reports_the_contract_fields(repo: git.Repo) -> None:
    code, data = run_json("park", "-", stdin=needs())
    assert code == 0
    assert data["id"] == "billing-42-decision-refund"
    assert data["action"] == "created"
    assert data["ref"] == "refs/parkbot/backlog"
    assert data["path"].endswith("billing-42-decision-refund.json")
    code, again = run_json("park", "-", stdin=needs())
    assert (code, again["action"]) == (0, "unchanged")


def test_park_reads_a_file_and_prints_for_people(repo: git.Repo) -> None:
    result = run("park", str(EXAMPLE))
    assert result.exit_code == 0
    assert result.stdout.startswith("created billing-42-decision-refund (owner alice@example.com)")


def test_walkthrough_gate_blocked_then_open(repo: git.Repo) -> None:
    blocked_branch(repo, "agent/billing-42", "billing-42-decision-refund")
    run("park", str(EXAMPLE))
    gate = run("gate", "--ref", "agent/billing-42")
    assert gate.exit_code == 1
    assert "billing-42-decision-refund" in gate.stdout
    code, resolved = run_json("resolve", "billing-42-decision-refund", "--answer", "full_original")
    assert code == 0
    assert resolved["action"] == "resolved"
    assert resolved["answer"]["by"] == "alice@example.com"
    code, gate_data = run_json("gate", "--ref", "agent/billing-42")
    assert (code, gate_data["state"], gate_data["blocking"]) == (0, "open", [])


def test_show_json_contract(repo: git.Repo) -> None:
    run("park", "-", stdin=needs(dependents=["#12"]))
    code, data = run_json("show", "billing-42-decision-refund")
    assert code == 0
    assert {"id", "state", "owner", "dependents", "question", "options"} <= set(data)
    assert (data["state"], data["owner"], data["dependents"]) == ("open", "alice@example.com", ["#12"])
    run("resolve", "billing-42-decision-refund", "--answer", "remaining_three")
    code, data = run_json("show", "billing-42-decision-refund")
    assert (data["state"], data["answer"]["value"]) == ("resolved", "remaining_three")


@pytest.mark.parametrize(
    ("args", "stdin", "code", "reason"),
    [
        (["park", "-"], "{not json", 2, "invalid"),
        # by hand: a result missing its key and question (the raw shape is the point, no builder makes it)
        (["park", "-"], json.dumps({"status": "needs_input", "origin": "x"}), 2, "invalid"),
        (["show", "nope-decision-x"], None, 2, "not_found"),
        (["show", "not an id"], None, 2, "invalid"),
        (
            ["resolve", "billing-42-decision-refund", "--answer", "full_original", "--by", "mallory"],
            None,
            3,
            "not_authorized",
        ),
        (["resolve", "billing-42-decision-refund", "--answer", "half"], None, 2, "invalid"),
        (["park", "-"], needs(title="Another title"), 3, "collision"),
    ],
)
def test_exit_codes_and_json_errors(repo: git.Repo, args: list[str], stdin: str | None, code: int, reason: str) -> None:
    run("park", str(EXAMPLE))
    result = run(*args, "--json", stdin=stdin)
    assert result.exit_code == code, result.output
    assert json.loads(result.stdout)["error"] == reason


def test_conflicting_answer_and_reopen_are_refused(repo: git.Repo) -> None:
    run("park", str(EXAMPLE))
    run("resolve", "billing-42-decision-refund", "--answer", "full_original")
    again = run("resolve", "billing-42-decision-refund", "--answer", "remaining_three")
    assert again.exit_code == 3
    assert "'full_original'" in again.stderr
    assert run("park", str(EXAMPLE)).exit_code == 3


def test_inventory_requires_explicit_none_and_parked_decisions(repo: git.Repo) -> None:
    empty = run("park", "-", stdin=result_text(DONE, decisions=[]))
    assert empty.exit_code == 2
    assert "none: true" in empty.stderr
    assert run("park", "-", stdin=result_text(DONE, none=True)).exit_code == 0
    missing = run("park", "-", stdin=result_text(DONE, decisions=["refund"]))
    assert missing.exit_code == 2
    run("park", str(EXAMPLE))
    ok = run("park", "-", stdin=result_text(DONE, decisions=["refund"]))
    assert ok.exit_code == 0


def test_list_filters(repo: git.Repo) -> None:
    run("park", str(EXAMPLE))
    run("park", "-", stdin=needs(origin="search-7", key="ranking", title="Ranking"))
    run("resolve", "search-7-decision-ranking", "--answer", "full_original")
    _, data = run_json("list", "--state", "all", "--origin", "billing-*")
    assert [d["id"] for d in data["decisions"]] == ["billing-42-decision-refund"]
    _, data = run_json("list", "--state", "resolved")
    assert [d["id"] for d in data["decisions"]] == ["search-7-decision-ranking"]
    assert run_json("list", "--owner", "nobody")[1]["count"] == 0


def test_review_items_and_resume(repo: git.Repo) -> None:
    review = result_data(ASSUMPTIONS, assumptions=["EUR", "net"])
    code, data = run_json("park", "-", stdin=json.dumps(review))
    assert (code, data["id"], data["action"]) == (0, "billing-42-decision-assumptions", "created")
    assert run("override", "billing-42-decision-assumptions", "1", "USD").exit_code == 0
    assert run("accept", "billing-42-decision-assumptions").exit_code == 0
    run("park", str(EXAMPLE))
    code, context = run_json("resume", "billing-42-decision-refund")
    assert code == 1
    assert context["answer"] is None
    assert context["work_so_far"]["pending"] == ["issue the refund"]
    run("resolve", "billing-42-decision-refund", "--answer", "remaining_three", "--default")
    code, context = run_json("resume", "billing-42-decision-refund")
    assert (code, context["answer"], context["assumption"]) == (0, "remaining_three", True)


def test_wait_returns_the_answer_or_times_out(repo: git.Repo) -> None:
    run("park", str(EXAMPLE))
    timed_out = run("wait", "billing-42-decision-refund", "--timeout", "0s")
    assert timed_out.exit_code == 1
    run("resolve", "billing-42-decision-refund", "--answer", "full_original")
    answered = run("wait", "billing-42-decision-refund", "--timeout", "5s")
    assert answered.exit_code == 0
    assert json.loads(answered.stdout)["answer"] == "full_original"


def test_wait_interrupted_by_sigterm_exits_blocked(repo: git.Repo) -> None:
    run("park", str(EXAMPLE))
    process = subprocess.Popen(
        [sys.executable, "-m", "parkbot", "wait", "billing-42-decision-refund", "--timeout", "60s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert "waiting" in process.stderr.readline()  # the handler is installed before this line is printed
    process.terminate()
    _, err = process.communicate(timeout=20)
    assert process.returncode == 1
    assert "interrupted" in err


def test_outside_a_repository_is_a_clear_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = run("park", str(EXAMPLE))
    assert result.exit_code == 2
    assert "not inside a git repository" in result.stderr


def test_schema_command_prints_the_published_schema(repo: git.Repo) -> None:
    schema = json.loads(run("schema").stdout)
    assert schema["title"] == "parkbot agent result"


def test_backend_from_environment(repo: git.Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARKBOT_BACKEND", "bogus")
    result = CliRunner().invoke(cli, ["list"])
    assert result.exit_code == 2
    assert "bogus" in result.output


def test_every_command_has_an_example_in_its_help() -> None:
    names = cli.list_commands(click.Context(cli))
    assert {"park", "gate", "show", "list", "wait", "resume", "guide", "mcp", "schema"} <= set(names)
    for name in names:
        text = CliRunner().invoke(cli, [name, "--help"]).stdout
        assert "Example" in text, name
        # events come from GitHub (always the GitHub backend, as is the App's server); a configuration, the guide
        # and shell completion need no backend; init chooses one with --git or --github
        if name not in ("handle-event", "config", "guide", "completion", "init", "serve"):
            assert "--backend" in text, name


def test_python_dash_m_bot_and_the_console_script_agree(repo: git.Repo) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "bot")}
    module = subprocess.run([sys.executable, "-m", "parkbot", "--version"], capture_output=True, text=True, env=env)
    assert module.returncode == 0
    assert "parkbot" in module.stdout


def test_cli_reference_is_current() -> None:
    script = Path(__file__).resolve().parents[2] / "docs" / "generate_cli_reference.py"
    check = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_configured_owner_needs_no_git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CI runners often have no git user: a configured owner is enough to park."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "bare-identity"
    git.Repo.init(root, initial_branch="main").close()
    (root / ".github").mkdir()
    (root / ".github" / "parkbot.yml").write_text("owners:\n  default: alice\n")
    monkeypatch.chdir(root)
    code, data = run_json("park", str(EXAMPLE))
    assert (code, data["owner"]) == (0, "alice")
    without = run("resolve", "billing-42-decision-refund", "--answer", "full_original")
    assert without.exit_code == 2
    assert "user.email" in without.stderr or "--by" in without.stderr
    assert run("resolve", "billing-42-decision-refund", "--answer", "full_original", "--by", "alice").exit_code == 0
