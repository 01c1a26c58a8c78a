"""Every message names the command of the surface it is printed on.

The core words its refusals in plain text with a reason code; the command line adds ``parkbot ...``
commands, a reply on GitHub adds comment commands (``/decide ...``), an MCP tool error names the tool's
arguments. Each surface is driven through its refusal paths here, as its user meets them, and no message
may carry another surface's syntax.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import git
import pytest
from click.testing import CliRunner
from mcp import ClientSession, StdioServerParameters, stdio_client

from parkbot import Backlog
from parkbot.cli import cli
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.events.commands import handle_comment
from parkbot.trackers.github.access import is_bot_login
from parkbot.trackers.github.render import read_marker
from tests.support.fakegithub import FakeGitHub
from tests.support.git_helpers import USER_EMAIL, cli_repo, commit_on_branch
from tests.support.github_helpers import CONFIG, NOW, make_tracker, needs_input
from tests.support.results import ASSUMPTIONS, result_data, review_result

ROOT = Path(__file__).resolve().parents[2]
DID = "billing-42-decision-refund"
BOSS = "carol@example.com"
#: A comment command, as a GitHub user types it.
SLASH_COMMAND = re.compile(r"(?<![\w/])/(decide|default|answer|accept|override|escalate|return|help)\b")
#: A command-line option (``--answer``, ``--backend github``).
OPTION = re.compile(r"(?<![\w-])--[a-z]")


# --- the command line ----------------------------------------------------------------------------------


def refusal(*args: str, stdin: str | None = None) -> tuple[int, str, dict[str, Any]]:
    """A failing command: its exit code, its message on stderr, and its --json error object."""
    done = CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)
    as_json = CliRunner().invoke(cli, [*args, "--json"], input=stdin, catch_exceptions=False)
    assert done.exit_code in (2, 3), (args, done.output)
    message = done.stderr[done.stderr.rindex("parkbot: ") :].removeprefix("parkbot: ").strip()  # after any progress
    error = json.loads(as_json.stdout)
    assert error["message"] == message, args  # the same words for people and for machines
    return done.exit_code, message, error


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    cli_repo(root, monkeypatch, config=f"owners:\n  default: {USER_EMAIL}\nhierarchy:\n  {USER_EMAIL}: {BOSS}\n")
    commit_on_branch(root, "agent/billing-42", "wip")
    result = needs_input_result()
    assert CliRunner().invoke(cli, ["park", "-"], input=result).exit_code == 0
    review = result_data(ASSUMPTIONS, origin="billing-46", assumptions=["EUR"])
    assert CliRunner().invoke(cli, ["park", "-"], input=json.dumps(review)).exit_code == 0
    return root


def needs_input_result(**changes: Any) -> str:
    data = json.loads((ROOT / "examples" / "needs_input.json").read_text())
    return json.dumps({**data, **changes})


def test_the_command_line_says_parkbot_commands_and_never_comment_commands(repo: Path) -> None:
    messages: dict[str, str] = {}
    review = "billing-46-decision-assumptions"

    def said(name: str, *args: str, stdin: str | None = None) -> dict[str, Any]:
        _, messages[name], error = refusal(*args, stdin=stdin)
        return error

    # a mistyped id, on every command that takes one: the closest ids, and how to list them
    commands = (["show"], ["resume"], ["wait", "--timeout", "0s"], ["resolve", "-a", "x"], ["escalate"], ["return"])
    for command in commands:
        error = said(command[0], command[0], "billing-42-decision-refnud", *command[1:])
        assert error["did_you_mean"] == [DID]
        assert f"did you mean '{DID}'?" in messages[command[0]]
        assert "`parkbot list`" in messages[command[0]]
    assert "did_you_mean" not in said("far", "show", "zzz-decision-q")
    # answering rules: a near miss of an option, a review item, a question accepted like a review item
    said("option", "resolve", DID, "--answer", "full_orignal")
    assert "did you mean 'full_original'?" in messages["option"]
    said("review_item", "resolve", review, "--answer", "fine")
    assert f"`parkbot accept {review}`" in messages["review_item"]
    assert f"`parkbot override {review} NUMBER TEXT`" in messages["review_item"]
    said("not_a_review", "accept", DID, "--by", USER_EMAIL)
    assert f"`parkbot resolve {DID} --answer OPTION`" in messages["not_a_review"]
    # escalation at the top of the hierarchy, and without one
    assert CliRunner().invoke(cli, ["escalate", DID, "--by", USER_EMAIL]).exit_code == 0
    said("top", "escalate", DID, "--by", BOSS)
    assert f"`parkbot resolve {DID} --answer OPTION --default`" in messages["top"]
    (repo / ".github" / "parkbot.yml").write_text(f"owners:\n  default: {USER_EMAIL}\n")
    said("no_hierarchy", "escalate", review, "--by", USER_EMAIL)
    assert f"`parkbot resolve {review} --answer OPTION --default`" in messages["no_hierarchy"]
    # the gate: nothing named, a pull request on the git backlog
    said("gate", "gate")
    assert "--ref BRANCH" in messages["gate"]
    said("gate_pr", "gate", "7")
    assert "--backend github" in messages["gate_pr"]
    # results: every validation error names its field
    said("status", "park", "-", stdin=needs_input_result(status="needs_inptu"))
    assert "status: must be one of" in messages["status"]
    assert "result: must be one of" not in messages["status"]
    assert "did you mean 'needs_input'?" in messages["status"]
    said("field", "park", "-", stdin=needs_input_result(questoin="?"))
    assert "questoin: unknown field; did you mean 'question'?" in messages["field"]
    # a conflicting answer, after the first one
    assert CliRunner().invoke(cli, ["resolve", DID, "-a", "full_original", "--by", BOSS]).exit_code == 0
    said("conflict", "resolve", DID, "--answer", "remaining_three", "--by", BOSS)

    for name, message in messages.items():
        assert not SLASH_COMMAND.search(message), f"{name}: {message}"
        assert ".github/parkbot.yml" not in message or name == "no_hierarchy", f"{name}: {message}"


def test_outside_a_repository_the_command_line_offers_its_own_backend_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PARKBOT_BACKEND", raising=False)
    code, message, error = refusal("show", DID)
    assert (code, error["error"]) == (2, "invalid")
    assert "run `git init` there; or work on GitHub issues with --backend github" in message


# --- replies on GitHub ---------------------------------------------------------------------------------


def reply_to(fake: FakeGitHub, number: int, body: str, author: str, config: Config = CONFIG) -> str:
    """Post ``body`` as ``author``, handle it as the issue_comment event would, and return parkbot's reply."""
    posted = fake.add_comment(number, body, author=author)
    result = handle_comment(
        make_tracker(fake),
        config,
        issue_number=number,
        comment_id=posted.id,
        body=body,
        actor=Actor(author, bot=is_bot_login(author)),
        now=NOW,
    )
    assert result.refused, body
    replies = [
        c.body
        for c in fake.comments.values()
        if c.issue_number == number and (m := read_marker(c.body)) is not None and m.kind == "reply"
    ]
    assert body in replies[-1]  # the reply quotes the command it refuses
    return replies[-1]


def test_replies_on_github_say_comment_commands_and_never_command_line_options(fake: FakeGitHub) -> None:
    tracker = make_tracker(fake)
    number = lifecycle.park(tracker, needs_input(), CONFIG, now=NOW).location.number
    review = review_result(origin="billing-46", assumptions=["EUR"])
    review_number = lifecycle.park_review(tracker, review, CONFIG, now=NOW).location.number
    assert number is not None
    assert review_number is not None
    flat = Config(owners=Owners(default="alice"), precedents="off")

    replies = {
        "not_a_review": reply_to(fake, number, "/accept", "alice"),
        "review_item": reply_to(fake, review_number, "/decide fine", "alice"),
        "no_hierarchy": reply_to(fake, number, "/escalate", "alice", flat),
        "option": reply_to(fake, number, "/decide full_orignal", "alice"),
        "not_authorized": reply_to(fake, number, "/decide full_original", "mallory"),
    }
    lifecycle.escalate(make_tracker(fake), CONFIG, "billing-42-decision-refund", Actor("alice"), now=NOW)
    replies["top"] = reply_to(fake, number, "/escalate", "carol")

    assert "answer it with `/decide <option>`" in replies["not_a_review"]
    assert "`/accept` accepts them" in replies["review_item"]
    assert "`/default <option>`" in replies["no_hierarchy"]
    assert "`/default <option>`" in replies["top"]
    assert "did you mean 'full_original'?" in replies["option"]
    for name, reply in replies.items():
        assert not OPTION.search(reply), f"{name}: {reply}"
        assert "parkbot resolve" not in reply, f"{name}: {reply}"


# --- MCP tool errors -----------------------------------------------------------------------------------


def mcp_server(repo: Path) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "bot")))}
    env.pop("PARKBOT_BACKEND", None)
    args = ["-m", "parkbot", "mcp", "--repo", str(repo)]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(repo))


async def tool_errors(params: StdioServerParameters, calls: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    errors = {}
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for name, (tool, arguments) in calls.items():
                result = await session.call_tool(tool, arguments)
                assert result.is_error, name
                errors[name] = json.loads(result.content[0].text)
    return errors


def test_mcp_errors_name_the_tools_arguments_and_no_command_line_option(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repository = git.Repo.init(repo, initial_branch="main")
    with repository.config_writer() as writer:
        writer.set_value("user", "email", USER_EMAIL)
    repository.index.commit("initial")
    example = json.loads((ROOT / "examples" / "needs_input.json").read_text())
    with Backlog.open(repo=repo) as backlog:
        backlog.park(example)
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "status": ("park", {"result": {**example, "status": "needs_inptu"}}),
        "show": ("show", {"id": "billing-42-decision-refnud"}),
        "resume": ("resume", {"id": "billing-42-decision-refnud"}),
        "wait": ("wait", {"id": "billing-42-decision-refnud", "timeout": "0s"}),
        "gate": ("gate", {}),
        "gate_both": ("gate", {"ref": "main", "pr": 1}),
        "gate_pr": ("gate", {"pr": 1}),
        "argument": ("show", {"idd": "x"}),
    }
    errors = anyio.run(tool_errors, mcp_server(repo), calls)
    (tmp_path / "elsewhere").mkdir()
    outside = anyio.run(tool_errors, mcp_server(tmp_path / "elsewhere"), {"outside": ("list", {})})

    for tool in ("show", "resume", "wait"):
        assert errors[tool]["did_you_mean"] == [DID]
        assert f"did you mean '{DID}'? The list tool gives the ids." in errors[tool]["message"]
    assert "status: must be one of" in errors["status"]["message"]
    assert "give exactly one of the arguments pr and ref" in errors["gate"]["message"]
    assert "give exactly one of the arguments pr and ref" in errors["gate_both"]["message"]
    assert "give ref (a branch) instead" in errors["gate_pr"]["message"]
    assert "idd: unknown field; did you mean 'id'?" in errors["argument"]["message"]
    assert "PARKBOT_BACKEND=github" in outside["outside"]["message"]
    for name, error in {**errors, **outside}.items():
        assert not OPTION.search(error["message"]), f"{name}: {error['message']}"
        assert not SLASH_COMMAND.search(error["message"]), f"{name}: {error['message']}"
