"""``requester`` is what the agent says about who started an interactive run: it is shown as stated by the
agent, and ``/return`` hands the question to it only when the configuration names that person among the
``requesters``; otherwise an agent could hand its own question to an accomplice (or to itself) to answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from parkbot.cli import cli
from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners, parse_config
from parkbot.core.errors import Refused
from tests.contract.test_lifecycle_contract import NOW, result
from tests.support.git_helpers import cli_repo, needs_input
from tests.support.memory_tracker import MemoryTracker

DID = "billing-42-decision-refund"


def parked(config: Config) -> MemoryTracker:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(requester="erin"), config, now=NOW)
    return tracker


@pytest.mark.parametrize("requesters", [[], ["frank"]], ids=["none-configured", "someone-else"])
def test_return_is_refused_unless_the_configuration_names_the_requester(requesters: list[str]) -> None:
    config = Config(owners=Owners(default="alice"), requesters=requesters)
    tracker = parked(config)
    with pytest.raises(Refused) as info:
        lifecycle.return_to_requester(tracker, config, DID, Actor("alice"))
    assert info.value.reason == "requester_not_allowed"
    assert "erin" in info.value.message
    assert "requesters" in info.value.message
    assert tracker.find(DID).owner == "alice"
    assert "/return" not in [typed for typed, _ in lifecycle.help_text(tracker.find(DID), config)]


def test_return_hands_the_question_to_a_configured_requester() -> None:
    config = Config(owners=Owners(default="alice"), requesters=["Erin"])
    tracker = parked(config)
    assert lifecycle.return_to_requester(tracker, config, DID, Actor("alice")).decision.owner == "erin"
    rows = dict(lifecycle.help_text(parked(config).find(DID), config))
    assert rows["/return"] == "hand it back to erin (stated by the agent), who started the run"


def test_the_config_key_is_a_list_of_people() -> None:
    assert parse_config("requesters: [erin, frank@example.com]\n").requesters == ["erin", "frank@example.com"]


def test_show_says_the_requester_is_stated_by_the_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli_repo(tmp_path / "repo", monkeypatch, config="owners:\n  default: alice@example.com\n")
    runner = CliRunner()
    assert runner.invoke(cli, ["park", "-"], input=needs_input(requester="erin").model_dump_json()).exit_code == 0
    assert "requester: erin (stated by the agent)" in runner.invoke(cli, ["show", DID]).stdout
