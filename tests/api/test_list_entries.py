"""``list --json`` entries: written by pydantic-core from the decision, exactly as ``json.dumps`` writes the API's item.

``PrintedList`` keeps each decision as the text of its entry, written as the decision is read; the entry
must be what ``json.dumps(indent=2)`` writes of :class:`~parkbot.api.results.decisions.DecisionItem`,
one level down in the list, whatever the decision holds.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from parkbot.api.listing import PrintedList, _ItemWriter
from parkbot.api.results.decisions import DecisionItem
from parkbot.core.models import Answer, Decision, Escalation, Option

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def decision(**changes: Any) -> Decision:
    fields: dict[str, Any] = {
        "id": "billing-42-decision-refund",
        "origin": "billing-42",
        "key": "refund",
        "title": "Refund scope",
        "question": "Refund the rest?",
        "options": [Option(id="remaining", label="the remaining items"), Option(id="full", label="everything")],
        "work_so_far": {"verified": ["line 1"], "count": 3},
        "owner": "alice@example.com",
        "created_at": NOW,
        "updated_at": NOW,
    }
    return Decision(**{**fields, **changes})


HOPS = [
    Escalation(from_owner="alice@example.com", to_owner="bob@example.com", by="alice@example.com", at=NOW),
    Escalation(from_owner="bob@example.com", to_owner="carol@example.com", by="bob@example.com", at=NOW),
]
CASES = {
    "plain": decision(),
    "unicode": decision(title="Refund — Élodie", question="“the rest” for Élodie? 💥"),
    "floats": decision(work_so_far={"small": 1e-05, "big": 1e16, "nested": [[1.5]]}),
    "no work": decision(work_so_far=None),
    "escalated twice": decision(owner="carol@example.com", escalations=HOPS),
    "resolved": decision(
        state="resolved", answer=Answer(value="remaining", kind="option", by="alice@example.com", at=NOW)
    ),
    "problems": decision().with_problems(["unverified answer by mallory — not an owner", "edited by hand"]),
    "control characters": decision(question="Refund\tthe \x1b[31mrest\x1b[0m?\nor not"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_entry_is_what_json_dumps_writes_of_the_api_item(name: str) -> None:
    listed = CASES[name]
    expected = json.dumps(DecisionItem.of(listed).model_dump(mode="json"), indent=2, default=str)
    assert _ItemWriter()(listed) == expected.replace("\n", "\n    ")


def test_the_whole_listing_is_what_json_dumps_writes_of_the_api_list() -> None:
    writer = _ItemWriter()
    decisions = list(CASES.values()) * 2  # the second time round, chains and problems are written from memory
    printed = PrintedList(["row"] * len(decisions), [writer(d) for d in decisions], "")
    expected = {"decisions": [DecisionItem.of(d).model_dump(mode="json") for d in decisions], "count": len(decisions)}
    assert "".join(printed.json_parts()) == json.dumps(expected, indent=2, default=str)
