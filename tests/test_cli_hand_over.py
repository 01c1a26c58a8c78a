"""``parkbot hand-over``: the end of the planner's window from the command line, as the scheduled run does it.

Without a scheduled workflow (the git backlog, a repository without Actions) nothing handed questions
over when the window ended but ``Backlog.hand_over()``; the command does it, exits 0, and says what it did.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from parkbot import Backlog
from parkbot.cli import cli
from tests.test_planner_git import OWNER, backlog, question  # noqa: F401  (backlog is a fixture)


def test_hand_over_gives_questions_past_the_window_to_their_owners(
    backlog: Backlog,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    filed = backlog.park(question(dependents=[]))
    runner = CliRunner()
    early = runner.invoke(cli, ["hand-over", "--json"])
    assert early.exit_code == 0, early.output
    assert json.loads(early.stdout)["handed_over"] == []  # the window has not ended: still with the planner
    assert backlog.show(filed.id).planner.state == "waiting"  # type: ignore[union-attr]

    later = datetime.now(UTC) + timedelta(minutes=31)
    monkeypatch.setattr("parkbot.core.planner.utcnow", lambda: later)
    done = runner.invoke(cli, ["hand-over", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [(d["id"], d["owner"]) for d in data["handed_over"]] == [(filed.id, OWNER)]
    assert backlog.show(filed.id).planner.state == "expired"  # type: ignore[union-attr]

    text = runner.invoke(cli, ["hand-over"])
    assert text.exit_code == 0
    assert "no question" in text.output  # nothing left: said, not silent
