"""What a re-filing may not change, in the words the agent reads (parkbot.core.lifecycle.parking)."""

from __future__ import annotations

import pytest

from parkbot.core import lifecycle
from parkbot.core.config import Config, Owners
from parkbot.core.errors import Refused
from parkbot.core.models import Answer
from tests.support.memory_tracker import MemoryTracker
from tests.support.results import NOW, result

DID = "billing-42-decision-refund"
CONFIG = Config(owners=Owners(default="alice"))


def test_a_re_filing_may_not_lower_a_blocking_question_and_says_what_to_do() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    with pytest.raises(Refused) as refused:
        lifecycle.park(tracker, result(blocking=False), CONFIG, now=NOW)
    assert refused.value.message == (
        f"decision {DID} is blocking, and a re-filing may not lower it to blocking: false (its dependents wait "
        "for an owner's answer). Re-file it with blocking: true, or ask the owner to answer it."
    )


def test_a_re_filing_may_not_change_the_question_while_an_answer_is_being_recorded() -> None:
    tracker = MemoryTracker()
    lifecycle.park(tracker, result(), CONFIG, now=NOW)
    tracker.answers[DID] = Answer(value="full_original", by="alice", at=NOW)  # step (a) done, the rest not yet
    with pytest.raises(Refused) as refused:
        lifecycle.park(tracker, result(question="Refund nothing at all?"), CONFIG, now=NOW)
    assert refused.value.message == (
        f"decision {DID} is being answered ('full_original' by alice); a re-filing may not change its question or "
        "options now. Re-file it unchanged, or file a new question under another key."
    )
