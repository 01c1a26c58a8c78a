"""Blocking only goes up, on every path an agent files through: ``parkbot park``, a push of its branch with
result files, the MCP ``park`` tool and the Python API. A lowered ``blocking`` is refused with exit 3 and
``reason: blocking_lowered``, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parkbot import Backlog
from parkbot.cli import cli
from parkbot.core.errors import Refused
from tests.support.git_helpers import cli_repo, needs_input
from tests.support.memory_tracker import MemoryTracker
from tests.test_rules_filing import BRANCH, DID, FILE, GatedTracker, files, problems, push
from tests.test_rules_filing import needs_input as filed_result

CONFIG = "owners:\n  default: alice@example.com\n"


def test_park_on_the_command_line_refuses_a_lowered_blocking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli_repo(tmp_path / "repo", monkeypatch, config=CONFIG)
    runner = CliRunner()
    assert runner.invoke(cli, ["park", "-"], input=needs_input().model_dump_json()).exit_code == 0
    lowered = runner.invoke(cli, ["park", "-", "--json"], input=needs_input(blocking=False).model_dump_json())
    assert lowered.exit_code == 3, lowered.output
    assert json.loads(lowered.stdout)["error"] == "blocking_lowered"
    shown = json.loads(runner.invoke(cli, ["show", DID, "--json"]).stdout)
    assert shown["blocking"] is True


def test_a_push_of_the_agent_branch_that_lowers_blocking_fails_its_commit() -> None:
    tracker = GatedTracker()
    push(tracker, files({FILE: filed_result()}, {"decisions": ["refund"]}))
    report = push(tracker, files({FILE: filed_result(blocking=False)}, {"decisions": ["refund"]}))
    assert [(code, reason) for _, code, reason, _ in problems(report)] == [(3, "blocking_lowered")]
    assert report.failure is not None
    assert report.failure.exit_code == 3
    assert tracker.find(DID).blocking
    assert f"branch:{BRANCH}" in tracker.find(DID).dependents


def test_the_python_api_refuses_a_lowered_blocking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli_repo(tmp_path / "repo", monkeypatch, config=CONFIG)
    backlog = Backlog.open(".")
    backlog.park(needs_input().model_dump_json())
    with pytest.raises(Refused) as info:
        backlog.park(needs_input(blocking=False).model_dump_json())
    assert info.value.reason == "blocking_lowered"
    assert backlog.show(DID).blocking


def test_memory_backend_keeps_the_raised_value() -> None:
    tracker: Any = MemoryTracker()
    push(tracker, files({FILE: filed_result(blocking=False)}, {"decisions": ["refund"]}))
    push(tracker, files({FILE: filed_result(blocking=True)}, {"decisions": ["refund"]}))
    assert tracker.find(DID).blocking


def test_the_mcp_park_tool_refuses_a_lowered_blocking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parkbot import mcp_server

    cli_repo(tmp_path / "repo", monkeypatch, config=CONFIG)
    backlog = mcp_server._Backlog(lambda: Backlog.open("."))
    mcp_server._park(backlog, {"result": json.loads(needs_input().model_dump_json())})
    with pytest.raises(Refused) as info:
        mcp_server._park(backlog, {"result": json.loads(needs_input(blocking=False).model_dump_json())})
    failure = mcp_server._failure(info.value)
    assert failure.is_error
    assert failure.structured_content == {
        "error": "blocking_lowered", "message": info.value.message, "exit_code": 3,
    }  # fmt: skip
