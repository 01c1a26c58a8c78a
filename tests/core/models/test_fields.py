"""The published patterns of the field types: anchored where they must be, embeddable without capturing groups."""

from __future__ import annotations

import re

import pytest

from parkbot.core.models import fields


def test_a_name_embeds_in_larger_patterns_without_capturing_groups() -> None:
    assert re.compile(fields._NAME).groups == 0
    assert f"^{fields._NAME}{fields.SEPARATOR}{fields._NAME}$" == fields.DECISION_ID_REGEX


@pytest.mark.parametrize("pattern", ["abc", "^abc", "abc$"])
def test_only_an_anchored_pattern_is_embedded(pattern: str) -> None:
    with pytest.raises(ValueError, match="expected an anchored pattern"):
        fields._bare(pattern)


@pytest.mark.parametrize(
    ("text", "found"),
    [("#12", "12"), ("pr:7", "7"), ("pull/3", "3"), ("12", "12"), ("pr:", None), ("#1234567890", None)],
)
def test_pull_requests_are_read_as_written(text: str, found: str | None) -> None:
    match = re.search(fields.PULL_REQUEST_REGEX, text)
    assert (match.group(1) if match else None) == found
