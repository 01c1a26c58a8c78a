"""The router (gidgethub-style), the strict payload reader and the routing table."""

from __future__ import annotations

from typing import Any

import pytest

from parkbot.backends import Backend
from parkbot.core.config import Config, Owners
from parkbot.core.errors import InvalidInput
from parkbot.events import ROUTER, EventOutcome, handle_event, parse_payload
from parkbot.events.base import Context, Event, Item, is_bot
from parkbot.events.router import Router
from tests.support.memory_tracker import MemoryTracker


def test_register_by_event_and_action_and_compose() -> None:
    first, second = Router(), Router()
    calls: list[str] = []

    @first.register("issues", "closed", "reopened")
    def on_issue(tag: str) -> str:
        calls.append(f"issue:{tag}")
        return "issue"

    @second.register("push")
    def on_push(tag: str) -> str:
        calls.append(f"push:{tag}")
        return "push"

    @second.register("issues")
    def on_any_issue(tag: str) -> str:
        return "any"

    both = Router(first, second)
    assert both.dispatch("issues", "closed", "a") == ["any", "issue"]
    assert both.dispatch("issues", "labeled", "b") == ["any"]
    assert both.dispatch("push", None, "c") == ["push"]
    assert both.dispatch("fork", None, "d") == []
    assert both.knows("push")
    assert not both.knows("fork")
    assert both.routes() == {"issues": ["closed", "reopened", None], "push": [None]}
    assert calls == ["issue:a", "push:c"]


def test_the_routing_table() -> None:
    assert ROUTER.routes() == {
        "check_run": ["rerequested"],
        "issue_comment": ["created", "edited"],
        "issues": ["closed", "reopened", "unlabeled", "transferred", "deleted"],
        "merge_group": ["checks_requested"],
        "pull_request": ["opened", "edited", "synchronize", "reopened"],
        "push": [None],
        "schedule": [None],
        "status": [None],
        "workflow_dispatch": [None],
        "workflow_run": ["completed"],
    }


def test_event_get_names_what_is_missing_or_mistyped() -> None:
    event = Event("issue_comment", {"issue": {"number": 3, "labels": [{"name": "a"}, "b"]}, "flag": True})
    assert event.get("issue.number", int) == 3
    assert event.get("issue.title", str, default="none") == "none"
    assert event.labels("issue") == ["a", "b"]
    assert event.has_label("issue", "A")
    with pytest.raises(InvalidInput, match=r"issue\.title is missing"):
        event.get("issue.title", str)
    with pytest.raises(InvalidInput, match=r"issue\.number should be str, not int"):
        event.get("issue.number", str)
    with pytest.raises(InvalidInput, match=r"flag should be int, not bool"):
        event.get("flag", int)
    with pytest.raises(InvalidInput, match=r"issue\.number is not an object"):
        event.get("issue.number.x")
    with pytest.raises(InvalidInput, match="labels holds a int"):
        Event("issues", {"issue": {"labels": [1]}}).labels("issue")


def test_is_bot() -> None:
    assert is_bot({"login": "parkbot[bot]", "type": "Bot"})
    assert is_bot({"login": "github-actions[bot]", "type": "User"})
    assert not is_bot({"login": "alice", "type": "User"})
    assert not is_bot(None)


def test_payload_parsing() -> None:
    assert parse_payload(b'{"a": 1}') == {"a": 1}
    for bad, message in ((b"[]", "JSON object"), (b"nope", "not valid JSON"), (b"\xff", "not valid JSON")):
        with pytest.raises(InvalidInput, match=message):
            parse_payload(bad)


def never() -> Any:
    raise AssertionError("the backend must not be opened")


def test_handle_event_validates_before_opening_anything() -> None:
    with pytest.raises(InvalidInput, match="no event name"):
        handle_event("", {}, tracker_factory=never)
    with pytest.raises(InvalidInput, match="action should be str"):
        handle_event("issues", {"action": 3}, tracker_factory=never)
    with pytest.raises(InvalidInput, match="not valid JSON"):
        handle_event("issues", "{", tracker_factory=never)
    with pytest.raises(InvalidInput, match="action is missing"):
        handle_event("issue_comment", {"issue": {}}, tracker_factory=never)
    outcome = handle_event("fork", '{"forkee": {}}', tracker_factory=never)
    assert outcome.status == "unknown"
    assert outcome.exit_code == 0
    assert not outcome.api_used


def test_outcome_summaries() -> None:
    items = [
        Item("parked", "p", decision_id="a", number=4, action="created"),
        Item("gate", "g", target="#7", number=7, gate_state="blocked", decision_id="a"),
        Item("gate", "f", target="branch:x", gate_state="failure", exit_code=1),
        Item("refused", "r", decision_id="b", exit_code=3),
        Item("ignored", "i"),
    ]
    outcome = EventOutcome("push", None, "handled", "n", items)
    assert outcome.exit_code == 3
    assert outcome.decision_ids == ["a", "b"]
    assert outcome.issue_number == 4
    assert outcome.gate_state == "failure"
    data = outcome.as_dict()
    assert data["items"][1] == {
        "kind": "gate",
        "message": "g",
        "decision_id": "a",
        "number": 7,
        "target": "#7",
        "gate_state": "blocked",
    }


def test_context_opens_the_backend_only_when_a_handler_asks() -> None:
    opened: list[int] = []
    tracker = MemoryTracker()
    config = Config(owners=Owners(default="zoe"))

    def factory() -> Backend:
        opened.append(1)
        return Backend("git", tracker, config)  # type: ignore[arg-type]

    ctx = Context(factory)
    assert not ctx.opened
    assert ctx.config.owners.default == "zoe"
    assert ctx.tracker is tracker
    assert ctx.opened
    assert opened == [1]
