"""parkbot.core.identity, derived ids and labels: pure, stable, and within GitHub's limits; and its rules one test
each, pinned by the exact message a person reads when a name is refused."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parkbot.core.identity import (
    ALPHABET_HINT,
    MAX_ID_LENGTH,
    MAX_NAME_LENGTH,
    NAME_REGEX,
    SEPARATOR,
    check_decision_id,
    decision_id,
    is_name,
    normalize_name,
)
from parkbot.trackers.github.labels import GITHUB_LABEL_MAX, decision_label

names = st.from_regex(r"[a-z0-9]([a-z0-9._-]{0,98}[a-z0-9])?", fullmatch=True)


def test_id_is_origin_decision_key() -> None:
    assert decision_id("Billing-42", "Refund") == "billing-42-decision-refund"


@pytest.mark.parametrize("bad", ["", "  ", "a b", "émile", "x/y", "-lead", "trail-", "a" * 101, "semi;colon"])
def test_names_outside_the_alphabet_are_errors_not_rewritten(bad: str) -> None:
    with pytest.raises(ValueError, match=r"origin"):
        normalize_name(bad, what="origin")


def test_error_names_the_offending_characters() -> None:
    with pytest.raises(ValueError, match=r"'/'"):
        normalize_name("a/b", what="key")


def test_short_labels_are_the_id_itself() -> None:
    assert decision_label("a-decision-b") == "decision:a-decision-b"


@given(names, names)
def test_labels_never_exceed_githubs_limit(origin: str, key: str) -> None:
    assert len(decision_label(decision_id(origin, key))) <= GITHUB_LABEL_MAX


@given(names, names, names, names)
@settings(max_examples=300)
def test_distinct_ids_get_distinct_labels(o1: str, k1: str, o2: str, k2: str) -> None:
    a, b = decision_id(o1, k1), decision_id(o2, k2)
    if a != b:
        assert decision_label(a) != decision_label(b)


def test_no_label_collisions_among_many_long_ids_sharing_a_prefix() -> None:
    prefix = "agent-fleet-" + "x" * 60
    labels = {decision_label(decision_id(prefix, f"question-{i}")) for i in range(20_000)}
    assert len(labels) == 20_000


@given(names, names)
def test_ids_round_trip_through_check(origin: str, key: str) -> None:
    did = decision_id(origin, key)
    assert check_decision_id(did.upper()) == did


def test_labels_are_stable_across_processes_and_hash_seeds() -> None:
    """Labels are a stored contract: they must not depend on PYTHONHASHSEED or the interpreter."""
    long_id = decision_id("o" * 80, "k" * 80)
    code = f"from parkbot.trackers.github.labels import decision_label as f; print(f({long_id!r}))"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": seed}
        ).stdout.strip()
        for seed in ("0", "1", "12345")
    }
    assert outputs == {decision_label(long_id)}
    # A fixed vector: if this changes, every existing GitHub decision is orphaned.
    assert decision_label(long_id) == "decision:" + "o" * 30 + "~a5ec419fec"
    assert decision_label("agent-7-decision-" + "q" * 40) == "decision:agent-7-decision-qqqqqqqqqqqqq~766bd59efb"


def test_a_shortened_label_never_equals_an_unshortened_one() -> None:
    shortened = decision_label("a" * 30 + "-decision-" + "b" * 30)
    assert "~" in shortened
    assert len(shortened) == GITHUB_LABEL_MAX


# --- the alphabet is checked before case folding, and the limits hold at their boundaries ----------


@pytest.mark.parametrize("folds_to_ascii", ["task\u212a", "\u212aey", "stra\u00dfe", "\u0130d", "\ufb01le"])
def test_characters_that_fold_into_the_alphabet_are_refused_not_folded(folds_to_ascii: str) -> None:
    """The Kelvin sign lowercases to 'k' and U+0130 to 'i̇': accepting them would merge distinct origins."""
    with pytest.raises(ValueError, match="not allowed") as info:
        normalize_name(folds_to_ascii, what="origin")
    assert "U+" in str(info.value)  # the message names the invisible culprit
    with pytest.raises(ValueError, match="not a decision id"):
        check_decision_id(f"{folds_to_ascii}-decision-key")


def test_upper_case_ascii_is_folded_in_names_and_ids() -> None:
    assert normalize_name("Billing-42", what="origin") == "billing-42"
    assert check_decision_id("Billing-42-Decision-Refund") == "billing-42-decision-refund"


def test_a_name_of_exactly_the_maximum_length_is_accepted_and_one_more_is_not() -> None:
    longest = "a" * MAX_NAME_LENGTH
    assert normalize_name(longest, what="key") == longest
    with pytest.raises(ValueError, match=f"at most {MAX_NAME_LENGTH}"):
        normalize_name(longest + "a", what="key")


def test_an_id_of_exactly_the_maximum_length_is_accepted_and_one_more_is_not() -> None:
    longest = decision_id("a" * MAX_NAME_LENGTH, "b" * MAX_NAME_LENGTH)
    assert len(longest) == MAX_ID_LENGTH
    assert check_decision_id(longest) == longest
    with pytest.raises(ValueError, match=f"at most {MAX_ID_LENGTH}"):
        check_decision_id(longest + "b")


@pytest.mark.parametrize("bad", ["a b-decision-c", "a~b-decision-c", "a-decision-c;d", "a-decision-\u00e9"])
def test_a_short_id_with_a_character_outside_the_alphabet_is_refused(bad: str) -> None:
    """Characters are checked whatever the length (not only for ids that are also too long)."""
    with pytest.raises(ValueError, match="not a decision id"):
        check_decision_id(bad)


def test_a_label_of_exactly_fifty_characters_is_kept_whole_and_fifty_one_is_shortened() -> None:
    fifty = "a" * (GITHUB_LABEL_MAX - len("decision:") - len(SEPARATOR) - 1) + SEPARATOR + "k"
    assert len("decision:" + fifty) == GITHUB_LABEL_MAX
    assert decision_label(fifty) == "decision:" + fifty
    longer = "a" + fifty
    shortened = decision_label(longer)
    assert len(shortened) == GITHUB_LABEL_MAX
    assert "~" in shortened


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


#: Text near the edge of the name rule: its alphabet, what it leaves out, newlines (``$`` matches before a final
#: one), whitespace, characters that fold into the alphabet.
_NEAR_NAMES = st.text(alphabet=st.sampled_from("aZ09._-\n \t/@\u212a\u0130\u00df\u00e9"), max_size=8)


@given(st.one_of(_NEAR_NAMES, names, st.text(max_size=8)))
@settings(max_examples=400)
def test_a_name_is_checked_exactly_as_its_published_pattern_reads_it(value: str) -> None:
    """The check compiles no pattern, and accepts exactly what NAME_REGEX does (the schema publishes it)."""
    assert is_name(value) is (re.search(NAME_REGEX, value) is not None)


@pytest.mark.parametrize("value", ["", "a", "a\n", "a\n\n", "\na", "-a", "a-", "a.b", "A_9", "a b", "\u212a"])
def test_the_edges_of_the_name_check(value: str) -> None:
    assert is_name(value) is (re.search(NAME_REGEX, value) is not None)
