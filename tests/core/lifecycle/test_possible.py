"""parkbot.core.lifecycle.possible: the acts an owner can take on a decision, in the order to try them."""

from __future__ import annotations

from parkbot.core import lifecycle
from tests.support.lifecycle import CONFIG, REVIEW, parked, reviewed
from tests.support.results import DID

# --- what the owner may type ------------------------------------------------------------------------


def test_the_help_lists_each_act_the_owner_can_take() -> None:
    question = parked(allow_free_text=True, requester="erin").find(DID)
    assert lifecycle.possible_acts(question, CONFIG) == [
        lifecycle.PossibleAct("decide", "remaining_three", "412.00"),
        lifecycle.PossibleAct("decide", "full_original", "690.00"),
        lifecycle.PossibleAct("answer"),
        lifecycle.PossibleAct("default", "remaining_three"),
        lifecycle.PossibleAct("escalate"),
        lifecycle.PossibleAct("return", about="erin"),
    ]
    review = reviewed().find(REVIEW)
    assert lifecycle.possible_acts(review, CONFIG) == [
        lifecycle.PossibleAct("accept"),
        lifecycle.PossibleAct("override", "1", "EUR"),
        lifecycle.PossibleAct("override", "2", "net of tax"),
    ]


def test_returning_a_question_is_offered_only_to_a_requester_the_configuration_allows() -> None:
    for requester, offered in [("erin", True), ("mallory", False), (None, False)]:
        question = parked(requester=requester).find(DID)
        acts = lifecycle.possible_acts(question, CONFIG)
        assert (lifecycle.PossibleAct("return", about=requester) in acts) is offered
        assert [a.act for a in acts][-1] == ("return" if offered else "escalate")
