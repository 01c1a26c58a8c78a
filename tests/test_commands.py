"""The comment command parser: line starts only, never in code or quotes, first command wins."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.commands import Command, parse, parse_all


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/decide full_original", Command("decide", arg="full_original")),
        ("  /decide full_original  ", Command("decide", arg="full_original")),
        ("/Decide Full_Original", Command("decide", arg="Full_Original")),
        ("/default remaining_three", Command("default", arg="remaining_three")),
        ("/answer refund 500 and call them", Command("answer", arg="refund 500 and call them")),
        ("/escalate", Command("escalate")),
        ("/escalate @acme/leads", Command("escalate", arg="@acme/leads")),
        ("/return", Command("return")),
        ("/accept", Command("accept")),
        ("/override 2 use USD instead", Command("override", arg="use USD instead", number=2)),
    ],
)
def test_each_command(body: str, expected: Command) -> None:
    assert parse(body) == expected


def test_line_numbers_and_crlf() -> None:
    found = parse("Thanks!\r\n\r\n/decide a\r\n")
    assert found == Command("decide", arg="a", line=3)


def test_answer_takes_its_paragraph() -> None:
    body = "/answer Refund the remaining three,\nthen email the customer.\n\nThanks"
    assert parse(body) == Command("answer", arg="Refund the remaining three,\nthen email the customer.")


def test_override_takes_its_paragraph() -> None:
    assert parse("/override 1 EUR,\nnet of tax") == Command("override", arg="EUR,\nnet of tax", number=1)


@pytest.mark.parametrize(
    "body",
    [
        "> /decide full_original",
        "   > /decide full_original",
        "```\n/decide full_original\n```",
        "~~~md\n/decide full_original\n~~~",
        "````\n```\n/decide full_original\n```\n````",
        "Some text\n\n    /decide full_original",
        "\t/decide full_original",
        "<!--\n/decide full_original\n-->",
        "<!-- /decide full_original -->",
        "please /decide full_original",
        "`/decide full_original`",
        "/decided full_original",
        "/usr/bin/env is a path",
        "",
    ],
)
def test_not_a_command(body: str) -> None:
    assert parse(body) is None


def test_code_fence_closes_then_commands_count_again() -> None:
    assert parse("```\n/decide a\n```\n/decide b") == Command("decide", arg="b", line=4)


def test_unclosed_fence_hides_the_rest() -> None:
    assert parse("```\n/decide a\n") is None


def test_first_command_wins() -> None:
    body = "/decide a\n/decide b\n/escalate"
    assert parse(body) == Command("decide", arg="a")
    assert [c.name for c in parse_all(body)] == ["decide", "decide", "escalate"]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("/decide", "needs an option id"),
        ("/decide a b", "exactly one option id"),
        ("/default", "needs an option id"),
        ("/answer", "needs the answer text"),
        ("/escalate to the boss", "at most one name"),
        ("/return now", "takes no argument"),
        ("/override two x", "assumption number"),
        ("/override 2", "replacement text"),
    ],
)
def test_malformed_commands_say_what_is_wrong(body: str, error: str) -> None:
    found = parse(body)
    assert found is not None
    assert not found.ok
    assert error in (found.error or "")


def test_render_round_trips() -> None:
    for body in ("/decide a", "/escalate carol", "/override 2 use USD", "/accept"):
        found = parse(body)
        assert found is not None
        assert found.render() == body


@given(st.text())
def test_parser_never_crashes(body: str) -> None:
    found = parse_all(body)
    for command in found:
        assert command.name in {"decide", "answer", "default", "escalate", "return", "accept", "override"}


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_quoted_or_fenced_text_never_yields_a_command(body: str) -> None:
    quoted = "\n".join("> " + line for line in body.splitlines()) or "> "
    assert parse(quoted) is None
    assert parse("```\n" + body.replace("```", "") + "\n```") is None
