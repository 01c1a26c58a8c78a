"""When an owner's act is left as their own comment command (:mod:`parkbot.core.own_comments`), and the
command posted: a run with a person's token never records an act as parkbot's own."""

from __future__ import annotations

import pytest

from parkbot.core import own_comments
from parkbot.core.errors import InvalidInput
from parkbot.core.models import Decision


class Backend:
    """A tracker whose records count only when its own identity writes them, run as ``as_itself``."""

    def __init__(self, *, as_itself: bool) -> None:
        self.as_itself = as_itself
        self.posted: list[str] = []

    def writes_as_itself(self) -> bool:
        return self.as_itself

    def post_command(self, decision: Decision, text: str) -> str:
        self.posted.append(text)
        return "https://example.test/comment"


class Embedded:
    """A backend whose records need no particular identity (the embedded git backlog)."""


def test_a_person_s_token_leaves_the_act_as_their_comment() -> None:
    backend = Backend(as_itself=False)
    assert own_comments.commenting(backend) is backend  # type: ignore[arg-type]


def test_the_backend_s_own_identity_records_the_act_itself() -> None:
    assert own_comments.commenting(Backend(as_itself=True)) is None  # type: ignore[arg-type]


def test_a_backend_that_needs_no_identity_records_the_act_itself() -> None:
    assert own_comments.commenting(Embedded()) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_correction_without_a_reason_is_refused_before_anything_is_read(reason: str) -> None:
    with pytest.raises(InvalidInput, match="say why the answer is corrected"):
        own_comments.correct_request(None, None, "x-decision-y", None, "b", reason)  # type: ignore[arg-type]


def test_the_override_commands_say_what_the_owner_said_trimmed() -> None:
    assert own_comments.override_assumption_command(2, "  use EUR \n") == "/override 2 use EUR"
    assert own_comments.override_planner_command(" full ", " policy changed ") == "/override full policy changed"
    assert own_comments.override_planner_command("full", "  ") == "/override full"
    assert own_comments.override_planner_command("full", None) == "/override full"
