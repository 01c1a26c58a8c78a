"""``wait``: answered, timed out, interrupted; polling backs off so waiting stays cheap."""

from __future__ import annotations

import pytest

from bot.cli.policy import MAX_POLL_SECONDS, Interrupted, parse_duration, wait_for_answer
from bot.core.errors import InvalidInput
from bot.core.lifecycle import build_decision
from tests.contract.test_lifecycle_contract import NOW, result


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


OPEN = build_decision(result(), "alice", NOW)
RESOLVED = OPEN.model_copy(update={"state": "resolved"})


def test_answered_after_a_few_polls() -> None:
    clock = Clock()
    states = iter([OPEN, OPEN, OPEN, RESOLVED])
    decision = wait_for_answer(lambda: next(states), 600, sleep=clock.sleep, clock=clock)
    assert decision is RESOLVED
    assert clock.sleeps == [2.0, 4.0, 8.0]


def test_times_out_and_never_sleeps_past_the_window() -> None:
    clock = Clock()
    polls = []
    assert wait_for_answer(lambda: polls.append(1) or OPEN, 300, sleep=clock.sleep, clock=clock) is None
    assert clock.now == 300
    assert max(clock.sleeps) <= MAX_POLL_SECONDS
    assert len(polls) < 15  # backoff: minutes of waiting cost a handful of requests


def test_interruption_propagates_for_the_command_to_report() -> None:
    def poll():
        raise Interrupted

    with pytest.raises(Interrupted):
        wait_for_answer(poll, 60)


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("10m", 600), ("2h", 7200), ("15", 15)])
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


def test_bad_duration() -> None:
    with pytest.raises(InvalidInput, match="not a duration"):
        parse_duration("soon")
