"""parkbot.core.policy: the supervision policy. The pure functions (a question's normal form, its origin family,
the precedent it cites, the budget it is over), and every rule as a user sees it when a question is parked: the
precedent a new question cites, and the refusal (message, and the reason the question log keeps) when a question
is over budget. On the in-memory tracker; the contract suites run the same on every backend.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Limits, Owners
from parkbot.core.errors import Refused
from parkbot.core.models import LogEntry
from parkbot.core.policy import budget_refusal, find_precedent, normalize_question, origin_family
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result, review_result


def resolved(origin: str, key: str = "refund", answer: str = "full_original", days: int = 0, **extra: Any) -> LogEntry:
    data = {
        "at": NOW - timedelta(days=days),
        "event": "resolved",
        "origin": origin,
        "decision": f"{origin}-decision-{key}",
        "key": key,
        "question": "Refund the remaining three, or the full total?",
        "options": ["remaining_three", "full_original"],
        "answer": answer,
        "answer_kind": "option",
        "by": "alice",
    }
    return LogEntry.model_validate({**data, **extra})


DECISION = lifecycle.build_decision(result(origin="billing-42"), "alice", NOW)


def test_normalize_question_removes_case_specific_details() -> None:
    a = normalize_question("Order A-4471 has 2 refunded items: refund 'the rest'?")
    b = normalize_question('order B-12 has 3 refunded items: refund "everything"')
    assert a == b == "order <id> has <n> refunded items: refund <q>"


def test_origin_family_by_owner_glob_or_trailing_number() -> None:
    config = Config(owners=Owners(origins={"billing-*": "bob"}))
    assert origin_family("billing-42", config) == origin_family("billing-7", config) == "glob:billing-*"
    assert origin_family("search-12", Config()) == "search"
    assert origin_family("42", Config()) == "42"


def test_latest_matching_human_answer_is_cited() -> None:
    log = [resolved("billing-1", days=9), resolved("billing-2", answer="remaining_three", days=1)]
    citation = find_precedent(DECISION, log, Config())
    assert citation is not None
    assert (citation.decision, citation.answer) == ("billing-2-decision-refund", "remaining_three")


@pytest.mark.parametrize(
    "entry",
    [
        resolved("billing-1", answer_kind="default"),  # an assumption is not an answer to cite
        resolved("billing-1", answer_kind="precedent"),  # nor is a citation of a citation
        resolved("billing-1", options=["yes", "no"], question="Something else?"),  # other options
        resolved("billing-1", answer="half"),  # an answer that is not one of today's options
        resolved("search-1", question="Unrelated wording?"),  # same key, other family, other text
        resolved("billing-42", event="parked"),  # not a resolution
    ],
)
def test_no_precedent_without_a_real_match(entry: LogEntry) -> None:
    assert find_precedent(DECISION, [entry], Config()) is None


def test_same_text_in_another_family_is_a_precedent() -> None:
    entry = resolved("search-1", key="other-key", question=DECISION.question.replace("A-4471", "B-17"))
    assert find_precedent(DECISION, [entry], Config()) is not None


def test_budget_ignores_review_items_and_the_decision_itself() -> None:
    review = DECISION.model_copy(update={"id": "billing-42-decision-assumptions", "kind": "review"})
    others = [DECISION.model_copy(update={"id": f"billing-42-decision-{k}"}) for k in ("a", "b")]
    assert budget_refusal(DECISION, [DECISION, review, *others], Config()) is None
    reason, _ = budget_refusal(
        DECISION,
        [*others, DECISION.model_copy(update={"id": "x-decision-c"})],
        Config(limits=Limits(open_per_origin=2)),
    ) or ("", "")
    assert reason == "cap_per_origin"


QUESTION = "Order A-4471 has two line items already refunded. Refund the remaining three, or the full total?"
CONFIG = Config(owners=Owners(default="alice"))


def logged(origin: str, answer: str = "full_original", **changes: Any) -> LogEntry:
    """A resolution line of the question log, as an earlier answer to the standard question left it."""
    data: dict[str, Any] = {
        "at": NOW - timedelta(days=1),
        "event": "resolved",
        "origin": origin,
        "decision": f"{origin}-decision-refund",
        "key": "refund",
        "question": QUESTION,
        "options": ["remaining_three", "full_original"],
        "answer": answer,
        "answer_kind": "option",
        "by": "bob",
    }
    return LogEntry.model_validate({**data, **changes})


def tracker_with(*entries: LogEntry) -> MemoryTracker:
    tracker = MemoryTracker()
    for entry in entries:
        tracker.append_log(entry)
    return tracker


def cited(tracker: MemoryTracker, config: Config = CONFIG, **changes: Any) -> Any:
    """The precedent the standard question (billing-42, key refund) cites when parked now."""
    outcome = lifecycle.park(tracker, result(**changes), config, now=NOW)
    stored = tracker.find(outcome.decision.id)
    assert stored is not None
    assert stored.precedent == outcome.decision.precedent
    return stored.precedent


# --- which earlier answers are cited -----------------------------------------------------------


def test_a_question_never_cites_an_answer_logged_under_its_own_id() -> None:
    """Its item may be gone (deleted by hand) while the log keeps the line: that is no earlier question."""
    assert cited(tracker_with(logged("billing-42"))) is None


def test_an_override_is_not_an_answer_to_cite_although_its_log_line_carries_text() -> None:
    tracker = MemoryTracker()
    review = review_result(origin="billing-41", assumptions=["EUR"])
    did = lifecycle.park_review(tracker, review, CONFIG, now=NOW).decision.id
    lifecycle.override_assumption(tracker, CONFIG, did, 1, "USD", Actor("alice"), now=NOW)
    # The same key with the same (no) options in the same family: only the event tells them apart.
    assert cited(tracker, key="assumptions", options=[], guess=None) is None


@pytest.mark.parametrize(
    "skipped",
    [
        logged("billing-40", answer_kind="default"),
        logged("billing-40", answer_kind="precedent"),
        logged("billing-40", key="other", question="Which currency?"),
        logged("billing-40", answer="half"),
        logged("billing-40", event="parked", answer=None),
    ],
    ids=["an-assumption", "a-citation", "another-question", "a-retired-option", "no-resolution"],
)
def test_a_line_that_cannot_be_cited_does_not_end_the_search(skipped: LogEntry) -> None:
    later = skipped.model_copy(update={"at": NOW - timedelta(days=2)})  # skipped lines are the newest
    precedent = cited(tracker_with(later, logged("billing-41")))
    assert precedent is not None
    assert (precedent.decision, precedent.answer) == ("billing-41-decision-refund", "full_original")


def test_of_two_answers_logged_at_the_same_moment_the_one_logged_last_is_cited() -> None:
    tracker = tracker_with(logged("billing-40", answer="remaining_three"), logged("billing-41"))
    precedent = cited(tracker)
    assert (precedent.decision, precedent.answer) == ("billing-41-decision-refund", "full_original")


def test_the_latest_answer_is_cited_whatever_the_order_of_the_log() -> None:
    newer = logged("billing-41", at=NOW - timedelta(hours=1))
    precedent = cited(tracker_with(newer, logged("billing-40", answer="remaining_three")))
    assert (precedent.decision, precedent.answer) == ("billing-41-decision-refund", "full_original")


def test_a_citation_names_who_answered_when_and_where() -> None:
    precedent = cited(tracker_with(logged("billing-41", location="refs/parkbot/backlog:billing-41.json")))
    assert precedent.answered_by == "bob"
    assert precedent.answered_at == NOW - timedelta(days=1)
    assert precedent.location == "refs/parkbot/backlog:billing-41.json"


def test_a_resolution_line_that_names_nobody_is_never_cited() -> None:
    assert cited(tracker_with(logged("billing-41", by=None))) is None


def test_a_resolution_line_with_an_empty_answer_is_never_cited_nor_applied() -> None:
    """A hand-edited log may hold one; applying it would record an empty answer."""
    tracker = tracker_with(logged("billing-41", answer="", options=[]))
    apply = CONFIG.model_copy(update={"precedents": "apply"})
    assert cited(tracker, apply, options=[], guess=None) is None
    assert tracker.find("billing-42-decision-refund").state == "open"


# --- question budgets: the refusal a user sees, and the reason the log keeps ----------------------


def refusal(tracker: MemoryTracker, config: Config, **changes: Any) -> tuple[str, str | None]:
    """Park a question that must be refused: (the message, the reason logged for the report)."""
    with pytest.raises(Refused) as info:
        lifecycle.park(tracker, result(**changes), config, now=NOW)
    assert info.value.reason == "cap_reached"
    assert info.value.exit_code == 3
    assert tracker.find(result(**changes).decision_id) is None
    refused = [e for e in tracker.iter_log() if e.event == "refused"]
    assert [e.decision for e in refused] == [result(**changes).decision_id]
    return info.value.message, refused[0].reason


def test_one_blocking_question_per_origin_names_the_open_one_and_the_way_on() -> None:
    tracker = MemoryTracker()
    strict = CONFIG.model_copy(update={"limits": Limits(one_blocking_question_per_origin=True)})
    lifecycle.park(tracker, result(key="first", title="First"), strict, now=NOW)
    assert refusal(tracker, strict) == (
        "billing-42 already has an open blocking question (billing-42-decision-first); this repository allows one "
        "outstanding blocking question per assignment. Wait for its answer, or proceed under a stated assumption "
        "(done_with_assumptions).",
        "one_blocking_question",
    )


def test_the_cap_per_origin_says_how_many_are_open_and_to_re_delegate() -> None:
    tracker = MemoryTracker()
    for key in ("a", "b", "c"):
        lifecycle.park(tracker, result(key=key, title=key), CONFIG, now=NOW)
    assert refusal(tracker, CONFIG) == (
        "billing-42 already has 3 open questions (limit 3): a task that needs this many answers should be "
        "re-delegated with a better brief, not asked again.",
        "cap_per_origin",
    )


def test_the_cap_per_run_says_how_many_the_run_has_open_and_to_answer_first() -> None:
    tracker = MemoryTracker()
    config = CONFIG.model_copy(update={"limits": Limits(open_per_run=2)})
    for origin in ("task-1", "task-2"):
        lifecycle.park(tracker, result(origin=origin, run="run-9"), config, now=NOW)
    assert refusal(tracker, config, run="run-9") == (
        "run run-9 already has 2 open questions (limit 2): the fleet is stalling its owners; answer or "
        "re-delegate before asking more.",
        "cap_per_run",
    )


def test_only_questions_of_the_same_run_count_toward_the_run_cap() -> None:
    tracker = MemoryTracker()
    config = CONFIG.model_copy(update={"limits": Limits(open_per_origin=10, open_per_run=2)})
    for n in (1, 2):
        lifecycle.park(tracker, result(key=f"q{n}", title=f"q{n}", run=f"run-{n}"), config, now=NOW)
    assert lifecycle.park(tracker, result(run="run-3"), config, now=NOW).action == "created"
