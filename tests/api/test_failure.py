"""The error object is made in one place for every surface (docs/cli.md): its keys, and the ids to suggest."""

from __future__ import annotations

import json

from click.testing import CliRunner

from parkbot.api.failure import error_object, failure_of
from parkbot.cli import cli
from parkbot.cli.messages import error_object as cli_error_object
from parkbot.core.errors import InvalidInput, Refused


def test_a_failure_is_its_reason_message_and_exit_code() -> None:
    refused = Refused("billing-42 already has 3 open questions", reason="cap_reached")
    assert failure_of(refused) == {
        "error": "cap_reached",
        "message": "billing-42 already has 3 open questions",
        "exit_code": 3,
    }
    assert failure_of(refused, "in the words of a surface")["message"] == "in the words of a surface"


def test_ids_to_suggest_are_listed_only_when_there_are_some() -> None:
    missing = InvalidInput(
        "no decision billing-42-decision-refnd", reason="not_found", suggestions=["billing-42-decision-refund"]
    )
    assert failure_of(missing)["did_you_mean"] == ["billing-42-decision-refund"]
    assert "did_you_mean" not in error_object("usage", "no such option: --bogus", 2)


def test_the_command_line_words_the_next_step_in_its_own_commands() -> None:
    exc = InvalidInput("no decision nope-decision-x", reason="not_found", step="check_id")
    data = cli_error_object(exc)
    assert data["message"] == failure_of(exc, data["message"])["message"]
    assert "parkbot list" in data["message"]
    assert "parkbot list" not in failure_of(exc)["message"]


def test_a_usage_error_is_the_same_object() -> None:
    result = CliRunner().invoke(cli, ["list", "--json", "--bogus"])
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data == error_object("usage", data["message"], 2)
