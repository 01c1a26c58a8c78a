"""Text output hides nothing: what ``--json`` shows, the text shows, for ``show``, ``park`` and ``resume`` over
decisions in every state; and ``--json`` works before the command name as after it.

The parity check walks the JSON object of a command and asserts that each non-empty value in it is in the
text the same command prints without ``--json``: a field added to a result (a correction, a citation) that
the text leaves out fails here, whichever command it is on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from parkbot import Backlog
from parkbot.cli import cli
from parkbot.details import detail_lines
from tests.support.git_helpers import USER_EMAIL, cli_repo, commit_on_branch
from tests.support.results import ASSUMPTIONS, DONE, result_data, result_text

BOSS = "carol@example.com"
CONFIG = f"owners:\n  default: {USER_EMAIL}\nhierarchy:\n  {USER_EMAIL}: {BOSS}\nprecedents: {{precedents}}\n"


def result(origin: str, key: str = "refund", **changes: Any) -> str:
    """The shared question as the text an agent writes, filed by ``origin`` on its own branch, for ``erin``."""
    filed = {
        "origin": origin,
        "key": key,
        "title": f"Refund scope for {origin}",
        "question": "Refund the remaining three items, or the full original total?",
        "work_so_far": {"verified": ["line items 1-5"], "count": 5, "ratio": 0.5, "next": {"step": "refund"}},
        "run": "nightly-7",
        "requester": "erin",
        "dependents": [f"branch:agent/{origin}"],
    }
    return result_text(**{**filed, **changes})


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    done = CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)
    return done.exit_code, done.stdout


def leaves(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from leaves(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from leaves(inner, (*path, index))
    else:
        yield path, value


def assert_shows(text: str, data: Any, what: str) -> None:
    """Every non-empty value of ``data`` (a command's JSON) is in ``text`` (its text output)."""
    for path, value in leaves(data):
        where = f"{what}: {'.'.join(map(str, path))}"
        if value is None or value is False or value == "":
            continue
        if value is True:  # a flag is shown by its name
            name = next(p for p in reversed(path) if isinstance(p, str))
            assert name in text, f"{where} is true in --json, and the text does not say so:\n{text}"
            continue
        wanted = value if isinstance(value, str) else json.dumps(value)
        for line in wanted.splitlines():
            assert line in text, f"{where} = {value!r} is in --json, not in the text:\n{text}"


def both(*args: str, stdin: str | None = None) -> tuple[int, str, Any]:
    """The command's exit code, its text, and its --json object (the same exit code both ways)."""
    code, text = run(*args, stdin=stdin)
    json_code, printed = run(*args, "--json", stdin=stdin)
    assert code == json_code, args
    return code, text, json.loads(printed)


def check(*args: str, stdin: str | None = None) -> Any:
    """A read (``show``, ``resume``): its text and its --json, from two runs of the command."""
    code, text, data = both(*args, stdin=stdin)
    assert code in (0, 1), text
    assert_shows(text, data, " ".join(args))
    return data


def act(repo: Path, call: Callable[[Backlog], Any]) -> Any:
    """A change (``park``, ``resolve``, ...) happens once: its text and its --json come from the one result the
    command prints both from (tests/api/test_api.py: the API's result is the command's --json)."""
    with Backlog.open(repo=repo) as backlog:
        done = call(backlog)
    data = done.model_dump(mode="json")
    assert_shows(done.text(), data, repr(call))
    return data


def configure(path: Path, precedents: str) -> None:
    (path / ".github" / "parkbot.yml").write_text(CONFIG.format(precedents=precedents), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    cli_repo(root, monkeypatch, config=CONFIG.format(precedents="suggest"))
    for origin in ("billing-42", "billing-43", "billing-44", "billing-45", "billing-46"):
        commit_on_branch(root, f"agent/{origin}", "wip")
    return root


def test_show_park_and_resume_print_every_field_their_json_holds_in_every_state(repo: Path) -> None:
    # open, then answered with an option: park (with its gate), show and resume while open and after
    filed = act(repo, lambda b: b.park(result("billing-42")))
    assert filed["gates"][0]["blocking"] == ["billing-42-decision-refund"]
    assert act(repo, lambda b: b.park(result("billing-42")))["action"] == "unchanged"
    for command in ("show", "resume"):
        check(command, "billing-42-decision-refund")
    act(repo, lambda b: b.resolve("billing-42-decision-refund", "full_original", by=USER_EMAIL))
    check("show", "billing-42-decision-refund")
    check("resume", "billing-42-decision-refund")

    # an explicit default (an assumption)
    act(repo, lambda b: b.park(result("billing-45", key="tax", options=["net", "gross"], guess="net")))
    assert act(repo, lambda b: b.resolve("billing-45-decision-tax", "gross", by=USER_EMAIL, default=True))["assumption"]
    for command in ("show", "resume"):
        check(command, "billing-45-decision-tax")

    # a precedent suggested (cited on the decision), then one applied (the answer cites it)
    suggested = act(repo, lambda b: b.park(result("billing-43")))
    assert suggested["precedent"]["decision"] == "billing-42-decision-refund"
    assert check("show", "billing-43-decision-refund")["precedent"]["answered_by"] == USER_EMAIL
    configure(repo, "apply")
    applied = act(repo, lambda b: b.park(result("billing-44")))
    assert applied["answer"]["citation"]["decision"] == "billing-42-decision-refund"
    assert check("resume", "billing-44-decision-refund")["precedent"]["answer"] == "full_original"
    check("show", "billing-44-decision-refund")
    configure(repo, "suggest")

    # escalated one level up: the escalation's record
    act(repo, lambda b: b.escalate("billing-43-decision-refund", by=USER_EMAIL))
    assert check("show", "billing-43-decision-refund")["escalations"][0]["to_owner"] == BOSS

    # a review item with an override
    review = result_data(ASSUMPTIONS, origin="billing-46", assumptions=["EUR", "net"])
    filed = act(repo, lambda b: b.park(review))
    act(repo, lambda b: b.override(filed["id"], 2, "gross, with tax", by=USER_EMAIL))
    assert check("resume", filed["id"])["overrides"][0]["text"] == "gross, with tax"
    check("show", filed["id"])
    act(repo, lambda b: b.accept(filed["id"], by=USER_EMAIL))
    check("show", filed["id"])

    # the inventory of a finished run, and the gate
    act(repo, lambda b: b.park(result_data(DONE, decisions=["refund"])))
    act(repo, lambda b: b.gate("agent/billing-43"))


def test_the_parity_check_fails_when_the_text_leaves_a_field_out() -> None:
    data = {"id": "x-decision-y", "precedent": {"decision": "x-decision-z", "answered_by": "bob"}}
    with pytest.raises(AssertionError, match=r"precedent\.answered_by"):
        assert_shows("x-decision-y x-decision-z", data, "show")


def test_a_field_added_to_a_result_is_in_the_text_without_anyone_printing_it() -> None:
    """The text of every result ends with the fields its first lines did not show (parkbot.details)."""
    dumped = {"id": "a-decision-b", "correction": {"value": "full_original", "by": "carol", "reason": "typo"}}
    text = "\n".join(["a-decision-b", *detail_lines(dumped, {"id": None})])
    assert_shows(text, dumped, "a result with a new field")


# --- --json before the command name ---------------------------------------------------------------------

#: An invocation of each command that takes --json (a failure is fine: it is one JSON object too).
INVOCATIONS: dict[str, list[str]] = {
    "accept": ["accept", "nope-decision-x", "--by", USER_EMAIL],
    "cite": ["cite", "billing-42-decision-refnud", "--answer", "full_original", "--source", "docs/x.md#L1-L2"],
    "config check": ["config", "check", "missing.yml"],
    "correct": ["correct", "billing-42-decision-refnud", "--answer", "full_original", "--reason", "typo"],
    "dashboard": ["dashboard", "--print"],
    "doctor": ["doctor"],
    "escalate": ["escalate", "billing-42-decision-refnud", "--by", USER_EMAIL],
    "gate": ["gate", "--ref", "agent/billing-42"],
    "guide": ["guide"],
    "hand-over": ["hand-over"],
    "handle-event": ["handle-event", "--event-name", "push"],
    "init": ["init", "--action", "not-an-action"],
    "list": ["list", "--state", "all"],
    "override": ["override", "billing-42-decision-refund", "1", "x", "--by", USER_EMAIL],
    "park": ["park", "missing.json"],
    "pass": ["pass", "billing-42-decision-refnud"],
    "report": ["report"],
    "resolve": ["resolve", "billing-42-decision-refnud", "--answer", "full_original"],
    "resume": ["resume", "billing-42-decision-refund"],
    "return": ["return", "billing-42-decision-refnud", "--by", USER_EMAIL],
    "schema": ["schema"],
    "serve": ["serve", "--status", "--queue", "sqlite:///parity-queue.db"],
    "show": ["show", "billing-42-decision-refund"],
    "sync": ["sync", "--remote", "nowhere"],
    "wait": ["wait", "billing-42-decision-refund", "--timeout", "0s"],
}


def commands_taking_json() -> list[str]:
    ctx = click.Context(cli)
    found = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        subcommands = command.commands.items() if isinstance(command, click.Group) else [("", command)]
        for sub, leaf in subcommands:
            if any("--json" in param.opts for param in leaf.params):
                found.append(f"{name} {sub}".strip())
    return found


def test_every_command_that_takes_json_is_tried_with_it_before_its_name() -> None:
    # `parkbot mcp` speaks MCP on stdout; its --json only shapes a failure to start (tested in test_mcp_hints).
    assert sorted(set(commands_taking_json()) - {"mcp"}) == sorted(INVOCATIONS)


@pytest.mark.parametrize("name", sorted(INVOCATIONS))
def test_json_before_the_command_name_is_the_same_as_after_it(name: str, repo: Path) -> None:
    assert run("park", "-", stdin=result("billing-42"))[0] == 0
    args = INVOCATIONS[name]
    after = CliRunner().invoke(cli, [*args, "--json"])
    before = CliRunner().invoke(cli, ["--json", *args])
    assert (before.exit_code, _timeless(before.stdout)) == (after.exit_code, _timeless(after.stdout))
    json.loads(before.stdout)  # one JSON object, not text


def _timeless(text: str) -> str:
    """The output with clock readings masked: ``report`` says when it was made and how old each question is,
    so two runs a second apart differ there and nowhere else."""
    return re.sub(r'("(?:since|now)": "[^"]*"|"\w+_seconds": [0-9.]+)', "<time>", text)
