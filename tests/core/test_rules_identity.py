"""Rules of derived ids, one test each, pinned by the exact message a person reads when a name is refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from parkbot.core.identity import ALPHABET_HINT, check_decision_id, decision_id, normalize_name


def refusal(call: Callable[..., object], *args: object) -> str:
    with pytest.raises(ValueError) as info:
        call(*args)
    return str(info.value)


def test_a_name_that_is_not_text_is_refused_as_not_a_string() -> None:
    assert refusal(normalize_name, 42) == "name must be a string"


def test_an_unnamed_name_is_called_name_in_its_error() -> None:
    assert refusal(normalize_name, "  ") == "name must not be empty"


def test_each_refused_ascii_character_is_listed_once_in_order_separated_by_commas() -> None:
    assert refusal(normalize_name, "a b/c/d") == (
        f"name 'a b/c/d': characters ' ', '/' are not allowed; {ALPHABET_HINT}"
    )


def test_a_refused_non_ascii_character_is_shown_with_its_code_point_and_an_ascii_one_without() -> None:
    assert refusal(normalize_name, "\u00e9/x") == (
        f"name '\u00e9/x': characters '/', '\u00e9' (U+00E9) are not allowed; {ALPHABET_HINT}"
    )


@pytest.mark.parametrize("edge", ["-lead", "trail.", "_"])
def test_a_name_of_allowed_characters_with_a_bad_first_or_last_one_says_how_it_must_start_and_end(edge: str) -> None:
    assert refusal(normalize_name, edge) == (
        f"name {edge!r}: must start and end with a letter or digit; {ALPHABET_HINT}"
    )


def test_a_bad_origin_is_called_origin_in_the_decision_id_error() -> None:
    assert refusal(decision_id, "a b", "key") == f"origin 'a b': characters ' ' are not allowed; {ALPHABET_HINT}"


def test_a_bad_key_is_called_key_in_the_decision_id_error() -> None:
    assert refusal(decision_id, "origin", "k k") == f"key 'k k': characters ' ' are not allowed; {ALPHABET_HINT}"


def test_an_empty_origin_or_key_is_named_in_the_decision_id_error() -> None:
    assert refusal(decision_id, "", "key") == "origin must not be empty"
    assert refusal(decision_id, "origin", "") == "key must not be empty"


def test_an_id_without_the_separator_says_what_an_id_looks_like() -> None:
    assert refusal(check_decision_id, "billing-42") == (
        "'billing-42' is not a decision id: expected '<origin>-decision-<key>'"
    )


def test_an_id_is_read_without_surrounding_whitespace_and_folded() -> None:
    assert check_decision_id("  Billing-42-DECISION-Refund\n") == "billing-42-decision-refund"
