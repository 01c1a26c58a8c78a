"""The ``list`` query rules (:mod:`parkbot.core.listing`): which decisions a query selects, in which order,
and what it refuses, judged on decisions built in memory (no backend)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from parkbot.core.errors import InvalidInput
from parkbot.core.listing import ListQuery, Since
from parkbot.core.models import Answer, Decision, PlannerStep

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def decision(
    key: str,
    *,
    state: str = "open",
    owner: str = "alice",
    origin: str = "billing-42",
    created: int = 0,
    answered: int | None = None,
    planner: PlannerStep | None = None,
) -> Decision:
    """A decision filed ``created`` hours before NOW, answered ``answered`` hours before NOW."""
    answer = None if answered is None else Answer(value="yes", by=owner, at=NOW - timedelta(hours=answered))
    return Decision(
        id=f"{origin}-decision-{key}",
        origin=origin,
        key=key,
        title=key,
        question=f"{key}?",
        owner=owner,
        state=state,  # type: ignore[arg-type]
        answer=answer,
        planner=planner,
        created_at=NOW - timedelta(hours=created),
        updated_at=NOW - timedelta(hours=created),
    )


def ids(query: ListQuery, decisions: list[Decision]) -> list[str]:
    return [d.key for d in sorted(query.select(decisions), key=query.order)]


def test_the_default_is_the_open_decisions_oldest_filed_first() -> None:
    query = ListQuery.of(None, None, None, None, NOW)
    found = [decision("new", created=1), decision("old", created=5), decision("done", state="resolved", answered=0)]
    assert query.state == "open"
    assert query.stored_state == "open"
    assert ids(query, found) == ["old", "new"]


def test_answered_since_lists_every_answered_state_in_the_order_answered() -> None:
    query = ListQuery.of(None, None, None, "3h", NOW)
    found = [
        decision("filed-first-answered-last", state="resolved", created=9, answered=1),
        decision("filed-last-answered-first", state="resolved", created=2, answered=2),
        decision("answered-too-long-ago", state="resolved", created=9, answered=4),
        decision("unanswered", created=0),
    ]
    assert query.state == "all"
    assert query.stored_state is None
    assert query.since == NOW - timedelta(hours=3)
    assert ids(query, found) == ["filed-last-answered-first", "filed-first-answered-last"]


def test_a_state_given_with_answered_since_is_kept() -> None:
    query = ListQuery.of("abandoned", None, None, timedelta(hours=1), NOW)
    assert query.state == "abandoned"
    assert ids(query, [decision("a", state="resolved", answered=0)]) == []


def test_owner_is_compared_without_case_and_origin_as_a_lower_case_glob() -> None:
    query = ListQuery.of("open", "ALICE", "BILLING-*", None, NOW)
    found = [
        decision("mine", owner="Alice"),
        decision("theirs", owner="bob"),
        decision("elsewhere", origin="search-1"),
    ]
    assert ids(query, found) == ["mine"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("closed", None, None, None, NOW), "state 'closed': choose one of open, resolved, abandoned, all"),
        (("open", None, None, None, NOW, "nobody"), "awaiting 'nobody': choose planner or review"),
    ],
)
def test_a_bad_state_or_awaiting_is_refused_naming_the_choices(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        ListQuery.of(*args)  # type: ignore[arg-type]
    assert refused.value.message == message


def test_awaiting_selects_questions_with_the_planner_or_answers_to_review() -> None:
    waiting = PlannerStep(until=NOW + timedelta(hours=1))
    over = PlannerStep(until=NOW - timedelta(hours=1))
    answer = Answer(value="yes", kind="planner", by="planner-bot", at=NOW)
    reviewed = PlannerStep(state="answered", until=NOW, answer=answer, review="pending")
    found = [
        decision("with-planner", planner=waiting),
        decision("window-over", planner=over),
        decision("to-review", state="resolved", answered=0, planner=reviewed),
        decision("plain"),
    ]
    assert ids(ListQuery.of("all", None, None, None, NOW, "planner"), found) == ["with-planner"]
    assert ids(ListQuery.of("all", None, None, None, NOW, "review"), found) == ["to-review"]


@pytest.mark.parametrize(
    ("args", "empty"),
    [
        (("open", None, None, None, NOW), "no open decisions"),
        (("all", None, None, None, NOW), "no decisions"),
        ((None, None, None, "2026-03-01T10:00:00Z", NOW), "no decisions answered since 2026-03-01T10:00:00+00:00"),
        (("open", None, None, None, NOW, "planner"), "no open decisions waiting for the planner"),
        (("resolved", None, None, None, NOW, "review"), "no resolved decisions with a planner answer to review"),
    ],
)
def test_an_empty_list_says_what_it_looked_for(args: tuple[object, ...], empty: str) -> None:
    assert ListQuery.of(*args).empty() == empty  # type: ignore[arg-type]


def test_since_takes_a_moment_a_span_or_a_duration_text() -> None:
    moment = datetime(2026, 2, 1, tzinfo=UTC)
    assert Since(moment).moment(NOW) == moment
    assert Since(timedelta(minutes=30)).moment(NOW) == NOW - timedelta(minutes=30)
    assert Since("1h").moment(NOW) == NOW - timedelta(hours=1)
    with pytest.raises(InvalidInput):
        Since("soon").moment(NOW)
