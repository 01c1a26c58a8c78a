"""Rules of comment commands, one test each: the command, argument, line and error text an owner gets back."""

from __future__ import annotations

import pytest

from parkbot.core.commands import Command, parse, parse_all

COMMAND_LIST = "/decide, /answer, /default, /escalate, /return, /accept, /override, /help, /correct, /cite, /pass"
AFTER_A_GREETING = "Thanks for asking.\n\n"  # puts the command on line 3


# --- what a malformed command says, and where it is -------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("/decide", Command("decide", line=3, error="/decide needs an option id, e.g. `/decide <option-id>`")),
        ("/default", Command("default", line=3, error="/default needs an option id, e.g. `/default <option-id>`")),
        (
            "/decide a b",
            Command("decide", arg="a", line=3, error="/decide takes exactly one option id, got 'a b'"),
        ),
        (
            "/default a  b",
            Command("default", arg="a", line=3, error="/default takes exactly one option id, got 'a  b'"),
        ),
        (
            "/answer",
            Command("answer", line=3, error="/answer needs the answer text, e.g. `/answer ship it on Monday`"),
        ),
        (
            "/escalate to the boss",
            Command("escalate", line=3, error="/escalate takes at most one name: `/escalate` or `/escalate <to>`"),
        ),
        ("/return now", Command("return", arg="now", line=3, error="/return takes no argument")),
        ("/accept all of them", Command("accept", arg="all of them", line=3, error="/accept takes no argument")),
        ("/help me", Command("help", arg="me", line=3, error="/help takes no argument")),
        (
            "/override",
            Command(
                "override",
                line=3,
                error="/override needs an assumption number and text (`/override <n> <text>`), or an option "
                "(`/override <option> [why]`)",
            ),
        ),
        ("/override 2", Command("override", number=2, line=3, error="/override needs the replacement text")),
    ],
)
def test_a_malformed_command_is_returned_with_its_name_line_what_was_typed_and_the_exact_error(
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
        error=f"/decid is not a parkbot command; did you mean /decide? The commands are {COMMAND_LIST}.",
    )


def test_a_word_as_alike_as_the_near_miss_threshold_is_a_near_miss_and_a_less_alike_one_is_text() -> None:
    found = parse("/hxlp")  # difflib's ratio to "help" is exactly 0.75
    assert found is not None
    assert found.error == f"/hxlp is not a parkbot command; did you mean /help? The commands are {COMMAND_LIST}."
    assert parse("/dec x") is None  # 0.67 to "decide"
    assert parse("/hx") is None  # 0.67 to "help"
