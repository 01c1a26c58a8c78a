"""Agent results: what is accepted, and that every rejection names the field to fix."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from parkbot.core.errors import InvalidInput
from parkbot.core.identity import NAME_PATTERN
from parkbot.core.models import (
    MAX_WORK_SO_FAR_BYTES,
    RULES_BEYOND_THE_SCHEMA,
    Done,
    DoneWithAssumptions,
    Failed,
    NeedsInput,
    parse_dependent,
    parse_result,
    result_json_schema,
)
from tests.support.results import result_data

#: Written out by hand, not taken from ``tests.support.results``: these tests are about the raw shape a result
#: file must have, so every field the checks read is in sight here.
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
    """:data:`BASE` with ``changes`` applied, unvalidated."""
    return result_data(BASE, **changes)


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
    result = parse_result(needs(options=[{"id": "yes", "label": "Ship it"}, "no"]))
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
        ({"question": "   "}, "question", "non-whitespace"),
        ({"options": ["a: one", "a: two"]}, "options", "duplicate option id 'a'"),
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


# --- strict: nothing is coerced, and the schema says the same --------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"blocking": "no"}, "blocking"),
        ({"blocking": 1}, "blocking"),
        ({"blocking": "true"}, "blocking"),
        ({"allow_free_text": 0}, "allow_free_text"),
        ({"question": 42}, "question"),
        ({"options": "a: b"}, "options"),
        ({"origin": " billing-42"}, "origin"),
        ({"key": "refund\t"}, "key"),
        ({"dependents": [12]}, "dependents[0]"),
        ({"dependents": [" #12"]}, "dependents[0]"),
        ({"title": "  "}, "title"),
        ({"options": ["a:"]}, "options[0]"),
        ({"options": [{"id": "a", "label": "   "}]}, "options[0].label"),
    ],
)
def test_no_coercion_and_the_error_names_the_field(changes: dict[str, Any], field: str) -> None:
    message = rejected(needs(**changes))
    assert any(line.strip().startswith(f"{field}:") for line in message.splitlines()), message
    validator = jsonschema.Draft202012Validator(result_json_schema())
    assert not validator.is_valid(needs(**changes))  # the published schema refuses it too


@pytest.mark.parametrize(
    "inventory",
    [
        {"status": "done", "origin": "o", "decisions": []},
        {"status": "done", "origin": "o"},
        {"status": "done", "origin": "o", "none": False},
        {"status": "done", "origin": "o", "none": "true"},
        {"status": "failed", "origin": "o", "error": "boom", "none": False, "decisions": []},
        {"status": "done", "origin": "o", "none": True, "decisions": ["k"]},
    ],
)
def test_an_inventory_that_says_nothing_is_refused_by_both(inventory: dict[str, Any]) -> None:
    rejected(inventory)
    assert not jsonschema.Draft202012Validator(result_json_schema()).is_valid(inventory)


@pytest.mark.parametrize("name", ["Billing-42", "BILLING", "billing-42", "task\u212a", "stra\u00dfe"])
def test_upper_case_and_lookalikes_get_the_same_verdict_from_the_schema_and_park(name: str) -> None:
    """Whatever parkbot.core.identity accepts (upper case folded, or not), the schema accepts exactly that."""
    data = needs(origin=name, options=[f"{name}: a label"], guess=name)
    schema_ok = jsonschema.Draft202012Validator(result_json_schema()).is_valid(data)
    try:
        parsed = parse_result(data)
    except InvalidInput:
        park_ok = False
    else:
        park_ok = True
        assert parsed.origin == parsed.origin.lower()  # what is stored is folded
    assert schema_ok is park_ok
    assert park_ok is bool(NAME_PATTERN.search(name))
    if "\u212a" in name or "\u00df" in name:
        assert not park_ok  # never folded into another origin's identity


def test_json_text_with_a_key_given_twice_or_nan_is_refused() -> None:
    assert "given twice" in rejected('{"status": "done", "origin": "o", "none": false, "none": true}')
    assert "NaN" in rejected(
        '{"status": "needs_input", "origin": "o", "key": "k", "question": "q", "work_so_far": NaN}'
    )
    assert "UTF-8" in rejected(b'{"status": "done", "origin": "\xff"}')


def test_work_so_far_must_be_json_when_given_from_python() -> None:
    assert "must be JSON" in rejected(needs(work_so_far={"when": object()}))
    assert "must be JSON" in rejected(needs(work_so_far=float("nan")))


def test_the_option_string_form_is_exact() -> None:
    result = parse_result(needs(options=["a: first label", "b:second", "c"], guess="c"))
    assert [(o.id, o.label) for o in result.options] == [("a", "first label"), ("b", "second"), ("c", "c")]
    assert "its id" in rejected(needs(options=["a b: x"]))


def test_inventory_entries_are_keys_or_full_ids() -> None:
    done = parse_result({"status": "done", "origin": "o", "decisions": ["k", "x-decision-y"]})
    assert isinstance(done, Done)
    assert done.decision_ids() == ["o-decision-k", "x-decision-y"]
    assert "neither a decision key" in rejected({"status": "done", "origin": "o", "decisions": ["not a key"]})


def test_the_cross_field_rules_the_schema_cannot_state_are_listed_in_it() -> None:
    description = result_json_schema()["description"]
    for rule in RULES_BEYOND_THE_SCHEMA:
        assert rule in description


def test_a_work_so_far_nested_past_the_limit_is_refused_naming_the_field_not_a_crash() -> None:
    from parkbot.core.models import MAX_WORK_DEPTH

    deep: object = "x"
    for _ in range(900):
        deep = [deep]
    with pytest.raises(InvalidInput, match=rf"work_so_far: is nested more than {MAX_WORK_DEPTH} levels deep"):
        parse_result({"status": "needs_input", "origin": "a", "key": "b", "question": "q?", "work_so_far": deep})
    fits: object = "x"
    for _ in range(MAX_WORK_DEPTH - 1):
        fits = {"k": fits}
    parsed = parse_result({"status": "needs_input", "origin": "a", "key": "b", "question": "q?", "work_so_far": [fits]})
    assert parsed.work_so_far == [fits]
