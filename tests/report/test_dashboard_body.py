"""The dashboard's rules and text: what it lists, how an event's changes patch it, what the body says.

Pure: decisions in, an index and Markdown out (the GitHub issue around them: tests/github/test_github_dashboard.py).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parkbot.core import dashboard_index
from parkbot.core.dashboard_index import MAX_LISTED, PER_OWNER, Changed, DashboardIndex, patch, recount
from parkbot.core.models import Decision, Escalation
from parkbot.report import DASHBOARD_MARKER, Report, compute_report, is_dashboard, render_dashboard
from parkbot.report.dashboard_body import MAX_BODY, figures_of, render_body
from tests.support.report import NOW, REFUSALS, SINCE, at, history, make


@pytest.fixture(scope="module")
def rep() -> Report:
    """The report of :func:`tests.support.report.history`."""
    return compute_report(history(), REFUSALS, since=SINCE, now=NOW)


# --- the text --------------------------------------------------------------------------------------


def open_decisions() -> list[Decision]:
    return [d for d in history() if d.state == "open" and d.created_at <= NOW]


def test_dashboard_groups_open_decisions_by_owner(rep: Report) -> None:
    body = render_dashboard(rep, open_decisions(), NOW)
    assert body.rstrip().endswith(DASHBOARD_MARKER)
    assert body.count(DASHBOARD_MARKER) == 1
    assert is_dashboard(body)
    assert not is_dashboard("some other issue")
    assert "**4 open** across 3 owners, 1 of them blocking work." in body
    sections = [line for line in body.splitlines() if line.startswith("## ")]
    assert sections == ["## alice (2)", "## @\u200dorg/design (1)", "## dave (1)"]
    assert "review item" in next(line for line in body.splitlines() if "rev-1-decision-assumptions" in line)
    banner = next(line for line in body.splitlines() if "docs-1-decision-banner" in line)
    assert "6d old" in banner
    assert "blocks #12, `branch:agent/docs-1`" in banner
    assert "&lt;script&gt;" in banner  # shown, never interpreted
    tone = next(line for line in body.splitlines() if "docs-2-decision-tone" in line)
    assert "non-blocking" in tone
    assert "37.5% (3 of 8)" in body
    assert "computed at 2024-06-30 12:00 UTC by a full recount" in body


def test_the_same_index_renders_the_same_text(rep: Report) -> None:
    figures = figures_of(rep, NOW)
    index = recount(open_decisions(), now=NOW, figures=figures)
    first = render_body(index, NOW)
    assert render_body(index, NOW + timedelta(minutes=20)) == first  # ages are coarse
    assert render_body(recount(list(reversed(open_decisions())), now=NOW, figures=figures), NOW) == first
    assert render_dashboard(rep, open_decisions(), NOW) == first


def test_dashboard_ignores_closed_decisions_and_fits_in_an_issue_body(rep: Report) -> None:
    many = [
        make(f"bulk-{i}", "k", f"Question number {i} with a long tail {'x' * 80}?", at(3), owner=f"owner-{i % 40}")
        for i in range(5_000)
    ]
    closed = make("closed-1", "k", "Done?", at(3), state="resolved", answer="x")
    body = render_dashboard(rep, [*many, closed], NOW)
    assert len(body) <= MAX_BODY < 65_536
    assert body.rstrip().endswith(DASHBOARD_MARKER)
    assert "closed-1" not in body
    assert "**5000 open** across 40 owners" in body
    assert body.count("…and 75 more") == MAX_LISTED // PER_OWNER  # the owners whose oldest 50 are listed
    assert "…and 125 open" in body  # the others: counted, not listed
    assert body.count("## owner-") == 40


def test_a_body_with_little_room_drops_whole_sections(rep: Report) -> None:
    many = [make(f"bulk-{i}", "k", f"Question {i}?", at(3), owner=f"owner-{i % 4}") for i in range(200)]
    body = render_body(recount(many, now=NOW, figures=None), NOW, budget=6_000)
    assert len(body) <= 6_000
    assert "not shown: the issue body has a size limit" in body


def test_dashboard_with_nothing_open(rep: Report) -> None:
    body = render_dashboard(rep, [], NOW)
    assert "Nothing is waiting for an answer." in body
    assert body.rstrip().endswith(DASHBOARD_MARKER)


def test_an_index_never_recounted_says_so() -> None:
    decision = make("new-1", "k", "New?", at(3))
    index = patch(None, [(Changed(decision_id=decision.id, was_open=False), decision)])
    body = render_body(index, NOW)
    assert "**1 open** across 1 owner, 0 of them blocking work." in body
    assert "the first full recount makes it exact" in body
    assert "appear with the first full recount" in body
    assert "new-1-decision-k" in body


# --- patching equals recounting -------------------------------------------------------------------


def _escalated(decision: Decision, to: str) -> Decision:
    hop = Escalation(from_owner=decision.owner, to_owner=to, by=decision.owner, at=NOW)
    return decision.model_copy(update={"owner": to, "escalations": [*decision.escalations, hop]})


def _comparable(index: DashboardIndex) -> tuple[Any, ...]:
    return index.entries, index.totals, index.blocking_work, index.complete


OWNERS = ("alice", "bob", "carol")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["park", "resolve", "escalate", "depend"]), st.integers(0, 30)), max_size=40))
def test_patching_each_change_equals_a_recount(steps: list[tuple[str, int]]) -> None:
    """Any sequence of parks, answers, escalations and new dependents: patch after patch, the index is
    the one a recount of the same backlog gives."""
    backlog: dict[str, Decision] = {}
    index = recount([], now=NOW, figures=None)
    for op, n in steps:
        did = f"task-{n}-decision-k"
        current = backlog.get(did)
        if op == "park" and current is None:
            changed = make(f"task-{n}", "k", f"Question {n}?", at(1 + n % 20), owner=OWNERS[n % 3])
            change = Changed(decision_id=did, was_open=False)
        elif current is None or current.state != "open":
            continue
        elif op == "resolve":
            changed = current.model_copy(update={"state": "resolved"})
            change = Changed(decision_id=did)
        elif op == "escalate":
            changed = _escalated(current, OWNERS[(OWNERS.index(current.owner) + 1) % 3])
            change = Changed(decision_id=did, moved=True)
        else:
            changed = current.model_copy(update={"dependents": [*current.dependents, f"#{100 + n}"]})
            change = Changed(decision_id=did)
        backlog[did] = changed
        index = patch(index, [(change, changed)])
        assert _comparable(index) == _comparable(recount(backlog.values(), now=NOW, figures=None))


def test_a_bounded_index_keeps_its_counts_current(monkeypatch: pytest.MonkeyPatch) -> None:
    """More open decisions than it lists: the ones it does not list are counted from what events say."""
    monkeypatch.setattr(dashboard_index, "PER_OWNER", 3)
    backlog = [make(f"t-{i}", "k", f"Q{i}?", at(1 + i), owner="alice", dependents=["#9"]) for i in range(5)]
    index = recount(backlog, now=NOW, figures=None)
    assert [e.id for e in index.entries] == [d.id for d in backlog[:3]]  # the oldest three
    assert (index.complete, index.totals, index.blocking_work) == (False, {"alice": 5}, 5)

    unlisted = backlog[4]
    answered = unlisted.model_copy(update={"state": "resolved"})
    index = patch(index, [(Changed(decision_id=unlisted.id), answered)])
    assert (index.totals, index.blocking_work) == ({"alice": 4}, 4)

    moved = _escalated(backlog[3], "bob")
    index = patch(index, [(Changed(decision_id=moved.id, moved=True), moved)])
    assert index.totals == {"alice": 3, "bob": 1}
    assert index.entry(moved.id) is not None  # bob has room: it is listed now

    new = make("t-9", "k", "Q9?", at(20), owner="alice")
    index = patch(index, [(Changed(decision_id=new.id, was_open=False), new)])
    assert index.totals == {"alice": 4, "bob": 1}
    assert index.entry(new.id) is None  # alice's three oldest are listed; the new one is counted
    assert index.entries[0].id == backlog[0].id


def test_what_nobody_can_say_is_left_alone() -> None:
    decision = make("t-1", "k", "Q?", at(1))
    index = recount([decision], now=NOW, figures=None)
    assert patch(index, [(Changed(decision_id=decision.id), None)]) == index


def test_the_index_round_trips_and_refuses_anything_else(rep: Report) -> None:
    decisions = [*open_decisions(), _escalated(make("t-1", "k", "Q?", at(1)), "bob")]
    index = recount(decisions, now=NOW, figures=figures_of(rep, NOW))
    assert index.figures is not None
    assert DashboardIndex.from_data(index.to_data()) == index
    for bad in (None, [], {"v": 2}, {"v": 1, "entries": "no"}, {"v": 1, "totals": {"a": "x"}}):
        with pytest.raises(ValueError):
            DashboardIndex.from_data(bad)
