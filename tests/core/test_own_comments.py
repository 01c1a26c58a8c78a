"""When an owner's act is left as their own comment command (:mod:`parkbot.core.own_comments`), and the
command posted: a run with a person's token never records an act as parkbot's own."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.core import lifecycle, own_comments
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners, Planner
from parkbot.core.errors import InvalidInput, Refused
from parkbot.core.models import Decision
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result


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
    with pytest.raises(InvalidInput, match=r"^say why the answer is corrected \(a reason\)$"):
        own_comments.correct_request(None, None, "x-decision-y", None, "b", reason)  # type: ignore[arg-type]


def test_the_override_commands_say_what_the_owner_said_trimmed() -> None:
    assert own_comments.override_assumption_command(2, "  use EUR \n") == "/override 2 use EUR"
    assert own_comments.override_planner_command(" full ", " policy changed ") == "/override full policy changed"
    assert own_comments.override_planner_command("full", "  ") == "/override full"
    assert own_comments.override_planner_command("full", None) == "/override full"


# --- which command, once the act's own rules hold (checked before anything is posted) --------------

PLANNER = Actor("planner[bot]", bot=True)
CONFIG = Config(
    owners=Owners(default="alice"),
    hierarchy={"alice": "carol"},
    planner=Planner(by="planner[bot]", sources=["docs/**"]),
)


def parked() -> tuple[MemoryTracker, str]:
    tracker = MemoryTracker()
    return tracker, lifecycle.park(tracker, result(), CONFIG, now=NOW).decision.id


def answered() -> tuple[MemoryTracker, str]:
    tracker, did = parked()
    lifecycle.resolve(tracker, CONFIG, did, "full_original", Actor("alice"), now=NOW)
    return tracker, did


def refused(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(Refused) as info:
        call(*args, **kwargs)
    return info.value.reason, info.value.message


def test_an_act_is_requested_on_an_open_decision_by_one_of_its_owners_only() -> None:
    tracker, did = parked()
    assert own_comments.act_request(tracker, CONFIG, did, Actor("alice"), "/escalate").id == did
    assert own_comments.act_request(tracker, CONFIG, did, Actor("carol"), "/escalate").id == did  # above alice
    reason, message = refused(own_comments.act_request, tracker, CONFIG, did, Actor("mallory"), "/escalate")
    assert reason == "not_authorized"
    assert "mallory" in message


def test_an_act_on_a_resolved_decision_is_refused_unless_it_may_act_on_any_state() -> None:
    tracker, did = answered()
    assert refused(own_comments.act_request, tracker, CONFIG, did, Actor("alice"), "/escalate") == (
        "resolved",
        f"decision {did} is resolved; only open decisions are acted on",
    )
    decision = own_comments.act_request(tracker, CONFIG, did, Actor("alice"), "/accept", any_state=True)
    assert (decision.id, decision.state) == (did, "resolved")
    reason, _ = refused(own_comments.act_request, tracker, CONFIG, did, Actor("mallory"), "/accept", any_state=True)
    assert reason == "not_authorized"


def test_the_planner_s_pass_says_why_trimmed_or_nothing() -> None:
    tracker, did = parked()
    decision, text = own_comments.pass_request(tracker, CONFIG, did, PLANNER, "  not in the docs \n")
    assert (decision.id, text) == (did, "/pass not in the docs")
    assert own_comments.pass_request(tracker, CONFIG, did, PLANNER, "   ")[1] == "/pass"
    assert own_comments.pass_request(tracker, CONFIG, did, PLANNER, None)[1] == "/pass"
    assert refused(own_comments.pass_request, tracker, CONFIG, did, Actor("alice"), "mine")[0] == "not_planner"


def test_the_planner_s_cite_names_the_answer_and_every_source() -> None:
    tracker, did = parked()
    decision, text = own_comments.cite_request(
        tracker, CONFIG, did, PLANNER, " full_original ", ["docs/refunds.md#L10-L14", "PLAN.md"]
    )
    assert (decision.id, text) == (did, "/cite full_original docs/refunds.md#L10-L14 PLAN.md")
    assert refused(own_comments.cite_request, tracker, CONFIG, did, PLANNER, "full_original", [])[0] == "no_source"
    assert refused(own_comments.cite_request, tracker, CONFIG, did, Actor("alice"), "x", ["PLAN.md"])[0] == (
        "not_planner"
    )


def test_a_correction_names_the_new_answer_and_why_and_only_who_answered_may_ask_for_it() -> None:
    tracker, did = answered()
    decision, text = own_comments.correct_request(
        tracker, CONFIG, did, Actor("alice"), " remaining_three ", "  two items were returned \n"
    )
    assert (decision.id, text) == (did, "/correct remaining_three two items were returned")
    reason, _ = refused(own_comments.correct_request, tracker, CONFIG, did, Actor("mallory"), "x", "why")
    assert reason == "not_authorized"
    open_tracker, open_did = parked()
    reason, _ = refused(own_comments.correct_request, open_tracker, CONFIG, open_did, Actor("alice"), "x", "why")
    assert reason == "not_answered"
