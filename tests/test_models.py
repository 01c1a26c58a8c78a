"""Agent results: what is accepted, and that every rejection names the field to fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.core.errors import InvalidInput
from bot.core.models import (
    MAX_WORK_SO_FAR_BYTES,
    Done,
    DoneWithAssumptions,
    Failed,
    NeedsInput,
    parse_dependent,
    parse_result,
    result_json_schema,
)

BASE: dict[str, Any] = {
    "status": "needs_input",
    "origin": "billing-42",
    "key": "refund",
    "question": "Refund the remaining three, or the full original total?",
    "options": ["remaining_three: 412.00", "full_original: 690.00"],
    "work_so_far": {"verified": ["A-4471"]},
    "blocking": True,
}


def needs(**changes: Any) -> dict[str, Any]:
    return {**BASE, **changes}


def rejected(data: Any) -> str:
    with pytest.raises(InvalidInput) as info:
        parse_result(data)
    return info.value.message


def test_design_note_example_parses() -> None:
    result = parse_result(needs())
    assert isinstance(result, NeedsInput)
    assert [(o.id, o.label) for o in result.options] == [("remaining_three", "412.00"), ("full_original", "690.00")]
    assert result.decision_id == "billing-42-decision-refund"
    assert result.effective_title == "Refund the remaining three, or the full original total?"


def test_options_as_objects_and_bare_ids() -> None:
    result = parse_result(needs(options=[{"id": "Yes", "label": "Ship it"}, "no"]))
    assert [(o.id, o.label) for o in result.options] == [("yes", "Ship it"), ("no", "no")]


def test_json_text_is_accepted() -> None:
    assert isinstance(parse_result(json.dumps(needs())), NeedsInput)


def test_not_json_is_a_clear_error() -> None:
    assert "not valid JSON" in rejected("{nope")


@pytest.mark.parametrize(
    ("changes", "field", "text"),
    [
        ({"surprise": 1}, "surprise", "unknown field"),
        ({"blocking": "sometimes"}, "blocking", "boolean"),
        ({"question": "   "}, "question", "at least 1"),
        ({"options": ["a: one", "A: two"]}, "options", "duplicate option id 'a'"),
        ({"question": "x" * 5000}, "question", "at most 4000"),
        ({"origin": "Billing 42"}, "origin", "' '"),
        ({"key": ""}, "key", "empty"),
        ({"guess": "half"}, "guess", "not one of the option ids"),
        ({"dependents": ["feature branch"]}, "dependents[0]", "neither a pull request"),
        ({"options": [{"id": "a"}]}, "options[0].label", "Field required"),
        ({"work_so_far": {"blob": "x" * MAX_WORK_SO_FAR_BYTES}}, "work_so_far", "bytes as JSON"),
    ],
)
def test_rejections_name_the_field(changes: dict[str, Any], field: str, text: str) -> None:
    message = rejected(needs(**changes))
    line = next(line for line in message.splitlines() if line.strip().startswith(field))
    assert text in line


def test_missing_required_fields_are_each_named() -> None:
    message = rejected({"status": "needs_input"})
    for field in ("origin", "key", "question"):
        assert f"{field}: Field required" in message


def test_unknown_status_lists_the_valid_ones() -> None:
    assert "needs_input" in rejected({"status": "maybe"})


def test_empty_inventory_is_invalid_without_explicit_none() -> None:
    assert "none: true" in rejected({"status": "done", "origin": "o", "decisions": []})
    assert "none: true" in rejected({"status": "failed", "origin": "o", "error": "boom"})
    assert "contradicts" in rejected({"status": "done", "origin": "o", "decisions": ["k"], "none": True})


def test_inventory_with_none_or_entries() -> None:
    done = parse_result({"status": "done", "origin": "o", "none": True})
    assert isinstance(done, Done)
    assert done.decision_ids() == []
    failed = parse_result({"status": "failed", "origin": "o", "error": "boom", "decisions": ["k", "x-decision-y"]})
    assert isinstance(failed, Failed)
    assert failed.decision_ids() == ["o-decision-k", "x-decision-y"]


def test_done_with_assumptions_needs_at_least_one() -> None:
    result = parse_result({"status": "done_with_assumptions", "origin": "o", "assumptions": ["EUR", {"text": "net"}]})
    assert isinstance(result, DoneWithAssumptions)
    assert [a.text for a in result.assumptions] == ["EUR", "net"]
    assert "assumptions" in rejected({"status": "done_with_assumptions", "origin": "o", "assumptions": []})


@pytest.mark.parametrize(
    ("raw", "normal"),
    [("#12", "#12"), ("12", "#12"), ("pr:7", "#7"), ("agent/x", "branch:agent/x"), ("refs/heads/a", "branch:a")],
)
def test_dependents_normalize(raw: str, normal: str) -> None:
    assert parse_dependent(raw) == normal


def test_schema_is_published_and_describes_every_status() -> None:
    schema = result_json_schema()
    text = json.dumps(schema)
    for status in ("needs_input", "done_with_assumptions", "done", "failed"):
        assert status in text
    assert schema["$schema"].endswith("2020-12/schema")


def test_schema_validates_what_the_models_accept() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(result_json_schema())
    assert not list(validator.iter_errors(needs(options=[{"id": "a", "label": "A"}])))
    assert list(validator.iter_errors(needs(surprise=1)))
