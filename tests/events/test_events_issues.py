"""``issues`` closed/reopened by people on decision issues: the record stays truthful."""

from __future__ import annotations

import re
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Owners
from parkbot.core.lifecycle import REOPENED
from parkbot.trackers.github import ABANDONED_LABEL, BLOCKING_LABEL, RESOLVED_LABEL
from parkbot.trackers.github.render import read_marker
from tests.support.events import labels_of, park, run, webhook, with_repository
from tests.support.github_helpers import CONFIG, DID, make_tracker
from tests.support.results import NOW

ABANDON = Config(owners=Owners(default="alice"), precedents="off", closed_without_answer="abandon")


def close_by_hand(fake: Any, number: int, who: str = "bob") -> None:
    issue = fake.issues[number]
    issue.state, issue.state_reason, issue.closed_by, issue.closed_at = "closed", "completed", who, fake.tick()


def reopen_by_hand(fake: Any, number: int, who: str = "bob") -> None:
    issue = fake.issues[number]
    issue.state, issue.state_reason, issue.closed_at = "open", "reopened", None


def issues_event(fake: Any, number: int, action: str, who: str = "bob", kind: str = "User") -> dict[str, Any]:
    payload = with_repository(webhook(f"issues.{action}"), fake)
    issue = fake.issues[number]
    payload["issue"].update(
        number=number, title=issue.title, body=issue.body, state=issue.state, labels=labels_of(fake, number)
    )
    payload["sender"] = {"login": who, "id": 7, "type": kind}
    return payload


def replies(fake: Any, number: int) -> list[str]:
    return [c.body for c in fake.comments.values() if c.issue_number == number and read_marker(c.body)]


def test_closed_without_answer_is_reopened_with_an_explanation(fake: Any) -> None:
    number = park(fake)
    close_by_hand(fake, number)
    outcome = run(fake, "issues", issues_event(fake, number, "closed"))
    assert [i.kind for i in outcome.acted] == ["reopened"]
    assert fake.issues[number].state == "open"
    assert BLOCKING_LABEL in fake.issues[number].labels
    (explained,) = [body for body in replies(fake, number) if "without an answer" in body]
    # the next step in GitHub's own commands (the core's words name none), and no command-line option
    assert (
        "On this issue: answer with `/decide <option>`, or with an explicit default: `/default <option>`." in explained
    )
    assert not re.search(r"(?<![\w-])--[a-z]", explained)
    assert "closed this decision without an answer" in REOPENED
    # Handling the same event again explains once, not twice.
    close_by_hand(fake, number)
    run(fake, "issues", issues_event(fake, number, "closed"))
    assert len([b for b in replies(fake, number) if "without an answer" in b]) == 1


def test_closed_without_answer_is_abandoned_when_configured(fake: Any) -> None:
    number = park(fake, ABANDON)
    close_by_hand(fake, number)
    outcome = run(fake, "issues", issues_event(fake, number, "closed"), config=ABANDON)
    assert [i.kind for i in outcome.acted] == ["abandoned"]
    assert fake.issues[number].state == "closed"
    assert ABANDONED_LABEL in fake.issues[number].labels
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    assert decision.state == "abandoned"


def test_closed_with_a_recorded_answer_finishes_the_resolution(fake: Any) -> None:
    number = park(fake)
    tracker = make_tracker(fake)
    decision = tracker.find(DID)
    assert decision is not None
    answer = lifecycle.Answer(value="full_original", kind="option", by="alice", at=decision.created_at)
    tracker.record_answer(decision, answer)  # step (a) only: the run died after it
    close_by_hand(fake, number)
    outcome = run(fake, "issues", issues_event(fake, number, "closed"))
    assert [i.kind for i in outcome.acted] == ["resolved"]
    assert fake.issues[number].state == "closed"
    assert RESOLVED_LABEL in fake.issues[number].labels


def test_reopening_a_resolved_decision_is_refused(fake: Any) -> None:
    number = park(fake)
    lifecycle.resolve(make_tracker(fake), CONFIG, DID, "full_original", Actor("alice"))
    reopen_by_hand(fake, number)
    outcome = run(fake, "issues", issues_event(fake, number, "reopened"))
    assert [(i.kind, i.action) for i in outcome.acted] == [("closed", "refused_reopen")]
    assert fake.issues[number].state == "closed"
    assert any("stays resolved" in body for body in replies(fake, number))
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    assert decision.state == "resolved"
    assert decision.answer is not None


def test_reopening_an_abandoned_decision_asks_again(fake: Any) -> None:
    number = park(fake, ABANDON)
    tracker = make_tracker(fake)
    found = tracker.find(DID)
    assert found is not None
    tracker.mark_abandoned(found, "gave up", lifecycle.log_entry("abandoned", found, NOW))
    reopen_by_hand(fake, number)
    outcome = run(fake, "issues", issues_event(fake, number, "reopened"))
    assert [i.kind for i in outcome.acted] == ["reopened"]
    decision = make_tracker(fake).find(DID)
    assert decision is not None
    assert decision.state == "open"
    assert ABANDONED_LABEL not in fake.issues[number].labels


@pytest.mark.parametrize(
    ("who", "kind", "labels"),
    [
        ("parkbot[bot]", "Bot", None),  # parkbot's own close
        ("github-actions[bot]", "Bot", None),
        ("bob", "User", [{"id": 1, "name": "bug", "color": "d73a4a"}]),  # not a decision
    ],
)
def test_irrelevant_issue_events_make_no_request(fake: Any, who: str, kind: str, labels: Any) -> None:
    number = park(fake)
    close_by_hand(fake, number)
    payload = issues_event(fake, number, "closed", who=who, kind=kind)
    if labels is not None:
        payload["issue"]["labels"] = labels
    outcome = run(fake, "issues", payload)
    assert outcome.status == "ignored"
    assert fake.request_count == 0
    assert fake.issues[number].state == "closed"


def test_documented_payloads_unchanged_are_ignored_without_requests(fake: Any) -> None:
    for action in ("closed", "reopened"):
        outcome = run(fake, "issues", webhook(f"issues.{action}"))
        assert outcome.status == "ignored"
    payload = webhook("issues.closed")
    payload["action"] = "labeled"
    assert run(fake, "issues", payload).status == "unknown"
    assert fake.request_count == 0
