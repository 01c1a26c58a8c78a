"""The one builder of agent results the tests file: the shared question, its variants, as data, text or a model.

Every test that needs an agent's result builds it here: a ``needs_input`` question (:func:`result`), a review
item (:func:`review_result`) or a finished run's inventory (:func:`inventory`). ``base`` picks the wording (the
full question most tests file, the shorter one the GitHub tests render, the documented example); ``changes``
override fields. Only a test about the raw shape itself (a schema, a malformed file) writes one by hand.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from parkbot.core.models import Done, DoneWithAssumptions, Failed, NeedsInput, parse_result

#: The clock of every test that needs one fixed instant.
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
#: The id of the decision the shared question files.
DID = "billing-42-decision-refund"

#: The full question: a title, the work so far, the agent's guess and its run.
QUESTION: Mapping[str, Any] = {
    "status": "needs_input",
    "origin": "billing-42",
    "key": "refund",
    "question": "Order A-4471 has two line items already refunded. Refund the remaining three, or the full total?",
    "title": "Refund scope for order A-4471",
    "options": ["remaining_three: 412.00", "full_original: 690.00"],
    "work_so_far": {"verified": ["A-4471"], "pending": ["refund"]},
    "blocking": True,
    "guess": "remaining_three",
    "run": "run-7",
}
#: The short question the GitHub backend's tests file (their issue bodies quote it).
SHORT: Mapping[str, Any] = {
    "status": "needs_input",
    "origin": "billing-42",
    "key": "refund",
    "title": "Refund scope",
    "question": "Refund the remaining three, or the full total?",
    "options": ["remaining_three: 412.00", "full_original: 690.00"],
}
#: A finished run's review item: the assumptions it made, for the owner to accept or override one by one.
ASSUMPTIONS: Mapping[str, Any] = {
    "status": "done_with_assumptions",
    "origin": "billing-42",
    "assumptions": ["EUR", "net of tax"],
}
#: A finished run's inventory, without what it lists: give ``decisions`` (the questions it filed) or ``none=True``
#: (it asked nothing); ``status="failed"`` with an ``error`` for a run that failed.
DONE: Mapping[str, Any] = {
    "status": "done",
    "origin": "billing-42",
}
#: The documented example, ``examples/needs_input.json``.
EXAMPLE_PATH = Path(__file__).resolve().parents[2] / "examples" / "needs_input.json"


def example() -> dict[str, Any]:
    """The documented example as data (read each time: a test may change its copy)."""
    data: dict[str, Any] = json.loads(EXAMPLE_PATH.read_text(encoding="utf-8"))
    return data


def result_data(base: Mapping[str, Any] = QUESTION, **changes: Any) -> dict[str, Any]:
    """``base`` with ``changes`` applied, unvalidated (so a test can build a bad result too)."""
    return {**base, **changes}


def result_text(base: Mapping[str, Any] = QUESTION, **changes: Any) -> str:
    """:func:`result_data` as the JSON text an agent writes."""
    return json.dumps(result_data(base, **changes))


def result(base: Mapping[str, Any] = QUESTION, **changes: Any) -> NeedsInput:
    """:func:`result_data`, parsed as parkbot parses it: it must be a valid ``needs_input`` result."""
    parsed = parse_result(result_data(base, **changes))
    assert isinstance(parsed, NeedsInput)
    return parsed


def review_result(base: Mapping[str, Any] = ASSUMPTIONS, **changes: Any) -> DoneWithAssumptions:
    """:func:`result_data` of a review item, parsed: it must be a valid ``done_with_assumptions`` result."""
    parsed = parse_result(result_data(base, **changes))
    assert isinstance(parsed, DoneWithAssumptions)
    return parsed


def inventory(base: Mapping[str, Any] = DONE, **changes: Any) -> Done | Failed:
    """:func:`result_data` of a finished run's inventory, parsed: it must be a valid ``done`` or ``failed`` result."""
    parsed = parse_result(result_data(base, **changes))
    assert isinstance(parsed, Done | Failed)
    return parsed
