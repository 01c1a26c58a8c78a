"""parkbot.core.commands, the comment command parser: line starts only, never in code or quotes, first command wins;
and its rules one test each: the command, argument, line and error an owner gets back."""

from __future__ import annotations

from dataclasses import asdict
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parkbot.core.commands import COMMAND_NAMES, Command, CommandProblem, ProblemReason, parse, parse_all


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
        "/usr/bin/env is a path",
        "- /decide full_original",
        "1. /decide full_original",
        "# /decide full_original",
        "| option |\n| --- |\n| /decide full_original |",
        "*/decide full_original*",
        "[/decide full_original](https://example.com)",
        "<div>\n/decide full_original\n</div>",
        "text <!-- a\n/decide full_original -->",
        "> q\n/decide full_original",
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
        ("/decide", CommandProblem("missing_argument")),
        ("/decide a b", CommandProblem("extra_arguments", "a b")),
        ("/default", CommandProblem("missing_argument")),
        ("/answer", CommandProblem("missing_argument")),
        ("/escalate to the boss", CommandProblem("extra_arguments", "to the boss")),
        ("/return now", CommandProblem("extra_arguments", "now")),
        ("/override", CommandProblem("missing_argument")),
        ("/cite", CommandProblem("missing_argument")),
        ("/correct full", CommandProblem("missing_argument")),
        ("/override 2", CommandProblem("missing_text")),
    ],
)
def test_malformed_commands_say_what_is_wrong_by_a_reason_code_and_what_was_typed(
    body: str, error: CommandProblem
) -> None:
    found = parse(body)
    assert found is not None
    assert not found.ok
    assert found.error == error


@pytest.mark.parametrize(
    "body", ["/decide", "/default a b", "/answer", "/escalate a b", "/accept x", "/cite", "/correct x", "/override"]
)
def test_a_malformed_commands_problem_carries_no_surface_words(body: str) -> None:
    """The core says what is wrong, never what to type: no command syntax, no Markdown (each surface adds its own)."""
    found = parse(body)
    assert found is not None
    assert found.error is not None
    said = [value for value in asdict(found.error).values() if value is not None]
    assert said[0] in get_args(ProblemReason)
    assert [word for word in said if "/" in word or "`" in word or "<" in word] == []


def test_render_round_trips() -> None:
    for body in ("/decide a", "/escalate carol", "/override 2 use USD", "/accept"):
        found = parse(body)
        assert found is not None
        assert found.render() == body


@given(st.text())
def test_parser_never_crashes(body: str) -> None:
    found = parse_all(body)
    for command in found:
        assert command.name in set(COMMAND_NAMES)


# --- structure as rendered: the cases a line-based reading got wrong --------------------------------


def test_a_valid_command_is_ok_and_carries_no_error() -> None:
    found = parse("/decide a")
    assert found is not None
    assert found.ok
    assert found.error is None


def test_a_command_after_a_quoted_line_counts_when_a_blank_line_ends_the_quote() -> None:
    """A line right after a quote continues the quote (as rendered); after a blank line it is a command."""
    assert parse("> q\n/decide a") is None
    assert parse("> q\n\n/decide a") == Command("decide", arg="a", line=3)


def test_later_lines_still_count_after_a_quoted_paragraph() -> None:
    assert [c.arg for c in parse_all("> q\n\nsee above\n/decide a\n/decide b")] == ["a", "b"]


def test_a_quote_right_after_answer_is_not_part_of_the_answer() -> None:
    assert parse("/answer yes\n> what they said") == Command("answer", arg="yes")


def test_an_indented_line_after_answer_continues_the_answer() -> None:
    assert parse("/answer first\n    second") == Command("answer", arg="first\nsecond")


def test_a_command_line_ends_the_answer_and_is_a_command_of_its_own() -> None:
    assert parse_all("/answer yes\nmore\n/escalate") == [
        Command("answer", arg="yes\nmore"),
        Command("escalate", line=3),
    ]


def test_lines_after_a_multi_line_html_comment_keep_their_numbers() -> None:
    assert parse("<!--\nhidden\n-->\n/decide a") == Command("decide", arg="a", line=4)


def test_lone_carriage_returns_end_lines() -> None:
    assert parse("thanks\r/decide a") == Command("decide", arg="a", line=2)


def test_a_fence_whose_info_holds_a_backtick_is_no_fence() -> None:
    """CommonMark: a backtick fence's info string cannot hold a backtick, so that line opens no code block;
    the next line renders as plain text and is a command (as the owner sees it)."""
    assert parse("``` a`b\n/decide a\n```") == Command("decide", arg="a", line=2)
    assert parse("~~~ a`b\n/decide a\n~~~") is None  # a tilde fence may hold one


def test_help_takes_no_argument() -> None:
    assert parse("/help") == Command("help")
    found = parse("/help me")
    assert found is not None
    assert found.error == CommandProblem("extra_arguments", "me")


@pytest.mark.parametrize(("typo", "meant"), [("/decid full", "decide"), ("/Escalte", "escalate"), ("/acept", "accept")])
def test_a_near_miss_is_an_error_naming_the_closest_command_and_the_list(typo: str, meant: str) -> None:
    assert parse_all(typo) == []
    found = parse(typo)
    assert found is not None
    assert found.name == "unknown"
    assert found.meant == meant
    assert not found.ok
    assert found.render() == typo.split()[0]


def test_a_real_command_wins_over_an_earlier_near_miss() -> None:
    assert parse("/decid a\n/decide b") == Command("decide", arg="b", line=2)


@pytest.mark.parametrize("word", ["/usr/bin", "/tmp", "/x", "/etc/hosts is fine"])
def test_words_that_are_not_near_a_command_are_plain_text(word: str) -> None:
    assert parse(word) is None


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_quoted_or_fenced_text_never_yields_a_command(body: str) -> None:
    quoted = "\n".join("> " + line for line in body.splitlines()) or "> "
    assert parse(quoted) is None
    assert parse("```\n" + body.replace("```", "") + "\n```") is None


def test_planner_and_correction_commands_parse_their_arguments() -> None:
    assert parse("/cite full docs/a.md#L1-L3 billing-1-decision-refund") == Command(
        "cite", arg="full", sources=("docs/a.md#L1-L3", "billing-1-decision-refund")
    )
    assert parse("/pass no policy covers it") == Command("pass", reason="no policy covers it")
    assert parse("/override two because") == Command("override", arg="two", reason="because")
    assert parse("/correct two typed the wrong one") == Command("correct", arg="two", reason="typed the wrong one")
    assert parse("/cite full docs/a.md#L1").render() == "/cite full docs/a.md#L1"


AFTER_A_GREETING = "Thanks for asking.\n\n"  # puts the command on line 3
MISSING = CommandProblem("missing_argument")


# --- what is wrong with a malformed command, and where (its words: tests/events/test_events_command_words.py) ---


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("/decide", Command("decide", line=3, error=MISSING)),
        ("/default", Command("default", line=3, error=MISSING)),
        (
            "/decide a b",
            Command("decide", arg="a", line=3, error=CommandProblem("extra_arguments", "a b")),
        ),
        (
            "/default a  b",
            Command("default", arg="a", line=3, error=CommandProblem("extra_arguments", "a  b")),
        ),
        (
            "/answer",
            Command("answer", line=3, error=MISSING),
        ),
        (
            "/escalate to the boss",
            Command("escalate", line=3, error=CommandProblem("extra_arguments", "to the boss")),
        ),
        ("/return now", Command("return", arg="now", line=3, error=CommandProblem("extra_arguments", "now"))),
        (
            "/accept all of them",
            Command("accept", arg="all of them", line=3, error=CommandProblem("extra_arguments", "all of them")),
        ),
        ("/help me", Command("help", arg="me", line=3, error=CommandProblem("extra_arguments", "me"))),
        (
            "/override",
            Command(
                "override",
                line=3,
                error=MISSING,
            ),
        ),
        ("/override 2", Command("override", number=2, line=3, error=CommandProblem("missing_text"))),
    ],
)
def test_a_malformed_command_is_returned_with_its_name_line_what_was_typed_and_the_reason(
    typed: str, expected: Command
) -> None:
    assert parse(AFTER_A_GREETING + typed) == expected
    assert parse_all(AFTER_A_GREETING + typed) == [expected]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("/decide a", Command("decide", arg="a", line=3)),
        ("/default a", Command("default", arg="a", line=3)),
        ("/answer ship it", Command("answer", arg="ship it", line=3)),
        ("/escalate", Command("escalate", line=3)),
        ("/escalate carol", Command("escalate", arg="carol", line=3)),
        ("/return", Command("return", line=3)),
        ("/accept", Command("accept", line=3)),
        ("/help", Command("help", line=3)),
        ("/override 2 use USD", Command("override", number=2, arg="use USD", line=3)),
    ],
)
def test_a_command_after_other_text_reports_the_line_it_is_on(typed: str, expected: Command) -> None:
    assert parse(AFTER_A_GREETING + typed) == expected


# --- which following lines belong to a command -----------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/decide a\nbecause it is cheaper", Command("decide", arg="a")),
        ("/default a\nas agreed", Command("default", arg="a")),
        ("/escalate carol\nshe owns billing", Command("escalate", arg="carol")),
        ("/return\nnot mine", Command("return")),
        ("/accept\nall good", Command("accept")),
    ],
)
def test_only_answer_and_override_take_the_lines_after_them(body: str, expected: Command) -> None:
    assert parse(body) == expected


def test_an_override_takes_the_lines_of_its_paragraph_up_to_the_next_command() -> None:
    assert parse_all("/override 1 EUR,\nnet of tax\n/accept") == [
        Command("override", number=1, arg="EUR,\nnet of tax"),
        Command("accept", line=3),
    ]


# --- a line starts a command only where the rendered line starts with it --------------------------


def test_a_command_after_a_hard_line_break_counts() -> None:
    assert parse("Thanks  \n/decide a") == Command("decide", arg="a", line=2)
    assert parse("Thanks\\\n/decide a") == Command("decide", arg="a", line=2)


def test_a_command_after_a_line_that_ends_in_code_counts() -> None:
    assert parse("see `x`\n/decide a") == Command("decide", arg="a", line=2)


def test_a_command_after_a_multi_line_html_comment_in_a_paragraph_counts() -> None:
    assert parse("text <!-- a\nb -->\n/decide x") == Command("decide", arg="x", line=3)
    assert parse("<span\nclass=x>\n/decide a") == Command("decide", arg="a", line=3)


def test_a_command_after_a_multi_line_code_span_counts_and_one_inside_it_does_not() -> None:
    assert parse("`a\n/decide b`") is None
    assert parse("`a\nb`\n/decide x") == Command("decide", arg="x", line=3)


def test_a_command_after_a_multi_line_image_or_link_title_counts() -> None:
    assert parse("![a\nb](x.png)\n/decide y") == Command("decide", arg="y", line=3)
    assert parse('[a](/u "t\nu")\n/decide z') == Command("decide", arg="z", line=3)


def test_a_line_that_continues_emphasis_or_a_link_is_not_a_command() -> None:
    assert parse("*a\n/decide b*") is None
    assert parse("**a\n/decide b**") is None
    assert parse("[a\n/decide b](https://example.com)") is None
    assert parse("*a*\n/decide q") == Command("decide", arg="q", line=2)


def test_a_line_inside_a_link_after_text_and_an_escape_is_not_a_command() -> None:
    """markdown-it looks ahead for the link's end with its rules told to be silent; a rule that spoke anyway
    would put a line break before the link, and the line inside it would read as a command."""
    assert parse_all("x [a\n/decide y\\*](http://e)") == []
    assert parse_all("x [a\\\n/decide y](http://e)") == []


@pytest.mark.parametrize(
    "body",
    [
        'x <a href="https://example.com">a\n/decide y</a>',
        "x <b>a\n/decide y</b>",
        "x <STRONG>a\n/decide y</STRONG>",
        'x <em class="c">a <i>b</i>\n/decide y</em>',
        "x <b>an element never closed\n/decide y",
    ],
)
def test_a_line_inside_an_html_element_is_not_a_command(body: str) -> None:
    """It renders inside the element (a link, bold text) exactly as inside Markdown's own link or emphasis."""
    assert parse_all(body) == []


@pytest.mark.parametrize(
    "body",
    [
        "x <b>a</b>\n/decide y",
        "x<br>\n/decide y",
        "x<BR>\n/decide y",
        "x <br/>\n/decide y",
        "x <b/>\n/decide y",
        "x </b>\n/decide y",
        "x <!-- a note -->\n/decide y",
        "x `<b>` a\n/decide y",  # a tag in code is text, not an element
    ],
)
def test_a_line_after_a_closed_empty_or_stray_html_tag_or_in_a_plain_element_is_a_command(body: str) -> None:
    assert parse_all(body) == [Command("decide", arg="y", line=2)]


def test_a_line_inside_a_span_starts_visibly_and_is_a_command() -> None:
    assert parse_all("x <span>a\n/decide y</span>") == [Command("decide", arg="y</span>", line=2)]


def test_a_line_inside_emphasis_continues_an_answer_rather_than_ending_it() -> None:
    assert parse_all("/answer *yes\n/decide b*") == [Command("answer", arg="*yes\n/decide b*")]


# --- near misses ------------------------------------------------------------------------------------


def test_a_near_miss_reports_the_line_it_is_on() -> None:
    assert parse(AFTER_A_GREETING + "/decid a") == Command(
        "unknown",
        arg="/decid",
        line=3,
        meant="decide",
    )


def test_a_word_as_alike_as_the_near_miss_threshold_is_a_near_miss_and_a_less_alike_one_is_text() -> None:
    found = parse("/hxlp")  # difflib's ratio to "help" is exactly 0.75
    assert found is not None
    assert found.meant == "help"
    assert not found.ok
    assert parse("/dec x") is None  # 0.67 to "decide"
    assert parse("/hx") is None  # 0.67 to "help"
