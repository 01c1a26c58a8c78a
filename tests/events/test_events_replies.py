"""What parkbot says on GitHub issues: ``/help`` (the core's possible acts as comment commands) and a near miss."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from parkbot.core.commands import parse
from parkbot.core.config import Config, Owners
from parkbot.core.models import Assumption, Decision, Option
from parkbot.events.replies import command_problem, help_rows

NOW = datetime(2026, 1, 5, tzinfo=UTC)
CONFIG = Config(owners=Owners(default="alice"), requesters=["erin"])


def decision(**changes: object) -> Decision:
    fields: dict[str, object] = {
        "id": "billing-42-decision-refund",
        "origin": "billing-42",
        "key": "refund",
        "title": "Refund scope",
        "question": "Refund the remaining three, or the full total?",
        "options": [Option(id="remaining_three", label="412.00"), Option(id="full_original", label="690.00")],
        "owner": "alice",
        "created_at": NOW,
        "updated_at": NOW,
        **changes,
    }
    return Decision.model_validate(fields)


def test_a_question_lists_its_options_then_the_other_acts() -> None:
    rows = help_rows(decision(allow_free_text=True, requester="erin"), CONFIG)
    assert rows == [
        ("/decide remaining_three", "412.00"),
        ("/decide full_original", "690.00"),
        ("/answer <your answer>", "answer in words"),
        ("/default remaining_three", "the same, recorded as an explicit assumption"),
        ("/escalate", "pass the question one level up the hierarchy"),
        ("/return", "hand it back to erin (stated by the agent), who started the run"),
    ]


def test_return_is_offered_only_to_a_requester_the_configuration_names() -> None:
    typed = [row[0] for row in help_rows(decision(requester="mallory"), CONFIG)]
    assert "/return" not in typed
    assert "/answer <your answer>" not in typed  # no free text on this question


def test_a_review_item_lists_accept_and_one_override_per_assumption() -> None:
    review = decision(
        id="billing-42-decision-assumptions",
        key="assumptions",
        kind="review",
        options=[],
        blocking=False,
        assumptions=[Assumption(text="EUR"), Assumption(text="net of tax")],
    )
    assert help_rows(review, CONFIG) == [
        ("/accept", "accept every stated assumption"),
        ("/override 1 <what it should be>", "EUR"),
        ("/override 2 <what it should be>", "net of tax"),
    ]


COMMAND_LIST = "/decide, /answer, /default, /escalate, /return, /accept, /override, /help, /correct, /cite, /pass"


@pytest.mark.parametrize(("typed", "meant"), [("/decid a", "decide"), ("/Escalte", "escalate"), ("/hxlp", "help")])
def test_a_near_miss_names_the_command_it_likely_meant_and_every_command(typed: str, meant: str) -> None:
    found = parse(typed)
    assert found is not None
    word = typed.split()[0]
    assert command_problem(found) == (
        f"{word} is not a parkbot command; did you mean /{meant}? The commands are {COMMAND_LIST}."
    )


def test_a_malformed_command_says_what_it_needs() -> None:
    found = parse("/decide")
    assert found is not None
    assert command_problem(found) == "/decide needs an option id, e.g. `/decide <option-id>`"
