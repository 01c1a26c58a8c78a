"""The Python API and the CLI are one code path: a result's ``model_dump(mode="json")`` is the command's ``--json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import parkbot
from parkbot import Backlog, ParkbotError
from parkbot.cli import cli
from parkbot.cli.messages import error_object
from tests.support.git_helpers import cli_repo, commit_on_branch
from tests.support.github_helpers import TOKEN, fake_github

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "needs_input.json"
DID = "billing-42-decision-refund"
ALICE = "alice@example.com"


def cli_json(*args: str, env: dict[str, str] | None = None) -> tuple[int, Any]:
    result = CliRunner().invoke(cli, [*args, "--json"], env=env, catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout)


def api_json(call: Callable[[], Any]) -> tuple[int, Any]:
    try:
        result = call()
    except ParkbotError as exc:
        # The command line prints the API's failure with its own next step (`parkbot ...`): the same object.
        return int(exc.exit_code), error_object(exc)
    return int(result.exit_code), result.model_dump(mode="json")


#: (command line, the same call through the API)
PAIRS: list[tuple[list[str], Callable[[Backlog], Any]]] = [
    (["park", str(EXAMPLE)], lambda b: b.park(EXAMPLE.read_bytes())),
    (["show", DID], lambda b: b.show(DID)),
    (["list", "--state", "all"], lambda b: b.list("all")),
    (["gate", "--ref", "agent/billing-42"], lambda b: b.gate("agent/billing-42")),
    (["resume", DID], lambda b: b.resume(DID)),
    (["wait", DID, "--timeout", "0s"], lambda b: b.wait(DID, "0s")),
    (["show", "nope-decision-x"], lambda b: b.show("nope-decision-x")),
    (["resolve", DID, "-a", "half", "--by", ALICE], lambda b: b.resolve(DID, "half", by=ALICE)),
    (["resolve", DID, "-a", "full_original", "--by", "bob"], lambda b: b.resolve(DID, "full_original", by="bob")),
]  # fmt: skip
AFTER_RESOLVING: list[tuple[list[str], Callable[[Backlog], Any]]] = [
    (["resolve", DID, "--answer", "full_original"], lambda b: b.resolve(DID, "full_original", by="alice@example.com")),
    (["show", DID], lambda b: b.show(DID)),
    (["gate", "--ref", "agent/billing-42"], lambda b: b.gate("agent/billing-42")),
    (["resume", DID], lambda b: b.resume(DID)),
    (["wait", DID, "--timeout", "10m"], lambda b: b.wait(DID, "10m")),
    (["list", "--answered-since", "1h"], lambda b: b.list(answered_since="1h")),
    (["park", str(EXAMPLE)], lambda b: b.park(json.loads(EXAMPLE.read_text()))),
]  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    cli_repo(root, monkeypatch)
    commit_on_branch(root, "agent/billing-42", "wip", trailers=[("Blocked-by", DID)])
    return root


def test_on_the_git_backlog_every_api_result_is_the_commands_json(repo: Path) -> None:
    assert cli_json("park", str(EXAMPLE))[0] == 0
    with Backlog.open(repo=repo, backend="git") as backlog:
        for args, call in PAIRS:
            assert api_json(lambda c=call: c(backlog)) == cli_json(*args), args
        assert cli_json("resolve", DID, "--answer", "full_original")[0] == 0
        for args, call in AFTER_RESOLVING:  # the resolve again is "unchanged" both ways
            assert api_json(lambda c=call: c(backlog)) == cli_json(*args), args


def test_on_github_every_api_result_is_the_commands_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot.trackers.github import client as github_client
    from parkbot.trackers.github.client import RetryPolicy

    real = github_client.client_from_env
    monkeypatch.setattr(github_client, "client_from_env", lambda env: real(env, policy=RetryPolicy.instant()))
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "parkbot.yml"
    config.write_text('owners:\n  default: alice\nprecedents: "off"\n')
    fake = fake_github()
    with fake.activate():
        pull = fake.add_pull(title="Refund flow", head_ref="agent/billing-42", body=f"Blocked by {DID}", author="dev")
        env = {"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "acme/widgets", "GITHUB_API_URL": fake.base_url}
        common = ["--backend", "github", "--config", str(config)]
        assert cli_json("park", str(EXAMPLE), *common, env=env)[0] == 0
        backlog = Backlog.open(backend="github", config=config, env=env)
        pairs: list[tuple[list[str], Callable[[Backlog], Any]]] = [
            (["show", DID], lambda b: b.show(DID)),
            (["gate", str(pull.number)], lambda b: b.gate(pr=pull.number)),
            (["resume", DID], lambda b: b.resume(DID)),
            (["list"], lambda b: b.list()),
            (["park", str(EXAMPLE)], lambda b: b.park(EXAMPLE.read_text())),
            (["show", "nope-decision-x"], lambda b: b.show("nope-decision-x")),
        ]
        after: list[tuple[list[str], Callable[[Backlog], Any]]] = [
            (["show", DID], lambda b: b.show(DID)),
            (["gate", str(pull.number)], lambda b: b.gate(pr=pull.number)),
        ]
        for args, call in pairs:
            assert api_json(lambda c=call: c(backlog)) == cli_json(*args, *common, env=env), args
        # An owner answers with their own token: the answer is left as their comment for parkbot to record.
        fake.add_token("ghp_alice0000000000000000000000000000000", "alice", "personal")
        alice = {**env, "GITHUB_TOKEN": "ghp_alice0000000000000000000000000000000"}
        code, by_cli = cli_json("resolve", DID, "--answer", "full_original", *common, env=alice)
        by_api = api_json(
            lambda: Backlog.open(backend="github", config=config, env=alice).resolve(DID, "full_original")
        )
        assert code == 0
        assert by_cli["action"] == by_api[1]["action"] == "requested"
        assert {k: v for k, v in by_cli.items() if k != "comment"} == {
            k: v for k, v in by_api[1].items() if k != "comment"
        }
        assert (by_cli["command"], by_cli["by"]) == ("/decide full_original", "alice")
        for args, call in after:
            assert api_json(lambda c=call: c(backlog)) == cli_json(*args, *common, env=env), args
    fake.assert_no_violations()


def test_importing_parkbot_loads_nothing_and_names_resolve_on_first_use() -> None:
    code = (
        "import sys, parkbot; heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('pydantic', 'git', 'click', 'yaml', 'github', 'mcp')]; print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"
    assert parkbot.Backlog is Backlog
    assert parkbot.Refused.__mro__[1] is parkbot.ParkbotError
    assert {"Backlog", "ParkbotError", "Refused", "Duration", "parse_result"} <= set(dir(parkbot))
    with pytest.raises(AttributeError):
        parkbot.Nothing  # noqa: B018


def test_a_project_with_its_own_bot_folder_still_imports_parkbot(tmp_path: Path) -> None:
    """A user's own ``bot/`` package (a common name for chat bots) shadows nothing of parkbot's."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "__init__.py").write_text("NAME = 'the user own bot'\n", encoding="utf-8")
    code = "import bot, parkbot; from parkbot import Backlog; print(bot.NAME, '|', Backlog.__module__)"
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" | ")[0] == "the user own bot"
    assert done.stdout.strip().endswith("parkbot.api.backlog")
