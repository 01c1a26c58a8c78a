"""The Python API on every backend (see conftest.HARNESSES): the same results and the same failures."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from parkbot import (
    Backlog,
    DecisionList,
    DecisionView,
    ExitCode,
    Filed,
    GateReport,
    InvalidInput,
    Inventory,
    NotFound,
    Refused,
    Requested,
    Resolved,
    ResumeContext,
)
from parkbot.backends import Backend
from tests.support.results import ASSUMPTIONS, DONE, SHORT, result_data

DID = "billing-42-decision-refund"


def data(**changes: Any) -> dict[str, Any]:
    """The short question with a guess and the work so far, as the data an agent hands the API."""
    detailed = {
        "title": "Refund scope for order A-4471",
        "question": "Refund the remaining three items, or the full original total?",
        "guess": "remaining_three",
        "work_so_far": {"verified": ["A-4471"]},
        "blocking": True,
    }
    return result_data(SHORT, **{**detailed, **changes})


@pytest.fixture
def backlog(harness: Any) -> Backlog:
    return Backlog(Backend(cast(Any, harness.tracker.backend), harness.tracker, harness.config))


def act(harness: Any, backlog: Backlog, by: str, verb: str, *args: Any, **kwargs: Any) -> Any:
    """An owner's act through the API, as the owner runs it (on GitHub: with their own token, which leaves it
    as their comment command; parkbot's workflow then records it)."""
    result = getattr(harness.owner_backlog(backlog, by), verb)(*args, by=by, **kwargs)
    if isinstance(result, Requested):
        assert result.by == by
        assert result.comment.startswith("https://")
        assert result.model_dump(mode="json")["action"] == "requested"
        harness.deliver()
    return result


def answer(harness: Any, backlog: Backlog, decision_id: str, value: str, **kwargs: Any) -> Any:
    return act(harness, backlog, kwargs.pop("by", "alice"), "resolve", decision_id, value, **kwargs)


def test_park_takes_a_dict_json_text_or_the_model_and_returns_filed(backlog: Backlog, harness: Any) -> None:
    from parkbot import parse_result

    target = harness.make_dependent("agent-billing-42")
    filed = backlog.park(data(dependents=[target]))
    assert isinstance(filed, Filed)
    assert (filed.id, filed.action, filed.state, filed.owner, filed.kind) == (
        DID,
        "created",
        "open",
        "alice",
        "decision",
    )
    assert filed.backend == harness.tracker.backend
    assert [(g.target, g.state) for g in filed.gates] == [(target, "blocked")]
    again = [backlog.park(json.dumps(data(dependents=[target]))), backlog.park(parse_result(data(dependents=[target])))]
    assert [(type(a), a.action if isinstance(a, Filed) else None) for a in again] == [(Filed, "unchanged")] * 2
    dumped = filed.model_dump(mode="json")
    assert {"id", "action", "backend", "gates"} <= set(dumped)
    assert filed.exit_code == ExitCode.OK


def test_failures_raise_the_family_with_the_exit_code(backlog: Backlog, harness: Any) -> None:
    backlog.park(data())
    with pytest.raises(Refused) as refused:
        backlog.park(data(title="Another title"))
    assert (refused.value.exit_code, refused.value.reason) == (3, "collision")
    with pytest.raises(InvalidInput) as invalid:
        backlog.park(data(blocking="no"))
    assert invalid.value.exit_code == 2
    assert "blocking:" in invalid.value.message
    with pytest.raises(NotFound) as missing:
        backlog.show("billing-42-decision-nothing")
    assert missing.value.exit_code == 2
    with pytest.raises(Refused) as not_owner:
        answer(harness, backlog, DID, "full_original", by="mallory")
    assert not_owner.value.reason == "not_authorized"


def test_answering_a_resolved_decision_again_with_its_answer_changes_nothing_and_asks_nothing(
    backlog: Backlog, harness: Any
) -> None:
    backlog.park(data())
    answer(harness, backlog, DID, "full_original")
    again = harness.owner_backlog(backlog, "alice").resolve(DID, "full_original", by="alice")
    assert isinstance(again, Resolved)  # not Requested: on GitHub no comment command was posted
    assert (again.action, again.state, again.answer.value, again.answer.by) == (
        "unchanged",
        "resolved",
        "full_original",
        "alice",
    )
    with pytest.raises(Refused) as different:
        harness.owner_backlog(backlog, "alice").resolve(DID, "remaining_three", by="alice")
    assert different.value.reason == "conflicting_answer"
    shown = backlog.show(DID).answer
    assert shown is not None
    assert shown.value == "full_original"


def test_gate_resolve_show_and_resume(backlog: Backlog, harness: Any) -> None:
    target = harness.make_dependent("agent-billing-42")
    backlog.park(data(dependents=[target]))
    pr: dict[str, Any] = {"pr": int(target[1:])} if target.startswith("#") else {"ref": target.removeprefix("branch:")}
    closed = backlog.gate(**pr)
    assert isinstance(closed, GateReport)
    assert (closed.state, closed.blocking, closed.exit_code) == ("blocked", [DID], ExitCode.BLOCKED)

    context = backlog.resume(DID)
    assert isinstance(context, ResumeContext)
    assert (context.state, context.answer, context.exit_code) == ("open", None, ExitCode.BLOCKED)
    assert context.work_so_far == {"verified": ["A-4471"]}

    resolved = answer(harness, backlog, DID, "full_original")
    if isinstance(resolved, Requested):
        assert resolved.command == "/decide full_original"
    else:
        assert isinstance(resolved, Resolved)
        assert (resolved.action, resolved.answer.value, resolved.assumption) == ("resolved", "full_original", False)
    assert backlog.gate(**pr).state == "open"

    shown = backlog.show(DID)
    assert isinstance(shown, DecisionView)
    assert shown.model_dump(mode="json")["chain"] == ["alice"]
    assert (shown.state, shown.answer.value if shown.answer else None) == ("resolved", "full_original")
    again = backlog.resume(DID)
    assert (again.answer, again.answered_by, again.exit_code) == ("full_original", "alice", ExitCode.OK)


def test_wait_returns_at_once_when_answered_and_after_the_window_when_not(backlog: Backlog, harness: Any) -> None:
    backlog.park(data())
    slept: list[float] = []
    clock = [0.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    context = backlog.wait(DID, "1m", sleep=sleep, clock=lambda: clock[0])
    assert (context.state, context.answer) == ("open", None)
    assert clock[0] == 60
    answer(harness, backlog, DID, "remaining_three", default=True)
    answered = backlog.wait(DID, timedelta(minutes=10), sleep=sleep, clock=lambda: clock[0])
    assert (answered.answer, answered.assumption, clock[0]) == ("remaining_three", True, 60)
    with pytest.raises(InvalidInput, match="negative"):
        backlog.wait(DID, "-5s")


def test_list_answered_since_is_in_answer_order(backlog: Backlog, harness: Any) -> None:
    if harness.tracker.backend == "github":
        pytest.skip("on GitHub the answer's time is when parkbot records the comment: it cannot be set back")
    backlog.park(data())
    backlog.park(data(key="shipping", title="Shipping", question="Ship now or later?", guess=None))
    backlog.park(data(key="tax", title="Tax", question="Which tax rate?", guess=None))
    now = datetime.now(UTC).replace(microsecond=0)
    answer(harness, backlog, DID, "full_original", now=now - timedelta(hours=2))
    answer(harness, backlog, "billing-42-decision-shipping", "full_original", now=now - timedelta(minutes=20))
    answer(harness, backlog, "billing-42-decision-tax", "full_original", now=now - timedelta(minutes=30))
    listed = backlog.list(answered_since="1h", now=now)
    assert isinstance(listed, DecisionList)
    assert [d.id for d in listed.decisions] == ["billing-42-decision-tax", "billing-42-decision-shipping"]
    assert listed.count == 2
    assert next(d.id for d in backlog.list(answered_since="3h", now=now).decisions) == DID
    assert backlog.list().count == 0  # nothing open
    assert backlog.list(answered_since="1h", state="open", now=now).count == 0
    with pytest.raises(InvalidInput):
        backlog.list(answered_since="soon")


def test_an_inventory_is_checked_against_the_backlog(backlog: Backlog) -> None:
    with pytest.raises(NotFound, match="park their needs_input results first"):
        backlog.park(result_data(DONE, decisions=["refund"]))
    backlog.park(data())
    checked = backlog.park(result_data(DONE, decisions=["refund"]))
    assert isinstance(checked, Inventory)
    assert (checked.decisions, checked.missing) == ([DID], [])


def test_review_items_are_accepted_or_overridden(backlog: Backlog, harness: Any) -> None:
    filed = backlog.park(result_data(ASSUMPTIONS, origin="billing-43", assumptions=["EUR", "net"]))
    assert isinstance(filed, Filed)
    assert (filed.kind, filed.action) == ("review", "created")
    overridden = act(harness, backlog, "alice", "override", filed.id, 1, "USD")
    assert overridden.action in ("updated", "requested")
    assert [o.text for o in backlog.show(filed.id).overrides] == ["USD"]
    accepted = act(harness, backlog, "alice", "accept", filed.id)
    assert accepted.action in ("resolved", "requested")
    assert backlog.show(filed.id).state == "resolved"


def test_an_escalation_that_breaks_a_rule_is_refused_before_anything_is_posted(backlog: Backlog, harness: Any) -> None:
    backlog.park(data())
    with pytest.raises(Refused) as sideways:
        harness.owner_backlog(backlog, "alice").escalate(DID, by="alice", to="mallory")
    assert sideways.value.reason == "not_upward"
    moved = act(harness, backlog, "alice", "escalate", DID)
    if isinstance(moved, Requested):
        assert moved.command == "/escalate carol"
    assert backlog.show(DID).owner == "carol"
    act(harness, backlog, "carol", "escalate", DID)
    with pytest.raises(Refused) as top:
        harness.owner_backlog(backlog, "dana").escalate(DID, by="dana")
    assert top.value.reason == "top_of_hierarchy"
    assert backlog.show(DID).owner == "dana"
