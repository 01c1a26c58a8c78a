"""What an owner reads on the issue when a comment command is malformed: the core says what is wrong (a reason
code and what was typed), the GitHub surface words it in comment commands, byte for byte as pinned here."""

from __future__ import annotations

import pytest

from parkbot.core.commands import Command, parse
from parkbot.events.replies import command_problem

AFTER_A_GREETING = "Thanks for asking.\n\n"  # puts the command on line 3


@pytest.mark.parametrize(
    ("typed", "reply"),
    [
        ("/decide", "/decide needs an option id, e.g. `/decide <option-id>`"),
        ("/default", "/default needs an option id, e.g. `/default <option-id>`"),
        ("/decide a b", "/decide takes exactly one option id, got 'a b'"),
        ("/default a  b", "/default takes exactly one option id, got 'a  b'"),
        ("/answer", "/answer needs the answer text, e.g. `/answer ship it on Monday`"),
        ("/escalate to the boss", "/escalate takes at most one name: `/escalate` or `/escalate <to>`"),
        ("/return now", "/return takes no argument"),
        ("/accept all of them", "/accept takes no argument"),
        ("/help me", "/help takes no argument"),
        (
            "/override",
            "/override needs an assumption number and text (`/override <n> <text>`), or an option "
            "(`/override <option> [why]`)",
        ),
        ("/override 2", "/override needs the replacement text"),
        ("/cite", "/cite needs an option and its sources: `/cite <option> <source>...`"),
        ("/correct full", "/correct needs the option and why: `/correct <option> <why>`"),
        ("/correct", "/correct needs the option and why: `/correct <option> <why>`"),
    ],
)
def test_a_malformed_command_is_answered_in_the_issues_comment_commands(typed: str, reply: str) -> None:
    found = parse(AFTER_A_GREETING + typed)
    assert found is not None
    assert not found.ok
    assert command_problem(found) == reply


def test_a_well_formed_command_has_no_problem_to_say() -> None:
    assert command_problem(Command("decide", arg="a")) == ""
