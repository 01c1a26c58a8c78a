"""Agent text never reaches a terminal as control sequences: C0 controls (but newline and tab), DEL, C1,
ESC/CSI/OSC sequences and bidirectional overrides are shown escaped in every text output, through one
helper (:func:`parkbot.terminal.printable`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from parkbot.cli import cli
from parkbot.terminal import printable
from tests.support.git_helpers import cli_repo, needs_input

DID = "billing-42-decision-refund"
OSC_LINK = "\x1b]8;;https://evil.example\x07click me\x1b]8;;\x07"
HOSTILE = f"Refund? {OSC_LINK} \x9b31m red \x1b[2J\rcleared\x00 \u202egnp.exe"
RAW = ("\x1b", "\x07", "\x9b", "\x00", "\r", "\u202e")


def test_printable_escapes_controls_and_keeps_newlines_and_tabs() -> None:
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable("\x1b[31mred") == "\\x1b[31mred"
    assert printable("\x9b\x7f\r\u202e") == "\\x9b\\x7f\\x0d\\u202e"
    assert printable("plain: ünïcödé ✓") == "plain: ünïcödé ✓"


@given(st.text())
def test_printable_never_leaves_a_control_character(text: str) -> None:
    shown = printable(text)
    assert not any(c in shown for c in RAW)
    assert all(c in "\n\t" or not (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0) for c in shown)


def hostile_result() -> Any:
    return needs_input(
        question=HOSTILE,
        title=f"Title \x1b[1mbold {OSC_LINK}",
        options=["a: one \x1b[5m", "b: two"],
        dependents=["#7"],
    )


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    cli_repo(tmp_path / "repo", monkeypatch, config="owners:\n  default: alice@example.com\n")
    runner = CliRunner()
    result = hostile_result()
    assert runner.invoke(cli, ["park", "-"], input=result.model_dump_json()).exit_code == 0
    return runner


@pytest.mark.parametrize(
    "args",
    [["list"], ["show", DID], ["resume", DID], ["report", "--format", "md"], ["gate", "#7"], ["park", "-"]],
    ids=["list", "show", "resume", "report", "gate", "park"],
)
def test_no_text_output_carries_a_control_sequence(hostile: CliRunner, args: list[str]) -> None:
    done = hostile.invoke(cli, args, input=hostile_result().model_dump_json())
    shown = done.stdout + done.stderr
    assert shown.strip(), shown
    assert not [c for c in RAW if c in shown], repr(shown)


def test_show_and_list_still_say_what_the_agent_wrote_escaped(hostile: CliRunner) -> None:
    shown = hostile.invoke(cli, ["show", DID]).stdout
    assert "\\x1b]8;;https://evil.example\\x07click me" in shown
    assert "\\u202egnp.exe" in shown
    listed = hostile.invoke(cli, ["list"]).stdout
    assert "\\x1b]8;;https://evil.example\\x07click me" in listed
    # JSON keeps the exact text (JSON escapes control characters itself)
    assert json.loads(hostile.invoke(cli, ["show", DID, "--json"]).stdout)["question"] == HOSTILE


def test_an_error_message_quoting_agent_text_is_escaped(hostile: CliRunner) -> None:
    refused = hostile.invoke(cli, ["resolve", DID, "--answer", "\x1b[2Jnope", "--by", "alice@example.com"])
    assert refused.exit_code == 2
    assert "\x1b" not in refused.stderr
    assert "\\x1b[2Jnope" in refused.stderr


@pytest.mark.parametrize("active", [False, True], ids=["terminal", "actions"])
def test_handle_event_output_escapes_control_characters(active: bool) -> None:
    import io

    from parkbot.actions_output import Actions

    actions = Actions({"GITHUB_ACTIONS": "true"} if active else {})
    out, err = io.StringIO(), io.StringIO()
    actions.show(f"parked: {HOSTILE}", out)
    actions.annotate("notice", f"title {OSC_LINK}", err)
    written = out.getvalue() + err.getvalue()
    assert "\x1b" not in written
    assert "\x9b" not in written
    assert "\\x1b" in written
