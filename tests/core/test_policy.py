"""Pure policy and lifecycle edges that the contract suite does not reach on every backend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from parkbot.core import lifecycle
from parkbot.core.authority import Actor
from parkbot.core.config import Config, Limits, Owners
from parkbot.core.errors import ConcurrentChange, InvalidInput, Refused
from parkbot.core.models import DoneWithAssumptions, LogEntry, parse_result
from parkbot.core.policy import budget_refusal, find_precedent, normalize_question, origin_family
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result


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


class RacingTracker(MemoryTracker):
    """Another writer files the same decision between our lookup and our create, ``times`` times."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def create(self, decision: Any, log: Any) -> Any:
        if self.times > 0:
            self.times -= 1
            self.items[decision.id] = decision
            raise ConcurrentChange("filed meanwhile")
        return super().create(decision, log)


def test_park_rereads_after_losing_a_race_and_updates_the_winner() -> None:
    tracker = RacingTracker(times=1)
    outcome = lifecycle.park(tracker, result(), Config(), now=NOW)
    assert outcome.action == "unchanged"
    assert len(tracker.items) == 1


def test_park_gives_up_after_bounded_contention() -> None:
    class AlwaysRacing(MemoryTracker):
        def find(self, decision_id: str) -> None:
            return None

        def create(self, decision: Any, log: Any) -> Any:
            raise ConcurrentChange("filed meanwhile")

    with pytest.raises(ConcurrentChange):
        lifecycle.park(AlwaysRacing(), result(), Config(), now=NOW)


def test_bad_ids_and_empty_answers_are_invalid() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), Config(), now=NOW)
    with pytest.raises(InvalidInput, match="not a decision id"):
        lifecycle.resolve(tracker, Config(), "no separator", "x", Actor("alice"))
    with pytest.raises(InvalidInput, match="empty"):
        lifecycle.resolve(tracker, Config(), DECISION.id, "   ", Actor("alice"))


def test_closed_decisions_do_not_escalate() -> None:
    tracker = MemoryTracker()
    config = Config(owners=Owners(default="alice"), hierarchy={"alice": "carol"})
    lifecycle.park(tracker, result(), config, now=NOW)
    lifecycle.resolve(tracker, config, DECISION.id, "full_original", Actor("alice"))
    with pytest.raises(Refused, match="only open questions escalate"):
        lifecycle.escalate(tracker, config, DECISION.id, Actor("alice"))


def review(title: str | None = None) -> DoneWithAssumptions:
    data: dict[str, Any] = {"status": "done_with_assumptions", "origin": "billing-42", "assumptions": ["EUR"]}
    if title:
        data["title"] = title
    parsed = parse_result(data)
    assert isinstance(parsed, DoneWithAssumptions)
    return parsed


def test_review_item_identity_rules() -> None:
    tracker, config = MemoryTracker(), Config(owners=Owners(default="alice"))
    did = lifecycle.park_review(tracker, review(), config).decision.id
    with pytest.raises(Refused, match="identity collision"):
        lifecycle.park_review(tracker, review(title="Another review"), config)
    assert lifecycle.accept_review(tracker, config, did, Actor("alice")).action == "resolved"
    assert lifecycle.accept_review(tracker, config, did, Actor("alice")).action == "unchanged"
    with pytest.raises(Refused, match="already resolved"):
        lifecycle.park_review(tracker, review(), config)
    with pytest.raises(Refused, match="overrides are taken while it is open"):
        lifecycle.override_assumption(tracker, config, did, 1, "USD", Actor("alice"))


def test_clock_defaults_are_aware_utc() -> None:
    outcome = lifecycle.park(MemoryTracker(), result(), Config())
    assert outcome.decision.created_at.tzinfo is not None
    assert abs(outcome.decision.created_at - datetime.now(UTC)) < timedelta(minutes=1)


# --- bounded retries and the polling token ------------------------------------------------------------


class RacesOnCreate(MemoryTracker):
    """Every create loses a race (and the winner's item is not visible yet), ``times`` times."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def find(self, decision_id: str) -> Any:
        return None if self.times > 0 else super().find(decision_id)

    def create(self, decision: Any, log: Any) -> Any:
        if self.times > 0:
            self.times -= 1
            raise ConcurrentChange("filed meanwhile")
        return super().create(decision, log)


def test_park_survives_one_race_fewer_than_the_bound_and_not_the_bound() -> None:
    survived = lifecycle.park(RacesOnCreate(times=lifecycle.PARK_ATTEMPTS - 1), result(), Config(), now=NOW)
    assert survived.action == "created"
    with pytest.raises(ConcurrentChange):
        lifecycle.park(RacesOnCreate(times=lifecycle.PARK_ATTEMPTS), result(), Config(), now=NOW)


class AnsweredMeanwhile(MemoryTracker):
    """Another owner records an answer between our read and our write, ``times`` times."""

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    def record_answer(self, decision: Any, answer: Any) -> None:
        if self.times > 0:
            self.times -= 1
            raise ConcurrentChange("answered meanwhile")
        super().record_answer(decision, answer)


def test_resolve_reapplies_the_rules_after_a_concurrent_answer_within_the_bound() -> None:
    tracker = AnsweredMeanwhile(times=lifecycle.PARK_ATTEMPTS - 1)
    lifecycle.park(tracker, result(), Config(owners=Owners(default="alice")), now=NOW)
    done = lifecycle.resolve(tracker, Config(), "billing-42-decision-refund", "full_original", Actor("alice"))
    assert done.action == "resolved"
    stubborn = AnsweredMeanwhile(times=lifecycle.PARK_ATTEMPTS)
    lifecycle.park(stubborn, result(), Config(), now=NOW)
    with pytest.raises(ConcurrentChange):
        lifecycle.resolve(stubborn, Config(), "billing-42-decision-refund", "full_original", Actor("alice"))


class PollingTracker(MemoryTracker):
    """A tracker with the cheap-poll capability that remembers the tokens it was handed."""

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[Any] = []

    def poll(self, decision_id: str, previous: Any = None) -> tuple[Any, Any]:
        from parkbot.core.tracker import PollToken

        self.handed.append(previous)
        return self.find(decision_id), PollToken(decision_id, validator=f"etag-{len(self.handed)}")


def test_each_poll_hands_the_backend_the_previous_token_of_the_same_decision_only() -> None:
    tracker = PollingTracker()
    lifecycle.park(tracker, result(), Config(), now=NOW)
    did = "billing-42-decision-refund"
    decision, token = lifecycle.poll_answer(tracker, Config(), did)
    assert decision.id == did
    assert token is not None
    assert token.validator == "etag-1"
    _, second = lifecycle.poll_answer(tracker, Config(), did, token)
    assert tracker.handed[1] is token
    assert second is not None
    from parkbot.core.tracker import PollToken

    lifecycle.poll_answer(tracker, Config(), did, PollToken("billing-1-decision-x", validator="stale"))
    assert tracker.handed[0] is None
    assert tracker.handed[-1] is None  # a token of another decision is never used


def test_without_the_poll_capability_a_poll_is_a_plain_read() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), Config(), now=NOW)
    decision, token = lifecycle.poll_answer(tracker, Config(), "billing-42-decision-refund")
    assert (decision.state, token) == ("open", None)
