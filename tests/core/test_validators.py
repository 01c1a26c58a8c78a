"""The configuration's and the results' validators and defaults, as properties over generated inputs.

mutmut's engine does not mutate decorated functions (every pydantic validator is one) or class-level field
defaults, so the mutation runner cannot say whether a test holds them (docs/mutation-testing.md). These
tests hold them instead: each validator against a plain statement of its rule, on inputs hypothesis
generates, and every default of the configuration by its exact value.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from parkbot.core.config import BRANCH_LIKE_REFS, Answers, Config, GitHubOptions, Owners
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Done, NeedsInput, parse_result
from tests.support.results import DONE, result_data

NAMES = st.sampled_from(["alice", "Alice", "bob", "BOB", "carol", "dana"])


def refusal(build: Callable[[], object]) -> str | None:
    """The error text ``build`` fails with (pydantic's or parkbot's), or None when it succeeds."""
    try:
        build()
    except ValidationError as exc:
        return str(exc)
    except InvalidInput as exc:
        return exc.message
    return None


def has_cycle(hierarchy: dict[str, str]) -> bool:
    """The rule, stated plainly: following "above" from some owner (names compared casefolded) comes back."""
    above = {k.casefold(): v.casefold() for k, v in hierarchy.items()}
    for start in above:
        node, path = start, [start]
        while node in above:
            node = above[node]
            if node in path:
                return True
            path.append(node)
    return False


@given(st.dictionaries(NAMES, NAMES, max_size=5))
def test_a_hierarchy_is_accepted_exactly_when_it_has_no_cycle(hierarchy: dict[str, str]) -> None:
    message = refusal(lambda: Config(hierarchy=hierarchy))
    if has_cycle(hierarchy):
        assert message is not None
        assert "the hierarchy has a cycle through" in message
        assert "questions must only go up" in message
    else:
        assert message is None


REF_PARTS = st.sampled_from(["refs/", "refs/parkbot/", *BRANCH_LIKE_REFS, "ref/", "heads/", "", "Refs/"])
SEGMENTS = st.text(alphabet=st.sampled_from(["a", "b", "/", ".", " ", "-"]), max_size=8)


@given(REF_PARTS, SEGMENTS)
def test_a_backlog_ref_is_accepted_exactly_when_it_is_a_full_ref_of_its_own(prefix: str, rest: str) -> None:
    ref = prefix + rest
    full = ref.startswith("refs/") and ".." not in ref and " " not in ref
    message = refusal(lambda: Config(backlog_ref=ref))
    if not full:
        assert message is not None
        assert "must be a full ref name such as refs/parkbot/backlog" in message
    elif ref.startswith(BRANCH_LIKE_REFS):
        assert message is not None
        assert f"{ref} is a branch, tag or remote-tracking ref" in message
    else:
        assert message is None
        assert Config(backlog_ref=ref).backlog_ref == ref


@given(st.booleans(), st.sampled_from([None, "", "alice"]))
def test_signed_answers_are_accepted_exactly_with_a_configured_default_owner(signed: bool, default: str | None) -> None:
    message = refusal(lambda: Config(owners=Owners(default=default), answers=Answers(require_signed=signed)))
    if signed and not default:
        assert message is not None
        assert "answers.require_signed needs owners.default" in message
    else:
        assert message is None


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=4), st.sampled_from([None, "a", "b", "z"]))
def test_options_are_accepted_exactly_when_unique_and_the_guess_is_one_of_them(
    ids: list[str], guess: str | None
) -> None:
    data = result_data(options=[f"{i}: option {i}" for i in ids], guess=guess)
    message = refusal(lambda: parse_result(data))
    if len(set(ids)) != len(ids):
        assert message is not None
        assert "options: duplicate option id" in message
    elif guess is not None and ids and guess not in ids:
        assert message is not None
        assert f"guess: {guess!r} is not one of the option ids" in message
    else:
        assert message is None
        parsed = parse_result(data)
        assert isinstance(parsed, NeedsInput)
        assert [o.id for o in parsed.options] == ids


@given(st.lists(st.sampled_from(["refund", "billing-42-decision-refund"]), max_size=2), st.booleans())
def test_an_inventory_is_accepted_exactly_when_it_lists_decisions_or_says_none(
    decisions: list[str], none: bool
) -> None:
    data = result_data(DONE, decisions=decisions, none=none)
    message = refusal(lambda: parse_result(data))
    if decisions and none:
        assert message is not None
        assert "none: true contradicts a non-empty decisions list" in message
    elif not decisions and not none:
        assert message is not None
        assert "an empty inventory is not accepted as 'nothing found'" in message
    else:
        assert message is None
        assert isinstance(parse_result(data), Done)


@given(st.integers(min_value=0, max_value=10**6))
def test_a_rate_limit_wait_in_seconds_or_as_a_duration_is_read_as_seconds(seconds: int) -> None:
    assert GitHubOptions(rate_limit_wait=seconds).rate_limit_wait == seconds
    assert GitHubOptions(rate_limit_wait=f"{seconds}s").rate_limit_wait == seconds
    assert GitHubOptions(rate_limit_wait=f"{seconds}m").rate_limit_wait == seconds * 60


@pytest.mark.parametrize("value", [True, False])
def test_a_rate_limit_wait_of_true_or_false_is_refused(value: bool) -> None:
    with pytest.raises(ValidationError, match=f"{str(value).lower()} is not a duration"):
        GitHubOptions(rate_limit_wait=value)


def test_every_default_of_the_configuration_is_the_documented_one() -> None:
    assert Config().model_dump(mode="json") == {
        "owners": {"default": None, "origins": {}},
        "hierarchy": {},
        "limits": {"open_per_origin": 3, "open_per_run": 20, "one_blocking_question_per_origin": False},
        "precedents": "suggest",
        "repository_permission_resolves": "none",
        "closed_without_answer": "reopen",
        "agent_branches": ["agent/**"],
        "paths": {"decisions": ".parkbot/decisions", "inventory": ".parkbot/inventory.json"},
        "backlog_ref": "refs/parkbot/backlog",
        "answers": {"require_signed": False, "allowed_signers": ".github/allowed_signers"},
        "gate": {"publish": "check"},
        "bot_login": None,
        "github": {"rate_limit_wait": 300.0},
        "planner": None,
        "requesters": [],
        "identity": {"previous": None, "app": None},
    }
