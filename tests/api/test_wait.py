"""``wait``: answered, timed out, interrupted; polling backs off so waiting stays cheap."""

from __future__ import annotations

import pytest

from parkbot.api import DEFAULT_POLL, POLL_SCHEDULE, wait_for_answer
from parkbot.cli.policy import Interrupted
from parkbot.core.lifecycle import build_decision
from tests.support.clock import Clock
from tests.support.results import NOW, result

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
    last = wait_for_answer(lambda: polls.append(1) or OPEN, 300, sleep=clock.sleep, clock=clock)
    assert last is OPEN  # the decision as last seen: still open
    assert clock.now == 300
    assert max(clock.sleeps) <= DEFAULT_POLL[1]
    assert len(polls) < 15  # backoff: minutes of waiting cost a handful of requests


def test_zero_timeout_looks_once_and_never_sleeps() -> None:
    clock = Clock()
    polls = []
    assert wait_for_answer(lambda: polls.append(1) or OPEN, 0, sleep=clock.sleep, clock=clock) is OPEN
    assert (len(polls), clock.sleeps) == (1, [])


def test_the_git_backlog_is_polled_often_enough_to_see_an_answer_within_a_second() -> None:
    first, longest = POLL_SCHEDULE["git"]
    clock = Clock()
    wait_for_answer(lambda: OPEN, 60, sleep=clock.sleep, clock=clock, first=first, longest=longest)
    assert max(clock.sleeps) <= 1.0
    assert POLL_SCHEDULE["github"] == DEFAULT_POLL  # GitHub keeps its request budget


def test_interruption_propagates_for_the_command_to_report() -> None:
    def poll():
        raise Interrupted

    with pytest.raises(Interrupted):
        wait_for_answer(poll, 60)
